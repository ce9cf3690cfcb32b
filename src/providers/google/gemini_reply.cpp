#include "gemini_reply.hpp"

#include <array>
#include <vector>

#include "../wire_common/json_span.hpp"
#include "agentkit/providers/cost.hpp"
#include "agentkit/wire/decode.hpp"
#include "gemini_request.hpp"

namespace agentkit::providers::detail::gemini {
namespace {

// Finish reasons that mean the provider withheld the answer (safety and policy filters).
constexpr std::array kRefusalReasons = {std::string_view("SAFETY"), std::string_view("RECITATION"),
                                        std::string_view("BLOCKLIST"), std::string_view("PROHIBITED_CONTENT"),
                                        std::string_view("SPII"), std::string_view("IMAGE_SAFETY"),
                                        std::string_view("LANGUAGE")};
// Finish reasons that mean the model's tool use failed: no usable turn came back.
constexpr std::array kFailedCallReasons = {std::string_view("MALFORMED_FUNCTION_CALL"),
                                           std::string_view("UNEXPECTED_TOOL_CALL"),
                                           std::string_view("TOO_MANY_TOOL_CALLS")};

template <std::size_t N>
bool one_of(std::string_view value, const std::array<std::string_view, N>& set) {
  for (auto s : set) {
    if (s == value) return true;
  }
  return false;
}

const json::Value* first_candidate(const json::Value& response) {
  const json::Value* candidates = response.find("candidates");
  if (candidates == nullptr || !candidates->is_array() || candidates->size() == 0) return nullptr;
  return &(*candidates)[0];
}

const json::Array* parts_of(const json::Value& candidate) {
  const json::Value* content = candidate.find("content");
  const json::Value* parts = content ? content->find("parts") : nullptr;
  return parts ? parts->get_array() : nullptr;
}

bool calls_a_function(const json::Array& parts) {
  for (const auto& p : parts) {
    if (p.find("functionCall") != nullptr) return true;
  }
  return false;
}

// The source text of each part of the first candidate, for argument spans (REQ-PROV-17).
Result<std::vector<std::string_view>> part_spans(std::string_view response_text) {
  auto candidates = member_span(response_text, "candidates");
  if (!candidates) return candidates.error();
  auto list = element_spans(*candidates);
  if (!list) return list.error();
  if (list->empty()) return fail(Errc::parse_error, "no candidate text");
  auto content = member_span(list->front(), "content");
  if (!content) return content.error();
  auto parts = member_span(*content, "parts");
  if (!parts) return parts.error();
  return element_spans(*parts);
}

std::string error_text(const json::Value& error) {
  if (const auto s = error.get_string()) return std::string(*s);
  std::string out;
  if (const json::Value* code = error.find("code"); code && code->is_number()) out += std::string(code->number_text()) + " ";
  if (const json::Value* status = error.find("status"); status && status->is_string()) out += status->as_string() + ": ";
  if (const json::Value* message = error.find("message"); message && message->is_string()) out += message->as_string();
  return out.empty() ? json::dump(error) : out;
}

}  // namespace

GeminiReplyDecoder::GeminiReplyDecoder(MessageAssembler& out, std::string_view request_body)
    : out_(out), ids_("gemini", request_body) {}

Result<void> GeminiReplyDecoder::event(const wire::SseEvent& event) {
  if (event.data.empty()) return {};
  auto response = wire::decode(event.data);
  if (!response) return fail(Errc::protocol_error, "a Gemini stream chunk is not valid JSON: " + response.error().message);
  return chunk(*response, event.data);
}

Result<void> GeminiReplyDecoder::whole(std::string_view body) {
  auto doc = wire::decode(body);
  if (!doc) return fail(Errc::protocol_error, "the Gemini reply is not valid JSON: " + doc.error().message);
  if (doc->is_array()) {
    // streamGenerateContent without alt=sse answers a JSON array of the chunks.
    auto texts = element_spans(body);
    if (!texts) return texts.error();
    for (std::size_t i = 0; i < doc->size(); ++i) {
      if (auto ok = chunk((*doc)[i], (*texts)[i]); !ok) return ok;
    }
  } else if (auto ok = chunk(*doc, body); !ok) {
    return ok;
  }
  settle();
  return {};
}

Result<void> GeminiReplyDecoder::stream_end() {
  if (!finished_) {
    // No candidate ever said why it stopped: the body was cut short. Its partial calls must not
    // run, and the wording is one the semantic retry layer retries (REQ-PROV-14).
    return fail(Errc::protocol_error, "the Gemini stream ended before a finishReason: the reply was cut short");
  }
  settle();
  return {};
}

Result<void> GeminiReplyDecoder::chunk(const json::Value& response, std::string_view text) {
  if (!response.is_object()) return fail(Errc::protocol_error, "a Gemini stream chunk is not a JSON object");
  if (const json::Value* error = response.find("error")) {
    // A failure inside a 200 stream (REQ-PROV-04): the content so far is kept by the assembler.
    return fail(Errc::provider_error, "the Gemini stream failed: " + error_text(*error));
  }
  if (std::string id = string_at(&response, "responseId"); !id.empty()) out_.message().response_id = std::move(id);
  if (std::string model = string_at(&response, "modelVersion"); !model.empty()) served_model = std::move(model);
  if (const json::Value* metadata = response.find("usageMetadata")) usage(*metadata);
  if (const json::Value* c = first_candidate(response)) return candidate(*c, text);
  if (const json::Value* feedback = response.find("promptFeedback")) {
    // The prompt itself was blocked: no candidate at all, a refusal rather than a failure.
    if (std::string reason = string_at(feedback, "blockReason"); !reason.empty()) {
      finish_ = std::move(reason);
      finished_ = true;
      prompt_blocked_ = true;
    }
  }
  return {};
}

Result<void> GeminiReplyDecoder::candidate(const json::Value& c, std::string_view response_text) {
  if (const json::Array* parts = parts_of(c)) {
    std::vector<std::string_view> spans;
    if (calls_a_function(*parts)) {
      auto found = part_spans(response_text);
      if (!found || found->size() != parts->size()) return fail(Errc::protocol_error, "cannot locate the function-call arguments in the Gemini reply");
      spans = std::move(*found);
    }
    for (std::size_t i = 0; i < parts->size(); ++i) {
      if (auto ok = part((*parts)[i], spans.empty() ? std::string_view() : spans[i]); !ok) return ok;
    }
  }
  return finish_reason(c);
}

Result<void> GeminiReplyDecoder::part(const json::Value& p, std::string_view part_text) {
  if (const json::Value* call = p.find("functionCall")) {
    close_open_block();
    has_calls_ = true;
    const int b = out_.begin_tool(ids_.next(), string_at(call, "name"));
    auto call_text = member_span(part_text, "functionCall");
    auto args = call_text ? member_span(*call_text, "args") : Result<std::string_view>(fail(Errc::not_found, "no args"));
    if (args) out_.arguments(b, *args);  // the source bytes; absent args end as "{}"
    if (std::string signature = string_at(&p, "thoughtSignature"); !signature.empty()) {
      std::get<ToolUseBlock>(out_.message().content[static_cast<std::size_t>(b)]).thought_signature = std::move(signature);
    }
    out_.end(b);  // a call arrives whole: text after it opens a new block
    return {};
  }
  const json::Value* text = p.find("text");
  if (text != nullptr && text->is_string()) {
    const bool thought = p.find("thought") != nullptr && p.find("thought")->get_bool() == std::optional<bool>(true);
    if (thought) {
      const int b = open_block(BlockKind::thinking);
      out_.thinking(b, text->as_string());
      if (std::string signature = string_at(&p, "thoughtSignature"); !signature.empty()) out_.set_signature(b, std::move(signature));
    } else if (!text->as_string().empty()) {
      out_.text(open_block(BlockKind::text), text->as_string());
    }
    // A signature on a plain text part has no canonical slot: Gemini needs signatures back only
    // on function calls (kept above) and on thoughts.
    return {};
  }
  if (const json::Value* data = p.find("inlineData")) {
    close_open_block();
    out_.add_opaque(ImageBlock{string_at(data, "mimeType"), string_at(data, "data")});
  }
  return {};  // executable code and other part kinds are not modelled
}

Result<void> GeminiReplyDecoder::finish_reason(const json::Value& c) {
  std::string reason = string_at(&c, "finishReason");
  if (reason.empty()) return {};
  finish_ = reason;
  finished_ = true;
  if (one_of(reason, kFailedCallReasons)) {
    std::string detail = string_at(&c, "finishMessage");
    return fail(Errc::provider_error, "Gemini stopped with " + reason + (detail.empty() ? std::string() : ": " + detail));
  }
  return {};
}

void GeminiReplyDecoder::usage(const json::Value& m) {
  // promptTokenCount includes the cached tokens: they are netted out here, once (REQ-PROV-05.1);
  // thoughts are reported beside candidates and belong inside output.
  Usage& u = out_.message().usage;
  const std::int64_t cached = count_at(&m, "cachedContentTokenCount");
  const std::int64_t thoughts = count_at(&m, "thoughtsTokenCount");
  u.input_tokens = net_prompt_tokens(count_at(&m, "promptTokenCount"), cached, 0) + count_at(&m, "toolUsePromptTokenCount");
  u.cache_read_tokens = cached;
  u.output_tokens = count_at(&m, "candidatesTokenCount") + thoughts;
  u.reasoning_tokens = thoughts;
}

void GeminiReplyDecoder::close_open_block() {
  if (open_ < 0) return;
  if (open_kind_ == BlockKind::thinking) {
    auto& thought = std::get<ThinkingBlock>(out_.message().content[static_cast<std::size_t>(open_)]);
    if (thought.signature.empty()) out_.set_signature(open_, std::string(kUnsignedThoughtMarker));
  }
  out_.end(open_);
  open_ = -1;
}

int GeminiReplyDecoder::open_block(BlockKind kind) {
  if (open_ >= 0 && open_kind_ == kind) return open_;
  close_open_block();
  open_ = kind == BlockKind::thinking ? out_.begin_thinking() : out_.begin_text();
  open_kind_ = kind;
  return open_;
}

void GeminiReplyDecoder::settle() {
  close_open_block();
  AssistantMessage& m = out_.message();
  m.raw_stop_reason = finish_;
  if (finish_ == "MAX_TOKENS") m.stop_reason = StopReason::length;
  else if (prompt_blocked_ || one_of(finish_, kRefusalReasons)) m.stop_reason = StopReason::refusal;
  else m.stop_reason = has_calls_ ? StopReason::tool_use : StopReason::stop;
}

}  // namespace agentkit::providers::detail::gemini
