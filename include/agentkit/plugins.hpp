// agentkit/plugins.hpp — plugins: four categories of extension (backends, tool providers, session
// storage, event hooks), the registry that lives on RuntimeConfig, JSON manifests and command
// hooks.
//
//   using namespace agentkit;
//   // A hook that refuses to let the model delete anything; every other method keeps its no-op.
//   class NoDeletes final : public EventHookPlugin {
//    public:
//     std::string name() const override { return "no-deletes"; }
//     HookDecision before_tool_call(const HookToolCall& call) override {
//       if (call.tool_name == "delete_file")
//         return HookDecision::block("Deleting is not allowed here.");
//       return HookDecision::no_opinion();
//     }
//   };
//   RuntimeConfig rt;
//   rt.extensions.plugins.builtins.push_back(std::make_shared<NoDeletes>());
//   rt.extensions.plugins.manifest_dirs.push_back("plugins.d");   // only folders you name
//   rt.extensions.plugins.disabled = {"legacy-audit"};
//   PluginReport report = validate_plugins(rt.extensions.plugins);  // no side effects
//
// Order and authority. Plugins load in this order: `builtins` as listed, then the plugins the
// manifests select, by name. When two plugins supply the same thing (a tool name, a backend API,
// a plugin name) the later one wins and a warning names both. Event hooks run AFTER the
// runtime's before_tool_call, which remains the authorization boundary: a call it denied never
// reaches a hook, and a hook's `allow` means "no objection", never a grant. Hooks run in load
// order and the first `block` wins and ends the scan. MCP tools reach hooks under their
// qualified name (`server__tool`).
//
// Plugins are code linked into the program and registered explicitly: there is no global
// registry, no static-initialiser registration and no dlopen. A manifest can only select a
// plugin the embedder compiled in and listed in `available` (or describe a command hook).
//
// Thread safety: a plugin object may be shared by several agents. before_tool_call,
// review_tool_result and after_tool_call may be called concurrently (the calls of one parallel
// batch are finalised one at a time, but several sessions may run at once); the other methods
// run on a session's run thread. Exceptions thrown by a plugin method are contained: a throwing
// before_tool_call or review_tool_result blocks (it fails closed), any other throwing method
// becomes an ErrorEvent.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/base/stop_token.hpp"
#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/core/tool.hpp"
#include "agentkit/extensions.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit {

namespace session {
class Store;  // agentkit/session/store.hpp
}  // namespace session

// ---- What hooks see and answer ------------------------------------------------------------------

enum class HookVerdict : std::uint8_t {
  no_opinion,  // the hook does not care about this call
  allow,       // no objection (never overrides a block, never widens before_tool_call)
  block,       // the call does not run; the model reads `reason`
};
std::string_view to_string(HookVerdict verdict) noexcept;

struct HookDecision {
  HookVerdict verdict = HookVerdict::no_opinion;
  // For a block: the sentence the model reads in the call's error result.
  std::string reason;

  static HookDecision no_opinion() { return {}; }
  static HookDecision allow() { return {HookVerdict::allow, {}}; }
  static HookDecision block(std::string reason) { return {HookVerdict::block, std::move(reason)}; }
};

// A tool call about to run, after before_tool_call allowed it (and after its rewrite).
struct HookToolCall {
  std::string_view session_id;
  std::string_view tool_name;   // as the model called it: `server__tool` for an MCP tool
  std::string_view mcp_server;  // the MCP server for an MCP tool, empty otherwise
  std::string_view tool_use_id;
  const json::Value& arguments;  // the arguments the handler will receive
  json::Raw raw_arguments;       // the model's bytes
  int turn_index = 0;
  // Fires when the run is cancelled: a hook that waits on something should stop waiting.
  agentkit::stop_token stop;
};

// A tool call that finished (or was refused): its result message as the model will read it.
struct HookToolResult {
  std::string_view session_id;
  std::string_view tool_name;
  std::string_view mcp_server;
  std::string_view tool_use_id;
  const json::Value& arguments;  // the arguments the handler received (null when refused early)
  const ToolResultMessage& message;
  std::chrono::milliseconds elapsed{0};
  // Fires when the run is cancelled.
  agentkit::stop_token stop;
};

// A run of a session starts (the model is the agent's).
struct HookSessionStart {
  std::string_view session_id;
  std::string_view model_id;
};

