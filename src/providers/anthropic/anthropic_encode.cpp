// Canonical request -> Anthropic Messages JSON.
#include <variant>

#include "../wire_common/encoded_history.hpp"
#include "anthropic_wire.hpp"

namespace agentkit::providers::detail {
namespace {

// The one compaction block type the Messages API returns and expects back verbatim.
constexpr std::string_view kCompactionBlock = "compaction";

json::Value text_block(std::string text) { return json::Object{{"type", "text"}, {"text", std::move(text)}}; }

json::Value image_block(const ImageBlock& image) {
  return json::Object{{"type", "image"},
                      {"source", json::Object{{"type", "base64"}, {"media_type", image.mime_type}, {"data", image.data_base64}}}};
}

// User content: a single text block travels as a plain string (the SDK's own form); the rolling
// breakpoint turns it back into a block when it needs one.
json::Value anthropic_user_content(const std::vector<ContentBlock>& blocks) {
  if (blocks.size() == 1) {
    if (const auto* t = std::get_if<TextBlock>(&blocks[0])) return t->text;
  }
  json::Array out;
  for (const auto& b : blocks) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      if (!t->text.empty()) out.push_back(text_block(t->text));
    } else if (const auto* img = std::get_if<ImageBlock>(&b)) {
      out.push_back(image_block(*img));
    }
  }
  return out;
}

// Arguments replayed exactly as received (REQ-PROV-17). `input` must be an object: bytes that do
// not parse (a call cut off by the output limit) are replayed as {}.
json::Value tool_input(const ToolUseBlock& call) {
  if (call.input.empty() || !call.input.valid()) return json::Raw("{}");
  return call.input;
}

void append_assistant_block(json::Array& out, const ContentBlock& block, bool replay_compaction) {
  if (const auto* t = std::get_if<TextBlock>(&block)) {
    if (!t->text.empty()) out.push_back(text_block(t->text));  // the API rejects empty text blocks
  } else if (const auto* th = std::get_if<ThinkingBlock>(&block)) {
    if (th->redacted) {
      out.push_back(json::Object{{"type", "redacted_thinking"}, {"data", th->signature}});
    } else {
      out.push_back(json::Object{{"type", "thinking"}, {"thinking", th->thinking}, {"signature", th->signature}});
    }
  } else if (const auto* call = std::get_if<ToolUseBlock>(&block)) {
    out.push_back(json::Object{{"type", "tool_use"}, {"id", call->id}, {"name", call->name}, {"input", tool_input(*call)}});
  } else if (const auto* other = std::get_if<UnknownBlock>(&block)) {
    // REQ-PROV-07: compaction blocks go back byte for byte (the raw value is dumped verbatim).
    if (replay_compaction && other->type == kCompactionBlock) out.push_back(other->raw);
  }
}

json::Value tool_result_block(const ToolResultMessage& result) {
  json::Object block{{"type", "tool_result"}, {"tool_use_id", result.tool_use_id}};
  std::string text = text_of(result.content);
  // An empty result carries no content at all: a text block without text is rejected (post-PRD).
  if (!text.empty()) block.append_unique("content", std::move(text));
  if (result.is_error) block.append_unique("is_error", true);
  return block;
}

// A run of results becomes one user message: every tool_result block first, in call order, then
// whatever else the results (and a user message right after them) carry (REQ-LOOP-02).
std::size_t append_result_run(json::Array& messages, std::span<const Message> view, std::size_t i) {
  json::Array blocks;
  json::Array trailing;
  for (; i < view.size(); ++i) {
    const auto* result = std::get_if<ToolResultMessage>(&view[i]);
    if (!result) break;
    blocks.push_back(tool_result_block(*result));
    for (const auto& b : result->content) {
      if (const auto* img = std::get_if<ImageBlock>(&b)) trailing.push_back(image_block(*img));
    }
  }
  if (i < view.size()) {
    if (const auto* user = std::get_if<UserMessage>(&view[i])) {
      json::Value content = anthropic_user_content(user->content);
      if (content.is_string()) trailing.push_back(text_block(content.as_string()));
      else for (auto& b : content.as_array()) trailing.push_back(std::move(b));
      ++i;
    }
  }
  for (auto& b : trailing) blocks.push_back(std::move(b));
  messages.push_back(json::Object{{"role", "user"}, {"content", std::move(blocks)}});
  return i;
}

