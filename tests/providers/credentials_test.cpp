// Credentials (REQ-AUTH-01..07): redaction, the vendor order of environment variables, stores with
// per-vendor serialisation, and OAuth refresh double-checked under the vendor's lock.
#include <sys/stat.h>

#include <atomic>
#include <latch>
#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

#include "agentkit/base/strings.hpp"
#include "agentkit/providers/credentials.hpp"
#include "agentkit/wire/decode.hpp"
#include "provider_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::providers;
using namespace std::chrono_literals;

namespace {

const std::string kLongKey = "sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF-wxyz";

Model model_of(const std::string& spec) { return catalog::Catalog::builtin().resolve(spec).value(); }

std::optional<std::string> header_value(const ModelAuth& auth, std::string_view name) {
  for (const auto& [n, v] : auth.headers) {
    if (iequals(n, name)) return v;
  }
  return std::nullopt;
}

CredentialOptions with_env(std::map<std::string, std::string, std::less<>> vars) {
  CredentialOptions o;
  o.environment = fixed_environment(std::move(vars));
  return o;
}

StoredCredential oauth_token(std::string access, std::string refresh,
                             std::optional<std::chrono::system_clock::time_point> expires) {
  StoredCredential c;
  c.kind = StoredCredential::Kind::oauth;
  c.access_token = Secret(std::move(access));
  c.refresh_token = Secret(std::move(refresh));
  c.expires_at = expires;
  return c;
}

}  // namespace

// ---- Redaction ------------------------------------------------------------------------------------------

TEST_CASE("a secret is redacted to its first four and last four characters") {
  CHECK(redact(kLongKey) == "sk-a***wxyz");
  CHECK(Secret(kLongKey).redacted() == "sk-a***wxyz");
}

TEST_CASE("a short secret is hidden whole") {
  CHECK(redact("") == "***");
  CHECK(redact("abcdefghi") == "***");
  CHECK(redact("abcdefghijklmno") == "***");  // 15 characters: 8 of them would be most of it
  CHECK(redact("abcdefghijklmnop") == "abcd***mnop");
}

TEST_CASE("scrub removes every occurrence of every known secret from text and errors") {
  std::vector<Secret> secrets = {Secret(kLongKey), Secret("another-long-secret-value")};
  std::string text = "sent x-api-key: " + kLongKey + " and again " + kLongKey + " plus another-long-secret-value";
  std::string clean = scrub(text, secrets);
  CHECK(clean.find(kLongKey) == std::string::npos);
  CHECK(clean.find("another-long-secret-value") == std::string::npos);
  CHECK(clean.find("sk-a***wxyz") != std::string::npos);
  Error e = make_error(Errc::io_error, "connect failed for " + kLongKey).with_detail("header", kLongKey);
  Error scrubbed = scrub(e, secrets);
  CHECK(scrubbed.to_string().find(kLongKey) == std::string::npos);
}

// ---- Environment order (REQ-AUTH-03, erratum E2) ------------------------------------------------------------

TEST_CASE("Anthropic reads ANTHROPIC_API_KEY first and sends it as x-api-key") {
  CredentialResolver r(with_env({{"ANTHROPIC_AUTH_TOKEN", "token-tttttttttttttttt"}, {"ANTHROPIC_API_KEY", kLongKey}}));
  auto auth = r.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE(auth);
  CHECK(auth->state == CredentialState::key);
  CHECK(header_value(*auth, "x-api-key") == kLongKey);
  CHECK_FALSE(header_value(*auth, "Authorization"));
  CHECK(auth->source == "ANTHROPIC_API_KEY");
}

TEST_CASE("without an API key, ANTHROPIC_AUTH_TOKEN is a bearer, then ANTHROPIC_OAUTH_TOKEN adds the OAuth beta") {
  CredentialResolver auth_token(with_env({{"ANTHROPIC_AUTH_TOKEN", "tok"}, {"ANTHROPIC_OAUTH_TOKEN", "oat"}}));
  auto a = auth_token.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE(a);
  CHECK(header_value(*a, "Authorization") == "Bearer tok");
  CHECK_FALSE(header_value(*a, "anthropic-beta"));
  CredentialResolver oauth(with_env({{"ANTHROPIC_OAUTH_TOKEN", "oat"}}));
  auto o = oauth.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE(o);
  CHECK(header_value(*o, "Authorization") == "Bearer oat");
  CHECK(header_value(*o, "anthropic-beta") == "oauth-2025-04-20");
}

