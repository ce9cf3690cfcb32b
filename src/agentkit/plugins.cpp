// Plugin loading (built-ins, then manifest-selected plugins by name; the later wins a clash with
// a warning; a disabled list), manifest parsing, validation, and the hook calls of a run.
#include "plugins.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "run_context.hpp"

namespace agentkit {
namespace {

namespace fs = std::filesystem;

// ---- Loading ---------------------------------------------------------------------------------

struct Candidate {
  std::shared_ptr<Plugin> plugin;
  std::string name;
  std::string source;  // "built-in #2", "manifest 'x.json'"
};

// Calls a plugin's factory, turning an exception into a problem.
template <class F>
bool guarded(F&& f, const std::string& what, PluginReport& report) {
  std::string failure;
  if (detail::call_guarded(std::forward<F>(f), failure)) return true;
  report.problems.push_back(what + " threw: " + failure);
  return false;
}

std::vector<fs::path> manifest_files(const fs::path& dir, PluginReport& report) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    report.problems.push_back("plugin manifest folder '" + dir.string() +
                              "' does not exist or is not a folder");
    return files;
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) {
    report.problems.push_back("cannot list plugin manifest folder '" + dir.string() +
                              "': " + ec.message());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The manifests of every configured folder, one per plugin name (a later file wins a clash).
std::map<std::string, PluginManifest> discover(const PluginConfig& config, PluginReport& report) {
  std::map<std::string, PluginManifest> by_name;
  for (const auto& dir : config.manifest_dirs) {
    for (const auto& file : manifest_files(dir, report)) {
      Result<PluginManifest> m = detail::read_plugin_manifest(file);
      if (!m) {
        report.problems.push_back(m.error().message);
        continue;
      }
      if (auto it = by_name.find(m->name); it != by_name.end()) {
        report.warnings.push_back("plugin manifest '" + file.string() + "' and '" +
                                  it->second.file.string() + "' both declare plugin '" + m->name +
                                  "'; the later ('" + file.string() + "') wins");
      }
      by_name.insert_or_assign(m->name, std::move(*m));
    }
  }
  return by_name;
}

std::vector<Candidate> candidates(const PluginConfig& config, PluginReport& report) {
  std::set<std::string, std::less<>> disabled(config.disabled.begin(), config.disabled.end());
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < config.builtins.size(); ++i) {
    std::string where = "built-in plugin #" + std::to_string(i + 1);
    const auto& p = config.builtins[i];
    if (!p) {
      report.problems.push_back(where + " is null");
      continue;
    }
    std::string name;
    if (!guarded([&] { name = p->name(); }, where + " name()", report)) continue;
    if (!disabled.contains(name)) out.push_back({p, name, where});
  }
  std::map<std::string, std::shared_ptr<Plugin>, std::less<>> compiled_in;
  for (std::size_t i = 0; i < config.available.size(); ++i) {
    const auto& p = config.available[i];
    std::string where = "available plugin #" + std::to_string(i + 1);
    if (!p) {
      report.problems.push_back(where + " is null");
      continue;
    }
    std::string name;
    if (guarded([&] { name = p->name(); }, where + " name()", report)) compiled_in[name] = p;
  }
  // std::map: the manifest-selected plugins load in name order.
  for (auto& [name, manifest] : discover(config, report)) {
    if (disabled.contains(name)) continue;
    std::string where = "plugin '" + name + "' (manifest '" + manifest.file.string() + "')";
    if (manifest.command_hook) {
      out.push_back({command_hook(*manifest.command_hook), name, where});
      continue;
    }
    auto it = compiled_in.find(name);
    if (it == compiled_in.end()) {
      report.warnings.push_back("plugin manifest '" + manifest.file.string() + "' names plugin '" +
                                name + "', which is not compiled into this program; skipped");
      continue;
    }
    out.push_back({it->second, name, where});
  }
  return out;
}

// The later of two plugins with one name replaces the earlier.
std::vector<Candidate> settle_names(std::vector<Candidate> all, PluginReport& report) {
  std::vector<Candidate> out;
  for (auto& c : all) {
    if (!detail::is_valid_plugin_name(c.name)) {
      report.problems.push_back(c.source + " has an invalid name '" + c.name +
                                "': use 1-64 characters from [A-Za-z0-9_.-]");
      continue;
    }
    auto same =
        std::find_if(out.begin(), out.end(), [&](const Candidate& o) { return o.name == c.name; });
    if (same != out.end()) {
      report.warnings.push_back("two plugins are named '" + c.name + "' (" + same->source +
                                " and " + c.source + "); the later wins");
      out.erase(same);
    }
    out.push_back(std::move(c));
  }
  return out;
}

void load_backend(BackendPlugin& b, const Candidate& c, detail::PluginSet& set,
                  PluginReport& report) {
  std::string api;
  if (!guarded([&] { api = b.api(); }, c.source + " api()", report)) return;
  if (api.empty()) {
    report.problems.push_back(c.source + " is a backend with an empty api()");
    return;
  }
  Result<std::shared_ptr<ProviderClient>> client = nullptr;
  if (!guarded([&] { client = b.make_client(); }, c.source + " make_client()", report)) return;
  if (!client || !*client) {
    report.problems.push_back(
        c.source + " could not make its client for api '" + api + "'" +
        (client ? std::string(": it returned null") : ": " + client.error().message));
    return;
  }
  auto same = std::find_if(set.backends.begin(), set.backends.end(),
                           [&](const auto& e) { return e.first == api; });
  if (same != set.backends.end()) {
    report.warnings.push_back("two plugins serve api '" + api + "'; the later (" + c.source +
                              ") wins");
    set.backends.erase(same);
  }
  set.backends.emplace_back(api, std::move(*client));
}

void load_tools(ToolProviderPlugin& t, const Candidate& c, detail::PluginSet& set,
                PluginReport& report) {
  std::vector<ToolDefinition> tools;
  if (!guarded([&] { tools = t.tools(); }, c.source + " tools()", report)) return;
  for (auto& tool : tools) {
    if (!tool.handler) {
      report.problems.push_back(c.source + " tool '" + tool.name + "' has no handler");
      continue;
    }
    auto same = std::find_if(set.tools.begin(), set.tools.end(),
                             [&](const auto& e) { return e.second.name == tool.name; });
    if (same != set.tools.end()) {
      report.warnings.push_back("plugins '" + same->first + "' and '" + c.name +
                                "' both supply tool '" + tool.name + "'; the later ('" + c.name +
                                "') wins");
      set.tools.erase(same);
    }
    set.tools.emplace_back(c.name, std::move(tool));
  }
}

}  // namespace

