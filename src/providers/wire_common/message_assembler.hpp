// Builds one canonical AssistantMessage while a wire decodes its reply, emitting the core events as
// it goes (message_start, block_start, text/thinking/argument deltas, block_end, message_end), so
// the streamed and the whole-reply paths of a wire produce the same message through the same code.
//
//   MessageAssembler out(sink, start_message(model));
//   int b = out.begin_tool("toolu_1", "get_weather");
//   out.arguments(b, "{\"city\":");  out.arguments(b, "\"Paris\"}");   // fragments, kept verbatim
//   out.end(b);                                       // block_end carries the whole block
//   out.finish(std::nullopt);                         // closes what is open, message_end
//
// Tool-call argument bytes are the concatenation of the fragments, never re-encoded (REQ-PROV-17);
// an empty argument string becomes "{}". A failure keeps the partial content (REQ-PROV-04) and
// pushes an ErrorEvent before message_end. A delta aimed at a block of another kind (a text delta
// for a tool call, say), at an index that was never opened, or at a block that already ended is a
// protocol violation: it is dropped, and finish() ends the message as an error naming the first.
//
// When the sink's consumer reads no events (consumer_alive() false at start()), none is built:
// the message is the same, no event object, copy or allocation is made for it.
//
// Thread safety: none; one assembler belongs to one call's decoding thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/providers/pipeline.hpp"

namespace agentkit::providers::detail {

class MessageAssembler {
 public:
  MessageAssembler(EventSink& sink, AssistantMessage start);

  // Pushes message_start (provenance, no content). Called once, before any block.
  void start();

  int begin_text();
  int begin_thinking();
  int begin_tool(std::string id, std::string name);
  // A block the canonical model keeps verbatim (UnknownBlock): added whole, without events.
  int add_opaque(ContentBlock block);

  void text(int block, std::string_view delta);
  void thinking(int block, std::string_view delta);
  void arguments(int block, std::string_view delta);
  void set_signature(int block, std::string signature);
  void set_redacted(int block, std::string data);
  void set_thinking_id(int block, std::string id);
  // Tool call fields that may arrive after the block opened (OpenAI sends the id on the first
  // fragment only; Responses' final item is authoritative).
  void set_tool_id(int block, std::string id);
  void set_tool_name(int block, std::string name);
  // Replaces the argument bytes without an event (an authoritative final copy).
  void replace_arguments(int block, std::string bytes);

  // Closes a block: block_end with the complete block. Closing a closed block does nothing.
  void end(int block);
  bool is_open(int block) const;
  std::size_t block_count() const noexcept { return message_.content.size(); }
  const ContentBlock& block(int index) const { return message_.content[static_cast<std::size_t>(index)]; }

  AssistantMessage& message() noexcept { return message_; }
  void report(Error unsupported);  // a non-terminal ErrorEvent (something asked for was not sent)

  // Closes every open block (in index order) and ends the stream: with `failure`, the message
  // takes its stop reason and text and an ErrorEvent precedes message_end.
  void finish(const std::optional<CallFailure>& failure);

 private:
  // The block at `index` if it is a `Block`; otherwise records the violation and returns null.
  // A block already ended is not "found" either: its block_end carried it whole, and a later
  // change would make the message disagree with what observers were told.
  template <class Block>
  Block* get(int index, std::string_view what) {
    Block* found = nullptr;
    if (index >= 0 && static_cast<std::size_t>(index) < message_.content.size()) {
      found = std::get_if<Block>(&message_.content[static_cast<std::size_t>(index)]);
    }
    if (found == nullptr || !is_open(index)) {
      note_violation(index, what);
      return nullptr;
    }
    return found;
  }
  void note_violation(int index, std::string_view what);
  int open(ContentBlock block, BlockKind kind, std::string id = {}, std::string name = {});

  // At a block's end: moves a tool block's accumulated argument bytes into it; a text, thinking
  // or argument string grown by deltas gives back its growth slack.
  void settle(std::size_t index);

  EventSink& sink_;
  AssistantMessage message_;
  std::vector<bool> open_;
  // Argument bytes of open tool blocks, joined here (json::Raw is immutable; appending to a
  // string keeps long streamed arguments linear).
  std::vector<std::string> arguments_;
  bool started_ = false;
  // Nobody reads the events (drain() without a callback: the loop when no one listens): the
  // message is built, the events are not.
  bool quiet_ = false;
  std::optional<std::string> violation_;  // the first delta that did not fit its block
};

}  // namespace agentkit::providers::detail
