// The plugins an agent loaded (private), and the calls the loop and the batch make into them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agentkit/plugins.hpp"

namespace agentkit::detail {

struct RunContext;

// What load_plugins resolved from a PluginConfig: every clash already settled (later wins).
struct PluginSet {
  std::vector<std::shared_ptr<Plugin>> plugins;         // load order
  std::vector<std::shared_ptr<EventHookPlugin>> hooks;  // load order
  std::vector<std::string> hook_names;                  // hooks[i]'s name
  std::shared_ptr<StoragePlugin> storage;               // the last loaded, or null
  std::vector<std::pair<std::string, std::shared_ptr<ProviderClient>>> backends;  // (api, client)
  std::vector<std::pair<std::string, ToolDefinition>> tools;  // (plugin name, tool)
};

// plugin_manifest.cpp: the name rule ([A-Za-z0-9_.-], 1-64) and one manifest file read whole
// (bounded by kMaxManifestBytes) and parsed.
bool is_valid_plugin_name(std::string_view name);
Result<PluginManifest> read_plugin_manifest(const std::filesystem::path& file);

// Loads `config` in the documented order, filling `report` (problems, warnings, loaded names).
// Runs no hook and calls no warning callback.
PluginSet load_plugins(const PluginConfig& config, PluginReport& report);

// The hooks' verdict on a call before_tool_call allowed: the first block's reason and the name
// of the hook that gave it; nullopt when no hook blocked. A throwing hook blocks (fails closed).
struct HookBlock {
  std::string hook;
  std::string reason;
};
std::optional<HookBlock> consult_hooks(RunContext& rc, const HookToolCall& call);

// The hooks' review of a result a handler produced (review_tool_result): the first block
// withholds it, replacing `result` and `message` (which `seen` shows) with an error carrying the
// reason, the hook named in the metadata. A throwing hook withholds too (fails closed).
void review_tool_result(RunContext& rc, const HookToolResult& seen, ToolResult& result,
                        ToolResultMessage& message);

// Notifications; a throwing hook becomes an ErrorEvent and the rest still run.
void notify_after_tool_call(RunContext& rc, const HookToolResult& result);
void notify_session_start(RunContext& rc, const HookSessionStart& event);
void notify_session_end(RunContext& rc, const HookSessionEnd& event);
void notify_model_call(RunContext& rc, const HookModelCall& event);
void notify_compaction(RunContext& rc, const HookCompaction& event);

}  // namespace agentkit::detail
