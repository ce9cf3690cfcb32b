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

// Writes items straight into `out` as JSON text, each followed by ',': no tree of them is built,
// copied into and dumped. An item of a rarer kind (with images, reasoning, re-declared tools) is
// built as a tree and dumped in place; the bytes are those of dumping every item's tree.
class ItemWriter {
 public:
  explicit ItemWriter(std::string& out) : out_(out) {}

  MemberWriter open() {
    out_ += '{';
    return MemberWriter(out_);
  }
  void close() { out_ += "},"; }
  void tree(const json::Value& item) {
    json::dump_to(out_, item);
    out_ += ',';
  }
  // {"role":<role>,"content":<text>}
  void message(std::string_view role, std::string_view text) {
    MemberWriter m = open();
    m.add("role", role);
    m.add("content", text);
    close();
  }

 private:
  std::string& out_;
};

void write_assistant(ItemWriter& out, const AssistantMessage& a) {
  // A run of text blocks is one message; a lone block (the usual case) is written from its own
  // bytes, several are joined first.
  const TextBlock* lone = nullptr;
  std::string joined;
  auto flush_text = [&] {
    if (!joined.empty()) {
      out.message("assistant", joined);
    } else if (lone != nullptr && !lone->text.empty()) {
      out.message("assistant", lone->text);
    }
    lone = nullptr;
    joined.clear();
  };
  for (const auto& b : a.content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      if (lone == nullptr && joined.empty()) {
        lone = t;
      } else {
        if (lone != nullptr) joined = lone->text;
        lone = nullptr;
        joined += t->text;
      }
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
      item.add("arguments", call->input.bytes());  // the bytes as received (REQ-PROV-17)
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
  // A roomy buffer that is itself the segment, as dump_items makes.
  constexpr std::size_t kScratchBytes = 8 * 1024;
  std::string text;
  text.reserve(kScratchBytes);
  ItemWriter out(text);
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* user = std::get_if<UserMessage>(&view[i])) {
      const auto* lone =
          user->content.size() == 1 ? std::get_if<TextBlock>(&user->content[0]) : nullptr;
      if (lone != nullptr) {
        out.message("user", lone->text);
      } else {
        out.tree(
            json::Object{{"role", "user"}, {"content", responses_user_content(user->content)}});
      }
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      write_assistant(out, *a);
      ++i;
    } else {
      json::Array images;
      std::vector<ToolBytes> declared;
      for (; i < view.size(); ++i) {
        const auto* r = std::get_if<ToolResultMessage>(&view[i]);
        if (!r) break;
        // The output names the call id only, never the item id (REQ-PROV-02).
        MemberWriter item = out.open();
        item.add("type", "function_call_output");
        item.add("call_id", split_call_id(r->tool_use_id).call_id);
        item.add("output", result_text(*r, true));
        out.close();
        for (const auto& b : r->content) {
          if (const auto* img = std::get_if<ImageBlock>(&b)) {
            images.push_back(json::Object{{"type", "input_image"}, {"image_url", data_url(*img)}, {"detail", "auto"}});
          }
        }
        if (auto it = declared_after.find(r->tool_use_id); it != declared_after.end()) {
          declared.insert(declared.end(), it->second.begin(), it->second.end());
        }
      }
      if (!declared.empty()) out.message("system", prose_declaration(declared));
      if (!images.empty()) {
        json::Array parts{json::Object{{"type", "input_text"}, {"text", "(images returned by the tool calls above)"}}};
        for (auto& img : images) parts.push_back(std::move(img));
        out.tree(json::Object{{"role", "user"}, {"content", std::move(parts)}});
      }
    }
  }
  return EncodedHistory::Segment{std::move(text), {}};
}

}  // namespace agentkit::providers::detail
