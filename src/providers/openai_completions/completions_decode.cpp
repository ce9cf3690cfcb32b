// Chat Completions replies (SSE chunks ending in [DONE], or one JSON completion) -> the canonical
// message.
#include "../openai_shared/openai_common.hpp"
#include "../wire_common/vendor_error.hpp"
#include "agentkit/wire/decode.hpp"
#include "completions_wire.hpp"

namespace agentkit::providers::detail {
namespace {

// A tool_calls index past this is refused rather than allocated for (REQ-SEC-11's spirit).
constexpr std::size_t kMaxToolCallIndex = 10'000;

StopReason completions_stop_reason(std::string_view raw) {
  if (raw == "length") return StopReason::length;
  if (raw == "tool_calls" || raw == "function_call") return StopReason::tool_use;
  if (raw == "content_filter") return StopReason::refusal;
  return StopReason::stop;  // "stop" and unknown reasons; never read by the loop (REQ-LOOP-01)
}

}  // namespace

std::string CompletionsDecoder::synthesised_id(std::size_t index) const {
  // Per response, never from a global counter: the streamed and whole paths agree (REQ-LOOP-02).
  return "call_" + (out_.message().response_id.empty() ? std::string("0") : out_.message().response_id) + "_" +
         std::to_string(index);
}

void CompletionsDecoder::text(std::string_view piece) {
  if (piece.empty()) return;
  if (text_block_ < 0 || !out_.is_open(text_block_)) text_block_ = out_.begin_text();
  out_.text(text_block_, piece);
}

void CompletionsDecoder::reasoning(std::string_view piece) {
  if (piece.empty()) return;
  if (thinking_block_ < 0 || !out_.is_open(thinking_block_)) {
    thinking_block_ = out_.begin_thinking();
    out_.set_signature(thinking_block_, std::string(kClearReasoningSignature));
  }
  out_.thinking(thinking_block_, piece);
}

void CompletionsDecoder::tool_delta(const json::Value& call) {
  const json::Value* index_value = call.find("index");
  std::size_t index = calls_.size();
  if (index_value && index_value->is_number()) {
    auto n = index_value->to_int64();
    if (n && *n >= 0) index = static_cast<std::size_t>(*n);
  }
  if (index >= kMaxToolCallIndex) return;
  const json::Value* function = call.find("function");
  auto it = calls_.find(index);
  if (it == calls_.end()) {
    // A call's text is finished once a call starts (text after it opens a new block).
    if (text_block_ >= 0) out_.end(text_block_);
    std::string id = string_at(&call, "id");
    if (id.empty()) id = synthesised_id(index);
    it = calls_.emplace(index, out_.begin_tool(id, string_at(function, "name"))).first;
  } else {
    if (std::string id = string_at(&call, "id"); !id.empty()) out_.set_tool_id(it->second, id);
    if (std::string name = string_at(function, "name"); !name.empty()) out_.set_tool_name(it->second, name);
  }
  out_.arguments(it->second, string_at(function, "arguments"));
}

void CompletionsDecoder::delta(const json::Value& delta) {
  reasoning(string_at(&delta, "reasoning_content"));
  reasoning(string_at(&delta, "reasoning"));
  text(string_at(&delta, "content"));
  if (std::string refusal = string_at(&delta, "refusal"); !refusal.empty()) {
    refused_ = true;
    text(refusal);
  }
  if (const json::Value* calls = delta.find("tool_calls"); calls && calls->is_array()) {
    for (const auto& call : calls->as_array()) tool_delta(call);
  }
}

void CompletionsDecoder::close_all() {
  for (std::size_t b = 0; b < out_.block_count(); ++b) out_.end(static_cast<int>(b));
}

void CompletionsDecoder::finish(std::string_view reason) {
  finished_ = true;
  out_.message().raw_stop_reason = std::string(reason);
  out_.message().stop_reason = refused_ ? StopReason::refusal : completions_stop_reason(reason);
  close_all();
}

Result<void> CompletionsDecoder::chunk(const json::Value& chunk) {
  if (const json::Value* error = chunk.find("error"); error && !error->is_null()) {
    return vendor_error(*error);
  }
  if (out_.message().response_id.empty()) out_.message().response_id = string_at(&chunk, "id");
  if (std::string model = string_at(&chunk, "model"); !model.empty()) served_model = model;
  if (const json::Value* usage = chunk.find("usage"); usage && usage->is_object()) {
    read_completions_usage(*usage, out_.message().usage);
  }
  const json::Value* choices = chunk.find("choices");
  if (!choices || !choices->is_array() || choices->as_array().empty()) return {};
  const json::Value& choice = choices->as_array().front();
  if (const json::Value* d = choice.find("delta"); d && d->is_object()) delta(*d);
  if (const json::Value* m = choice.find("message"); m && m->is_object()) delta(*m);  // whole replies
  if (const json::Value* reason = choice.find("finish_reason"); reason && reason->is_string()) finish(reason->as_string());
  return {};
}

Result<void> CompletionsDecoder::event(const wire::SseEvent& sse) {
  if (sse.data == "[DONE]") {
    done_ = true;
    return {};
  }
  auto doc = wire::decode(sse.data);
  if (!doc) return make_error(Errc::protocol_error, "malformed chunk: " + doc.error().message);
  return chunk(*doc);
}

void CompletionsDecoder::infer_stop() {
  // A host without finish reasons (REQ-PROV-12 supports_finish_reason=false): the content says it.
  if (finished_) return;
  out_.message().stop_reason = calls_.empty() ? StopReason::stop : StopReason::tool_use;
  close_all();
}

Result<void> CompletionsDecoder::stream_end() {
  // [DONE] is the terminal event; a finish_reason is as good where the host sends one (the usage
  // chunk may be missing then, never the content).
  if (done_) infer_stop();
  if (done_ || (finished_ && finish_reason_ends_stream_)) return {};
  return fail(Errc::protocol_error, "stream ended before the completion finished (no finish_reason or [DONE])");
}

Result<void> CompletionsDecoder::whole(std::string_view body) {
  auto doc = wire::decode(body);
  if (!doc) return make_error(Errc::protocol_error, "malformed reply: " + doc.error().message);
  if (auto ok = chunk(*doc); !ok) return ok;
  infer_stop();
  return {};
}

}  // namespace agentkit::providers::detail
