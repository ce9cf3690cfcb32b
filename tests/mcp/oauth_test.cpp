// OAuth 2.1 for remote MCP servers: the whole flow against a loopback authorization server and a
// protected MCP server (tests/mcp/oauth_peers.cpp), each rule with the misbehaviour that breaks it,
// and the parsers of what those servers send.
#include <thread>

#include "agentkit/base/base64.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/config.hpp"
#include "agentkit/mcp/oauth.hpp"
#include "mcp_test_support.hpp"
#include "oauth_peers.hpp"
#include "oauth_wire.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

struct Flow {
  mcp_test::AuthServer auth;
  mcp_test::ProtectedServer resource{auth};
  mcp::LoopbackRedirect redirect = mcp::LoopbackRedirect::start().value();
  std::shared_ptr<mcp::MemoryTokenStore> store = std::make_shared<mcp::MemoryTokenStore>();

  mcp::ClientOptions options() {
    auto o = mcp_test::quick_options();
    o.request_timeout = 5s;
    o.authorize = redirect.authorizer(auth.browser());
    o.tokens = store;
    return o;
  }
  mcp::ServerConfig config(mcp::OAuthSettings settings = {}) {
    if (settings.redirect_uri.empty()) settings.redirect_uri = redirect.redirect_uri();
    return mcp::ServerConfig{
        .name = "hosted",
        .transport = mcp::HttpTarget{.url = resource.url(), .oauth = std::move(settings)},
        .negotiation = mcp::Negotiation::legacy};
  }
  Result<mcp::Client> connect(mcp::OAuthSettings settings = {}) {
    return mcp::Client::connect(config(std::move(settings)), options());
  }
};

std::string first_text(const mcp::CallResult& r) {
  return r.content.at(0).find("text")->as_string();
}

