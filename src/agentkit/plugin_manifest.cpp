// Plugin manifests: JSON from a folder the embedder named, read as untrusted bytes. Kept apart
// from the loader so the parser builds (and is fuzzed) with the base, json and wire modules only.
#include <algorithm>
#include <fstream>
#include <utility>

#include "agentkit/plugins.hpp"
#include "agentkit/wire/decode.hpp"

namespace agentkit {
namespace detail {

// Plugin names share the tool names' alphabet plus '.', and their bound.
constexpr std::size_t kMaxPluginNameLength = 64;

bool is_valid_plugin_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxPluginNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

}  // namespace detail

namespace {

// The names hook authors use for these events in other hosts' settings.
constexpr std::pair<HookEvent, std::string_view> kHookEventNames[] = {
    {HookEvent::pre_tool_use, "PreToolUse"},    {HookEvent::post_tool_use, "PostToolUse"},
    {HookEvent::session_start, "SessionStart"}, {HookEvent::session_end, "SessionEnd"},
    {HookEvent::model_call, "ModelCall"},       {HookEvent::compaction, "Compaction"},
};

}  // namespace

std::string_view to_string(HookEvent event) noexcept {
  for (const auto& [e, name] : kHookEventNames) {
    if (e == event) return name;
  }
  return "unknown";
}

std::optional<HookEvent> parse_hook_event(std::string_view name) noexcept {
  for (const auto& [e, known] : kHookEventNames) {
    if (known == name) return e;
  }
  return std::nullopt;
}

namespace {

namespace fs = std::filesystem;
using detail::is_valid_plugin_name;

// A manifest is a handful of members: anything deeper is not one.
constexpr std::size_t kManifestDepth = 8;
// Bounds of a command hook's settings in a manifest.
constexpr std::int64_t kMaxHookTimeoutMs = 10 * 60 * 1000;
constexpr std::int64_t kMaxHookOutputBytes = 16 * 1024 * 1024;

Error manifest_error(const fs::path& file, std::string what) {
  return make_error(Errc::invalid_argument, "plugin manifest '" + file.string() + "': " + what)
      .with_detail("file", file.string());
}

Result<std::string> string_member(const json::Value& v, const fs::path& file,
                                  std::string_view key) {
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
    return manifest_error(
        file, "\"" + std::string(key) + "\" must be an integer from 1 to " + std::to_string(max));
  }
  return *n;
}

// "events": at least one known event name, none twice.
Result<std::vector<HookEvent>> event_list(const json::Value& v, const fs::path& file) {
  auto names = string_list(v, file, "command_hook.events");
  if (!names) return names.error();
  if (names->empty()) return manifest_error(file, "\"command_hook.events\" names no event");
  std::vector<HookEvent> out;
  for (const std::string& name : *names) {
    std::optional<HookEvent> event = parse_hook_event(name);
    if (!event) {
      std::string known;
      for (const auto& [e, n] : kHookEventNames)
        known += (known.empty() ? "" : ", ") + std::string(n);
      return manifest_error(file, "\"command_hook.events\" names an unknown event \"" + name +
                                      "\" (known: " + known + ")");
    }
    if (std::find(out.begin(), out.end(), *event) != out.end())
      return manifest_error(file, "\"command_hook.events\" names \"" + name + "\" twice");
    out.push_back(*event);
  }
  return out;
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
    } else if (key == "events") {
      auto events = event_list(value, file);
      if (!events) return events.error();
      o.events = std::move(*events);
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
                                      "\" (known: command, tools, events, timeout_ms, "
                                      "max_output_bytes)");
    }
  }
  if (o.command.empty())
    return manifest_error(file, "\"command_hook.command\" is missing or empty");
  // A relative program path is the manifest's own script; a bare name is looked up on PATH.
  fs::path program(o.command.front());
  if (program.is_relative() && o.command.front().find('/') != std::string::npos) {
    o.command.front() = (file.parent_path() / program).lexically_normal().string();
  }
  return o;
}

}  // namespace

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
      return manifest_error(
          file, "unknown member \"" + key + "\" (known: name, description, command_hook)");
    }
  }
  if (m.name.empty()) return manifest_error(file, "\"name\" is missing or empty");
  if (!is_valid_plugin_name(m.name)) {
    return manifest_error(
        file, "\"name\" '" + m.name + "' is invalid: use 1-64 characters from [A-Za-z0-9_.-]");
  }
  if (hook != nullptr) {
    auto options = parse_command_hook(*hook, file, m.name);
    if (!options) return options.error();
    m.command_hook = std::move(*options);
  }
  return m;
}

namespace detail {

Result<PluginManifest> read_plugin_manifest(const fs::path& file) {
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

}  // namespace detail
}  // namespace agentkit
