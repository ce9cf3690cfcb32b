// Plugins through the public entry points: the four categories, the registry on RuntimeConfig,
// load order, manifests, validation, and the hooks' place after before_tool_call
// (REQ-PLUGIN-01..11, amendment A4).
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "agentkit/plugins.hpp"
#include "agentkit/session/log.hpp"
#include "agentkit/session/store.hpp"
#include "harness.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

// A hook that answers a fixed verdict and records every call it sees.
class RecordingHook final : public EventHookPlugin {
 public:
  RecordingHook(std::string name, HookDecision answer)
      : name_(std::move(name)), answer_(std::move(answer)) {}
  std::string name() const override { return name_; }
  HookDecision before_tool_call(const HookToolCall& call) override {
    std::lock_guard lock(mu_);
    seen_.emplace_back(call.tool_name);
    servers_.emplace_back(call.mcp_server);
    return answer_;
  }
  void after_tool_call(const HookToolResult& r) override {
    std::lock_guard lock(mu_);
    after_.emplace_back(r.tool_name);
  }
  void on_session_start(const HookSessionStart&) override { ++starts; }
  void on_session_end(const HookSessionEnd& e) override {
    std::lock_guard lock(mu_);
    ends_.push_back(e.reason);
  }
  void on_model_call(const HookModelCall&) override { ++model_calls; }

  std::vector<std::string> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }
  std::vector<std::string> servers() const {
    std::lock_guard lock(mu_);
    return servers_;
  }
  std::vector<std::string> after() const {
    std::lock_guard lock(mu_);
    return after_;
  }
  std::vector<RunStopReason> ends() const {
    std::lock_guard lock(mu_);
    return ends_;
  }
  std::atomic<int> starts{0};
  std::atomic<int> model_calls{0};

 private:
  std::string name_;
  HookDecision answer_;
  mutable std::mutex mu_;
  std::vector<std::string> seen_, servers_, after_;
  std::vector<RunStopReason> ends_;
};

// A hook that overrides one method only: the others keep their no-op defaults (REQ-PLUGIN-03).
class OnlyBlocks final : public EventHookPlugin {
 public:
  std::string name() const override { return "only-blocks"; }
  HookDecision before_tool_call(const HookToolCall& call) override {
    if (call.tool_name == "delete_file")
      return HookDecision::block("Deleting is not allowed here.");
    return HookDecision::no_opinion();
  }
};

class ToolPlugin final : public ToolProviderPlugin {
 public:
  ToolPlugin(std::string name, std::string tool, std::string reply)
      : name_(std::move(name)), tool_(std::move(tool)), reply_(std::move(reply)) {}
  std::string name() const override { return name_; }
  std::vector<ToolDefinition> tools() override { return {counting_tool(tool_, reply_).definition}; }

 private:
  std::string name_, tool_, reply_;
};

class Backend final : public BackendPlugin {
 public:
  explicit Backend(std::shared_ptr<ProviderClient> client) : client_(std::move(client)) {}
  std::string name() const override { return "my-gateway"; }
  std::string api() const override { return "my-gateway-wire"; }
  Result<std::shared_ptr<ProviderClient>> make_client() override { return client_; }

 private:
  std::shared_ptr<ProviderClient> client_;
};

class MemoryStorage final : public StoragePlugin {
 public:
  std::string name() const override { return "memory-storage"; }
  Result<std::unique_ptr<session::Store>> open(std::string_view log_name) override {
    opened.emplace_back(log_name);
    return std::unique_ptr<session::Store>(std::make_unique<session::MemoryStore>(store));
  }
  session::MemoryStore store;
  std::vector<std::string> opened;
};

std::vector<ToolResultMessage> results_of(const RunResult& r) {
  std::vector<ToolResultMessage> out;
  for (const auto& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) out.push_back(*t);
  }
  return out;
}

// The text of the tool result the model received in its second request.
std::string what_the_model_read(const FauxAgent& fx) {
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() >= 2);
  return text_of_message(last_message(requests[1]));
}

faux::FauxResponse one_call(std::string name, std::string args = "{}") {
  return faux::tool_call_response({faux::tool_call("c1", std::move(name), std::move(args))});
}

RuntimeConfig with_hooks(std::vector<std::shared_ptr<Plugin>> plugins) {
  RuntimeConfig rt;
  rt.extensions.plugins.builtins = std::move(plugins);
  return rt;
}

}  // namespace

TEST_CASE("a hook overriding only before_tool_call blocks a call and the model reads the reason",
          "[plugins]") {
  auto del = counting_tool("delete_file");
  auto fx = faux_agent({one_call("delete_file"), faux::text_response("understood")},
                       {del.definition}, with_hooks({std::make_shared<OnlyBlocks>()}));
  auto r = fx.agent.run("clean up");
  REQUIRE(r);
  CHECK(*del.calls == 0);
  auto results = results_of(*r);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  CHECK(results[0].metadata.find("error_code")->as_string() == "blocked_by_hook");
  CHECK(results[0].metadata.find("hook")->as_string() == "only-blocks");
  CHECK(what_the_model_read(fx).find("Deleting is not allowed here.") != std::string::npos);
}

