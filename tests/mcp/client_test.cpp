// The MCP client: negotiation, strict decoding, limits, input rounds, the process lifecycle and
// what a model sees of a result. Peers: our fixture server, and a misbehaving Python server.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "agentkit/mcp/client.hpp"
#include "mcp_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace std::chrono_literals;
using mcp_test::fake;
using mcp_test::fixture;

namespace {

json::Value args(std::string_view text) { return json::parse(text).value(); }

std::string first_text(const mcp::CallResult& r) {
  return r.content.empty() ? std::string() : r.content.front().find("text")->as_string();
}

int count_containing(const std::vector<std::string>& lines, std::string_view needle) {
  int n = 0;
  for (const auto& l : lines) n += l.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

// A zombie answers kill(pid, 0) too; only a process that can still run counts as alive.
bool process_alive(pid_t pid) {
  auto stat = testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

pid_t pid_from(const mcp::Diagnostics& d) {
  const auto at = d.transport.rfind("(pid ");
  return at == std::string::npos ? -1 : static_cast<pid_t>(std::stol(d.transport.substr(at + 5)));
}

}  // namespace

TEST_CASE("automatic negotiation speaks the modern era with a server that answers server/discover") {
  auto client = mcp::Client::connect(fixture(), mcp_test::quick_options());
  REQUIRE(client);
  auto d = client->diagnostics();
  CHECK(d.era == mcp::Era::modern);
  CHECK(d.protocol_version == "2026-07-28");
  CHECK(d.server_name == "agentkit-fixture");
  auto r = client->call_tool("echo", args(R"({"message":"hi"})"));
  REQUIRE(r);
  CHECK(first_text(*r) == "Echo: hi");
}

TEST_CASE(
    "a server that answers initialize with 2024-11-05 is spoken to; an unknown version is "
    "refused naming it") {
  auto with_version = [](std::string version) {
    auto config = fake("legacy", {});
    std::get<mcp::StdioLaunch>(config.transport).env.emplace_back("FAKE_VERSION", version);
    return config;
  };
  auto client = mcp::Client::connect(with_version("2024-11-05"), mcp_test::quick_options());
  REQUIRE(client);
  CHECK(client->diagnostics().protocol_version == "2024-11-05");
  REQUIRE(client->call_tool("ok", args("{}")));
  auto refused = mcp::Client::connect(with_version("2024-10-07"), mcp_test::quick_options());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("2024-10-07") != std::string::npos);
}

TEST_CASE("automatic negotiation falls back to initialize on method-not-found, and says so") {
  testing::TempDir dir;
  auto client = mcp::Client::connect(fake("legacy", dir.path() / "log"), mcp_test::quick_options());
  REQUIRE(client);
  auto d = client->diagnostics();
  CHECK(d.era == mcp::Era::legacy);
  CHECK(d.protocol_version == "2025-11-25");
  bool explained = false;
  for (const auto& n : d.notes) explained = explained || n.find("-32601") != std::string::npos;
  CHECK(explained);
  REQUIRE(client->call_tool("ok", args("{}")));  // ordered after the handshake on the server's stdin
  auto lines = mcp_test::read_lines(dir.path() / "log");
  REQUIRE(lines.size() >= 3);
  CHECK(lines[0].find("server/discover") != std::string::npos);
  CHECK(lines[1].find("\"initialize\"") != std::string::npos);
  CHECK(lines[2].find("notifications/initialized") != std::string::npos);
}

TEST_CASE("silence on the stdio probe is taken as a legacy server after the probe timeout") {
  auto options = mcp_test::quick_options();
  options.probe_timeout = 300ms;
  auto client = mcp::Client::connect(fake("silent_discover"), options);
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::legacy);
}

TEST_CASE("a server that dies on the probe is started once more and initialized") {
  testing::TempDir dir;
  auto client = mcp::Client::connect(fake("die_on_discover", {}, dir.path() / "probed"), mcp_test::quick_options());
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::legacy);
  CHECK(client->call_tool("ok", args("{}")));
}