// A run of a session ended, on every path: a clean stop, an error, an abort, awaiting approval.
struct HookSessionEnd {
  std::string_view session_id;
  RunStopReason reason = RunStopReason::stop;
  std::string_view error_message;
  const Usage& run_usage;
};

// One model call completed (its reply may be an error or aborted message).
struct HookModelCall {
  std::string_view session_id;
  int turn_index = 0;
  const AssistantMessage& reply;
};

// The history was compacted: older messages replaced by a summary before a model call.
struct HookCompaction {
  std::string_view session_id;
  std::size_t messages_before = 0;
  std::size_t messages_after = 0;
  std::int64_t tokens_before = 0;
  std::int64_t tokens_after = 0;
};

// ---- The four categories ------------------------------------------------------------------------

// What every plugin has (PluginConfig, the list an agent loads, is in agentkit/extensions.hpp):
// a name, unique among the plugins an agent loads ([A-Za-z0-9_.-], 1-64 characters). A class
// may implement several categories; it is still one plugin.
class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string name() const = 0;
};

// A backend: a wire API the loop can call models through. The model selects it by its `api`
// (ModelConfig::descriptor with that api, or a catalog model whose api it is).
class BackendPlugin : public virtual Plugin {
 public:
  // The API name the client serves, e.g. "my-gateway".
  virtual std::string api() const = 0;
  // The client; called once per agent built with this plugin. Null or an error is a load problem.
  virtual Result<std::shared_ptr<ProviderClient>> make_client() = 0;
};

// A tool provider: tools that join the agent's one flat tool namespace when it is built.
class ToolProviderPlugin : public virtual Plugin {
 public:
  // Called once per agent built with this plugin.
  virtual std::vector<ToolDefinition> tools() = 0;
};

// Storage: where session logs live (agentkit/session/store.hpp). A session started with
// StartOptions::log_name opens or creates its log through the last loaded storage plugin, and so
// do the subagents it delegates to (each child's log named by the child's session id).
class StoragePlugin : public virtual Plugin {
 public:
  // The store holding the log called `log_name`; it may or may not exist yet. Called
  // concurrently when subagents delegated in one batch open their logs.
  virtual Result<std::unique_ptr<session::Store>> open(std::string_view log_name) = 0;
};

// Event hooks. Every method has a no-op default: override only what you need.
class EventHookPlugin : public virtual Plugin {
 public:
  virtual void on_session_start(const HookSessionStart&) {}
  virtual void on_session_end(const HookSessionEnd&) {}
  // Runs after before_tool_call allowed the call and before its handler; may only narrow.
  virtual HookDecision before_tool_call(const HookToolCall&) { return HookDecision::no_opinion(); }
  // Runs when a call's handler has returned (after the runtime's after_tool_call), before the
  // model reads the result; may only narrow: a block withholds the result, and the model reads
  // an error with the block's reason instead. The hooks are asked in load order and the first
  // block wins. A call refused before its handler ran is not reviewed.
  virtual HookDecision review_tool_result(const HookToolResult&) {
    return HookDecision::no_opinion();
  }
  // Every call's final result (after the review), refused calls included.
  virtual void after_tool_call(const HookToolResult&) {}
  virtual void on_model_call(const HookModelCall&) {}
  virtual void on_compaction(const HookCompaction&) {}
};

// ---- Manifests ----------------------------------------------------------------------------------

// The events a command hook can be sent, by the names hook authors know from other hosts.
enum class HookEvent : std::uint8_t {
  pre_tool_use,   // "PreToolUse": a call is about to run; the program may block it
  post_tool_use,  // "PostToolUse": a call's handler returned; the program may withhold the result
  session_start,  // "SessionStart": a run of a session starts
  session_end,    // "SessionEnd": a run ended, on every path
  model_call,     // "ModelCall": a model call completed
  compaction,     // "Compaction": older messages were replaced by a summary
};
std::string_view to_string(HookEvent event) noexcept;
// The event a name ("PostToolUse") stands for; nullopt for an unknown name.
std::optional<HookEvent> parse_hook_event(std::string_view name) noexcept;