TEST_CASE("the first block wins and stops the scan; an earlier allow does not outrank it",
          "[plugins]") {
  auto tool = counting_tool("write_file");
  auto first = std::make_shared<RecordingHook>("h1", HookDecision::allow());
  auto second = std::make_shared<RecordingHook>("h2", HookDecision::block("h2 says no"));
  auto third = std::make_shared<RecordingHook>("h3", HookDecision::block("h3 says no"));
  RuntimeConfig rt = with_hooks({first, second, third});
  rt.extensions.before_tool_call = [](const ToolCallRequest&) { return ToolCallDecision::allow(); };
  auto fx = faux_agent({one_call("write_file"), faux::text_response("ok")}, {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(*tool.calls == 0);
  CHECK(first->seen().size() == 1);
  CHECK(second->seen().size() == 1);
  CHECK(third->seen().empty());  // the scan stopped at the first block
  CHECK(what_the_model_read(fx).find("h2 says no") != std::string::npos);
}

TEST_CASE("a hook cannot overturn the interceptor: a denied call never reaches the hooks",
          "[plugins]") {
  auto tool = counting_tool("execute");
  auto hook = std::make_shared<RecordingHook>("grant", HookDecision::allow());
  RuntimeConfig rt = with_hooks({hook});
  rt.extensions.before_tool_call = [](const ToolCallRequest&) {
    return ToolCallDecision::deny("the interceptor refuses");
  };
  auto fx = faux_agent({one_call("execute"), faux::text_response("ok")}, {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(*tool.calls == 0);
  CHECK(hook->seen().empty());
  CHECK(what_the_model_read(fx).find("the interceptor refuses") != std::string::npos);
}

TEST_CASE("hooks see the arguments after before_tool_call's rewrite, and allowed calls run",
          "[plugins]") {
  auto tool = counting_tool("read_file");
  std::string seen;
  class ArgHook final : public EventHookPlugin {
   public:
    explicit ArgHook(std::string& out) : out_(out) {}
    std::string name() const override { return "args"; }
    HookDecision before_tool_call(const HookToolCall& c) override {
      out_ = json::dump(c.arguments);
      return HookDecision::allow();
    }
    std::string& out_;
  };
  RuntimeConfig rt = with_hooks({std::make_shared<ArgHook>(seen)});
  rt.extensions.before_tool_call = [](const ToolCallRequest&) {
    return ToolCallDecision::rewrite(json::Object{{"path", "safe.txt"}});
  };
  auto fx =
      faux_agent({one_call("read_file", R"({"path":"/etc/shadow"})"), faux::text_response("ok")},
                 {tool.definition}, rt);
  REQUIRE(fx.agent.run("go"));
  CHECK(seen == R"({"path":"safe.txt"})");
  CHECK(*tool.calls == 1);
}

TEST_CASE("an MCP call reaches the hooks under its qualified name, with its server", "[plugins]") {
  auto hook = std::make_shared<RecordingHook>("watch", HookDecision::no_opinion());
  auto faux_p = std::make_shared<faux::FauxProvider>(
      std::vector<faux::FauxResponse>{one_call("files__read"), faux::text_response("ok")});
  RuntimeConfig rt = with_hooks({hook});
  rt.model.spec = "faux/test";
  rt.providers.add("faux", faux_p);
  AgentDefinition def;
  def.tools.mcp.push_back(
      McpToolSource{"files", [](agentkit::stop_token) -> Result<std::vector<ToolDefinition>> {
                      return std::vector<ToolDefinition>{counting_tool("read").definition};
                    }});
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  REQUIRE(agent->run("go"));
  REQUIRE(hook->seen() == std::vector<std::string>{"files__read"});
  CHECK(hook->servers() == std::vector<std::string>{"files"});
  CHECK(hook->after() == std::vector<std::string>{"files__read"});
}

TEST_CASE("a throwing hook fails closed: the call is blocked, naming the hook", "[plugins]") {
  class Throws final : public EventHookPlugin {
   public:
    std::string name() const override { return "broken"; }
    HookDecision before_tool_call(const HookToolCall&) override {
      throw std::runtime_error("oops");
    }
  };
  auto tool = counting_tool("write_file");
  auto fx = faux_agent({one_call("write_file"), faux::text_response("ok")}, {tool.definition},
                       with_hooks({std::make_shared<Throws>()}));
  REQUIRE(fx.agent.run("go"));
  CHECK(*tool.calls == 0);
  CHECK(what_the_model_read(fx).find("'broken' failed") != std::string::npos);
}

TEST_CASE("session start and end reach hooks on every exit path, and each model call is seen",
          "[plugins]") {
  auto hook = std::make_shared<RecordingHook>("audit", HookDecision::no_opinion());
  auto tool = counting_tool("t");
  auto fx = faux_agent({one_call("t"), faux::text_response("done"), faux::error_response("boom")},
                       {tool.definition}, with_hooks({hook}));
  auto s = fx.agent.start();
  REQUIRE(s);
  REQUIRE(s->run("first"));
  REQUIRE(s->run("second"));  // the provider fails: the end is still reported
  agentkit::stop_source cancelled;
  cancelled.request_stop();
  REQUIRE(s->run("third", cancelled.get_token()));
  CHECK(hook->starts == 3);
  CHECK(hook->ends() == std::vector<RunStopReason>{RunStopReason::stop, RunStopReason::error,
                                                   RunStopReason::aborted});
  CHECK(hook->model_calls == 4);
  CHECK(hook->after() == std::vector<std::string>{"t"});
}

TEST_CASE("two agents in one process with different plugins do not see each other's", "[plugins]") {
  auto hook = std::make_shared<RecordingHook>("a-only", HookDecision::no_opinion());
  RuntimeConfig with =
      with_hooks({hook, std::make_shared<ToolPlugin>("alpha-tools", "alpha", "from alpha")});
  auto a = faux_agent({one_call("alpha"), faux::text_response("ok")}, {}, with);
  auto shared = counting_tool("shared");
  auto b = faux_agent({one_call("shared"), faux::text_response("ok")}, {shared.definition}, {});
  REQUIRE(a.agent.run("go"));
  REQUIRE(b.agent.run("go"));
  auto a_tools = a.faux->requests()[0].tool_names;
  auto b_tools = b.faux->requests()[0].tool_names;
  CHECK(std::find(a_tools.begin(), a_tools.end(), "alpha") != a_tools.end());
  CHECK(std::find(b_tools.begin(), b_tools.end(), "alpha") == b_tools.end());
  CHECK(hook->seen() == std::vector<std::string>{"alpha"});  // never b's call
}

TEST_CASE(
    "built-ins load first, then manifest plugins by name; the later wins a tool clash with a "
    "warning",
    "[plugins]") {
  TempDir dir;
  // File order is the reverse of name order: the names decide.
  dir.write("1.json", R"({"name": "b-tools"})");
  dir.write("2.json", R"({"name": "a-tools", "description": "first by name"})");
  RuntimeConfig rt;
  rt.extensions.plugins.builtins = {
      std::make_shared<ToolPlugin>("zz-builtin", "t", "from builtin")};
  rt.extensions.plugins.available = {std::make_shared<ToolPlugin>("b-tools", "t", "from b"),
                                     std::make_shared<ToolPlugin>("a-tools", "t", "from a")};
  rt.extensions.plugins.manifest_dirs = {dir.path()};
  std::vector<std::string> warnings;
  rt.extensions.plugins.on_warning = [&](const std::string& w) { warnings.push_back(w); };

  PluginReport report = validate_plugins(rt.extensions.plugins);
  CHECK(report.ok());
  CHECK(report.loaded == std::vector<std::string>{"zz-builtin", "a-tools", "b-tools"});
  CHECK(warnings.empty());  // validation calls no callback

  auto fx = faux_agent({one_call("t"), faux::text_response("ok")}, {}, rt);
  REQUIRE(fx.agent.run("go"));
  CHECK(what_the_model_read(fx) == "from b");
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[1].find("'a-tools' and 'b-tools' both supply tool 't'") != std::string::npos);
}

TEST_CASE("a disabled plugin's tools and hooks are absent", "[plugins]") {
  TempDir dir;
  dir.write("p.json", R"({"name": "extra"})");
  auto hook = std::make_shared<RecordingHook>("watch", HookDecision::block("no"));
  RuntimeConfig rt = with_hooks({hook});
  rt.extensions.plugins.available = {std::make_shared<ToolPlugin>("extra", "extra_tool", "x")};
  rt.extensions.plugins.manifest_dirs = {dir.path()};
  rt.extensions.plugins.disabled = {"extra", "watch"};
  auto own = counting_tool("own");
  auto fx = faux_agent({one_call("own"), faux::text_response("ok")}, {own.definition}, rt);
  REQUIRE(fx.agent.run("go"));
  auto tools = fx.faux->requests()[0].tool_names;
  CHECK(std::find(tools.begin(), tools.end(), "extra_tool") == tools.end());
  CHECK(hook->seen().empty());
  CHECK(*own.calls == 1);
}

TEST_CASE("manifests are read only from the folders the embedder names", "[plugins]") {
  TempDir named, other;
  named.write("a.json", R"({"name": "a-tools"})");
  other.write("b.json", R"({"name": "b-tools"})");
  PluginConfig cfg;
  cfg.available = {std::make_shared<ToolPlugin>("a-tools", "a", "x"),
                   std::make_shared<ToolPlugin>("b-tools", "b", "x")};
  cfg.manifest_dirs = {named.path()};
  CHECK(validate_plugins(cfg).loaded == std::vector<std::string>{"a-tools"});
  cfg.manifest_dirs.clear();
  CHECK(validate_plugins(cfg).loaded.empty());  // no folder named: nothing discovered
}

TEST_CASE("a manifest naming a plugin that is not compiled in is skipped with a warning",
          "[plugins]") {
  TempDir dir;
  dir.write("ghost.json", R"({"name": "ghost"})");
  RuntimeConfig rt;
  rt.extensions.plugins.manifest_dirs = {dir.path()};
  std::vector<std::string> warnings;
  rt.extensions.plugins.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  auto fx = faux_agent({faux::text_response("ok")}, {}, rt);
  REQUIRE(fx.agent.run("go"));
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("'ghost', which is not compiled into this program; skipped") !=
        std::string::npos);
}

TEST_CASE("a malformed manifest fails make_agent naming the file and the member", "[plugins]") {
  TempDir dir;
  auto bad = dir.write("bad.json", R"({"name": "x", "nmae": "typo"})");
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::make_shared<faux::FauxProvider>());
  rt.extensions.plugins.manifest_dirs = {dir.path()};
  auto agent = make_agent({}, std::move(rt));
  REQUIRE_FALSE(agent);
  CHECK(agent.error().message.find(bad.string()) != std::string::npos);
  CHECK(agent.error().message.find("unknown member \"nmae\"") != std::string::npos);
}

TEST_CASE("two manifests declaring one plugin: the later file wins, with a warning naming both",
          "[plugins]") {
  TempDir one, two;
  auto first = one.write("p.json", R"({"name": "p", "command_hook": {"command": ["false"]}})");
  auto second = two.write("p.json", R"({"name": "p", "command_hook": {"command": ["true"]}})");
  PluginConfig cfg;
  cfg.manifest_dirs = {one.path(), two.path()};
  PluginReport report = validate_plugins(cfg);
  CHECK(report.ok());
  CHECK(report.loaded == std::vector<std::string>{"p"});
  REQUIRE(report.warnings.size() == 1);
  CHECK(report.warnings[0].find(first.string()) != std::string::npos);
  CHECK(report.warnings[0].find("the later ('" + second.string() + "') wins") != std::string::npos);
}

TEST_CASE("validate_plugins reports every problem and has no side effects", "[plugins]") {
  TempDir dir;
  dir.write("1.json", "{not json");
  dir.write("2.json", R"({"name": "bad name!"})");
  auto marker = dir.path() / "ran";
  dir.write("3.json", R"({"name": "toucher", "command_hook": {"command": ["touch", ")" +
                          marker.string() + R"("]}})");
  class Nothing final : public Plugin {
   public:
    std::string name() const override { return "nothing"; }
  };
  class NullBackend final : public BackendPlugin {
   public:
    std::string name() const override { return "null-backend"; }
    std::string api() const override { return "x"; }
    Result<std::shared_ptr<ProviderClient>> make_client() override {
      return std::shared_ptr<ProviderClient>();
    }
  };
  PluginConfig cfg;
  cfg.builtins = {std::make_shared<Nothing>(), std::make_shared<NullBackend>()};
  cfg.manifest_dirs = {dir.path(), dir.path() / "missing"};
  bool warned = false;
  cfg.on_warning = [&](const std::string&) { warned = true; };
  PluginReport report = validate_plugins(cfg);
  CHECK_FALSE(report.ok());
  CHECK(report.problems.size() == 5);
  std::string all;
  for (const auto& p : report.problems) all += p + "\n";
  CHECK(all.find("1.json") != std::string::npos);
  CHECK(all.find("'bad name!' is invalid") != std::string::npos);
  CHECK(all.find("implements none of the plugin categories") != std::string::npos);
  CHECK(all.find("returned null") != std::string::npos);
  CHECK(all.find("does not exist") != std::string::npos);
  CHECK(report.loaded == std::vector<std::string>{"toucher"});
  CHECK_FALSE(std::filesystem::exists(marker));  // the command hook was not run
  CHECK_FALSE(warned);
}