TEST_CASE("any sk-ant-oat bearer is an OAuth token, whichever variable held it") {
  CredentialResolver r(with_env({{"ANTHROPIC_AUTH_TOKEN", "sk-ant-oat01-abc"}}));
  auto a = r.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE(a);
  CHECK(header_value(*a, "anthropic-beta") == "oauth-2025-04-20");
}

TEST_CASE("an empty per-request override falls through to the process value") {
  CredentialResolver r(with_env({{"ANTHROPIC_API_KEY", kLongKey}}));
  EnvironmentLookup overridden = overlay_environment({{"ANTHROPIC_API_KEY", ""}}, fixed_environment({{"ANTHROPIC_API_KEY", kLongKey}}));
  auto a = r.resolve(model_of("anthropic/claude-sonnet-5-5"), {}, &overridden);
  REQUIRE(a);
  CHECK(header_value(*a, "x-api-key") == kLongKey);
  EnvironmentLookup replaced = overlay_environment({{"ANTHROPIC_API_KEY", "override-key"}}, fixed_environment({{"ANTHROPIC_API_KEY", kLongKey}}));
  CHECK(header_value(*r.resolve(model_of("anthropic/claude-sonnet-5-5"), {}, &replaced), "x-api-key") == "override-key");
}

TEST_CASE("each vendor reads its own variables with its own scheme") {
  CredentialResolver r(with_env({{"OPENAI_API_KEY", "o"}, {"GEMINI_API_KEY", "g"}, {"DEEPSEEK_API_KEY", "d"},
                                 {"OPENROUTER_API_KEY", "r"}, {"XAI_API_KEY", "x"}}));
  CHECK(header_value(*r.resolve(model_of("openai/gpt-6.2-sol")), "Authorization") == "Bearer o");
  CHECK(header_value(*r.resolve(model_of("google/gemini-4-argon")), "x-goog-api-key") == "g");
  CHECK(header_value(*r.resolve(model_of("deepseek/deepseek-v4-flash")), "Authorization") == "Bearer d");
  CHECK(header_value(*r.resolve(model_of("openrouter/openai/gpt-6.2-sol")), "Authorization") == "Bearer r");
  CHECK(header_value(*r.resolve(model_of("xai/grok-4.5")), "Authorization") == "Bearer x");
}

TEST_CASE("a missing required credential is an error naming the variables to set, before any I/O") {
  CredentialResolver r(with_env({}));
  auto a = r.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE_FALSE(a);
  CHECK(a.error().code == Errc::unauthenticated);
  CHECK(a.error().message.find("ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or ANTHROPIC_OAUTH_TOKEN") != std::string::npos);
  CHECK(r.status(model_of("anthropic/claude-sonnet-5-5")) == CredentialState::none);
}

TEST_CASE("a local server needs no credential and takes its base URL from the environment") {
  CredentialResolver r(with_env({{"OLLAMA_HOST", "192.168.1.7:11434"}}));
  auto a = r.resolve(model_of("ollama/qwen3"));
  REQUIRE(a);
  CHECK(a->state == CredentialState::none);
  CHECK(a->headers.empty());
  CHECK(a->base_url == "http://192.168.1.7:11434");
}

TEST_CASE("an ambient credential chain makes the vendor configured without a readable key") {
  CredentialOptions o = with_env({});
  o.ambient_vendors = {"google"};
  CredentialResolver r(o);
  CHECK(r.status(model_of("google/gemini-4-argon")) == CredentialState::ambient);
  auto a = r.resolve(model_of("google/gemini-4-argon"));
  REQUIRE(a);
  CHECK(a->state == CredentialState::ambient);
  CHECK(a->headers.empty());
}

TEST_CASE("a caller's resolver can authenticate with its own header and base URL only") {
  CredentialOptions o = with_env({{"ANTHROPIC_API_KEY", kLongKey}});
  o.resolvers["anthropic"] = [](const Model&, const AuthContext&) -> Result<ModelAuth> {
    ModelAuth auth;
    auth.state = CredentialState::key;
    auth.headers = {{"X-Gw-Key", "k"}};
    auth.base_url = "https://gw.test/v1";
    return auth;
  };
  CredentialResolver r(o);
  auto a = r.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE(a);
  CHECK(a->base_url == "https://gw.test/v1");
  CHECK(header_value(*a, "X-Gw-Key") == "k");
  CHECK_FALSE(header_value(*a, "x-api-key"));  // the resolver replaced the built-in order entirely
}

// ---- Stores ------------------------------------------------------------------------------------------------------