// Settings of a command hook: an external program told about events of a run.
//
// The program receives each event as one JSON object on stdin, with "hook_event_name" and
// "session_id" always present:
//   PreToolUse    "tool_name", "tool_use_id", "tool_input", "turn_index", "mcp_server"
//   PostToolUse   "tool_name", "tool_use_id", "tool_input", "tool_response" {"is_error",
//                 "content": [blocks]}, "duration_ms", "mcp_server"
//   SessionStart  "model"
//   SessionEnd    "reason" (a RunStopReason), "error_message", "usage"
//   ModelCall     "turn_index", "model", "stop_reason", "usage", "error_message"
//   Compaction    "messages_before", "messages_after", "tokens_before", "tokens_after"
// ("mcp_server" only for MCP tools, "error_message" only when there is one), and answers with
// its exit status: 0 allows (no objection), 2 blocks with its stderr as the reason the model
// reads. With status 0 it may instead print a JSON verdict on stdout:
//   {"decision":"block","reason":"..."}  or  {"decision":"allow"}
// PreToolUse: a block stops the call. PostToolUse: a block withholds the result (the handler
// has run; the model reads an error with the reason instead). Anything else the program does
// fails closed for those two and blocks with a reason that says what went wrong: another exit
// status, a signal, no answer within `timeout`, output that is not a verdict, more than
// `max_output_bytes` of stdout. The other events cannot be blocked: a block, or any of those
// failures, is reported as an ErrorEvent naming the hook, and the run goes on.
struct CommandHookOptions {
  // The plugin's name.
  std::string name;
  // The program and its arguments; run directly, no shell. A relative program path in a
  // manifest is resolved against the manifest's folder.
  std::vector<std::string> command;
  // The events sent to the program. Default: PreToolUse only.
  std::vector<HookEvent> events{HookEvent::pre_tool_use};
  // Only calls of these tools are sent to the program, for PreToolUse and PostToolUse (exact
  // names; MCP tools qualified). Empty (the default): every call.
  std::vector<std::string> tools;
  // Kill the program and block the call after this long. Default: 10 s.
  std::chrono::milliseconds timeout{10'000};
  // Largest stdout (and stderr reason) read; more blocks the call. Default: 64 KiB.
  std::size_t max_output_bytes = 64 * 1024;
  // Working folder of the program. Empty: the caller's current folder.
  std::filesystem::path cwd;
  // The program's complete environment ("NAME=value"). nullopt (the default): the reduced
  // environment the shell tools use (tools::reduced_environment(): no API keys, no tokens).
  std::optional<std::vector<std::string>> environment;
};

// An event hook that runs an external program for each event it names (see
// CommandHookOptions).
std::shared_ptr<EventHookPlugin> command_hook(CommandHookOptions options);

// A parsed plugin manifest. The JSON form:
//   {"name": "no-deletes", "description": "..."}            selects a plugin from `available`
//   {"name": "guard", "command_hook": {"command": ["./guard.sh"], "tools": ["execute"],
//                                      "events": ["PreToolUse", "PostToolUse"],
//                                      "timeout_ms": 5000}}  describes a command hook
// Unknown members are errors (a misspelt key must not silently change what loads).
struct PluginManifest {
  std::filesystem::path file;
  std::string name;
  std::string description;
  std::optional<CommandHookOptions> command_hook;
};

// Largest manifest file read; larger is an error.
inline constexpr std::size_t kMaxManifestBytes = 64 * 1024;

// Parses manifest bytes (`file` names the source in errors and resolves a relative command).
// Errors: invalid_argument naming the file and the member.
Result<PluginManifest> parse_plugin_manifest(std::string_view bytes,
                                             const std::filesystem::path& file);

// ---- Validation ---------------------------------------------------------------------------------

// What loading a PluginConfig found. `problems` make make_agent fail; `warnings` do not.
struct PluginReport {
  // The plugins that would load, in load order.
  std::vector<std::string> loaded;
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
  bool ok() const noexcept { return problems.empty(); }
};

// Loads the configuration as make_agent would and checks every plugin: manifests (malformed,
// duplicated, naming a plugin not compiled in), names, backends (an API and a client), tool
// providers (valid names, handlers), clashes. Reports every problem, not only the first. Side
// effects: none beyond reading manifests and calling the plugins' own factories (tools(),
// make_client()); no command is run, nothing is written, on_warning is not called.
PluginReport validate_plugins(const PluginConfig& config);

}  // namespace agentkit