TEST_CASE("pinned eras: modern refuses a legacy server by name; legacy never probes") {
  auto options = mcp_test::quick_options();
  options.negotiation = mcp::Negotiation::modern;
  auto refused = mcp::Client::connect(fake("legacy"), options);
  REQUIRE(!refused);
  CHECK(refused.error().message.find("2026-07-28") != std::string::npos);
  CHECK(refused.error().message.find("'fake'") != std::string::npos);

  testing::TempDir dir;
  options.negotiation = mcp::Negotiation::legacy;
  auto legacy = mcp::Client::connect(fake("legacy", dir.path() / "log"), options);
  REQUIRE(legacy);
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "server/discover") == 0);

  auto modern_fixture = mcp::Client::connect(fixture(), options);  // a dual-era server, pinned legacy
  REQUIRE(modern_fixture);
  CHECK(modern_fixture->diagnostics().era == mcp::Era::legacy);
  CHECK(modern_fixture->call_tool("echo", args(R"({"message":"x"})")));
}

TEST_CASE("every modern request carries the three _meta keys and initialize is never sent") {
  testing::TempDir dir;
  auto client = mcp::Client::connect(fake("modern", dir.path() / "log"), mcp_test::quick_options());
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::modern);
  REQUIRE(client->list_tools());
  REQUIRE(client->call_tool("ok", args(R"({"n":1})")));
  auto lines = mcp_test::read_lines(dir.path() / "log");
  int requests = 0;
  for (const auto& line : lines) {
    auto msg = json::parse(line).value();
    if (!msg.find("id")) continue;
    ++requests;
    const json::Value* meta = msg.find("params") ? msg.find("params")->find("_meta") : nullptr;
    REQUIRE(meta != nullptr);
    CHECK(meta->find("io.modelcontextprotocol/protocolVersion")->as_string() == "2026-07-28");
    CHECK(meta->find("io.modelcontextprotocol/clientInfo") != nullptr);
    CHECK(meta->find("io.modelcontextprotocol/clientCapabilities") != nullptr);
  }
  CHECK(requests >= 3);
  CHECK(count_containing(lines, "\"initialize\"") == 0);
}

TEST_CASE("a malformed frame tears the connection down and nothing after it is dispatched") {
  auto options = mcp_test::quick_options();
  options.reconnect_limit = 0;
  auto client = mcp::Client::connect(fake("legacy"), options);
  REQUIRE(client);
  // {"jsonrpc":"2.0","id":N,"id":N,"result":{}} followed by a valid answer (REQ-MCP-CLIENT-01's test).
  auto r = client->call_tool("dup_key", args("{}"));
  REQUIRE(!r);
  CHECK(r.error().code == Errc::closed);
  CHECK(r.error().message.find("malformed") != std::string::npos);
  auto after = client->call_tool("ok", args("{}"));
  REQUIRE(!after);  // poisoned for good: no resynchronisation, and no reconnect budget here
}

TEST_CASE("a server that writes garbage to stdout loses its connection; the next call reconnects") {
  auto client = mcp::Client::connect(fake("legacy"), mcp_test::quick_options());
  REQUIRE(client);
  auto r = client->call_tool("garbage", args("{}"));
  REQUIRE(!r);
  auto again = client->call_tool("ok", args("{}"));
  REQUIRE(again);
  CHECK(client->diagnostics().reconnects == 1);
}

TEST_CASE("a result with a member the schema does not define is rejected") {
  auto client = mcp::Client::connect(fake("legacy"), mcp_test::quick_options());
  REQUIRE(client);
  auto r = client->call_tool("extra_member", args("{}"));
  REQUIRE(!r);
  CHECK(r.error().message.find("surprise") != std::string::npos);
}

TEST_CASE("an answer with the string id \"N\" does not resolve the request with the number N") {
  auto options = mcp_test::quick_options();
  options.request_timeout = 500ms;
  auto client = mcp::Client::connect(fake("legacy"), options);
  REQUIRE(client);
  auto r = client->call_tool("string_id", args("{}"));
  REQUIRE(!r);
  CHECK(r.error().code == Errc::timeout);
}

