// Canonical request -> Chat Completions messages, under the row's compatibility profile.
#include <variant>

#include "../openai_shared/openai_common.hpp"
#include "completions_wire.hpp"

namespace agentkit::providers::detail {
namespace {

bool host_has(const std::string& host, std::string_view part) { return host.find(part) != std::string::npos; }

json::Value user_parts(const std::vector<ContentBlock>& blocks) {
  if (blocks.size() == 1) {
    if (const auto* t = std::get_if<TextBlock>(&blocks[0])) return t->text;
  }
  json::Array parts;
  for (const auto& b : blocks) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      parts.push_back(json::Object{{"type", "text"}, {"text", t->text}});
    } else if (const auto* img = std::get_if<ImageBlock>(&b)) {
      parts.push_back(json::Object{{"type", "image_url"}, {"image_url", json::Object{{"url", data_url(*img)}}}});
    }
  }
  return parts;
}

json::Value assistant_message(const AssistantMessage& a, const CompletionsProfile& profile) {
  std::string text;
  std::string reasoning;
  json::Array calls;
  for (const auto& b : a.content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      text += t->text;
    } else if (const auto* th = std::get_if<ThinkingBlock>(&b)) {
      if (th->signature == kClearReasoningSignature) reasoning += th->thinking;
    } else if (const auto* call = std::get_if<ToolUseBlock>(&b)) {
      // The argument bytes as they arrived, inside a JSON string (REQ-PROV-17).
      calls.push_back(json::Object{{"id", call->id},
                                   {"type", "function"},
                                   {"function", json::Object{{"name", call->name}, {"arguments", call->input.str()}}}});
    }
  }
  json::Object m{{"role", "assistant"}};
  if (!text.empty()) m.append_unique("content", std::move(text));
  else if (!calls.empty() && !profile.allows_null_assistant_content) m.append_unique("content", "");
  // DeepSeek expects its own reasoning back on the turn that produced it (REQ-PROV-12).
  if (profile.thinking_format == "deepseek" && !reasoning.empty()) m.append_unique("reasoning_content", std::move(reasoning));
  if (!calls.empty()) m.append_unique("tool_calls", std::move(calls));
  if (m.size() == 1) return nullptr;  // nothing to say
  return m;
}

}  // namespace

CompletionsProfile CompletionsProfile::of(const Model& model) {
  CompletionsProfile p;
  const std::string host = base_url_host(model);
  const bool openrouter = model.vendor == "openrouter" || host_has(host, "openrouter.ai");
  const bool deepseek = host_has(host, "deepseek.com");
  const bool moonshot = host_has(host, "moonshot");
  const bool together = host_has(host, "together");
  const bool nvidia = host_has(host, "nvidia.com");
  const bool cloudflare = host_has(host, "cloudflare.com");
  p.use_max_tokens = deepseek || moonshot || together || nvidia || cloudflare;
  p.supports_store = host == "api.openai.com";
  p.supports_developer_role = openrouter && (model.id.starts_with("anthropic/") || model.id.starts_with("openai/"));
  p.supports_reasoning_effort = !(moonshot || together || nvidia || cloudflare);
  p.thinking_format = deepseek ? "deepseek" : together ? "together" : openrouter ? "openrouter" : "openai";
  p.supports_strict_tools = !(moonshot || together || nvidia || cloudflare);
  p.supports_long_cache_retention = !(together || nvidia || cloudflare);
  p.cache_control_format = openrouter && model.id.starts_with("anthropic/") ? "anthropic" : "none";
  p.accepts_prompt_cache_key = detail::accepts_prompt_cache_key(model);
  // The catalog row wins, key by key (an unknown key already failed the catalog load).
  p.use_max_tokens = compat_flag(model, "use_max_tokens", p.use_max_tokens);
  p.supports_store = compat_flag(model, "supports_store", p.supports_store);
  p.supports_developer_role = compat_flag(model, "supports_developer_role", p.supports_developer_role);
  p.supports_reasoning_effort = compat_flag(model, "supports_reasoning_effort", p.supports_reasoning_effort);
  p.thinking_format = compat_text(model, "thinking_format", p.thinking_format);
  p.thinking_token_budget_field = compat_text(model, "thinking_token_budget_field", p.thinking_token_budget_field);
  p.supports_strict_tools = compat_flag(model, "supports_strict_tools", p.supports_strict_tools);
  p.supports_long_cache_retention = compat_flag(model, "supports_long_cache_retention", p.supports_long_cache_retention);
  p.supports_finish_reason = compat_flag(model, "supports_finish_reason", p.supports_finish_reason);
  p.allows_null_assistant_content = compat_flag(model, "allows_null_assistant_content", p.allows_null_assistant_content);
  p.allows_user_after_tool_result = compat_flag(model, "allows_user_after_tool_result", p.allows_user_after_tool_result);
  p.requires_tool_result_name = compat_flag(model, "requires_tool_result_name", p.requires_tool_result_name);
  p.cache_control_format = compat_text(model, "cache_control_format", p.cache_control_format);
  return p;
}

