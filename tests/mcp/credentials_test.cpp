// MCP OAuth tokens in the providers' credential store (agentkit/mcp_credentials.hpp).
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp_credentials.hpp"
#include "mcp_test_support.hpp"
#include "oauth_peers.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

TEST_CASE(
    "OAuth tokens kept in the credential store survive the client, and refresh as the same "
    "client") {
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

  // Expiring: refreshed at the stored endpoint, as the stored client.
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

namespace {

void age(providers::CredentialStore& credentials) {
  REQUIRE(credentials.modify("mcp:hosted",
                             [](const std::optional<providers::StoredCredential>& c)
                                 -> Result<std::optional<providers::StoredCredential>> {
                               auto next = c;
                               next->expires_at = std::chrono::system_clock::now() + 1s;
                               return next;
                             }));
}

struct StoredFlow {
  mcp_test::AuthServer auth;
  mcp_test::ProtectedServer resource{auth};
  mcp::LoopbackRedirect redirect = mcp::LoopbackRedirect::start().value();
  std::shared_ptr<providers::MemoryCredentialStore> credentials =
      std::make_shared<providers::MemoryCredentialStore>();

  // A new process: a new client object (and token store object) over the same credentials.
  Result<mcp::Client> connect() {
    mcp::ClientOptions options = mcp_test::quick_options();
    options.authorize = redirect.authorizer(auth.browser());
    options.tokens = mcp_token_store(credentials);
    mcp::ServerConfig config{
        .name = "hosted",
        .transport =
            mcp::HttpTarget{.url = resource.url(),
                            .oauth = mcp::OAuthSettings{.redirect_uri = redirect.redirect_uri()}},
        .negotiation = mcp::Negotiation::legacy};
    return mcp::Client::connect(config, options);
  }
};

}  // namespace

TEST_CASE(
    "the credential store keeps a dynamic registration with the tokens: a new client refreshes "
    "without registering or logging in again") {
  StoredFlow f;
  f.auth.issue_secret = "registered-secret-0123456789";
  REQUIRE(f.connect());
  auto client_entry = f.credentials->load("mcp-client:hosted").value();
  REQUIRE(client_entry);
  CHECK(client_entry->kind == providers::StoredCredential::Kind::api_key);
  // The record holds the client secret, so it lives in a Secret, never in a plain field.
  CHECK(client_entry->base_url.empty());
  auto record = json::parse(client_entry->api_key.reveal());
  REQUIRE(record);
  CHECK(record->find("client_id")->as_string() == "client-1");
  CHECK(record->find("client_secret")->as_string() == "registered-secret-0123456789");
  CHECK(record->find("issuer")->as_string() == f.auth.issuer());
  CHECK(client_entry->api_key.redacted().find("registered-secret") == std::string::npos);

  age(*f.credentials);
  auto second = f.connect();
  REQUIRE(second);
  REQUIRE(second->call_tool("echo", json::Object{{"text", "t"}}));
  CHECK(f.auth.refresh_grants.load() == 1);
  CHECK(f.auth.code_grants.load() == 1);
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.registered_clients.size() == 1);
}

TEST_CASE(
    "through the credential store a new client notices the resource moved by the stored issuer, "
    "and forgets the old server's tokens") {
  StoredFlow f;
  REQUIRE(f.connect());
  mcp_test::AuthServer moved;
  moved.client_prefix = "new-";
  f.resource.moved_to = &moved;
  auto second = f.connect();
  REQUIRE(second);
  CHECK(f.auth.refresh_grants.load() == 0);
  {
    std::lock_guard lock(moved.mu);
    CHECK(moved.registered_clients == std::vector<std::string>{"new-1"});
    // The old server's refresh token went nowhere: not back to it, not to the new one.
    for (auto& form : moved.token_forms) CHECK(form["grant_type"] == "authorization_code");
  }
  auto record = json::parse(f.credentials->load("mcp-client:hosted").value()->api_key.reveal());
  REQUIRE(record);
  CHECK(record->find("issuer")->as_string() == moved.issuer());
  CHECK(record->find("client_id")->as_string() == "new-1");
}
