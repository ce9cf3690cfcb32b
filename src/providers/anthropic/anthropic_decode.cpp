// Anthropic Messages replies (SSE events or one JSON message) -> the canonical message.
#include "../wire_common/json_span.hpp"
#include "../wire_common/vendor_error.hpp"
#include "agentkit/wire/decode.hpp"
#include "anthropic_wire.hpp"

namespace agentkit::providers::detail {
namespace {

constexpr std::string_view kCompaction = "compaction";
// A content index past this is refused rather than allocated for: a hostile stream must not size
// our tables (REQ-SEC-11's spirit; real replies hold a handful of blocks).
constexpr std::size_t kMaxContentBlocks = 10'000;

StopReason anthropic_stop_reason(std::string_view raw) {
  if (raw == "end_turn" || raw == "pause_turn") return StopReason::stop;
  if (raw == "max_tokens" || raw == "model_context_window_exceeded") return StopReason::length;
  if (raw == "tool_use") return StopReason::tool_use;
  if (raw == "stop_sequence") return StopReason::stop_sequence;
  if (raw == "refusal") return StopReason::refusal;
  return StopReason::stop;  // unknown reasons never drive control flow (REQ-LOOP-01)
}

// Present members only: an explicit 0 is a value, an absent member leaves the count alone
// (REQ-PROV-16 decoding).
void set_if_present(const json::Value* usage, std::string_view key, std::int64_t& field) {
  if (!usage) return;
  const json::Value* v = usage->find(key);
  if (v && v->is_number()) {
    auto n = v->to_int64();
    if (n && *n >= 0) field = *n;
  }
}

// The Anthropic content index an event refers to.
std::optional<std::size_t> index_of(const json::Value& event) {
  const json::Value* v = event.find("index");
  if (!v || !v->is_number()) return std::nullopt;
  auto n = v->to_int64();
  if (!n || *n < 0) return std::nullopt;
  return static_cast<std::size_t>(*n);
}

}  // namespace

int AnthropicDecoder::block_for(const json::Value& event) const {
  auto index = index_of(event);
  if (!index || *index >= blocks_.size()) return -1;
  return blocks_[*index];
}

void AnthropicDecoder::read_usage(const json::Value* usage) {
  // Anthropic's input_tokens already exclude cache reads and writes: nothing is netted here
  // (netting them again would understate the bill by the cached share).
  Usage& u = out_.message().usage;
  set_if_present(usage, "input_tokens", u.input_tokens);
  set_if_present(usage, "output_tokens", u.output_tokens);
  set_if_present(usage, "cache_read_input_tokens", u.cache_read_tokens);
  set_if_present(usage, "cache_creation_input_tokens", u.cache_write_tokens);
  if (!usage) return;
  set_if_present(usage->find("cache_creation"), "ephemeral_1h_input_tokens",
                 u.cache_write_1h_tokens);
  // Thinking is billed as output and already counted in output_tokens; the breakdown says how much.
  set_if_present(usage->find("output_tokens_details"), "thinking_tokens", u.reasoning_tokens);
}

void AnthropicDecoder::read_stop(const json::Value* reason) {
  if (!reason || !reason->is_string()) return;
  out_.message().raw_stop_reason = reason->as_string();
  out_.message().stop_reason = anthropic_stop_reason(reason->as_string());
}

void AnthropicDecoder::on_message_start(const json::Value& message) {
  out_.message().response_id = string_at(&message, "id");
  served_model = string_at(&message, "model");
  read_usage(message.find("usage"));
}

Result<void> AnthropicDecoder::on_block_start(const json::Value& event) {
  const json::Value* block = event.find("content_block");
  auto index = index_of(event);
  if (!block || !index) return fail(Errc::protocol_error, "content_block_start without a block or an index");
  if (*index >= kMaxContentBlocks) return fail(Errc::limit_exceeded, "content block index " + std::to_string(*index) + " is out of range");
  const std::size_t at = *index;
  if (blocks_.size() <= at) {
    blocks_.resize(at + 1, -1);
    opaque_.resize(at + 1);
  }
  const std::string_view type = text_at(block, "type");
  int ours = -1;
  if (type == "text") {
    ours = out_.begin_text();
    out_.text(ours, string_at(block, "text"));
  } else if (type == "thinking") {
    ours = out_.begin_thinking();
    out_.thinking(ours, string_at(block, "thinking"));
    out_.set_signature(ours, string_at(block, "signature"));
  } else if (type == "redacted_thinking") {
    ours = out_.begin_thinking();
    out_.set_redacted(ours, string_at(block, "data"));
  } else if (type == "tool_use") {
    ours = out_.begin_tool(string_at(block, "id"), string_at(block, "name"));
  } else if (type == kCompaction) {
    opaque_[at] = *block;
  }
  blocks_[at] = ours;
  return {};
}

Result<void> AnthropicDecoder::on_block_delta(const json::Value& event) {
  const json::Value* delta = event.find("delta");
  const std::string_view type = text_at(delta, "type");
  auto index = index_of(event);
  if (type == "compaction_delta" && index && *index < opaque_.size()) {
    json::Value& block = opaque_[*index];
    for (const char* key : {"content", "encrypted_content"}) {
      if (const json::Value* v = delta->find(key); v && !v->is_null()) block[key] = *v;
    }
    return {};
  }
  const int b = block_for(event);
  if (b < 0) return {};  // a block we do not model (server tools, citations)
  // A delta for a block that already ended goes to the assembler all the same: it is a protocol
  // violation there, as on the other four wires, and the message ends as an error naming it.
  if (type == "text_delta") out_.text(b, string_at(delta, "text"));
  else if (type == "thinking_delta") out_.thinking(b, string_at(delta, "thinking"));
  else if (type == "signature_delta") out_.set_signature(b, string_at(delta, "signature"));
  else if (type == "input_json_delta") out_.arguments(b, string_at(delta, "partial_json"));
  return {};
}

Result<void> AnthropicDecoder::on_block_stop(const json::Value& event) {
  auto index = index_of(event);
  if (index && *index < opaque_.size()) {
    json::Value& block = opaque_[*index];
    if (block.is_object()) {
      out_.add_opaque(UnknownBlock{std::string(kCompaction), json::Raw(json::dump(block))});
      block = nullptr;
      return {};
    }
  }
  const int b = block_for(event);
  if (b >= 0) out_.end(b);
  return {};
}

void AnthropicDecoder::on_message_delta(const json::Value& event) {
  read_stop(event.find("delta") ? event.find("delta")->find("stop_reason") : nullptr);
  read_usage(event.find("usage"));
}

Result<void> AnthropicDecoder::event(const wire::SseEvent& sse) {
  if (sse.type == "ping") return {};
  auto doc = wire::decode(sse.data);
  if (!doc) return make_error(Errc::protocol_error, "malformed " + sse.type + " event: " + doc.error().message);
  // The event's own "type" wins over the SSE event name (they agree on Anthropic's stream).
  std::string_view type = text_at(&*doc, "type");
  if (type.empty()) type = sse.type;
  if (type == "error") return vendor_error(*doc);
  if (type == "message_start") {
    if (const json::Value* message = doc->find("message")) on_message_start(*message);
    return {};
  }
  if (type == "content_block_start") return on_block_start(*doc);
  if (type == "content_block_delta") return on_block_delta(*doc);
  if (type == "content_block_stop") return on_block_stop(*doc);
  if (type == "message_delta") on_message_delta(*doc);
  if (type == "message_stop") stopped_ = true;
  return {};  // unknown events are additive and ignored
}

Result<void> AnthropicDecoder::stream_end() {
  if (!stopped_) {
    // Retryable by REQ-PROV-14's allowlist; the calls salvaged so far never run (the message is an
    // error, and send-time repair drops it from later requests).
    return fail(Errc::protocol_error, "stream ended before message_stop");
  }
  return {};
}

Result<void> AnthropicDecoder::whole_block(const json::Value& block, std::string_view block_bytes) {
  const std::string_view type = text_at(&block, "type");
  if (type == "text") {
    int b = out_.begin_text();
    out_.text(b, string_at(&block, "text"));
    out_.end(b);
  } else if (type == "thinking" || type == "redacted_thinking") {
    int b = out_.begin_thinking();
    if (type == "thinking") {
      out_.thinking(b, string_at(&block, "thinking"));
      out_.set_signature(b, string_at(&block, "signature"));
    } else {
      out_.set_redacted(b, string_at(&block, "data"));
    }
    out_.end(b);
  } else if (type == "tool_use") {
    int b = out_.begin_tool(string_at(&block, "id"), string_at(&block, "name"));
    // The object's exact source bytes (REQ-PROV-17), not a re-serialisation of the parsed value.
    auto input = member_span(block_bytes, "input");
    if (input) out_.arguments(b, *input);
    out_.end(b);
  } else if (type == kCompaction) {
    out_.add_opaque(UnknownBlock{std::string(kCompaction), json::Raw(std::string(block_bytes))});
  }
  return {};
}

Result<void> AnthropicDecoder::whole(std::string_view body) {
  auto doc = wire::decode(body);
  if (!doc) return make_error(Errc::protocol_error, "malformed reply: " + doc.error().message);
  if (text_at(&*doc, "type") == "error") return vendor_error(*doc);
  on_message_start(*doc);
  const json::Value* content = doc->find("content");
  if (content && content->is_array()) {
    auto content_bytes = member_span(body, "content");
    auto elements = content_bytes ? element_spans(*content_bytes) : Result<std::vector<std::string_view>>(content_bytes.error());
    if (!elements || elements->size() != content->size()) return fail(Errc::protocol_error, "cannot locate the reply's content blocks");
    for (std::size_t i = 0; i < content->size(); ++i) {
      if (auto ok = whole_block((*content)[i], (*elements)[i]); !ok) return ok;
    }
  }
  read_stop(doc->find("stop_reason"));
  return {};
}

}  // namespace agentkit::providers::detail