TEST_CASE("a backend plugin serves a new wire API for the model that names it", "[plugins]") {
  auto wire = std::make_shared<faux::FauxProvider>(
      std::vector<faux::FauxResponse>{faux::text_response("via plugin")});
  RuntimeConfig rt = with_hooks({std::make_shared<Backend>(wire)});
  Model m;
  m.id = "gw-1";
  m.vendor = "my-gateway";
  m.api = "my-gateway-wire";
  rt.model.descriptor = m;
  auto agent = make_agent({}, std::move(rt));
  REQUIRE(agent);
  auto r = agent->run("hi");
  REQUIRE(r);
  CHECK(r->final_text == "via plugin");
  CHECK(wire->request_count() == 1);
}

TEST_CASE("a storage plugin keeps the session log a session names", "[plugins]") {
  auto storage = std::make_shared<MemoryStorage>();
  auto fx = faux_agent({faux::text_response("stored")}, {}, with_hooks({storage}));
  StartOptions opts;
  opts.log_name = "chat-42";
  auto s = fx.agent.start(std::move(opts));
  REQUIRE(s);
  REQUIRE(s->run("remember me"));
  REQUIRE(s->close());
  CHECK(storage->opened == std::vector<std::string>{"chat-42"});
  std::string bytes = storage->store.bytes();
  CHECK(bytes.find("remember me") != std::string::npos);
  CHECK(bytes.find("stored") != std::string::npos);

  auto none = faux_agent({faux::text_response("x")});
  StartOptions named;
  named.log_name = "chat-42";
  auto refused = none.agent.start(std::move(named));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("no storage plugin") != std::string::npos);
}