TEST_CASE("a frame over 16 MiB is refused and the connection torn down") {
  auto options = mcp_test::quick_options();
  options.reconnect_limit = 0;
  auto client = mcp::Client::connect(fake("legacy"), options);
  REQUIRE(client);
  auto r = client->call_tool("huge", args("{}"));
  REQUIRE(!r);
  CHECK(r.error().code == Errc::closed);
  INFO(r.error().message);
  CHECK(r.error().message.find("line") != std::string::npos);
}

TEST_CASE("progress resets the timeout; silence past it cancels the request on the wire") {
  testing::TempDir dir;
  auto options = mcp_test::quick_options();
  options.request_timeout = 400ms;
  auto client = mcp::Client::connect(fake("legacy", dir.path() / "log"), options);
  REQUIRE(client);
  std::atomic<int> seen{0};
  mcp::CallControl control;
  control.on_progress = [&](double, std::optional<double> total, std::string_view) {
    CHECK(total == 10.0);
    ++seen;
  };
  // 10 steps of 150 ms: 1.5 s in all, far past the 400 ms timeout, but never 400 ms silent.
  auto r = client->call_tool("progress", args(R"({"steps":10,"interval":0.15})"), control);
  REQUIRE(r);
  CHECK(seen.load() == 10);
  auto silent = client->call_tool("silent", args("{}"));
  REQUIRE(!silent);
  CHECK(silent.error().code == Errc::timeout);
  std::this_thread::sleep_for(200ms);
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "notifications/cancelled") == 1);
}

TEST_CASE("the call limit refuses the next call without sending it") {
  testing::TempDir dir;
  auto config = fake("legacy", dir.path() / "log");
  config.call_limit = 2;
  auto client = mcp::Client::connect(config, mcp_test::quick_options());
  REQUIRE(client);
  CHECK(client->call_tool("ok", args("{}"), {.session = "s1"}));
  CHECK(client->call_tool("ok", args("{}"), {.session = "s1"}));
  auto third = client->call_tool("ok", args("{}"), {.session = "s1"});
  REQUIRE(!third);
  CHECK(third.error().code == Errc::limit_exceeded);
  CHECK(client->call_tool("ok", args("{}"), {.session = "s2"}));  // per session
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "tools/call") == 3);
}

TEST_CASE("the default limits are 1000 calls, 30 seconds, 3 reconnects, 3 input rounds and 50,000 characters") {
  const mcp::ClientOptions defaults;
  CHECK(defaults.call_limit == 1000);
  CHECK(defaults.request_timeout == 30s);
  CHECK(defaults.reconnect_limit == 3);
  CHECK(defaults.max_input_rounds == 3);
  CHECK(defaults.result_cap == 50'000);
  CHECK(!defaults.allow_sampling);
  CHECK(!defaults.allow_elicitation);
}

TEST_CASE("a dead stdio server is restarted three times, then stays dead; a cut-off call is not re-sent") {
  testing::TempDir dir;
  auto client = mcp::Client::connect(fake("legacy", dir.path() / "log"), mcp_test::quick_options());
  REQUIRE(client);
  for (int i = 0; i < 3; ++i) {
    auto died = client->call_tool("exit", args("{}"));
    REQUIRE(!died);  // the call the server died in fails; it is never re-sent
    CHECK(client->call_tool("ok", args("{}")));
  }
  CHECK(client->diagnostics().reconnects == 3);
  REQUIRE(!client->call_tool("exit", args("{}")));
  auto dead = client->call_tool("ok", args("{}"));
  REQUIRE(!dead);
  CHECK(dead.error().message.find("reconnects are spent") != std::string::npos);
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "\"exit\"") == 4);
}

