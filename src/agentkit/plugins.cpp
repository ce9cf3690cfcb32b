// Plugin loading (built-ins, then manifest-selected plugins by name; the later wins a clash with
// a warning; a disabled list), manifest parsing, validation, and the hook calls of a run.
#include "plugins.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "agentkit/wire/decode.hpp"
#include "run_context.hpp"

namespace agentkit {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxPluginNameLength = 64;
// A manifest is a handful of members: anything deeper is not one.
constexpr std::size_t kManifestDepth = 8;
// Bounds of a command hook's settings in a manifest.
constexpr std::int64_t kMaxHookTimeoutMs = 10 * 60 * 1000;
constexpr std::int64_t kMaxHookOutputBytes = 16 * 1024 * 1024;

bool is_valid_plugin_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxPluginNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
  });
}

Error manifest_error(const fs::path& file, std::string what) {
  return make_error(Errc::invalid_argument, "plugin manifest '" + file.string() + "': " + what)
      .with_detail("file", file.string());
}

Result<std::string> string_member(const json::Value& v, const fs::path& file, std::string_view key) {
  if (!v.is_string()) return manifest_error(file, "\"" + std::string(key) + "\" must be a string");
  return v.as_string();
}

Result<std::vector<std::string>> string_list(const json::Value& v, const fs::path& file,
                                             std::string_view key) {
  if (!v.is_array()) {
    return manifest_error(file, "\"" + std::string(key) + "\" must be an array of strings");
  }
  std::vector<std::string> out;
  for (const auto& item : v.as_array()) {
    if (!item.is_string() || item.as_string().empty() ||
        item.as_string().find('\0') != std::string::npos) {
      return manifest_error(file, "\"" + std::string(key) + "\" must hold non-empty strings");
    }
    out.push_back(item.as_string());
  }
  return out;
}

Result<std::int64_t> bounded_int(const json::Value& v, const fs::path& file, std::string_view key,
                                 std::int64_t max) {
  Result<std::int64_t> n = v.is_number() ? v.to_int64() : fail(Errc::invalid_argument, "");
  if (!n || *n < 1 || *n > max) {
    return manifest_error(file, "\"" + std::string(key) + "\" must be an integer from 1 to " +
                                    std::to_string(max));
  }
  return *n;
}

Result<CommandHookOptions> parse_command_hook(const json::Value& v, const fs::path& file,
                                              const std::string& name) {
  if (!v.is_object()) return manifest_error(file, "\"command_hook\" must be an object");
  CommandHookOptions o;
  o.name = name;
  for (const auto& [key, value] : v.as_object()) {
    if (key == "command") {
      auto list = string_list(value, file, "command_hook.command");
      if (!list) return list.error();
      o.command = std::move(*list);
    } else if (key == "tools") {
      auto list = string_list(value, file, "command_hook.tools");
      if (!list) return list.error();
      o.tools = std::move(*list);
    } else if (key == "timeout_ms") {
      auto n = bounded_int(value, file, "command_hook.timeout_ms", kMaxHookTimeoutMs);
      if (!n) return n.error();
      o.timeout = std::chrono::milliseconds(*n);
    } else if (key == "max_output_bytes") {
      auto n = bounded_int(value, file, "command_hook.max_output_bytes", kMaxHookOutputBytes);
      if (!n) return n.error();
      o.max_output_bytes = static_cast<std::size_t>(*n);
    } else {
      return manifest_error(file, "unknown member \"command_hook." + key +
                                      "\" (known: command, tools, timeout_ms, max_output_bytes)");
    }
  }
  if (o.command.empty()) return manifest_error(file, "\"command_hook.command\" is missing or empty");
  // A relative program path is the manifest's own script; a bare name is looked up on PATH.
  fs::path program(o.command.front());
  if (program.is_relative() && o.command.front().find('/') != std::string::npos) {
    o.command.front() = (file.parent_path() / program).lexically_normal().string();
  }
  return o;
}

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

Result<PluginManifest> read_manifest(const fs::path& file) {
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (ec) return manifest_error(file, "cannot read it: " + ec.message());
  if (size > kMaxManifestBytes) {
    return manifest_error(file, "it is " + std::to_string(size) + " bytes; the limit is " +
                                    std::to_string(kMaxManifestBytes));
  }
  std::ifstream in(file, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    return manifest_error(file, "cannot read it");
  }
  return parse_plugin_manifest(bytes, file);
}