json::Value* last_block(json::Value& message) {
  json::Value* content = message.find("content");
  if (!content) return nullptr;
  if (content->is_string()) *content = json::Array{text_block(content->as_string())};
  if (!content->is_array() || content->as_array().empty()) return nullptr;
  return &content->as_array().back();
}

void count_in(const json::Value& v, int& n) {
  if (const auto* o = v.get_object()) {
    for (const auto& m : *o) {
      if (m.key == "cache_control") ++n;
      count_in(m.value, n);
    }
  } else if (const auto* a = v.get_array()) {
    for (const auto& e : *a) count_in(e, n);
  }
}

}  // namespace

json::Value Breakpoints::prefix() const {
  json::Object mark{{"type", "ephemeral"}};
  if (long_prefix) mark.append_unique("ttl", "1h");
  return mark;
}

json::Value Breakpoints::rolling() const { return json::Object{{"type", "ephemeral"}}; }

std::string anthropic_tool_form(const ToolSpec& tool) {
  json::Object form{{"name", tool.name}, {"description", tool.description}, {"input_schema", tool.input_schema}};
  return json::dump(form);
}

json::Array anthropic_tools(std::span<const ToolBytes> established, std::span<const ToolBytes> deferred, const Breakpoints& marks) {
  json::Array out;
  out.reserve(established.size() + deferred.size());
  for (std::size_t i = 0; i < established.size(); ++i) {
    const std::string& bytes = *established[i];
    if (marks.enabled && i + 1 == established.size()) {
      // Only the last established tool carries a marker: one breakpoint covers the whole prefix,
      // and marking each tool would exhaust the budget of four (REQ-CACHE level 1 trap). The
      // cached bytes are spliced, not re-serialised.
      constexpr std::size_t kMarkBytes = 64;  // ,"cache_control":{"type":"ephemeral","ttl":"1h"}
      std::string marked;
      marked.reserve(bytes.size() + kMarkBytes);  // grown once, not doubled past the schema
      marked.append(bytes, 0, bytes.size() - 1);
      marked += ",\"cache_control\":";
      json::dump_to(marked, marks.prefix());
      marked += '}';
      out.push_back(json::Raw(std::move(marked)));
    } else {
      out.push_back(json::Raw(established[i]));  // shared with the cache, not copied
    }
  }
  for (const auto& bytes : deferred) out.push_back(json::Raw(bytes));
  return out;
}

json::Array anthropic_messages(std::span<const Message> view, bool replay_compaction) {
  json::Array messages;
  messages.reserve(view.size());
  for (std::size_t i = 0; i < view.size();) {
    if (std::holds_alternative<ToolResultMessage>(view[i])) {
      i = append_result_run(messages, view, i);
      continue;
    }
    if (const auto* user = std::get_if<UserMessage>(&view[i])) {
      messages.push_back(
          json::Object{{"role", "user"}, {"content", anthropic_user_content(user->content)}});
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      json::Array blocks;
      for (const auto& b : a->content) append_assistant_block(blocks, b, replay_compaction);
      if (!blocks.empty()) messages.push_back(json::Object{{"role", "assistant"}, {"content", std::move(blocks)}});
    }
    ++i;
  }
  return messages;
}

bool stamp_rolling_breakpoint(json::Array& messages, const Breakpoints& marks) {
  if (!marks.enabled || messages.empty()) return false;
  json::Value& last = messages.back();
  const json::Value* role = last.find("role");
  if (!role || !role->is_string() || role->as_string() != "user") return false;
  json::Value* block = last_block(last);
  if (!block) return false;
  const json::Value* type = block->find("type");
  if (!type || !type->is_string()) return false;
  const std::string& t = type->as_string();
  if (t != "text" && t != "image" && t != "tool_result") return false;
  (*block)["cache_control"] = marks.rolling();
  return true;
}

int count_breakpoints(const json::Value& body) {
  int n = 0;
  count_in(body, n);
  return n;
}

// ---- The items as text ---------------------------------------------------------------------
// The bytes anthropic_messages' trees dump to, written member by member: the usual items (a
// call with kilobytes of input, its result) go into the segment without a tree, a copy of the
// input or of an image's data, or a dump.

