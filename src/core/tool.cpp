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

namespace {
// The one Errc-to-code table for failed tool results.
std::string tool_error_code(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
    case Errc::validation_error: return "invalid_arguments";
    case Errc::cancelled: return "aborted";
    default: return std::string(errc_name(code));
  }
}

// A failure the handler gave no words for still tells the model something it can act on.
std::string failure_prose(const ToolResult& r) {
  if (!r.detail.empty()) return r.detail;
  if (r.text && !r.text->empty()) return *r.text;
  return "The tool failed (" + (r.error.empty() ? std::string("no reason given") : r.error) + ").";
}
}  // namespace

ToolResult ToolResult::failure(const Error& error) {
  auto code = error.find_detail("code");
  ToolResult r = failure(code ? std::string(*code) : tool_error_code(error.code), error.message);
  for (const auto& d : error.detail) {
    if (d.key != "code") r.metadata.set(d.key, d.value);
  }
  return r;
}

std::vector<ContentBlock> ToolResult::to_content() const {
  std::vector<ContentBlock> out;
  out.reserve(1 + images.size());
  if (!ok) {
    out.emplace_back(TextBlock{failure_prose(*this)});
  } else if (text) {
    out.emplace_back(TextBlock{*text});
  } else {
    json::Object envelope;
    envelope.append_unique("ok", true);
    if (!data.is_null()) envelope.append_unique("data", data);
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
