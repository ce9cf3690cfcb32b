// Canonical request -> Responses API input items.
#include <variant>

#include "../openai_shared/openai_common.hpp"
#include "../wire_common/encoded_history.hpp"
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

void write_assistant(ItemWriter& out, const AssistantMessage& a) {
  TextRun text;  // a run of text blocks is one message
  auto flush_text = [&] {
    if (!text.view().empty()) out.message("assistant", text.view());
    text.clear();
  };
  for (const auto& b : a.content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      text.add(t->text);
    } else if (const auto* th = std::get_if<ThinkingBlock>(&b)) {
      // Replayed with its id and encrypted content, or not at all: an item without them is
      // rejected, and send-time repair already turned foreign reasoning into text.
      if (th->id.empty() || th->signature.empty()) continue;
      flush_text();
      json::Array summary;
      if (!th->thinking.empty()) summary.push_back(json::Object{{"type", "summary_text"}, {"text", th->thinking}});
      out.tree(json::Object{{"type", "reasoning"},
                            {"id", th->id},
                            {"summary", std::move(summary)},
                            {"encrypted_content", th->signature}});
    } else if (const auto* call = std::get_if<ToolUseBlock>(&b)) {
      flush_text();
      const ResponsesCallId id = split_call_id(call->id);
      MemberWriter item = out.open();
      item.add("type", "function_call");
      if (!id.item_id.empty()) item.add("id", id.item_id);
      item.add("call_id", id.call_id);
      item.add("name", call->name);
      item.add_shared("arguments", call->input);  // the bytes as received (REQ-PROV-17)
      out.close();
    }
  }
  flush_text();
}

}  // namespace

ResponsesCallId split_call_id(std::string_view id) {
  const auto bar = id.find('|');
  if (bar == std::string_view::npos) return {id, {}};
  return {id.substr(0, bar), id.substr(bar + 1)};
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

EncodedHistory::Segment responses_items(
    std::span<const Message> view,
    const std::map<std::string, std::vector<ToolBytes>, std::less<>>& declared_after) {
  std::string text;
  text.reserve(segment_bytes_hint(view));
  std::vector<Splice> splices;
  ItemWriter out(text, &splices);
  auto results = [&](std::span<const Message> run, bool) {
    json::Array images;
    std::vector<ToolBytes> declared;
    for (const Message& m : run) {
      const auto& r = std::get<ToolResultMessage>(m);
      // The output names the call id only, never the item id (REQ-PROV-02).
      MemberWriter item = out.open();
      item.add("type", "function_call_output");
      item.add("call_id", split_call_id(r.tool_use_id).call_id);
      item.add("output", result_text(r, true));
      out.close();
      for (const auto& b : r.content) {
        if (const auto* img = std::get_if<ImageBlock>(&b)) {
          images.push_back(json::Object{
              {"type", "input_image"}, {"image_url", data_url(*img)}, {"detail", "auto"}});
        }
      }
      if (auto it = declared_after.find(r.tool_use_id); it != declared_after.end()) {
        declared.insert(declared.end(), it->second.begin(), it->second.end());
      }
    }
    if (!declared.empty()) out.message("system", prose_declaration(declared));
    if (!images.empty()) {
      json::Array parts{json::Object{{"type", "input_text"},
                                     {"text", "(images returned by the tool calls above)"}}};
      for (auto& img : images) parts.push_back(std::move(img));
      out.tree(json::Object{{"role", "user"}, {"content", std::move(parts)}});
    }
  };
  for_each_group(
      view, [&](const UserMessage& u) { out.user(u, responses_user_content); },
      [&](const AssistantMessage& a) { write_assistant(out, a); }, results);
  return EncodedHistory::Segment{std::move(text), {}, std::move(splices)};
}

}  // namespace agentkit::providers::detail