// ---- Command hooks ---------------------------------------------------------------------------

namespace {

// Writes an executable /bin/sh script.
std::filesystem::path script(const TempDir& dir, const std::string& name, const std::string& body) {
  auto path = dir.write(name, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0700);
  return path;
}

struct HookRun {
  FauxAgent fx;
  int calls = 0;
  std::string model_read;
  RunResult result;
};

HookRun run_with_command_hook(CommandHookOptions options,
                              std::string args = R"({"command":"ls"})") {
  auto tool = counting_tool("execute");
  RuntimeConfig rt = with_hooks({command_hook(std::move(options))});
  rt.extensions.allow_all_tool_calls = true;
  auto fx = faux_agent({one_call("execute", std::move(args)), faux::text_response("ok")},
                       {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  HookRun out{std::move(fx), *tool.calls, {}, *r};
  out.model_read = what_the_model_read(out.fx);
  return out;
}

CommandHookOptions hook_running(const std::filesystem::path& program) {
  CommandHookOptions o;
  o.name = "guard";
  o.command = {program.string()};
  o.timeout = std::chrono::milliseconds(5000);
  return o;
}

}  // namespace

TEST_CASE("a command hook that exits 0 allows the call and receives the event on stdin",
          "[plugins]") {
  TempDir dir;
  auto seen = dir.path() / "event.json";
  auto hook = script(dir, "allow.sh", "cat > '" + seen.string() + "'\nexit 0");
  auto run = run_with_command_hook(hook_running(hook));
  CHECK(run.calls == 1);
  std::string event = read_file(seen);
  CHECK(event.find(R"("hook_event_name":"PreToolUse")") != std::string::npos);
  CHECK(event.find(R"("tool_name":"execute")") != std::string::npos);
  CHECK(event.find(R"("tool_input":{"command":"ls"})") != std::string::npos);
}

TEST_CASE(
    "a command hook that exits 2 blocks the call with its stderr as the reason the model reads",
    "[plugins]") {
  TempDir dir;
  auto hook = script(dir, "block.sh", "echo 'rm is not allowed in this repository' >&2\nexit 2");
  auto run = run_with_command_hook(hook_running(hook));
  CHECK(run.calls == 0);
  CHECK(run.model_read == "rm is not allowed in this repository");
}

TEST_CASE("a command hook's JSON verdict on stdout blocks with its reason", "[plugins]") {
  TempDir dir;
  auto hook =
      script(dir, "json.sh", R"(echo '{"decision":"block","reason":"use the safe wrapper"}')");
  auto run = run_with_command_hook(hook_running(hook));
  CHECK(run.calls == 0);
  CHECK(run.model_read == "use the safe wrapper");
  auto allow = script(dir, "json_allow.sh", R"(echo '{"decision":"allow"}')");
  CHECK(run_with_command_hook(hook_running(allow)).calls == 1);
}

TEST_CASE("a command hook that hangs is killed at its timeout and the call is blocked",
          "[plugins]") {
  TempDir dir;
  auto hook = script(dir, "hang.sh", "sleep 30");
  CommandHookOptions o = hook_running(hook);
  o.timeout = std::chrono::milliseconds(300);
  auto run = run_with_command_hook(o);
  CHECK(run.calls == 0);
  CHECK(run.model_read.find("did not answer within 300 ms") != std::string::npos);
}

TEST_CASE("a command hook that crashes blocks the call, naming the signal", "[plugins]") {
  TempDir dir;
  auto hook = script(dir, "crash.sh", "kill -SEGV $$");
  auto run = run_with_command_hook(hook_running(hook));
  CHECK(run.calls == 0);
  CHECK(run.model_read.find("killed by signal 11") != std::string::npos);
  auto failing = script(dir, "exit1.sh", "echo 'internal trouble' >&2\nexit 1");
  auto second = run_with_command_hook(hook_running(failing));
  CHECK(second.calls == 0);
  CHECK(second.model_read.find("exited with status 1 (internal trouble)") != std::string::npos);
}

TEST_CASE("a command hook that prints garbage blocks the call", "[plugins]") {
  TempDir dir;
  auto hook = script(dir, "garbage.sh", "echo 'sure, go ahead'");
  auto run = run_with_command_hook(hook_running(hook));
  CHECK(run.calls == 0);
  CHECK(run.model_read.find("not a JSON verdict") != std::string::npos);
  auto unknown = script(dir, "unknown.sh", R"(echo '{"decision":"maybe"}')");
  CHECK(run_with_command_hook(hook_running(unknown)).calls == 0);
}

TEST_CASE("a command hook that floods stdout is read only to its bound and blocks the call",
          "[plugins]") {
  TempDir dir;
  auto hook = script(dir, "flood.sh", "yes '{}' | head -c 10000000");
  CommandHookOptions o = hook_running(hook);
  o.max_output_bytes = 4096;
  auto run = run_with_command_hook(o);
  CHECK(run.calls == 0);
  CHECK(run.model_read.find("printed more than 4096 bytes") != std::string::npos);
}

TEST_CASE("a command hook runs with the reduced environment of the shell tools", "[plugins]") {
  TempDir dir;
  ::setenv("AGENTKIT_TEST_HOOK_SECRET", "sk-not-for-hooks", 1);
  auto hook = script(dir, "env.sh",
                     "if [ -n \"$AGENTKIT_TEST_HOOK_SECRET\" ]; then echo leaked >&2; exit 2; fi\n"
                     "[ -n \"$PATH\" ] || { echo 'no PATH' >&2; exit 2; }\nexit 0");
  auto run = run_with_command_hook(hook_running(hook));
  ::unsetenv("AGENTKIT_TEST_HOOK_SECRET");
  CHECK(run.calls == 1);
}

TEST_CASE("a command hook only hears about the tools it names", "[plugins]") {
  TempDir dir;
  auto hook = script(dir, "block.sh", "exit 2");
  CommandHookOptions o = hook_running(hook);
  o.tools = {"write_file"};
  CHECK(run_with_command_hook(o).calls == 1);
}

TEST_CASE("a manifest describes a command hook whose relative program is the manifest's own",
          "[plugins]") {
  TempDir dir;
  script(dir, "hooks/guard.sh", "echo 'from the manifest hook' >&2\nexit 2");
  dir.write("guard.json", R"({"name": "guard", "command_hook": {"command": ["./hooks/guard.sh"],)"
                          R"( "tools": ["execute"], "timeout_ms": 5000}})");
  auto tool = counting_tool("execute");
  RuntimeConfig rt;
  rt.extensions.plugins.manifest_dirs = {dir.path()};
  rt.extensions.allow_all_tool_calls = true;
  auto fx = faux_agent({one_call("execute"), faux::text_response("ok")}, {tool.definition}, rt);
  REQUIRE(fx.agent.run("go"));
  CHECK(*tool.calls == 0);
  CHECK(what_the_model_read(fx) == "from the manifest hook");
}

// ---- The manifest parser's bounds (it reads untrusted bytes) ------------------------------------

TEST_CASE("the manifest parser refuses oversized, deep, duplicated and mistyped input",
          "[plugins]") {
  const std::filesystem::path file = "m.json";
  std::string big =
      R"({"name": "x", "description": ")" + std::string(kMaxManifestBytes, 'a') + R"("})";
  auto r1 = parse_plugin_manifest(big, file);
  REQUIRE_FALSE(r1);
  CHECK(r1.error().message.find("m.json") != std::string::npos);
  std::string deep =
      R"({"name": "x", "command_hook": )" + std::string(20, '[') + std::string(20, ']') + "}";
  CHECK_FALSE(parse_plugin_manifest(deep, file));
  CHECK_FALSE(parse_plugin_manifest(R"({"name": "x", "name": "y"})", file));
  CHECK_FALSE(parse_plugin_manifest(R"({"name": 7})", file));
  CHECK_FALSE(parse_plugin_manifest(R"([])", file));
  CHECK_FALSE(parse_plugin_manifest(R"({"name": "x", "command_hook": {"command": []}})", file));
  CHECK_FALSE(parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["a"], "timeout_ms": 0}})", file));
  CHECK_FALSE(parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["a"], "timeout_ms": 1e99}})", file));
  CHECK_FALSE(parse_plugin_manifest("{\"name\": \"x\xff\"}", file));
  auto ok = parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["./g.sh", "--strict"]}})", "dir/m.json");
  REQUIRE(ok);
  REQUIRE(ok->command_hook);
  CHECK(ok->command_hook->command == std::vector<std::string>{"dir/g.sh", "--strict"});
}

