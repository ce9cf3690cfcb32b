// MCP OAuth tokens in the providers' credential store (agentkit/mcp_credentials.hpp).
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp_credentials.hpp"
#include "mcp_test_support.hpp"
#include "oauth_peers.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

TEST_CASE(
    "OAuth tokens kept in the credential store survive the client, and refresh after rediscovery") {
  mcp_test::AuthServer auth;
  mcp_test::ProtectedServer resource{auth};
  auto redirect = mcp::LoopbackRedirect::start().value();
  auto credentials = std::make_shared<providers::MemoryCredentialStore>();
  mcp::ClientOptions options = mcp_test::quick_options();
  options.authorize = redirect.authorizer(auth.browser());
  options.tokens = mcp_token_store(credentials);
  mcp::ServerConfig config{
      .name = "hosted",
      .transport =
          mcp::HttpTarget{.url = resource.url(),
                          .oauth = mcp::OAuthSettings{.client_id = "preset",
                                                      .redirect_uri = redirect.redirect_uri()}},
      .negotiation = mcp::Negotiation::legacy};
  {
    auto client = mcp::Client::connect(config, options);
    REQUIRE(client);
  }
  auto stored = credentials->load("mcp:hosted").value();
  REQUIRE(stored);
  CHECK(stored->kind == providers::StoredCredential::Kind::oauth);
  CHECK(stored->base_url == resource.url());
  CHECK(!stored->access_token.empty());
  CHECK(auth.code_grants.load() == 1);

  // A later run: the stored token is used as it is, no second login.
  auto again = mcp::Client::connect(config, options);
  REQUIRE(again);
  CHECK(auth.code_grants.load() == 1);

  // Expiring: refreshed with the endpoint found again from the metadata.
  REQUIRE(credentials->modify("mcp:hosted",
                              [](const std::optional<providers::StoredCredential>& c)
                                  -> Result<std::optional<providers::StoredCredential>> {
                                auto next = c;
                                next->expires_at = std::chrono::system_clock::now() + 1s;
                                return next;
                              }));
  auto third = mcp::Client::connect(config, options);
  REQUIRE(third);
  CHECK(third->call_tool("echo", json::Object{{"text", "t"}}));
  CHECK(auth.refresh_grants.load() == 1);
  CHECK(auth.code_grants.load() == 1);
}