bool mentions(const Error& e, std::string_view text) {
  return e.message.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE(
    "a 401 runs the whole OAuth flow: metadata, registration, PKCE S256, resource on every "
    "request") {
  Flow f;
  auto client = f.connect();
  REQUIRE(client);
  auto r = client->call_tool("echo", json::Object{{"text", "hi"}});
  REQUIRE(r);
  CHECK(first_text(*r) == "echo hi");

  std::lock_guard lock(f.auth.mu);
  REQUIRE(f.auth.registered_clients.size() == 1);
  REQUIRE(f.auth.authorize_queries.size() == 1);
  auto& q = f.auth.authorize_queries[0];
  CHECK(q["code_challenge_method"] == "S256");
  CHECK(q["code_challenge"].size() == 43);
  CHECK(q["resource"] == f.resource.url());
  CHECK(q["scope"] == "mcp:tools");  // the challenge's scope
  CHECK(q["client_id"] == f.auth.registered_clients[0]);
  CHECK(q["redirect_uri"] == f.redirect.redirect_uri());
  CHECK(q["state"].size() >= 22);
  REQUIRE(f.auth.token_forms.size() == 1);
  CHECK(f.auth.token_forms[0]["resource"] == f.resource.url());
  CHECK(f.auth.token_forms[0]["grant_type"] == "authorization_code");
  CHECK(f.auth.code_grants.load() == 1);
  // The access token went to the resource, and never to the authorization server.
  CHECK(f.auth.authorization_headers.empty());
  auto stored = f.store->load("hosted").value();
  REQUIRE(stored);
  CHECK(stored->resource == f.resource.url());
  CHECK(client->diagnostics().transport.find(stored->access_token) == std::string::npos);
  for (const auto& note : client->diagnostics().notes)
    CHECK(note.find(stored->access_token) == std::string::npos);
}

TEST_CASE("without resource_metadata in the challenge the well-known location is read") {
  Flow f;
  f.resource.name_metadata = false;
  auto client = f.connect();
  REQUIRE(client);
  CHECK(client->call_tool("echo", json::Object{{"text", "x"}}));
}

TEST_CASE(
    "without a scope in the challenge the client asks for scopes_supported, or its configured "
    "scopes") {
  Flow f;
  f.resource.challenge_scope = "";
  f.auth.scopes_supported = {"mcp:tools", "mcp:read"};
  REQUIRE(f.connect());
  {
    std::lock_guard lock(f.auth.mu);
    CHECK(f.auth.authorize_queries.back()["scope"] == "mcp:tools mcp:read");
  }
  Flow g;
  g.resource.challenge_scope = "";
  REQUIRE(g.connect({.scopes = {"custom"}}));
  std::lock_guard lock(g.auth.mu);
  CHECK(g.auth.authorize_queries.back()["scope"] == "custom");
}

TEST_CASE(
    "a pre-registered client id skips registration; a client ID metadata document is used where "
    "supported") {
  Flow f;
  REQUIRE(f.connect({.client_id = "preset-id"}));
  {
    std::lock_guard lock(f.auth.mu);
    CHECK(f.auth.registered_clients.empty());
    CHECK(f.auth.authorize_queries.back()["client_id"] == "preset-id");
  }
  Flow g;
  g.auth.cimd_supported = true;
  REQUIRE(g.connect({.client_metadata_url = "https://app.example/client.json"}));
  std::lock_guard lock(g.auth.mu);
  CHECK(g.auth.registered_clients.empty());
  CHECK(g.auth.authorize_queries.back()["client_id"] == "https://app.example/client.json");
}

TEST_CASE(
    "a client secret goes in a Basic header, or in the form when the server offers only "
    "client_secret_post") {
  Flow f;
  f.auth.issue_secret = "s3cret";
  REQUIRE(f.connect());
  {
    std::lock_guard lock(f.auth.mu);
    REQUIRE(f.auth.authorization_headers.size() == 1);
    CHECK(f.auth.authorization_headers[0] == "Basic " + base64::encode("client-1:s3cret"));
    CHECK(f.auth.token_forms.back().count("client_secret") == 0);
  }
  Flow g;
  g.auth.issue_secret = "s3cret";
  g.auth.auth_methods = {"client_secret_post"};
  REQUIRE(g.connect());
  {
    std::lock_guard lock(g.auth.mu);
    CHECK(g.auth.authorization_headers.empty());
    CHECK(g.auth.token_forms.back()["client_secret"] == "s3cret");
  }
  Flow h;  // a pre-registered confidential client
  REQUIRE(h.connect({.client_id = "preset", .client_secret = "pw"}));
  std::lock_guard lock(h.auth.mu);
  CHECK(h.auth.registered_clients.empty());
  REQUIRE(h.auth.authorization_headers.size() == 1);
  CHECK(h.auth.authorization_headers[0] == "Basic " + base64::encode("preset:pw"));
}

TEST_CASE("dynamic registration says application_type native for a loopback redirect") {
  Flow f;
  REQUIRE(f.connect());
  std::lock_guard lock(f.auth.mu);
  REQUIRE(f.auth.registration_requests.size() == 1);
  const json::Value* type = f.auth.registration_requests[0].find("application_type");
  REQUIRE(type);
  CHECK(type->as_string() == "native");
}

TEST_CASE(
    "a redirect whose iss is not the issuer, or lacks the iss the server promised, is refused "
    "before its code is exchanged") {
  Flow f;
  f.auth.iss_in_redirect = f.auth.issuer() + "/";  // compared as a string: no normalising
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "issuer (iss)"));
  {
    std::lock_guard lock(f.auth.mu);
    CHECK(f.auth.token_forms.empty());
  }
  Flow g;
  g.auth.advertise_iss = true;
  auto missing = g.connect();
  REQUIRE(!missing);
  CHECK(mentions(missing.error(), "is missing"));
  Flow h;
  h.auth.advertise_iss = true;
  h.auth.iss_in_redirect = h.auth.issuer();
  CHECK(h.connect());
}

