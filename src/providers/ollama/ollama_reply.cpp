#include "ollama_reply.hpp"

#include <vector>

#include "../wire_common/json_span.hpp"
#include "../wire_common/vendor_error.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/wire/decode.hpp"
#include "ollama_request.hpp"

namespace agentkit::providers::detail::ollama {
namespace {

// The source text of each call of reply.message.tool_calls, for argument spans (REQ-PROV-17).
Result<std::vector<std::string_view>> call_spans(std::string_view reply_text) {
  auto message = member_span(reply_text, "message");
  if (!message) return message.error();
  auto calls = member_span(*message, "tool_calls");
  if (!calls) return calls.error();
  return element_spans(*calls);
}

}  // namespace

OllamaReplyDecoder::OllamaReplyDecoder(MessageAssembler& out, std::string_view request_body)
    : out_(out), ids_("ollama", request_body) {}

Result<void> OllamaReplyDecoder::line(std::string_view text) {
  if (trim_ows(text).empty()) return {};
  auto reply = wire::decode(text);
  if (!reply) return fail(Errc::protocol_error, "an Ollama stream line is not valid JSON: " + reply.error().message);
  return part(*reply, text);
}

Result<void> OllamaReplyDecoder::whole(std::string_view body) {
  auto reply = wire::decode(body);
  if (reply) {
    if (auto ok = part(*reply, body); !ok) return ok;
  } else {
    // A server or gateway that streamed NDJSON under application/json: read it line by line.
    for (std::string_view l : split(body, '\n')) {
      if (auto ok = line(l); !ok) return ok;
    }
    if (!done_) return fail(Errc::protocol_error, "the Ollama reply is neither one JSON object nor complete NDJSON");
  }
  settle();
  return {};
}

Result<void> OllamaReplyDecoder::stream_end() {
  if (!done_) {
    // No done:true line: the body was cut short. Its partial calls must not run, and the wording
    // is one the semantic retry layer retries (REQ-PROV-14).
    return fail(Errc::protocol_error, "the Ollama stream ended before its done:true line: the reply was cut short");
  }
  settle();
  return {};
}

Result<void> OllamaReplyDecoder::part(const json::Value& reply, std::string_view text) {
  if (!reply.is_object()) return fail(Errc::protocol_error, "an Ollama reply line is not a JSON object");
  if (const json::Value* error = reply.find("error")) {
    // A failure inside an HTTP 200 body: the transport saw success, only this line says otherwise.
    return fail(Errc::provider_error, "Ollama reported an error: " + vendor_error_text(*error));
  }
  if (const json::Value* message = reply.find("message")) {
    if (std::string thinking = string_at(message, "thinking"); !thinking.empty()) out_.thinking(open_block(BlockKind::thinking), thinking);
    if (std::string content = string_at(message, "content"); !content.empty()) out_.text(open_block(BlockKind::text), content);
    if (const json::Value* calls = message->find("tool_calls"); calls && calls->is_array() && calls->size() > 0) {
      if (auto ok = tool_calls(calls->as_array(), text); !ok) return ok;
    }
  }
  if (reply.find("done") != nullptr && reply.find("done")->get_bool() == std::optional<bool>(true)) done(reply);
  return {};
}

Result<void> OllamaReplyDecoder::tool_calls(const json::Array& calls, std::string_view reply_text) {
  auto spans = call_spans(reply_text);
  if (!spans || spans->size() != calls.size()) return fail(Errc::protocol_error, "cannot locate the tool-call arguments in the Ollama reply");
  close_open_block();
  has_calls_ = true;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const json::Value* function = calls[i].find("function");
    const int b = out_.begin_tool(ids_.next(), string_at(function, "name"));
    const json::Value* args = function ? function->find("arguments") : nullptr;
    if (args != nullptr && args->is_string()) {
      out_.arguments(b, args->as_string());  // a gateway that sends the OpenAI string form
    } else if (args != nullptr) {
      auto function_text = member_span((*spans)[i], "function");
      auto args_text = function_text ? member_span(*function_text, "arguments") : Result<std::string_view>(function_text.error());
      if (!args_text) return fail(Errc::protocol_error, "cannot locate the tool-call arguments in the Ollama reply");
      out_.arguments(b, *args_text);  // the source bytes of the object
    }
    out_.end(b);  // a call arrives whole: text after it opens a new block
  }
  return {};
}

void OllamaReplyDecoder::done(const json::Value& reply) {
  done_ = true;
  done_reason_ = string_at(&reply, "done_reason");
  // Ollama reports no cached-token count: prompt_eval_count is the prompt it evaluated.
  Usage& u = out_.message().usage;
  u.input_tokens = count_at(&reply, "prompt_eval_count");
  u.output_tokens = count_at(&reply, "eval_count");
}

void OllamaReplyDecoder::close_open_block() {
  if (open_ < 0) return;
  if (open_kind_ == BlockKind::thinking) out_.set_signature(open_, std::string(kThinkingMarker));
  out_.end(open_);
  open_ = -1;
}

int OllamaReplyDecoder::open_block(BlockKind kind) {
  if (open_ >= 0 && open_kind_ == kind) return open_;
  close_open_block();
  open_ = kind == BlockKind::thinking ? out_.begin_thinking() : out_.begin_text();
  open_kind_ = kind;
  return open_;
}

void OllamaReplyDecoder::settle() {
  close_open_block();
  AssistantMessage& m = out_.message();
  m.raw_stop_reason = done_reason_;
  if (done_reason_ == "length") m.stop_reason = StopReason::length;
  else m.stop_reason = has_calls_ ? StopReason::tool_use : StopReason::stop;
}

}  // namespace agentkit::providers::detail::ollama