std::string_view to_string(HookVerdict verdict) noexcept {
  switch (verdict) {
    case HookVerdict::no_opinion: return "no_opinion";
    case HookVerdict::allow: return "allow";
    case HookVerdict::block: return "block";
  }
  return "unknown";
}

PluginReport validate_plugins(const PluginConfig& config) {
  PluginReport report;
  (void)detail::load_plugins(config, report);
  return report;
}

namespace detail {

PluginSet load_plugins(const PluginConfig& config, PluginReport& report) {
  PluginSet set;
  for (auto& c : settle_names(candidates(config, report), report)) {
    bool any = false;
    const std::size_t problems_before = report.problems.size();
    if (auto* b = dynamic_cast<BackendPlugin*>(c.plugin.get())) {
      any = true;
      load_backend(*b, c, set, report);
    }
    if (auto* t = dynamic_cast<ToolProviderPlugin*>(c.plugin.get())) {
      any = true;
      load_tools(*t, c, set, report);
    }
    if (auto s = std::dynamic_pointer_cast<StoragePlugin>(c.plugin)) {
      any = true;
      if (set.storage) {
        report.warnings.push_back("two storage plugins are loaded; the later (" + c.source +
                                  ") wins");
      }
      set.storage = std::move(s);
    }
    if (auto h = std::dynamic_pointer_cast<EventHookPlugin>(c.plugin)) {
      any = true;
      set.hooks.push_back(std::move(h));
      set.hook_names.push_back(c.name);
    }
    if (!any) {
      report.problems.push_back(c.source + " ('" + c.name +
                                "') implements none of the plugin categories (backend, tool "
                                "provider, storage, event hook)");
      continue;
    }
    if (report.problems.size() != problems_before) continue;  // a plugin that failed to load
    report.loaded.push_back(c.name);
    set.plugins.push_back(c.plugin);
  }
  return set;
}

// ---- The hook calls of a run ------------------------------------------------------------------

std::optional<HookBlock> consult_hooks(RunContext& rc, const HookToolCall& call) {
  const PluginSet& set = *rc.agent.plugins;
  for (std::size_t i = 0; i < set.hooks.size(); ++i) {
    HookDecision d;
    std::string failure;
    if (!call_guarded([&] { d = set.hooks[i]->before_tool_call(call); }, failure)) {
      // A guard that cannot answer must not let the call through.
      return HookBlock{set.hook_names[i], "The plugin hook '" + set.hook_names[i] +
                                              "' failed, so the call was blocked: " + failure};
    }
    if (d.verdict == HookVerdict::block) {  // the first block wins and ends the scan
      std::string reason = d.reason.empty()
                               ? "Blocked by the plugin hook '" + set.hook_names[i] + "'."
                               : std::move(d.reason);
      return HookBlock{set.hook_names[i], std::move(reason)};
    }
  }
  return std::nullopt;
}

void review_tool_result(RunContext& rc, const HookToolResult& seen, ToolResult& result,
                        ToolResultMessage& message) {
  const PluginSet& set = *rc.agent.plugins;
  std::optional<HookBlock> block;
  for (std::size_t i = 0; i < set.hooks.size() && !block; ++i) {
    HookDecision d;
    std::string failure;
    if (!call_guarded([&] { d = set.hooks[i]->review_tool_result(seen); }, failure)) {
      block = HookBlock{set.hook_names[i],
                        "The plugin hook '" + set.hook_names[i] +
                            "' failed, so the call's result was withheld: " + failure};
    } else if (d.verdict == HookVerdict::block) {  // the first block wins and ends the scan
      block =
          HookBlock{set.hook_names[i], d.reason.empty() ? "The plugin hook '" + set.hook_names[i] +
                                                              "' withheld the call's result."
                                                        : std::move(d.reason)};
    }
  }
  if (!block) return;
  // The handler ran; what the model must not read is its result (metadata included).
  result = ToolResult::failure("blocked_by_hook", std::move(block->reason));
  message.content = result.to_content();
  message.is_error = true;
  message.metadata = json::Object{};
  message.metadata.set("error_code", result.error);
  message.metadata.set("hook", block->hook);
}

namespace {

template <class F>
void notify_all(RunContext& rc, std::string_view method, F&& call) {
  const PluginSet& set = *rc.agent.plugins;
  for (std::size_t i = 0; i < set.hooks.size(); ++i) {
    std::string failure;
    if (!call_guarded([&] { call(*set.hooks[i]); }, failure)) {
      rc.emit(ErrorEvent{
          make_error(Errc::internal, "the plugin hook '" + set.hook_names[i] + "' failed in " +
                                         std::string(method) + ": " + failure),
          false});
    }
  }
}

}  // namespace

void notify_after_tool_call(RunContext& rc, const HookToolResult& result) {
  notify_all(rc, "after_tool_call", [&](EventHookPlugin& h) { h.after_tool_call(result); });
}
void notify_session_start(RunContext& rc, const HookSessionStart& event) {
  notify_all(rc, "on_session_start", [&](EventHookPlugin& h) { h.on_session_start(event); });
}
void notify_session_end(RunContext& rc, const HookSessionEnd& event) {
  notify_all(rc, "on_session_end", [&](EventHookPlugin& h) { h.on_session_end(event); });
}
void notify_model_call(RunContext& rc, const HookModelCall& event) {
  notify_all(rc, "on_model_call", [&](EventHookPlugin& h) { h.on_model_call(event); });
}
void notify_compaction(RunContext& rc, const HookCompaction& event) {
  notify_all(rc, "on_compaction", [&](EventHookPlugin& h) { h.on_compaction(event); });
}

}  // namespace detail
}  // namespace agentkit