TEST_CASE("authorization server metadata for another issuer is refused before any token request") {
  Flow f;
  f.auth.metadata_issuer = "http://127.0.0.1:1/evil";
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "MCP server 'hosted'"));
  CHECK(mentions(client.error(), "issuer"));
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.token_forms.empty());
  CHECK(f.auth.authorize_queries.empty());
}

TEST_CASE("an authorization server without PKCE S256 is refused") {
  Flow f;
  f.auth.offer_s256 = false;
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "S256"));
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.authorize_queries.empty());
}

TEST_CASE("protected-resource metadata for another resource is refused") {
  Flow f;
  f.resource.metadata_resource = "http://127.0.0.1:1/mcp";
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "another resource"));
}

TEST_CASE("a token endpoint answering HTML is a clear error naming the server") {
  Flow f;
  f.auth.token_answers_html = true;
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "MCP server 'hosted'"));
  CHECK(mentions(client.error(), "text/html"));
}

TEST_CASE("a redirect with the wrong state is refused and its code never exchanged") {
  Flow f;
  f.auth.forge_state = true;
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "wrong state"));
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.token_forms.empty());
}

TEST_CASE(
    "a server that refuses every token fails as a 401 loop after a bounded number of logins") {
  Flow f;
  f.resource.refuse_all = true;
  auto client = f.connect();
  REQUIRE(!client);
  CHECK(mentions(client.error(), "401 loop"));
  CHECK(f.auth.code_grants.load() <= 2);
  CHECK(f.resource.challenges.load() <= 3);
}

TEST_CASE("a 403 insufficient_scope steps up to the wider scope, and gives up after max_step_ups") {
  Flow f;
  f.resource.write_scope = "mcp:write";  // the challenge names only the new scope
  auto client = f.connect();
  REQUIRE(client);
  auto r = client->call_tool("echo", json::Object{{"text", "w"}});
  REQUIRE(r);
  {
    std::lock_guard lock(f.auth.mu);
    REQUIRE(f.auth.authorize_queries.size() == 2);
    CHECK(f.auth.authorize_queries[1]["scope"] ==
          "mcp:tools mcp:write");  // what was granted, plus it
  }
  Flow g;
  g.resource.write_scope = "mcp:write";
  g.resource.step_up_forever = true;
  auto stuck = g.connect();
  REQUIRE(stuck);
  auto refused = stuck->call_tool("echo", json::Object{});
  REQUIRE(!refused);
  CHECK(mentions(refused.error(), "insufficient_scope"));
  CHECK(g.auth.code_grants.load() == 1 + 2);  // the login, then two step-ups
}

TEST_CASE(
    "a token close to expiry is refreshed once, however many calls need it at the same time") {
  Flow f;
  f.auth.first_expires_in = 61;  // just outside the 60 s margin
  f.auth.refresh_delay = 300ms;  // every caller arrives while the refresh is still running
  auto client = f.connect();
  REQUIRE(client);
  CHECK(f.auth.refresh_grants.load() == 0);
  std::this_thread::sleep_for(1500ms);  // now inside it: the next use refreshes
  std::vector<std::thread> callers;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&] {
      if (client->call_tool("echo", json::Object{{"text", "p"}})) ++ok;
    });
  }
  for (auto& t : callers) t.join();
  CHECK(ok.load() == 8);
  CHECK(f.auth.refresh_grants.load() == 1);
  CHECK(f.auth.code_grants.load() == 1);
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.token_forms.back()["resource"] == f.resource.url());
}