// ---- Command hooks on the other events ----------------------------------------------------------

namespace {

CommandHookOptions hook_on(const std::filesystem::path& program, std::vector<HookEvent> events) {
  CommandHookOptions o = hook_running(program);
  o.events = std::move(events);
  return o;
}

// One call of `execute` (answering "ok"), then a final answer, with the hook and an observer.
struct ObservedRun {
  FauxAgent fx;
  int calls = 0;
  RunResult result;
  std::vector<std::string> errors;  // the messages of the run's ErrorEvents
};
ObservedRun observed_run(CommandHookOptions options) {
  auto tool = counting_tool("execute");
  auto log = std::make_shared<EventLog>();
  RuntimeConfig rt = with_hooks({command_hook(std::move(options))});
  rt.extensions.allow_all_tool_calls = true;
  rt.observability.observers.push_back(log->observer());
  auto fx = faux_agent({one_call("execute", R"({"command":"ls"})"), faux::text_response("done")},
                       {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  ObservedRun out{std::move(fx), *tool.calls, *r, {}};
  for (const Event& e : log->events()) {
    if (const auto* err = std::get_if<ErrorEvent>(&e)) out.errors.push_back(err->error.message);
  }
  return out;
}

std::vector<json::Value> json_lines(const std::filesystem::path& file) {
  std::vector<json::Value> out;
  std::string text = read_file(file);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) {
      auto v = json::parse(std::string_view(text).substr(at, end - at));
      REQUIRE(v);
      out.push_back(std::move(*v));
    }
    at = end + 1;
  }
  return out;
}

std::string member(const json::Value& v, std::string_view key) {
  const json::Value* m = v.find(key);
  return m != nullptr && m->is_string() ? std::string(m->as_string()) : std::string();
}

}  // namespace

