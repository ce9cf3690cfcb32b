// Decoding a Gemini reply — SSE chunks (`data: <GenerateContentResponse>`, no event names, no
// terminator) or one whole JSON response (or a JSON array of them) — into the canonical message.
//
//   GeminiReplyDecoder reply(assembler, call.wire.body);
//   reply.event(sse_event);  ...  reply.stream_end();      // or: reply.whole(body)
//
// What it pins: text after a function call opens a new block (Gemini streams text, call, text);
// thoughts become thinking blocks and their tokens count inside output; cached tokens are netted
// out of promptTokenCount once; tool-call ids are synthesised per response (PositionalCallIds);
// argument bytes are the source span of `args`; an {"error": ...} chunk fails the call with the
// content so far kept; a stream that never delivers a finishReason was cut short (an error, its
// calls never run); STOP next to function calls is a tool_use turn (REQ-LOOP-01 holds either way).
//
// Thread safety: none; one decoder per call.
#pragma once

#include <string>
#include <string_view>

#include "../wire_common/message_assembler.hpp"
#include "../wire_common/wire_client_base.hpp"
#include "agentkit/json/value.hpp"
#include "positional_call_ids.hpp"

namespace agentkit::providers::detail::gemini {

class GeminiReplyDecoder final : public ReplyDecoder {
 public:
  GeminiReplyDecoder(MessageAssembler& out, std::string_view request_body);

  Result<void> event(const wire::SseEvent& event) override;
  Result<void> whole(std::string_view body) override;
  Result<void> stream_end() override;

 private:
  // One GenerateContentResponse; `text` is its source (for argument spans).
  Result<void> chunk(const json::Value& response, std::string_view text);
  Result<void> candidate(const json::Value& candidate, std::string_view response_text);
  Result<void> part(const json::Value& part, std::string_view part_text);
  Result<void> finish_reason(const json::Value& candidate);
  void usage(const json::Value& metadata);
  void close_open_block();
  // The open block of `kind`, opening one (and closing any other) when needed.
  int open_block(BlockKind kind);
  // Closes what is open and sets the stop reason: the reply decoded completely.
  void settle();

  MessageAssembler& out_;
  PositionalCallIds ids_;
  int open_ = -1;
  BlockKind open_kind_ = BlockKind::text;
  bool finished_ = false;
  bool has_calls_ = false;
  bool prompt_blocked_ = false;  // promptFeedback.blockReason: no candidate was produced
  std::string finish_;
};

}  // namespace agentkit::providers::detail::gemini