TEST_CASE("a stdio server runs with a reduced environment plus its configured variables") {
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-should-not-leak", 1);
  auto config = fake("legacy");
  std::get<mcp::StdioLaunch>(config.transport).env.emplace_back("CONFIGURED", "${MCP_TEST_SECRET}");
  auto options = mcp_test::quick_options();
  options.getenv = [](std::string_view name) -> std::optional<std::string> {
    if (name == "MCP_TEST_SECRET") return std::string("resolved-at-spawn");
    const char* v = std::getenv(std::string(name).c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  auto client = mcp::Client::connect(config, options);
  REQUIRE(client);
  auto r = client->call_tool("env", args("{}"));
  REQUIRE(r);
  const std::string env = first_text(*r);
  CHECK(env.find("ANTHROPIC_API_KEY") == std::string::npos);
  CHECK(env.find("CONFIGURED=resolved-at-spawn") != std::string::npos);
  CHECK(env.find("PATH=") != std::string::npos);
  ::unsetenv("ANTHROPIC_API_KEY");

  auto unresolved = fake("legacy");
  std::get<mcp::StdioLaunch>(unresolved.transport).env.emplace_back("X", "${MCP_TEST_NOT_SET_ANYWHERE}");
  auto refused = mcp::Client::connect(unresolved, mcp_test::quick_options());
  REQUIRE(!refused);
  CHECK(refused.error().message.find("${MCP_TEST_NOT_SET_ANYWHERE}") != std::string::npos);
}

TEST_CASE("closing never hangs on a child that ignores EOF and SIGTERM, and its whole group is gone") {
  auto options = mcp_test::quick_options();
  options.shutdown_grace = 200ms;
  auto client = mcp::Client::connect(fake("stubborn"), options);
  REQUIRE(client);
  auto grandchild = client->call_tool("spawn_grandchild", args("{}"));
  REQUIRE(grandchild);
  const pid_t sleeper = static_cast<pid_t>(std::stol(first_text(*grandchild)));
  const pid_t server = pid_from(client->diagnostics());
  REQUIRE(server > 0);
  CHECK(process_alive(sleeper));
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(client->close());
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took < 2s);   // EOF wait + TERM wait + KILL, never forever
  CHECK(took >= 400ms);  // it did give the child both graces
  CHECK(!process_alive(server));
  // The grandchild was in the server's process group; reaped by init once killed.
  for (int i = 0; i < 50 && process_alive(sleeper); ++i) std::this_thread::sleep_for(20ms);
  CHECK(!process_alive(sleeper));
}

TEST_CASE("sampling is refused unless enabled for the server, and every request is audited") {
  std::vector<mcp::AuditRecord> audit;
  std::mutex audit_mu;
  auto options = mcp_test::quick_options();
  options.audit = [&](const mcp::AuditRecord& r) {
    std::lock_guard lock(audit_mu);
    audit.push_back(r);
  };
  int model_calls = 0;
  options.sampling = [&](const mcp::InputRequest& req) -> Result<json::Value> {
    ++model_calls;
    CHECK(req.method == "sampling/createMessage");
    return args(R"({"role":"assistant","content":{"type":"text","text":"42"},"model":"faux"})");
  };
  {
    auto client = mcp::Client::connect(fake("legacy"), options);  // allow_sampling is false
    REQUIRE(client);
    auto r = client->call_tool("sample", args("{}"));
    REQUIRE(r);
    CHECK(first_text(*r).starts_with("refused:"));
    CHECK(model_calls == 0);
  }
  {
    auto config = fake("legacy");
    config.allow_sampling = true;
    auto client = mcp::Client::connect(config, options);
    REQUIRE(client);
    auto r = client->call_tool("sample", args("{}"));
    REQUIRE(r);
    CHECK(first_text(*r) == "sampled: 42");
    CHECK(model_calls == 1);
  }
  std::lock_guard lock(audit_mu);
  std::vector<bool> sampling_allowed;
  for (const auto& r : audit) {
    if (r.kind == "sampling") sampling_allowed.push_back(r.allowed);
  }
  CHECK(sampling_allowed == std::vector<bool>{false, true});
}

TEST_CASE("an input_required round trip answers the requests and returns the state byte for byte") {
  auto config = fake("modern");
  config.allow_elicitation = true;
  auto options = mcp_test::quick_options();
  std::vector<mcp::AuditRecord> audit;
  options.audit = [&](const mcp::AuditRecord& r) { audit.push_back(r); };
  options.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> {
    return args(R"({"action":"accept","content":{"yes":true}})");
  };
  auto client = mcp::Client::connect(config, options);
  REQUIRE(client);
  auto r = client->call_tool("ask_once", args("{}"));
  REQUIRE(r);
  CHECK(first_text(*r) == R"(round trip intact: {"action":"accept","content":{"yes":true}})");
  CHECK(r->input_rounds == 1);
  int elicitations = 0;
  for (const auto& a : audit) elicitations += a.kind == "elicitation" && a.allowed ? 1 : 0;
  CHECK(elicitations == 1);
}

TEST_CASE("a never-ending input_required loop stops after three rounds") {
  testing::TempDir dir;
  auto config = fake("modern", dir.path() / "log");
  config.allow_elicitation = true;
  auto options = mcp_test::quick_options();
  options.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> { return args(R"({"action":"decline"})"); };
  auto client = mcp::Client::connect(config, options);
  REQUIRE(client);
  auto r = client->call_tool("ask_forever", args("{}"));
  REQUIRE(!r);
  CHECK(r.error().code == Errc::limit_exceeded);
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "ask_forever") == 4);  // first try + 3 rounds
}