TEST_CASE(
    "a resource that moves to another authorization server gets a new registration there, and "
    "nothing of the old server is sent to the new one") {
  Flow f;
  f.auth.client_prefix = "old-";
  auto client = f.connect();
  REQUIRE(client);
  REQUIRE(client->call_tool("echo", json::Object{{"text", "before"}}));
  mcp_test::AuthServer moved;
  moved.client_prefix = "new-";
  f.resource.moved_to = &moved;
  auto r = client->call_tool("echo", json::Object{{"text", "after"}});
  REQUIRE(r);
  CHECK(first_text(*r) == "echo after");
  std::lock_guard lock(moved.mu);
  REQUIRE(moved.registered_clients.size() == 1);
  REQUIRE(moved.authorize_queries.size() == 1);
  CHECK(moved.authorize_queries[0]["client_id"] == "new-1");
  REQUIRE(moved.token_forms.size() == 1);
  CHECK(moved.token_forms[0]["grant_type"] == "authorization_code");
  for (auto& form : moved.token_forms) CHECK(form["client_id"].rfind("old-", 0) != 0);
  // The old server's refresh token was not spent at the old server either: it is void now.
  CHECK(f.auth.refresh_grants.load() == 0);
}

namespace {

// Makes the stored tokens of "hosted" expire in a second, as if the run that obtained them ended
// an hour ago.
void age_stored_tokens(mcp::OAuthTokenStore& store) {
  auto stored = store.load("hosted").value();
  REQUIRE(stored);
  stored->expires_at = std::chrono::system_clock::now() + 1s;
  REQUIRE(store.save("hosted", stored));
}

std::string basic(std::string_view id, std::string_view secret) {
  return "Basic " + base64::encode(std::string(id) + ":" + std::string(secret));
}

}  // namespace

TEST_CASE(
    "a new client over the same token store refreshes as the dynamically registered client, "
    "secret and all") {
  Flow f;
  f.auth.issue_secret = "registered-secret-0123456789";
  {
    auto first = f.connect();
    REQUIRE(first);
    REQUIRE(first->call_tool("echo", json::Object{{"text", "one"}}));
  }
  age_stored_tokens(*f.store);
  // A new process: a new client object over the same store.
  auto second = f.connect();
  REQUIRE(second);
  REQUIRE(second->call_tool("echo", json::Object{{"text", "two"}}));
  CHECK(f.auth.refresh_grants.load() == 1);
  CHECK(f.auth.code_grants.load() == 1);
  {
    std::lock_guard lock(f.auth.mu);
    CHECK(f.auth.registered_clients == std::vector<std::string>{"client-1"});
    REQUIRE(f.auth.authorization_headers.size() == 2);  // the code exchange, then the refresh
    CHECK(f.auth.authorization_headers[1] == basic("client-1", "registered-secret-0123456789"));
  }
  auto stored = f.store->load("hosted").value();
  REQUIRE(stored);
  CHECK(stored->issuer == f.auth.issuer());
  CHECK(stored->client_id == "client-1");
  CHECK(stored->registered_redirect_uri == f.redirect.redirect_uri());
  for (const auto& note : second->diagnostics().notes)
    CHECK(note.find("registered-secret") == std::string::npos);
}

TEST_CASE(
    "a pre-registered client's secret is not copied into the token store, and a restart still "
    "refreshes with it") {
  Flow f;
  {
    auto first = f.connect({.client_id = "preset", .client_secret = "preset-secret"});
    REQUIRE(first);
  }
  auto stored = f.store->load("hosted").value();
  REQUIRE(stored);
  CHECK(stored->client_id == "preset");
  CHECK(stored->client_secret.empty());
  CHECK(stored->registered_redirect_uri.empty());
  age_stored_tokens(*f.store);
  auto second = f.connect({.client_id = "preset", .client_secret = "preset-secret"});
  REQUIRE(second);
  CHECK(f.auth.refresh_grants.load() == 1);
  CHECK(f.auth.code_grants.load() == 1);
  std::lock_guard lock(f.auth.mu);
  REQUIRE(f.auth.authorization_headers.size() == 2);  // the code exchange, then the refresh
  CHECK(f.auth.authorization_headers[1] == basic("preset", "preset-secret"));
}