namespace {

// A JSON array of blocks being written: '[' on construction, ',' between blocks, ']' at end().
class BlockList {
 public:
  // `splices`: where a call's long input is recorded (none: not recorded).
  explicit BlockList(std::string& out, std::vector<Splice>* splices = nullptr)
      : out_(out), splices_(splices) {
    out_ += '[';
  }
  MemberWriter open() {
    if (count_++ != 0) out_ += ',';
    out_ += '{';
    return MemberWriter(out_, true, splices_);
  }
  std::vector<Splice>* splices() const { return splices_; }
  void close() { out_ += '}'; }
  void tree(const json::Value& block) {
    if (count_++ != 0) out_ += ',';
    json::dump_to(out_, block);
  }
  void end() { out_ += ']'; }
  std::size_t size() const { return count_; }

 private:
  std::string& out_;
  std::vector<Splice>* splices_;
  std::size_t count_ = 0;
};

void write_text_block(BlockList& blocks, std::string_view text) {
  MemberWriter b = blocks.open();
  b.add("type", "text");
  b.add("text", text);
  blocks.close();
}

void write_image_block(BlockList& blocks, const ImageBlock& image) {
  MemberWriter b = blocks.open();
  b.add("type", "image");
  std::string& out = b.open("source");
  out += '{';
  MemberWriter source(out);
  source.add("type", "base64");
  source.add("media_type", image.mime_type);
  source.add("data", image.data_base64);
  out += '}';
  blocks.close();
}

// anthropic_user_content's array form.
void write_user_blocks(BlockList& blocks, const std::vector<ContentBlock>& content) {
  for (const auto& b : content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      if (!t->text.empty()) write_text_block(blocks, t->text);
    } else if (const auto* image = std::get_if<ImageBlock>(&b)) {
      write_image_block(blocks, *image);
    }
  }
}

void write_assistant_block(BlockList& blocks, const ContentBlock& block, bool replay_compaction) {
  if (const auto* t = std::get_if<TextBlock>(&block)) {
    if (!t->text.empty()) write_text_block(blocks, t->text);
  } else if (const auto* th = std::get_if<ThinkingBlock>(&block)) {
    MemberWriter b = blocks.open();
    if (th->redacted) {
      b.add("type", "redacted_thinking");
      b.add("data", th->signature);
    } else {
      b.add("type", "thinking");
      b.add("thinking", th->thinking);
      b.add("signature", th->signature);
    }
    blocks.close();
  } else if (const auto* call = std::get_if<ToolUseBlock>(&block)) {
    MemberWriter b = blocks.open();
    b.add("type", "tool_use");
    b.add("id", call->id);
    b.add("name", call->name);
    if (!call->input.empty() && valid_arguments(call->input)) {
      append_shared_raw(b.open("input"), call->input, blocks.splices());
    } else {
      b.open("input") += "{}";
    }
    blocks.close();
  } else if (const auto* other = std::get_if<UnknownBlock>(&block)) {
    if (replay_compaction && other->type == kCompactionBlock) blocks.tree(other->raw);
  }
}

void write_result_block(BlockList& blocks, const ToolResultMessage& result) {
  MemberWriter b = blocks.open();
  b.add("type", "tool_result");
  b.add("tool_use_id", result.tool_use_id);
  TextRun text;
  for (const auto& block : result.content) {
    if (const auto* t = std::get_if<TextBlock>(&block)) text.add(t->text);
  }
  if (!text.view().empty()) b.add("content", text.view());
  if (result.is_error) b.open("is_error") += "true";
  blocks.close();
}

// How the last item written can take the rolling breakpoint, read as stamp_rolling_breakpoint
// reads its tree: a user message whose content is one string, or whose last block is a text,
// image or tool_result (every block a user message carries is one of those).
enum class Tail { none, user_string, user_blocks };

// Breakpoints::rolling() as the member the stamp adds (a test holds the two equal).
constexpr std::string_view kRollingMarkMember = R"(,"cache_control":{"type":"ephemeral"})";