TEST_CASE("a stored API key is used when no variable is set, sent the vendor's way") {
  auto store = std::make_shared<MemoryCredentialStore>();
  REQUIRE(store->modify("anthropic", [](const auto&) -> Result<std::optional<StoredCredential>> {
    StoredCredential c;
    c.api_key = Secret(kLongKey);
    return std::optional<StoredCredential>(c);
  }));
  CredentialOptions o = with_env({});
  o.store = store;
  CredentialResolver r(o);
  auto a = r.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE(a);
  CHECK(header_value(*a, "x-api-key") == kLongKey);
  CHECK(a->source == "credential store");
}

TEST_CASE("the file store writes 0600 atomically and keeps other vendors and unknown members") {
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "creds" / "credentials.json";
  FileCredentialStore store(path);
  auto put = [&](std::string vendor, std::string key) {
    return store.modify(vendor, [key](const auto&) -> Result<std::optional<StoredCredential>> {
      StoredCredential c;
      c.api_key = Secret(key);
      return std::optional<StoredCredential>(c);
    });
  };
  REQUIRE(put("openai", "key-one"));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // An entry with a member this version does not know survives another vendor's write.
  std::string text = agentkit::testing::read_file(path);
  text.replace(text.find("\"type\""), 6, "\"extra\": 7, \"type\"");
  dir.write("creds/credentials.json", text);
  ::chmod(path.c_str(), 0600);
  REQUIRE(put("anthropic", "key-two"));
  auto doc = wire::decode(agentkit::testing::read_file(path));
  REQUIRE(doc);
  CHECK(doc->find("openai")->find("extra") != nullptr);
  CHECK(doc->find("anthropic")->find("key")->as_string() == "key-two");
  CHECK(store.load("openai").value()->api_key.reveal() == "key-one");
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path.parent_path())) ++files;
  CHECK(files == 1);
}

TEST_CASE("a credential file readable by others is refused") {
  agentkit::testing::TempDir dir;
  auto path = dir.write("credentials.json", R"({"openai": {"type": "api_key", "key": "k"}})");
  ::chmod(path.c_str(), 0644);
  FileCredentialStore store(path);
  auto c = store.load("openai");
  REQUIRE_FALSE(c);
  CHECK(c.error().code == Errc::permission_denied);
  CHECK(c.error().message.find("chmod 600") != std::string::npos);
}

TEST_CASE("a zero expiry in the file means the token never expires") {
  agentkit::testing::TempDir dir;
  auto path = dir.write("c.json", R"({"anthropic": {"type": "oauth", "access_token": "a", "refresh_token": "r", "expires_at": 0}})");
  ::chmod(path.c_str(), 0600);
  FileCredentialStore store(path);
  auto c = store.load("anthropic");
  REQUIRE(c);
  REQUIRE(*c);
  CHECK_FALSE((*c)->expires_at.has_value());
}

TEST_CASE("two modifies of one vendor never overlap, two vendors do, and the lock table empties") {
  MemoryCredentialStore store;
  std::atomic<int> inside_a{0}, max_inside_a{0}, inside_any{0}, max_inside_any{0};
  auto slow = [&](std::atomic<int>& inside, std::atomic<int>& max_inside) {
    return [&](const std::optional<StoredCredential>& c) -> Result<std::optional<StoredCredential>> {
      int now = ++inside;
      int any = ++inside_any;
      max_inside = std::max(max_inside.load(), now);
      max_inside_any = std::max(max_inside_any.load(), any);
      std::this_thread::sleep_for(30ms);
      --inside_any;
      --inside;
      return c;
    };
  };
  std::atomic<int> inside_b{0}, max_inside_b{0};
  {
    std::vector<agentkit::jthread> threads;
    for (int i = 0; i < 3; ++i) {
      threads.emplace_back([&] { (void)store.modify("a", slow(inside_a, max_inside_a)); });
      threads.emplace_back([&] { (void)store.modify("b", slow(inside_b, max_inside_b)); });
    }
  }
  CHECK(max_inside_a == 1);
  CHECK(max_inside_b == 1);
  CHECK(max_inside_any == 2);  // vendors a and b ran at the same time
  CHECK(store.locked_vendors() == 0);
}

// ---- OAuth refresh (REQ-AUTH-06) ----------------------------------------------------------------------------

