// Canonical request -> Responses API input items.
#include <variant>

#include "../openai_shared/openai_common.hpp"
#include "responses_wire.hpp"

namespace agentkit::providers::detail {
namespace {

json::Value responses_user_content(const std::vector<ContentBlock>& blocks) {
  if (blocks.size() == 1) {
    if (const auto* t = std::get_if<TextBlock>(&blocks[0])) return t->text;
  }
  json::Array parts;
  for (const auto& b : blocks) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      parts.push_back(json::Object{{"type", "input_text"}, {"text", t->text}});
    } else if (const auto* img = std::get_if<ImageBlock>(&b)) {
      parts.push_back(json::Object{{"type", "input_image"}, {"image_url", data_url(*img)}, {"detail", "auto"}});
    }
  }
  return parts;
}

void append_assistant(json::Array& out, const AssistantMessage& a) {
  std::string text;
  auto flush_text = [&] {
    if (!text.empty()) out.push_back(json::Object{{"role", "assistant"}, {"content", std::move(text)}});
    text.clear();
  };
  for (const auto& b : a.content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      text += t->text;
    } else if (const auto* th = std::get_if<ThinkingBlock>(&b)) {
      // Replayed with its id and encrypted content, or not at all: an item without them is
      // rejected, and send-time repair already turned foreign reasoning into text.
      if (th->id.empty() || th->signature.empty()) continue;
      flush_text();
      json::Array summary;
      if (!th->thinking.empty()) summary.push_back(json::Object{{"type", "summary_text"}, {"text", th->thinking}});
      out.push_back(json::Object{{"type", "reasoning"}, {"id", th->id}, {"summary", std::move(summary)},
                                 {"encrypted_content", th->signature}});
    } else if (const auto* call = std::get_if<ToolUseBlock>(&b)) {
      flush_text();
      ResponsesCallId id = split_call_id(call->id);
      json::Object item{{"type", "function_call"}};
      if (!id.item_id.empty()) item.append_unique("id", id.item_id);
      item.append_unique("call_id", id.call_id);
      item.append_unique("name", call->name);
      item.append_unique("arguments", call->input.str());  // the bytes as received (REQ-PROV-17)
      out.push_back(std::move(item));
    }
  }
  flush_text();
}

}  // namespace

ResponsesCallId split_call_id(std::string_view id) {
  const auto bar = id.find('|');
  if (bar == std::string_view::npos) return {std::string(id), {}};
  return {std::string(id.substr(0, bar)), std::string(id.substr(bar + 1))};
}

std::string join_call_id(std::string_view call_id, std::string_view item_id) {
  if (item_id.empty()) return std::string(call_id);
  return std::string(call_id) + "|" + std::string(item_id);
}

std::string responses_tool_form(const ToolSpec& tool) {
  return json::dump(json::Object{{"type", "function"},
                                 {"name", tool.name},
                                 {"description", tool.description},
                                 {"parameters", tool.input_schema},
                                 {"strict", false}});
}

json::Array responses_input(std::span<const Message> view,
                            const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) {
  json::Array out;
  out.reserve(view.size());
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* user = std::get_if<UserMessage>(&view[i])) {
      out.push_back(
          json::Object{{"role", "user"}, {"content", responses_user_content(user->content)}});
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      append_assistant(out, *a);
      ++i;
    } else {
      json::Array images;
      std::vector<ToolBytes> declared;
      for (; i < view.size(); ++i) {
        const auto* r = std::get_if<ToolResultMessage>(&view[i]);
        if (!r) break;
        // The output names the call id only, never the item id (REQ-PROV-02).
        out.push_back(json::Object{{"type", "function_call_output"},
                                   {"call_id", split_call_id(r->tool_use_id).call_id},
                                   {"output", result_text(*r, true)}});
        for (const auto& b : r->content) {
          if (const auto* img = std::get_if<ImageBlock>(&b)) {
            images.push_back(json::Object{{"type", "input_image"}, {"image_url", data_url(*img)}, {"detail", "auto"}});
          }
        }
        if (auto it = declared_after.find(r->tool_use_id); it != declared_after.end()) {
          declared.insert(declared.end(), it->second.begin(), it->second.end());
        }
      }
      if (!declared.empty()) out.push_back(json::Object{{"role", "system"}, {"content", prose_declaration(declared)}});
      if (!images.empty()) {
        json::Array parts{json::Object{{"type", "input_text"}, {"text", "(images returned by the tool calls above)"}}};
        for (auto& img : images) parts.push_back(std::move(img));
        out.push_back(json::Object{{"role", "user"}, {"content", std::move(parts)}});
      }
    }
  }
  return out;
}

}  // namespace agentkit::providers::detail