// The manifests of every configured folder, one per plugin name (a later file wins a clash).
std::map<std::string, PluginManifest> discover(const PluginConfig& config, PluginReport& report) {
  std::map<std::string, PluginManifest> by_name;
  for (const auto& dir : config.manifest_dirs) {
    for (const auto& file : manifest_files(dir, report)) {
      Result<PluginManifest> m = read_manifest(file);
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
    if (!is_valid_plugin_name(c.name)) {
      report.problems.push_back(c.source + " has an invalid name '" + c.name +
                                "': use 1-64 characters from [A-Za-z0-9_.-]");
      continue;
    }
    auto same = std::find_if(out.begin(), out.end(), [&](const Candidate& o) { return o.name == c.name; });
    if (same != out.end()) {
      report.warnings.push_back("two plugins are named '" + c.name + "' (" + same->source + " and " +
                                c.source + "); the later wins");
      out.erase(same);
    }
    out.push_back(std::move(c));
  }
  return out;
}

void load_backend(BackendPlugin& b, const Candidate& c, detail::PluginSet& set, PluginReport& report) {
  std::string api;
  if (!guarded([&] { api = b.api(); }, c.source + " api()", report)) return;
  if (api.empty()) {
    report.problems.push_back(c.source + " is a backend with an empty api()");
    return;
  }
  Result<std::shared_ptr<ProviderClient>> client = nullptr;
  if (!guarded([&] { client = b.make_client(); }, c.source + " make_client()", report)) return;
  if (!client || !*client) {
    report.problems.push_back(c.source + " could not make its client for api '" + api + "'" +
                              (client ? std::string(": it returned null") : ": " + client.error().message));
    return;
  }
  auto same = std::find_if(set.backends.begin(), set.backends.end(),
                           [&](const auto& e) { return e.first == api; });
  if (same != set.backends.end()) {
    report.warnings.push_back("two plugins serve api '" + api + "'; the later (" + c.source + ") wins");
    set.backends.erase(same);
  }
  set.backends.emplace_back(api, std::move(*client));
}

void load_tools(ToolProviderPlugin& t, const Candidate& c, detail::PluginSet& set, PluginReport& report) {
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

Result<PluginManifest> parse_plugin_manifest(std::string_view bytes, const fs::path& file) {
  wire::Limits limits;
  limits.max_message_bytes = kMaxManifestBytes;
  limits.max_depth = kManifestDepth;
  Result<json::Value> doc = wire::decode(bytes, limits);
  if (!doc) return manifest_error(file, "not valid JSON: " + doc.error().message);
  if (!doc->is_object()) return manifest_error(file, "the manifest must be a JSON object");
  PluginManifest m;
  m.file = file;
  const json::Value* hook = nullptr;
  for (const auto& [key, value] : doc->as_object()) {
    if (key == "name") {
      auto s = string_member(value, file, key);
      if (!s) return s.error();
      m.name = std::move(*s);
    } else if (key == "description") {
      auto s = string_member(value, file, key);
      if (!s) return s.error();
      m.description = std::move(*s);
    } else if (key == "command_hook") {
      hook = &value;
    } else {
      return manifest_error(file, "unknown member \"" + key +
                                      "\" (known: name, description, command_hook)");
    }
  }
  if (m.name.empty()) return manifest_error(file, "\"name\" is missing or empty");
  if (!is_valid_plugin_name(m.name)) {
    return manifest_error(file, "\"name\" '" + m.name +
                                    "' is invalid: use 1-64 characters from [A-Za-z0-9_.-]");
  }
  if (hook != nullptr) {
    auto options = parse_command_hook(*hook, file, m.name);
    if (!options) return options.error();
    m.command_hook = std::move(*options);
  }
  return m;
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
        report.warnings.push_back("two storage plugins are loaded; the later (" + c.source + ") wins");
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

namespace {

template <class F>
void notify_all(RunContext& rc, std::string_view method, F&& call) {
  const PluginSet& set = *rc.agent.plugins;
  for (std::size_t i = 0; i < set.hooks.size(); ++i) {
    std::string failure;
    if (!call_guarded([&] { call(*set.hooks[i]); }, failure)) {
      rc.emit(ErrorEvent{make_error(Errc::internal, "the plugin hook '" + set.hook_names[i] + "' threw in " +
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