TEST_CASE("N concurrent turns on an expired token cause exactly one refresh and all use the new token") {
  constexpr int kTurns = 16;
  auto clock = std::make_shared<ManualClock>(std::chrono::system_clock::now());
  auto store = std::make_shared<MemoryCredentialStore>();
  REQUIRE(store->modify("anthropic", [&](const auto&) -> Result<std::optional<StoredCredential>> {
    return std::optional<StoredCredential>(oauth_token("old-access", "refresh-1", clock->wall_now() + 2min));
  }));
  std::atomic<int> refreshes{0};
  std::latch all_started(kTurns);
  CredentialOptions o = with_env({});
  o.store = store;
  o.clock = clock;
  o.refreshers["anthropic"] = [&](const StoredCredential& current, const RefreshContext&) -> Result<StoredCredential> {
    ++refreshes;
    std::this_thread::sleep_for(20ms);  // the others pile up on the vendor's lock meanwhile
    StoredCredential fresh = current;
    fresh.access_token = Secret("new-access-" + std::to_string(refreshes.load()));
    fresh.refresh_token = Secret("refresh-2");  // the provider rotates the refresh token
    fresh.expires_at = clock->wall_now() + 1h;
    return fresh;
  };
  CredentialResolver resolver(o);
  std::vector<std::string> tokens(kTurns);
  {
    std::vector<agentkit::jthread> turns;
    for (int i = 0; i < kTurns; ++i) {
      turns.emplace_back([&, i] {
        all_started.arrive_and_wait();
        auto auth = resolver.resolve(model_of("anthropic/claude-sonnet-5-5"));
        tokens[static_cast<std::size_t>(i)] = auth ? auth->key.reveal() : auth.error().message;
      });
    }
  }
  CHECK(refreshes == 1);
  for (const auto& t : tokens) CHECK(t == "new-access-1");
  CHECK(store->load("anthropic").value()->refresh_token.reveal() == "refresh-2");
  CHECK(store->locked_vendors() == 0);
}

TEST_CASE("a token is refreshed five minutes before it expires, not earlier, and a zero expiry never") {
  auto clock = std::make_shared<ManualClock>(std::chrono::system_clock::now());
  auto store = std::make_shared<MemoryCredentialStore>();
  auto set = [&](std::optional<std::chrono::system_clock::time_point> expires) {
    REQUIRE(store->modify("anthropic", [&](const auto&) -> Result<std::optional<StoredCredential>> {
      return std::optional<StoredCredential>(oauth_token("access", "refresh", expires));
    }));
  };
  int refreshes = 0;
  CredentialOptions o = with_env({});
  o.store = store;
  o.clock = clock;
  o.refreshers["anthropic"] = [&](const StoredCredential& c, const RefreshContext&) -> Result<StoredCredential> {
    ++refreshes;
    StoredCredential fresh = c;
    fresh.expires_at = clock->wall_now() + 1h;
    return fresh;
  };
  CredentialResolver resolver(o);
  Model m = model_of("anthropic/claude-sonnet-5-5");
  set(clock->wall_now() + 5min + 1s);
  REQUIRE(resolver.resolve(m));
  CHECK(refreshes == 0);
  set(clock->wall_now() + 5min - 1s);
  REQUIRE(resolver.resolve(m));
  CHECK(refreshes == 1);
  set(std::nullopt);
  clock->advance(24h * 365);
  REQUIRE(resolver.resolve(m));
  CHECK(refreshes == 1);
}

TEST_CASE("a refresh that never answers fails after its 15 s timeout and releases the vendor's lock") {
  auto clock = std::make_shared<ManualClock>(std::chrono::system_clock::now());
  auto store = std::make_shared<MemoryCredentialStore>();
  REQUIRE(store->modify("anthropic", [&](const auto&) -> Result<std::optional<StoredCredential>> {
    return std::optional<StoredCredential>(oauth_token("access-token-value", "refresh-token-value", clock->wall_now() + 1min));
  }));
  CredentialOptions o = with_env({});
  o.store = store;
  o.clock = clock;
  CHECK(o.refresh_timeout == 15s);
  std::atomic<bool> refresher_running{false};
  o.refreshers["anthropic"] = [&](const StoredCredential&, const RefreshContext& ctx) -> Result<StoredCredential> {
    refresher_running = true;
    std::mutex m;
    agentkit::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, ctx.stop, [] { return false; });  // a token endpoint that never answers
    return make_error(Errc::cancelled, "gave up");
  };
  CredentialResolver resolver(o);
  Result<ModelAuth> result = make_error(Errc::internal, "not run");
  agentkit::jthread turn([&] { result = resolver.resolve(model_of("anthropic/claude-sonnet-5-5")); });
  // The refresher and the watchdog both wait; 14.999 s is not enough, 15 s is.
  while (!refresher_running) std::this_thread::yield();
  clock->wait_for_sleepers(1);
  clock->advance(14999ms);
  CHECK(clock->sleepers() == 1);
  clock->advance(1ms);
  turn.join();
  REQUIRE_FALSE(result);
  CHECK(result.error().code == Errc::timeout);
  CHECK(result.error().message.find("15000 ms") != std::string::npos);
  CHECK(store->locked_vendors() == 0);
  // The lock was released: another modify proceeds at once.
  CHECK(store->modify("anthropic", [](const auto& c) -> Result<std::optional<StoredCredential>> { return c; }));
}