TEST_CASE("sampling asked through input_required is refused unless allowed; no model call is made") {
  int model_calls = 0;
  auto options = mcp_test::quick_options();
  options.sampling = [&](const mcp::InputRequest&) -> Result<json::Value> {
    ++model_calls;
    return json::Value(json::Object{});
  };
  auto client = mcp::Client::connect(fake("modern"), options);
  REQUIRE(client);
  auto r = client->call_tool("ask_once", args(R"({"method":"sampling/createMessage"})"));
  REQUIRE(!r);
  CHECK(r.error().code == Errc::permission_denied);
  CHECK(model_calls == 0);
}

TEST_CASE(
    "over stdio nothing ties a log message to a call: each call gets its own, and a call in "
    "flight also gets the other's") {
  for (auto negotiation : {mcp::Negotiation::legacy, mcp::Negotiation::modern}) {
    INFO((negotiation == mcp::Negotiation::legacy ? "legacy" : "modern"));
    auto options = mcp_test::quick_options();
    options.negotiation = negotiation;
    auto client = mcp::Client::connect(fixture(), options);
    REQUIRE(client);
    const auto logs = mcp_test::two_calls_logging(*client);
    CHECK(logs.ok);
    const auto has = [](const std::vector<std::string>& seen, std::string_view text) {
      return std::find(seen.begin(), seen.end(), text) != seen.end();
    };
    CHECK((has(logs.a, "a arrived") && has(logs.a, "a leaving")));
    CHECK((has(logs.b, "b arrived") && has(logs.b, "b leaving")));
    // The second arrival is logged while the first call waits for it, so the first call is
    // handed it too (the protocol's log message names no request to route it by).
    CHECK(logs.a.size() + logs.b.size() >= 5);
  }
}

TEST_CASE("the tool list is cached until list_changed says otherwise") {
  testing::TempDir dir;
  auto client = mcp::Client::connect(fake("legacy", dir.path() / "log"), mcp_test::quick_options());
  REQUIRE(client);
  REQUIRE(client->list_tools());
  REQUIRE(client->list_tools());
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "tools/list") == 1);
  REQUIRE(client->call_tool("list_changed", args("{}")));
  REQUIRE(client->list_tools());
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "log"), "tools/list") == 2);
}