TEST_CASE("a PostToolUse command hook reads the call and its result; exit 0 leaves the result",
          "[plugins]") {
  TempDir dir;
  auto seen = dir.path() / "event.json";
  auto hook = script(dir, "post.sh", "cat > '" + seen.string() + "'\nexit 0");
  auto run = run_with_command_hook(hook_on(hook, {HookEvent::post_tool_use}));
  CHECK(run.calls == 1);
  CHECK(run.model_read == "ok");
  auto events = json_lines(seen);
  REQUIRE(events.size() == 1);  // no PreToolUse: the hook did not name it
  const json::Value& e = events[0];
  CHECK(member(e, "hook_event_name") == "PostToolUse");
  CHECK(member(e, "tool_name") == "execute");
  CHECK(member(e, "tool_use_id") == "c1");
  CHECK(json::dump(*e.find("tool_input")) == R"({"command":"ls"})");
  const json::Value* response = e.find("tool_response");
  REQUIRE(response != nullptr);
  CHECK(response->find("is_error")->as_bool() == false);
  CHECK(json::dump(*response->find("content")).find(R"("text":"ok")") != std::string::npos);
  CHECK(e.find("duration_ms") != nullptr);
}

TEST_CASE("a PostToolUse command hook's block withholds the result: the model reads the reason",
          "[plugins]") {
  TempDir dir;
  auto exit2 = script(dir, "dlp.sh", "echo 'the output held a credential' >&2\nexit 2");
  auto run = run_with_command_hook(hook_on(exit2, {HookEvent::post_tool_use}));
  CHECK(run.calls == 1);  // the handler ran; only its result is withheld
  CHECK(run.model_read == "the output held a credential");
  auto results = results_of(run.result);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  CHECK(member(json::Value(results[0].metadata), "hook") == "guard");
  CHECK(member(json::Value(results[0].metadata), "error_code") == "blocked_by_hook");

  auto verdict = script(dir, "json.sh", R"(echo '{"decision":"block","reason":"redacted"}')");
  CHECK(run_with_command_hook(hook_on(verdict, {HookEvent::post_tool_use})).model_read ==
        "redacted");
}