TEST_CASE("one vendor's refresh never blocks another vendor's turn") {
  auto clock = std::make_shared<ManualClock>(std::chrono::system_clock::now());
  auto store = std::make_shared<MemoryCredentialStore>();
  for (const char* vendor : {"anthropic", "openai"}) {
    REQUIRE(store->modify(vendor, [&](const auto&) -> Result<std::optional<StoredCredential>> {
      return std::optional<StoredCredential>(oauth_token(std::string(vendor) + "-access", "r", clock->wall_now() + 1min));
    }));
  }
  std::latch anthropic_refreshing(1);
  std::latch release(1);
  CredentialOptions o = with_env({});
  o.store = store;
  o.clock = clock;
  auto refresher = [&](const StoredCredential& c, const RefreshContext& ctx) -> Result<StoredCredential> {
    StoredCredential fresh = c;
    if (ctx.vendor == "anthropic") {
      anthropic_refreshing.count_down();
      release.wait();
    }
    fresh.expires_at = clock->wall_now() + 1h;
    return fresh;
  };
  o.refreshers["anthropic"] = refresher;
  o.refreshers["openai"] = refresher;
  CredentialResolver resolver(o);
  agentkit::jthread slow([&] { (void)resolver.resolve(model_of("anthropic/claude-sonnet-5-5")); });
  anthropic_refreshing.wait();
  auto other = resolver.resolve(model_of("openai/gpt-6.2-sol"));  // must not wait for anthropic
  CHECK(other);
  release.count_down();
}

TEST_CASE("refresher errors reach the caller without the tokens in them") {
  auto clock = std::make_shared<ManualClock>(std::chrono::system_clock::now());
  auto store = std::make_shared<MemoryCredentialStore>();
  const std::string refresh = "rt-0123456789abcdefghij";
  REQUIRE(store->modify("anthropic", [&](const auto&) -> Result<std::optional<StoredCredential>> {
    return std::optional<StoredCredential>(oauth_token("at-0123456789abcdefghij", refresh, clock->wall_now()));
  }));
  CredentialOptions o = with_env({});
  o.store = store;
  o.clock = clock;
  o.refreshers["anthropic"] = [&](const StoredCredential& c, const RefreshContext&) -> Result<StoredCredential> {
    return make_error(Errc::unauthenticated, "token endpoint rejected refresh_token=" + c.refresh_token.reveal());
  };
  CredentialResolver resolver(o);
  auto a = resolver.resolve(model_of("anthropic/claude-sonnet-5-5"));
  REQUIRE_FALSE(a);
  CHECK(a.error().to_string().find(refresh) == std::string::npos);
  CHECK(a.error().message.find("rt-0***ghij") != std::string::npos);
}

TEST_CASE("the token endpoint refresher speaks the refresh-token grant to a real server") {
  agentkit::testing::ScriptedResponse ok;
  ok.status = 200;
  ok.headers = http::Headers({{"Content-Type", "application/json"}});
  ok.body = R"({"access_token": "fresh-access", "expires_in": 3600, "token_type": "Bearer"})";
  agentkit::testing::ScriptedServer server({ok});
  auto clock = std::make_shared<ManualClock>(std::chrono::system_clock::now());
  auto refresher = token_endpoint_refresher(std::make_shared<http::HttpClient>(), server.base_url() + "/oauth/token",
                                            "client 1", clock);
  StoredCredential current = oauth_token("old", "refresh/+=", clock->wall_now());
  auto fresh = refresher(current, RefreshContext{"anthropic", {}, std::chrono::steady_clock::now() + 15s});
  REQUIRE(fresh);
  CHECK(fresh->access_token.reveal() == "fresh-access");
  CHECK(fresh->refresh_token.reveal() == "refresh/+=");  // not rotated: kept
  CHECK(fresh->expires_at == clock->wall_now() + 3600s);
  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].body == "grant_type=refresh_token&refresh_token=refresh%2F%2B%3D&client_id=client%201");
  CHECK(seen[0].headers.get("content-type") == std::optional<std::string_view>("application/x-www-form-urlencoded"));
}
