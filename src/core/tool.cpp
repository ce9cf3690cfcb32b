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

// ---- Approvals ------------------------------------------------------------------------------

namespace {
constexpr std::array<std::pair<PendingApproval::Why, std::string_view>, 3> kWhyNames{{
    {PendingApproval::Why::flag, "flag"},
    {PendingApproval::Why::predicate, "predicate"},
    {PendingApproval::Why::interceptor, "interceptor"},
}};

Result<std::string> string_at(const json::Value& v, std::string_view key, std::string_view what) {
  const json::Value* m = v.find(key);
  if (m == nullptr || !m->is_string()) {
    return make_error(Errc::parse_error, std::string(what) + ": member '" + std::string(key) +
                                             "' is missing or not a string");
  }
  return std::string(m->as_string());
}
}  // namespace

std::string_view to_string(PendingApproval::Why why) noexcept {
  for (const auto& [w, name] : kWhyNames) {
    if (w == why) return name;
  }
  return "flag";
}

json::Value to_json(const PendingApproval& p) {
  json::Object o;
  o.append_unique("tool_use_id", p.tool_use_id);
  o.append_unique("tool_name", p.tool_name);
  o.append_unique("arguments", p.arguments);
  o.append_unique("why", std::string(to_string(p.why)));
  o.append_unique("detail", p.detail);
  return json::Value(std::move(o));
}

json::Value to_json(const ApprovalDecision& d) {
  json::Object o;
  o.append_unique("tool_use_id", d.tool_use_id);
  o.append_unique("approved", d.approved);
  if (!d.reason.empty()) o.append_unique("reason", d.reason);
  return json::Value(std::move(o));
}

Result<PendingApproval> pending_approval_from_json(const json::Value& v) {
  constexpr std::string_view kWhat = "a pending approval";
  if (!v.is_object())
    return make_error(Errc::parse_error, std::string(kWhat) + " is not an object");
  PendingApproval p;
  auto id = string_at(v, "tool_use_id", kWhat);
  if (!id) return id.error();
  auto name = string_at(v, "tool_name", kWhat);
  if (!name) return name.error();
  auto why = string_at(v, "why", kWhat);
  if (!why) return why.error();
  p.tool_use_id = std::move(*id);
  p.tool_name = std::move(*name);
  bool known = false;
  for (const auto& [w, label] : kWhyNames) {
    if (label == *why) p.why = w, known = true;
  }
  if (!known)
    return make_error(Errc::parse_error, "a pending approval names an unknown rule '" + *why + "'");
  if (const json::Value* args = v.find("arguments")) p.arguments = *args;
  if (auto detail = string_at(v, "detail", kWhat)) p.detail = std::move(*detail);
  return p;
}

Result<ApprovalDecision> approval_decision_from_json(const json::Value& v) {
  constexpr std::string_view kWhat = "an approval decision";
  if (!v.is_object())
    return make_error(Errc::parse_error, std::string(kWhat) + " is not an object");
  auto id = string_at(v, "tool_use_id", kWhat);
  if (!id) return id.error();
  const json::Value* approved = v.find("approved");
  if (approved == nullptr || !approved->is_bool()) {
    return make_error(Errc::parse_error,
                      "an approval decision: member 'approved' is missing or not a boolean");
  }
  ApprovalDecision d{std::move(*id), approved->as_bool(), {}};
  if (auto reason = string_at(v, "reason", kWhat)) d.reason = std::move(*reason);
  return d;
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