TEST_CASE(
    "a PostToolUse command hook that hangs, crashes, prints garbage or floods withholds "
    "the result, saying what went wrong",
    "[plugins]") {
  TempDir dir;
  struct Case {
    std::string body;
    std::string said;
  };
  const std::vector<Case> cases = {
      {"sleep 30", "did not answer within 300 ms"},
      {"kill -SEGV $$", "killed by signal 11"},
      {"echo 'looks fine to me'", "not a JSON verdict"},
      {"yes '{}' | head -c 10000000", "printed more than 4096 bytes"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].body);
    auto hook = script(dir, "bad" + std::to_string(i) + ".sh", cases[i].body);
    CommandHookOptions o = hook_on(hook, {HookEvent::post_tool_use});
    o.timeout = std::chrono::milliseconds(300);
    o.max_output_bytes = 4096;
    auto run = run_with_command_hook(o);
    CHECK(run.calls == 1);
    CHECK(run.model_read.find(cases[i].said) != std::string::npos);
    CHECK(run.model_read.find("result was withheld") != std::string::npos);
    CHECK(run.model_read.rfind("The hook 'guard' ", 0) == 0);  // in place of the tool's "ok"
  }
}

TEST_CASE("SessionStart, ModelCall and SessionEnd command hooks receive each event as JSON",
          "[plugins]") {
  TempDir dir;
  auto file = dir.path() / "events.jsonl";
  auto hook = script(dir, "record.sh",
                     "cat >> '" + file.string() + "'\necho >> '" + file.string() + "'\nexit 0");
  auto run = observed_run(
      hook_on(hook, {HookEvent::session_start, HookEvent::model_call, HookEvent::session_end}));
  CHECK(run.calls == 1);
  CHECK(run.errors.empty());
  auto events = json_lines(file);
  REQUIRE(events.size() == 4);  // start, two model calls, end; no tool events
  const std::string session = member(events[0], "session_id");
  CHECK_FALSE(session.empty());
  CHECK(member(events[0], "hook_event_name") == "SessionStart");
  CHECK(member(events[0], "model") == "test");
  CHECK(member(events[1], "hook_event_name") == "ModelCall");
  CHECK(member(events[1], "stop_reason") == "tool_use");
  CHECK(events[1].find("turn_index")->to_int64().value() == 1);
  CHECK(member(events[2], "hook_event_name") == "ModelCall");
  CHECK(member(events[2], "stop_reason") == "stop");
  CHECK(events[2].find("usage") != nullptr);
  CHECK(member(events[3], "hook_event_name") == "SessionEnd");
  CHECK(member(events[3], "reason") == "stop");
  CHECK(events[3].find("error_message") == nullptr);
  for (const auto& e : events) CHECK(member(e, "session_id") == session);
}

TEST_CASE(
    "a command hook on an event nothing can be blocked on is reported when it blocks, "
    "hangs, crashes, prints garbage or floods, and the run goes on",
    "[plugins]") {
  TempDir dir;
  struct Case {
    std::string body;
    std::string said;
  };
  const std::vector<Case> cases = {
      {"echo 'not now' >&2\nexit 2", "asked to block, which SessionStart cannot be: not now"},
      {"sleep 30", "did not answer within 300 ms"},
      {"kill -SEGV $$", "killed by signal 11"},
      {"echo 'hello there'", "not a JSON verdict"},
      {"yes '{}' | head -c 10000000", "printed more than 4096 bytes"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].body);
    auto hook = script(dir, "bad" + std::to_string(i) + ".sh", cases[i].body);
    CommandHookOptions o = hook_on(hook, {HookEvent::session_start});
    o.timeout = std::chrono::milliseconds(300);
    o.max_output_bytes = 4096;
    auto run = observed_run(o);
    CHECK(run.calls == 1);
    CHECK(run.result.stop_reason == RunStopReason::stop);
    CHECK(run.result.final_text == "done");
    REQUIRE(run.errors.size() == 1);
    CHECK(run.errors[0].find("'guard'") != std::string::npos);
    CHECK(run.errors[0].find(cases[i].said) != std::string::npos);
  }
}