// `items` with the rolling breakpoint on the last item, which is a user message (`tail`) that
// begins at `start`.
std::string stamp_text(const std::string& items, Tail tail, std::size_t start) {
  constexpr std::string_view mark = kRollingMarkMember;
  std::string out;
  if (tail == Tail::user_blocks) {
    // ...}]}, : the mark goes before the last block's closing brace.
    const std::size_t at = items.size() - 4;
    out.reserve(items.size() + mark.size());
    out.append(items, 0, at).append(mark).append(items, at);
    return out;
  }
  // {"role":"user","content":"..."}, : the string becomes one text block carrying the mark.
  constexpr std::string_view kHead = R"({"role":"user","content":)";
  constexpr std::string_view kOpen = R"([{"type":"text","text":)";
  const std::size_t text_at = start + kHead.size();
  const std::size_t text_end = items.size() - 2;
  out.reserve(items.size() + kOpen.size() + mark.size() + 2);
  out.append(items, 0, text_at).append(kOpen).append(items, text_at, text_end - text_at);
  out.append(mark).append("}]").append(items, text_end);
  return out;
}

}  // namespace

EncodedHistory::Segment anthropic_item_text(std::span<const Message> segment,
                                            bool replay_compaction, const Breakpoints* stamp) {
  std::string text;
  text.reserve(segment_bytes_hint(segment));
  std::vector<Splice> splices;  // the calls' long inputs, which the transcript holds
  ItemWriter out(text, &splices);
  Tail tail = Tail::none;
  std::size_t tail_start = 0;
  for (std::size_t i = 0; i < segment.size();) {
    const std::size_t start = text.size();
    if (const auto* user = std::get_if<UserMessage>(&segment[i])) {
      const std::vector<ContentBlock>& content = user->content;
      const auto* lone = content.size() == 1 ? std::get_if<TextBlock>(&content[0]) : nullptr;
      if (lone != nullptr) {
        out.message("user", lone->text);
        tail = Tail::user_string;
      } else {
        MemberWriter m = out.open();
        m.add("role", "user");
        BlockList blocks(m.open("content"));
        write_user_blocks(blocks, content);
        blocks.end();
        out.close();
        tail = blocks.size() != 0 ? Tail::user_blocks : Tail::none;
      }
      tail_start = start;
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&segment[i])) {
      MemberWriter m = out.open();
      m.add("role", "assistant");
      BlockList blocks(m.open("content"), out.splices());
      for (const auto& b : a->content) write_assistant_block(blocks, b, replay_compaction);
      if (blocks.size() == 0) {
        text.resize(start);  // no message at all, as the tree leaves it out
      } else {
        blocks.end();
        out.close();
        tail = Tail::none;
      }
      ++i;
    } else {
      // A run of results, as append_result_run: every tool_result block in call order, then the
      // images they carry, then a user message right after them.
      std::size_t end = i;
      while (end < segment.size() && std::holds_alternative<ToolResultMessage>(segment[end])) ++end;
      MemberWriter m = out.open();
      m.add("role", "user");
      BlockList blocks(m.open("content"));
      for (std::size_t k = i; k < end; ++k)
        write_result_block(blocks, std::get<ToolResultMessage>(segment[k]));
      for (std::size_t k = i; k < end; ++k) {
        for (const auto& b : std::get<ToolResultMessage>(segment[k]).content) {
          if (const auto* image = std::get_if<ImageBlock>(&b)) write_image_block(blocks, *image);
        }
      }
      if (end < segment.size()) {
        if (const auto* follower = std::get_if<UserMessage>(&segment[end])) {
          const std::vector<ContentBlock>& content = follower->content;
          const auto* lone = content.size() == 1 ? std::get_if<TextBlock>(&content[0]) : nullptr;
          if (lone != nullptr) {
            write_text_block(blocks, lone->text);
          } else {
            write_user_blocks(blocks, content);
          }
          ++end;
        }
      }
      blocks.end();
      out.close();
      tail = Tail::user_blocks;
      tail_start = start;
      i = end;
    }
  }
  EncodedHistory::Segment encoded{std::move(text), {}, std::move(splices)};
  if (stamp != nullptr && stamp->enabled && tail != Tail::none)
    encoded.body_items = stamp_text(encoded.items, tail, tail_start);
  return encoded;
}

}  // namespace agentkit::providers::detail
