#include "agentkit/core/tool.hpp"

#include <array>

namespace agentkit {

ToolResult ToolResult::success(json::Value data) {
  ToolResult r;
  r.data = std::move(data);
  return r;
}

ToolResult ToolResult::text_result(std::string text) {
  ToolResult r;
  r.text = std::move(text);
  return r;
}

ToolResult ToolResult::failure(std::string code, std::string detail) {
  ToolResult r;
  r.ok = false;
  r.error = std::move(code);
  r.detail = std::move(detail);
  return r;
}

std::vector<ContentBlock> ToolResult::to_content() const {
  std::vector<ContentBlock> out;
  out.reserve(1 + images.size());
  if (text) {
    out.emplace_back(TextBlock{*text});
  } else {
    json::Object envelope;
    envelope.append_unique("ok", ok);
    if (!data.is_null()) envelope.append_unique("data", data);
    if (!ok && !error.empty()) envelope.append_unique("error", error);
    if (!detail.empty()) envelope.append_unique("detail", detail);
    out.emplace_back(TextBlock{json::dump(json::Value(std::move(envelope)))});
  }
  for (const auto& image : images) out.emplace_back(image);
  return out;
}

bool is_shell_tool_name(std::string_view name) noexcept {
  // Matched by name, custom tools included (OQ-8): anything by these names runs programs.
  static constexpr std::array<std::string_view, 5> kShellTools = {
      "execute", "run_command", "powershell", "bash", "shell"};
  for (auto shell : kShellTools) {
    if (name == shell) return true;
  }
  return false;
}

}  // namespace agentkit