std::string completions_tool_form(const ToolSpec& tool) {
  json::Object function{{"name", tool.name}, {"description", tool.description}, {"parameters", tool.input_schema}};
  return json::dump(json::Object{{"type", "function"}, {"function", std::move(function)}});
}

json::Value completions_system(const Request& request, const CompletionsProfile& profile) {
  return json::Object{{"role", profile.supports_developer_role ? "developer" : "system"},
                      {"content", request.system}};
}

CompletionsEncoding completions_messages(const Request& request, std::span<const Message> view,
                                         const CompletionsProfile& profile,
                                         const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) {
  CompletionsEncoding enc;
  json::Array& out = enc.messages;
  out.reserve(view.size() + 1);
  if (!request.system.empty()) out.push_back(completions_system(request, profile));
  json::Array items = completions_items(view, profile, declared_after);
  for (auto& item : items) out.push_back(std::move(item));
  return enc;
}

json::Array completions_items(
    std::span<const Message> view, const CompletionsProfile& profile,
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) {
  json::Array out;
  out.reserve(view.size());
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* user = std::get_if<UserMessage>(&view[i])) {
      out.push_back(json::Object{{"role", "user"}, {"content", user_parts(user->content)}});
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      json::Value m = assistant_message(*a, profile);
      if (!m.is_null()) out.push_back(std::move(m));
      ++i;
    } else {
      // A run of results: one role:"tool" message per call, keyed by tool_call_id (REQ-LOOP-02);
      // the images they carry follow in one user message, after every result of the run.
      json::Array images;
      std::vector<ToolBytes> declared;
      for (; i < view.size(); ++i) {
        const auto* r = std::get_if<ToolResultMessage>(&view[i]);
        if (!r) break;
        json::Object m{{"role", "tool"}, {"tool_call_id", r->tool_use_id}, {"content", result_text(*r, true)}};
        if (profile.requires_tool_result_name) m.append_unique("name", r->tool_name);
        out.push_back(std::move(m));
        for (const auto& b : r->content) {
          if (const auto* img = std::get_if<ImageBlock>(&b)) {
            images.push_back(json::Object{{"type", "image_url"}, {"image_url", json::Object{{"url", data_url(*img)}}}});
          }
        }
        if (auto it = declared_after.find(r->tool_use_id); it != declared_after.end()) {
          declared.insert(declared.end(), it->second.begin(), it->second.end());
        }
      }
      const bool user_follows = !images.empty() || (i < view.size() && std::holds_alternative<UserMessage>(view[i]));
      if (!declared.empty()) out.push_back(json::Object{{"role", "system"}, {"content", prose_declaration(declared)}});
      if (user_follows && !profile.allows_user_after_tool_result) {
        out.push_back(json::Object{{"role", "assistant"}, {"content", "(tool results received)"}});
      }
      if (!images.empty()) {
        json::Array parts{json::Object{{"type", "text"}, {"text", "(images returned by the tool calls above)"}}};
        for (auto& img : images) parts.push_back(std::move(img));
        out.push_back(json::Object{{"role", "user"}, {"content", std::move(parts)}});
      }
    }
  }
  return out;
}

}  // namespace agentkit::providers::detail
