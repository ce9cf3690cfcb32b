// Canonical request -> Chat Completions messages, under the row's compatibility profile.
#include <variant>

#include "../openai_shared/openai_common.hpp"
#include "../wire_common/encoded_history.hpp"
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

// assistant_message, written as text: {"role":"assistant", content, reasoning_content,
// tool_calls}, or nothing when it has nothing to say. The calls are read in a second pass over
// the blocks rather than gathered into a list.
void write_assistant(ItemWriter& out, const AssistantMessage& a,
                     const CompletionsProfile& profile) {
  TextRun text;
  std::string reasoning;
  bool any_call = false;
  for (const auto& b : a.content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      text.add(t->text);
    } else if (const auto* th = std::get_if<ThinkingBlock>(&b)) {
      if (th->signature == kClearReasoningSignature) reasoning += th->thinking;
    } else {
      any_call = any_call || std::holds_alternative<ToolUseBlock>(b);
    }
  }
  const bool empty_content =
      text.view().empty() && any_call && !profile.allows_null_assistant_content;
  // DeepSeek expects its own reasoning back on the turn that produced it (REQ-PROV-12).
  const bool says_reasoning = profile.thinking_format == "deepseek" && !reasoning.empty();
  if (text.view().empty() && !says_reasoning && !any_call) return;  // nothing to say
  MemberWriter m = out.open();
  m.add("role", "assistant");
  if (!text.view().empty() || empty_content) m.add("content", text.view());
  if (says_reasoning) m.add("reasoning_content", reasoning);
  if (any_call) {
    std::string& list = m.open("tool_calls");
    char separator = '[';
    for (const auto& b : a.content) {
      const auto* call = std::get_if<ToolUseBlock>(&b);
      if (call == nullptr) continue;
      list += separator;
      separator = ',';
      list += '{';
      MemberWriter c(list);
      c.add("id", call->id);
      c.add("type", "function");
      c.open("function") += '{';
      MemberWriter function(list, true, out.splices());
      function.add("name", call->name);
      function.add_shared("arguments", call->input);  // the bytes as they arrived (REQ-PROV-17)
      list += "}}";
    }
    list += ']';
  }
  out.close();
}

// What a run of results brings besides its role:"tool" messages: the images they carry and the
// tools re-declared after them.
struct ResultRun {
  json::Array images;
  std::vector<ToolBytes> declared;
};

void note_result(const ToolResultMessage& r,
                 const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after,
                 ResultRun& run) {
  for (const auto& b : r.content) {
    if (const auto* img = std::get_if<ImageBlock>(&b)) {
      run.images.push_back(json::Object{{"type", "image_url"},
                                        {"image_url", json::Object{{"url", data_url(*img)}}}});
    }
  }
  if (auto it = declared_after.find(r.tool_use_id); it != declared_after.end()) {
    run.declared.insert(run.declared.end(), it->second.begin(), it->second.end());
  }
}

// The messages after a run of results: the prose re-declaration, the assistant filler a profile
// without user-after-tool needs before a user message, and the images in one user message, after
// every result of the run.
json::Array after_results(ResultRun run, bool user_next, const CompletionsProfile& profile) {
  json::Array out;
  const bool user_follows = user_next || !run.images.empty();
  if (!run.declared.empty())
    out.push_back(json::Object{{"role", "system"}, {"content", prose_declaration(run.declared)}});
  if (user_follows && !profile.allows_user_after_tool_result) {
    out.push_back(json::Object{{"role", "assistant"}, {"content", "(tool results received)"}});
  }
  if (!run.images.empty()) {
    json::Array parts{
        json::Object{{"type", "text"}, {"text", "(images returned by the tool calls above)"}}};
    for (auto& img : run.images) parts.push_back(std::move(img));
    out.push_back(json::Object{{"role", "user"}, {"content", std::move(parts)}});
  }
  return out;
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
  for_each_group(
      view,
      [&](const UserMessage& u) {
        out.push_back(json::Object{{"role", "user"}, {"content", user_parts(u.content)}});
      },
      [&](const AssistantMessage& a) {
        json::Value m = assistant_message(a, profile);
        if (!m.is_null()) out.push_back(std::move(m));
      },
      [&](std::span<const Message> results, bool user_next) {
        // One role:"tool" message per call, keyed by tool_call_id (REQ-LOOP-02); the images they
        // carry follow in one user message, after every result of the run.
        ResultRun run;
        for (const Message& message : results) {
          const auto& r = std::get<ToolResultMessage>(message);
          json::Object m{
              {"role", "tool"}, {"tool_call_id", r.tool_use_id}, {"content", result_text(r, true)}};
          if (profile.requires_tool_result_name) m.append_unique("name", r.tool_name);
          out.push_back(std::move(m));
          note_result(r, declared_after, run);
        }
        for (auto& m : after_results(std::move(run), user_next, profile))
          out.push_back(std::move(m));
      });
  return out;
}

EncodedHistory::Segment completions_item_text(
    std::span<const Message> view, const CompletionsProfile& profile,
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) {
  std::string text;
  text.reserve(segment_bytes_hint(view));
  std::vector<Splice> splices;
  ItemWriter out(text, &splices);
  for_each_group(
      view, [&](const UserMessage& u) { out.user(u, user_parts); },
      [&](const AssistantMessage& a) { write_assistant(out, a, profile); },
      [&](std::span<const Message> results, bool user_next) {
        // As completions_items, each result written as text.
        ResultRun run;
        for (const Message& message : results) {
          const auto& r = std::get<ToolResultMessage>(message);
          MemberWriter m = out.open();
          m.add("role", "tool");
          m.add("tool_call_id", r.tool_use_id);
          m.add("content", result_text(r, true));
          if (profile.requires_tool_result_name) m.add("name", r.tool_name);
          out.close();
          note_result(r, declared_after, run);
        }
        for (const auto& m : after_results(std::move(run), user_next, profile)) out.tree(m);
      });
  return EncodedHistory::Segment{std::move(text), {}, std::move(splices)};
}

}  // namespace agentkit::providers::detail