TEST_CASE("without a subscription, the ttlMs hint decides when the modern tool list is stale") {
  testing::TempDir dir;
  {
    auto client = mcp::Client::connect(fake("modern", dir.path() / "fresh"), mcp_test::quick_options());
    REQUIRE(client);
    REQUIRE(client->list_tools());
    REQUIRE(client->list_tools());  // ttlMs 60000: still fresh
    CHECK(count_containing(mcp_test::read_lines(dir.path() / "fresh"), "tools/list") == 1);
  }
  auto stale = fake("modern", dir.path() / "stale");
  std::get<mcp::StdioLaunch>(stale.transport).env.emplace_back("FAKE_TTL", "0");
  auto client = mcp::Client::connect(stale, mcp_test::quick_options());
  REQUIRE(client);
  REQUIRE(client->list_tools());
  REQUIRE(client->list_tools());  // ttlMs 0: stale at once
  CHECK(count_containing(mcp_test::read_lines(dir.path() / "stale"), "tools/list") == 2);
}

TEST_CASE("the tool list follows every page") {
  auto client = mcp::Client::connect(fixture({"--page-size", "4", "--extra-tools", "9"}), mcp_test::quick_options());
  REQUIRE(client);
  auto tools = client->list_tools();
  REQUIRE(tools);
  CHECK(tools->size() == 8 + 9);  // the fixture's eight tools, then the extra ones
  CHECK(tools->back().name == "item_9");
}

TEST_CASE("a result is capped at 50,000 characters across the whole result, with a note") {
  mcp::CallResult r;
  r.content.push_back(json::Value(json::Object{{"type", "text"}, {"text", std::string(80'000, 'a')}}));
  ToolResult seen = mcp::to_tool_result(r, 50'000);
  REQUIRE(seen.text);
  CHECK(seen.text->starts_with(std::string(50'000, 'a')));
  CHECK(seen.text->find("80000") != std::string::npos);
  CHECK(seen.text->size() < 50'000 + 300);

  // Two blocks that each fit are still capped together, newline included.
  mcp::CallResult two;
  two.content.push_back(json::Value(json::Object{{"type", "text"}, {"text", std::string(30'000, 'b')}}));
  two.content.push_back(json::Value(json::Object{{"type", "text"}, {"text", std::string(30'000, 'c')}}));
  ToolResult capped = mcp::to_tool_result(two, 50'000);
  CHECK(capped.text->find(std::string(19'999, 'c')) != std::string::npos);
  CHECK(capped.text->find(std::string(20'000, 'c')) == std::string::npos);
}

TEST_CASE("the cap counts code points, not bytes") {
  mcp::CallResult r;
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "漢";  // 3 bytes each
  r.content.push_back(json::Value(json::Object{{"type", "text"}, {"text", cjk}}));
  ToolResult seen = mcp::to_tool_result(r, 100);
  CHECK(*seen.text == cjk);  // 100 code points fit a cap of 100, though they are 300 bytes
}

TEST_CASE("images, resources and errors map onto what the model sees") {
  auto client = mcp::Client::connect(fake("legacy"), mcp_test::quick_options());
  REQUIRE(client);
  auto r = client->call_tool("image", args("{}"));
  REQUIRE(r);
  ToolResult seen = mcp::to_tool_result(*r, 50'000);
  CHECK(seen.ok);
  REQUIRE(seen.images.size() == 1);
  CHECK(seen.images[0].mime_type == "image/png");
  CHECK(seen.text->find("[resource file:///a.txt]\nA") != std::string::npos);
  CHECK(seen.text->find("[resource link: b <file:///b.txt>]") != std::string::npos);
  auto failed = client->call_tool("error", args("{}"));
  REQUIRE(failed);
  CHECK(failed->is_error);
  ToolResult error_seen = mcp::to_tool_result(*failed, 50'000);
  CHECK(!error_seen.ok);
  CHECK(*error_seen.text == "it broke");
  // The text budget never drops an image: the agent's image normaliser fits it instead.
  ToolResult tight = mcp::to_tool_result(*r, 20);
  REQUIRE(tight.images.size() == 1);
  CHECK(tight.images[0].data_base64 == seen.images[0].data_base64);
}