TEST_CASE("a SessionEnd command hook hears an aborted run, and ModelCall one that failed",
          "[plugins]") {
  TempDir dir;
  auto file = dir.path() / "events.jsonl";
  auto hook = script(dir, "record.sh",
                     "cat >> '" + file.string() + "'\necho >> '" + file.string() + "'\nexit 0");
  RuntimeConfig rt =
      with_hooks({command_hook(hook_on(hook, {HookEvent::model_call, HookEvent::session_end}))});
  auto fx = faux_agent({faux::error_response("the gateway fell over")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  REQUIRE(r->stop_reason == RunStopReason::error);
  auto events = json_lines(file);
  REQUIRE(events.size() == 2);
  CHECK(member(events[0], "stop_reason") == "error");
  CHECK(member(events[0], "error_message").find("the gateway fell over") != std::string::npos);
  CHECK(member(events[1], "reason") == "error");
  CHECK(member(events[1], "error_message").find("the gateway fell over") != std::string::npos);
}

TEST_CASE("a manifest's command hook names its events; unknown, repeated or no events are refused",
          "[plugins]") {
  const std::filesystem::path file = "m.json";
  auto ok = parse_plugin_manifest(R"({"name": "x", "command_hook": {"command": ["a"], )"
                                  R"("events": ["PostToolUse", "SessionEnd"]}})",
                                  file);
  REQUIRE(ok);
  REQUIRE(ok->command_hook);
  CHECK(ok->command_hook->events ==
        std::vector<HookEvent>{HookEvent::post_tool_use, HookEvent::session_end});
  auto plain = parse_plugin_manifest(R"({"name": "x", "command_hook": {"command": ["a"]}})", file);
  REQUIRE(plain);
  CHECK(plain->command_hook->events == std::vector<HookEvent>{HookEvent::pre_tool_use});
  auto unknown = parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["a"], "events": ["PreToolUse", "Stop"]}})",
      file);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("unknown event \"Stop\"") != std::string::npos);
  CHECK(unknown.error().message.find("PostToolUse") != std::string::npos);  // the known ones
  CHECK_FALSE(parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["a"], "events": ["ModelCall", "ModelCall"]}})",
      file));
  CHECK_FALSE(parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["a"], "events": []}})", file));
  CHECK_FALSE(parse_plugin_manifest(
      R"({"name": "x", "command_hook": {"command": ["a"], "events": "PreToolUse"}})", file));
  for (HookEvent e : {HookEvent::pre_tool_use, HookEvent::post_tool_use, HookEvent::session_start,
                      HookEvent::session_end, HookEvent::model_call, HookEvent::compaction}) {
    CHECK(parse_hook_event(to_string(e)) == e);
  }
}

TEST_CASE(
    "an in-process hook's review withholds a result; the first block wins and a throwing "
    "review fails closed",
    "[plugins]") {
  struct Reviewer final : EventHookPlugin {
    Reviewer(std::string n, int mode) : name_(std::move(n)), mode_(mode) {}
    std::string name() const override { return name_; }
    HookDecision review_tool_result(const HookToolResult& r) override {
      ++reviewed;
      if (mode_ == 1)
        return HookDecision::block("withheld by " + name_ + " after " + std::string(r.tool_name));
      if (mode_ == 2) throw std::runtime_error("reviewer crashed");
      return HookDecision::allow();
    }
    std::string name_;
    int mode_;
    std::atomic<int> reviewed{0};
  };
  auto allow = std::make_shared<Reviewer>("a", 0);
  auto first = std::make_shared<Reviewer>("b", 1);
  auto second = std::make_shared<Reviewer>("c", 1);
  auto tool = counting_tool("execute", "secret output");
  RuntimeConfig rt = with_hooks({allow, first, second});
  rt.extensions.allow_all_tool_calls = true;
  auto fx = faux_agent({one_call("execute"), faux::text_response("ok")}, {tool.definition}, rt);
  REQUIRE(fx.agent.run("go"));
  CHECK(*tool.calls == 1);
  CHECK(what_the_model_read(fx) == "withheld by b after execute");
  CHECK(second->reviewed == 0);  // the scan ended at the first block

  auto thrower = std::make_shared<Reviewer>("t", 2);
  RuntimeConfig rt2 = with_hooks({thrower});
  rt2.extensions.allow_all_tool_calls = true;
  auto fx2 = faux_agent({one_call("execute"), faux::text_response("ok")},
                        {counting_tool("execute", "secret output").definition}, rt2);
  REQUIRE(fx2.agent.run("go"));
  const std::string read = what_the_model_read(fx2);
  CHECK(read.find("reviewer crashed") != std::string::npos);
  CHECK(read.find("secret output") == std::string::npos);

  // A call refused before its handler is not reviewed.
  auto counter = std::make_shared<Reviewer>("n", 0);
  RuntimeConfig rt3 = with_hooks({counter});
  rt3.extensions.before_tool_call = [](const ToolCallRequest&) {
    return ToolCallDecision::deny("no");
  };
  auto fx3 = faux_agent({one_call("execute"), faux::text_response("ok")},
                        {counting_tool("execute").definition}, rt3);
  REQUIRE(fx3.agent.run("go"));
  CHECK(counter->reviewed == 0);
}