TEST_CASE(
    "after a restart a refused refresh logs in again as the same registered client, from a new "
    "loopback port") {
  Flow f;
  f.auth.issue_secret = "registered-secret-0123456789";
  REQUIRE(f.connect());
  age_stored_tokens(*f.store);
  f.auth.refuse_refresh = true;
  // The new process listens for its redirect on another port.
  auto redirect = mcp::LoopbackRedirect::start().value();
  REQUIRE(redirect.redirect_uri() != f.redirect.redirect_uri());
  auto options = f.options();
  options.authorize = redirect.authorizer(f.auth.browser());
  auto second = mcp::Client::connect(f.config({.redirect_uri = redirect.redirect_uri()}), options);
  REQUIRE(second);
  CHECK(f.auth.code_grants.load() == 2);
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.registered_clients == std::vector<std::string>{"client-1"});
  REQUIRE(f.auth.authorize_queries.size() == 2);
  CHECK(f.auth.authorize_queries[1]["client_id"] == "client-1");
  CHECK(f.auth.authorize_queries[1]["redirect_uri"] == redirect.redirect_uri());
}

TEST_CASE(
    "a new client notices from the stored issuer that the resource moved, and never refreshes at "
    "the old authorization server") {
  for (bool preset : {false, true}) {
    INFO((preset ? "pre-registered client" : "dynamically registered client"));
    const mcp::OAuthSettings settings =
        preset ? mcp::OAuthSettings{.client_id = "preset"} : mcp::OAuthSettings{};
    Flow f;
    f.auth.client_prefix = "old-";
    REQUIRE(f.connect(settings));
    mcp_test::AuthServer moved;
    moved.client_prefix = "new-";
    f.resource.moved_to = &moved;
    auto second = f.connect(settings);
    REQUIRE(second);
    REQUIRE(second->call_tool("echo", json::Object{{"text", "after"}}));
    CHECK(f.auth.refresh_grants.load() == 0);
    CHECK(f.auth.code_grants.load() == 1);
    {
      std::lock_guard lock(moved.mu);
      CHECK(moved.registered_clients ==
            (preset ? std::vector<std::string>{} : std::vector<std::string>{"new-1"}));
      for (auto& form : moved.token_forms) CHECK(form["grant_type"] == "authorization_code");
    }
    auto stored = f.store->load("hosted").value();
    REQUIRE(stored);
    CHECK(stored->issuer == moved.issuer());
    CHECK(stored->client_id == (preset ? "preset" : "new-1"));
  }
}

TEST_CASE(
    "a resource found moved erases the old server's tokens from the store, even when the new login "
    "fails") {
  Flow f;
  REQUIRE(f.connect());
  REQUIRE(f.store->load("hosted").value());
  mcp_test::AuthServer moved;
  moved.offer_s256 = false;  // the new server cannot be logged into
  f.resource.moved_to = &moved;
  auto second = f.connect();
  REQUIRE(!second);
  CHECK(mentions(second.error(), "S256"));
  CHECK(!f.store->load("hosted").value());  // a later run does not load the void tokens again
  CHECK(f.auth.refresh_grants.load() == 0);
}

TEST_CASE(
    "the client_credentials grant trades the id and secret for a token: no browser, no "
    "registration, no PKCE") {
  Flow f;
  f.auth.robot_id = "robot";
  f.auth.robot_secret = "s3cret:x";
  f.auth.offer_s256 = false;  // PKCE guards codes; this grant has none
  auto options = f.options();
  options.authorize = nullptr;  // nobody to ask
  options.getenv = [](std::string_view name) {
    return name == "ROBOT_SECRET" ? std::optional<std::string>("s3cret:x") : std::nullopt;
  };
  mcp::ServerConfig config = f.config({.client_id = "robot",
                                       .client_secret = "${ROBOT_SECRET}",
                                       .grant = mcp::OAuthGrant::client_credentials});
  auto client = mcp::Client::connect(config, options);
  INFO((client ? std::string() : client.error().message));
  REQUIRE(client);
  auto r = client->call_tool("echo", json::Object{{"text", "m2m"}});
  REQUIRE(r);
  CHECK(first_text(*r) == "echo m2m");
  CHECK(f.auth.credential_grants.load() == 1);
  CHECK(f.auth.code_grants.load() == 0);
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.registered_clients.empty());
  CHECK(f.auth.authorize_queries.empty());
  REQUIRE(f.auth.token_forms.size() == 1);
  CHECK(f.auth.token_forms[0]["resource"] == f.resource.url());
  CHECK(f.auth.token_forms[0]["scope"] == "mcp:tools");
  CHECK(f.auth.token_forms[0].count("client_secret") == 0);  // in the Basic header only
}

