// Decoding an Ollama /api/chat reply — NDJSON lines (application/x-ndjson), the last with
// done:true — or one whole JSON object (stream:false) into the canonical message.
//
//   OllamaReplyDecoder reply(assembler, call.wire.body);
//   reply.line(line);  ...  reply.stream_end();             // or: reply.whole(body)
//
// What it pins: {"error": "..."} inside an HTTP 200 body is a failure, not content (the transport
// cannot see it; the content so far is kept); a body without its done:true line was cut short (an
// error whose calls never run); tool-call ids are synthesised per response (PositionalCallIds);
// argument bytes are the source span of the `arguments` object; "stop" next to tool calls is a
// tool_use turn (REQ-LOOP-01 holds either way).
//
// Thread safety: none; one decoder per call.
#pragma once

#include <string>
#include <string_view>

#include "../google/positional_call_ids.hpp"
#include "../wire_common/message_assembler.hpp"
#include "../wire_common/wire_client_base.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::providers::detail::ollama {

class OllamaReplyDecoder final : public ReplyDecoder {
 public:
  OllamaReplyDecoder(MessageAssembler& out, std::string_view request_body);

  Result<void> line(std::string_view line) override;
  Result<void> whole(std::string_view body) override;
  Result<void> stream_end() override;

 private:
  // One reply object; `text` is its source (for argument spans).
  Result<void> part(const json::Value& reply, std::string_view text);
  Result<void> tool_calls(const json::Array& calls, std::string_view reply_text);
  void done(const json::Value& reply);
  void close_open_block();
  int open_block(BlockKind kind);
  void settle();

  MessageAssembler& out_;
  PositionalCallIds ids_;
  int open_ = -1;
  BlockKind open_kind_ = BlockKind::text;
  bool done_ = false;
  bool has_calls_ = false;
  std::string done_reason_;
};

}  // namespace agentkit::providers::detail::ollama