TEST_CASE("the client_credentials grant without a secret is refused before anything is sent") {
  Flow f;
  auto r = f.connect({.client_id = "robot", .grant = mcp::OAuthGrant::client_credentials});
  REQUIRE_FALSE(r);
  CHECK(mentions(r.error(), "client_secret"));
  std::lock_guard lock(f.auth.mu);
  CHECK(f.auth.token_forms.empty());
}

TEST_CASE(
    "a stored token for another resource is never sent; one for this resource is used without a "
    "login") {
  Flow f;
  mcp::OAuthTokens foreign{.access_token = "foreign-token", .resource = "http://127.0.0.1:1/mcp"};
  REQUIRE(f.store->save("hosted", foreign));
  REQUIRE(f.connect());
  {
    std::lock_guard lock(f.resource.mu);
    for (const auto& b : f.resource.bearers_seen)
      CHECK(b.find("foreign-token") == std::string::npos);
  }
  CHECK(f.auth.code_grants.load() == 1);
  // A second client with the same store reuses the token: no second login.
  auto again = mcp::Client::connect(f.config(), f.options());
  REQUIRE(again);
  CHECK(f.auth.code_grants.load() == 1);
}

TEST_CASE("a server that needs a login without ClientOptions::authorize fails saying what to set") {
  Flow f;
  auto options = f.options();
  options.authorize = {};
  auto client = mcp::Client::connect(f.config(), options);
  REQUIRE(!client);
  CHECK(mentions(client.error(), "ClientOptions::authorize"));
}

TEST_CASE("a login that never completes is bounded by the request timeout") {
  Flow f;
  auto options = f.options();
  options.request_timeout = 300ms;
  options.authorize = f.redirect.authorizer([](std::string_view) {});  // the user never comes back
  const auto start = std::chrono::steady_clock::now();
  auto client = mcp::Client::connect(f.config(), options);
  REQUIRE(!client);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("the mcpServers JSON configures OAuth and the SSE transport") {
  auto servers = mcp::parse_servers_config(R"({"mcpServers": {
      "hosted": {"url": "https://mcp.example.com/mcp",
                 "oauth": {"clientId": "abc", "scopes": ["a", "b"],
                           "redirectUri": "http://127.0.0.1:8765/cb",
                           "clientMetadataUrl": "https://app.example/c.json"}},
      "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}})");
  REQUIRE(servers);
  const auto& hosted = std::get<mcp::HttpTarget>(servers->at(0).transport);
  REQUIRE(hosted.oauth);
  CHECK(hosted.oauth->client_id == "abc");
  CHECK(hosted.oauth->scopes == std::vector<std::string>{"a", "b"});
  CHECK(hosted.oauth->redirect_uri == "http://127.0.0.1:8765/cb");
  CHECK(hosted.oauth->client_metadata_url == "https://app.example/c.json");
  CHECK(hosted.kind == mcp::HttpKind::streamable);
  CHECK(std::get<mcp::HttpTarget>(servers->at(1).transport).kind == mcp::HttpKind::sse);
  auto bad = mcp::parse_servers_config(R"({"mcpServers": {"x": {"command": "a", "oauth": {}}}})");
  REQUIRE(!bad);
  CHECK(mentions(bad.error(), "'x'"));
}

TEST_CASE(
    "the mcpServers JSON reads a client secret (a ${VAR} reference) and the client_credentials "
    "grant") {
  auto servers = mcp::parse_servers_config(R"({"mcpServers": {
      "robot": {"url": "https://mcp.example.com/mcp",
                "oauth": {"clientId": "r", "clientSecret": "${AGENTKIT_TEST_ROBOT_SECRET}",
                          "grant": "client_credentials"}}}})");
  REQUIRE(servers);
  const auto& target = std::get<mcp::HttpTarget>(servers->at(0).transport);
  REQUIRE(target.oauth);
  // Kept as written: like header values it resolves when the server is connected.
  CHECK(target.oauth->client_secret == "${AGENTKIT_TEST_ROBOT_SECRET}");
  CHECK(target.oauth->grant == mcp::OAuthGrant::client_credentials);
  auto bad = mcp::parse_servers_config(R"({"mcpServers": {
      "robot": {"url": "https://mcp.example.com/mcp", "oauth": {"grant": "password"}}}})");
  REQUIRE_FALSE(bad);
  CHECK(mentions(bad.error(), "\"password\" is not supported"));
}

// ---- Parsers ---------------------------------------------------------------------------------

TEST_CASE("WWW-Authenticate: several challenges, quoted and token values, escapes, token68") {
  auto parsed = mcp::detail::parse_www_authenticate(
      R"(Basic realm="x", Bearer )"
      R"(resource_metadata="https://h/.well-known/oauth-protected-resource", )"
      R"(scope="a b", error=insufficient_scope, Negotiate abc==)");
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 3);
  auto bearer = mcp::detail::bearer_challenge(*parsed);
  REQUIRE(bearer);
  CHECK(bearer->param("resource_metadata") ==
        std::optional<std::string>("https://h/.well-known/oauth-protected-resource"));
  CHECK(bearer->param("SCOPE") == std::optional<std::string>("a b"));
  CHECK(bearer->param("error") == std::optional<std::string>("insufficient_scope"));
  CHECK((*parsed)[2].token68 == "abc==");
  auto escaped = mcp::detail::parse_www_authenticate(R"(Bearer realm="a \"b\" c")");
  REQUIRE(escaped);
  CHECK((*escaped)[0].param("realm") == std::optional<std::string>("a \"b\" c"));
}

TEST_CASE("WWW-Authenticate: malformed and over-long values are errors, never guesses") {
  CHECK_FALSE(mcp::detail::parse_www_authenticate(R"(Bearer realm="open)"));
  CHECK_FALSE(mcp::detail::parse_www_authenticate("Bearer realm=\"a\x01\""));
  CHECK_FALSE(
      mcp::detail::parse_www_authenticate(std::string(mcp::detail::kMaxChallengeBytes + 1, 'a')));
  std::string many = "Bearer ";
  for (std::size_t i = 0; i <= mcp::detail::kMaxChallengeParams; ++i)
    many += "p" + std::to_string(i) + "=v, ";
  CHECK_FALSE(mcp::detail::parse_www_authenticate(many));
}

TEST_CASE(
    "metadata documents: required members checked, other members tolerated, bounds enforced") {
  CHECK(mcp::detail::parse_resource_metadata(
      R"({"resource":"https://r/mcp","authorization_servers":["https://a"],"x":1})"));
  CHECK_FALSE(mcp::detail::parse_resource_metadata(R"({"resource":"https://r/mcp"})"));
  CHECK_FALSE(mcp::detail::parse_resource_metadata(
      R"({"resource":1,"authorization_servers":["https://a"]})"));
  CHECK_FALSE(mcp::detail::parse_server_metadata(
      R"({"issuer":"https://a","token_endpoint":"https://a/t"})"));
  CHECK_FALSE(mcp::detail::parse_token_answer(R"({"access_token":"t","token_type":"mac"})"));
  CHECK_FALSE(mcp::detail::parse_token_answer(
      R"({"access_token":"t","token_type":"Bearer","expires_in":-1})"));
  CHECK_FALSE(mcp::detail::parse_token_answer("<html></html>"));
  CHECK_FALSE(mcp::detail::parse_resource_metadata(
      std::string(mcp::detail::kMaxOAuthDocumentBytes + 1, ' ')));
}
