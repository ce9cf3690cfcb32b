// Responses API replies (typed SSE events ending in response.completed, or one JSON response) ->
// the canonical message.
#include "../openai_shared/openai_common.hpp"
#include "../wire_common/vendor_error.hpp"
#include "agentkit/wire/decode.hpp"
#include "responses_wire.hpp"

namespace agentkit::providers::detail {
namespace {

// An output_index past this is refused rather than tracked (REQ-SEC-11's spirit).
constexpr std::size_t kMaxOutputIndex = 10'000;

std::optional<std::size_t> output_index(const json::Value& event) {
  const json::Value* v = event.find("output_index");
  if (!v || !v->is_number()) return std::nullopt;
  auto n = v->to_int64();
  if (!n || *n < 0 || static_cast<std::size_t>(*n) >= kMaxOutputIndex) return std::nullopt;
  return static_cast<std::size_t>(*n);
}

// Summary parts are separate paragraphs (each opens with its own bold heading): joined without a
// break, a heading runs into the previous sentence.
constexpr std::string_view kSummaryPartBreak = "\n\n";

std::string summary_text(const json::Value& item) {
  std::string out;
  if (const json::Value* summary = item.find("summary"); summary && summary->is_array()) {
    for (const auto& s : summary->as_array()) {
      if (!out.empty()) out += kSummaryPartBreak;
      out += text_at(&s, "text");
    }
  }
  return out;
}

}  // namespace

int ResponsesDecoder::block_at(const json::Value& event) const {
  auto index = output_index(event);
  if (!index) return -1;
  auto it = blocks_.find(*index);
  return it == blocks_.end() ? -1 : it->second;
}

void ResponsesDecoder::response_header(const json::Value& response) {
  if (std::string_view id = text_at(&response, "id"); !id.empty()) out_.message().response_id = id;
  if (std::string_view model = text_at(&response, "model"); !model.empty()) served_model = model;
}

Result<void> ResponsesDecoder::response_end(const json::Value& response) {
  response_header(response);
  completed_ = true;
  if (const json::Value* usage = response.find("usage"); usage && usage->is_object()) {
    read_responses_usage(*usage, out_.message().usage);
  }
  // REQ-PROV-05 rule 6: the tier that actually served the request is billed.
  if (bill_service_tier_) service_tier = string_at(&response, "service_tier");
  const std::string_view status = text_at(&response, "status");
  AssistantMessage& m = out_.message();
  if (status == "failed") {
    return vendor_error(response);
  }
  if (status == "incomplete") {
    const std::string_view reason = text_at(response.find("incomplete_details"), "reason");
    m.raw_stop_reason = reason.empty() ? std::string_view("incomplete") : reason;
    m.stop_reason = reason == "content_filter" ? StopReason::refusal : StopReason::length;
    return {};
  }
  m.raw_stop_reason = status;
  m.stop_reason = refused_ ? StopReason::refusal : any_call_ ? StopReason::tool_use : StopReason::stop;
  return {};
}

void ResponsesDecoder::item_added(const json::Value& event) {
  auto index = output_index(event);
  const json::Value* item = event.find("item");
  if (!index || !item) return;
  const std::string_view type = text_at(item, "type");
  if (type == "function_call") {
    any_call_ = true;
    blocks_[*index] = out_.begin_tool(join_call_id(string_at(item, "call_id"), string_at(item, "id")), string_at(item, "name"));
  } else if (type == "reasoning") {
    int b = out_.begin_thinking();
    out_.set_thinking_id(b, string_at(item, "id"));
    blocks_[*index] = b;
  }
  // A message item's block opens with its first text delta.
}

void ResponsesDecoder::item_done(json::Value& event) {
  auto index = output_index(event);
  json::Value* item = event.find("item");
  if (!index || !item) return;
  const int b = block_at(event);
  if (b < 0) return;
  const std::string_view type = text_at(item, "type");
  if (type == "function_call") {
    // The done item is authoritative; it equals the deltas joined on a well-behaved stream.
    // Moved out of the event, which is dropped after this: the arguments are not copied again.
    if (json::Value* args = item->find("arguments"); args && args->is_string())
      out_.replace_arguments(b, std::move(args->as_string()));
  } else if (type == "reasoning") {
    const auto* thinking = std::get_if<ThinkingBlock>(&out_.block(b));
    if (thinking != nullptr && thinking->thinking.empty()) out_.thinking(b, summary_text(*item));
    out_.set_signature(b, string_at(item, "encrypted_content"));
  }
  out_.end(b);
}

void ResponsesDecoder::summary_part_added(const json::Value& event) {
  const int b = block_at(event);
  if (b < 0) return;
  const auto* thinking = std::get_if<ThinkingBlock>(&out_.block(b));
  if (thinking != nullptr && !thinking->thinking.empty()) out_.thinking(b, kSummaryPartBreak);
}

namespace {

// Streamed events the tree path reads for more than a delta; flat or not, they take that path.
bool needs_tree(std::string_view type) {
  return type == "error" || type == "response.created" || type == "response.in_progress" ||
         type == "response.output_item.added" || type == "response.output_item.done" ||
         type == "response.reasoning_summary_part.added" || type == "response.completed" ||
         type == "response.incomplete" || type == "response.failed";
}

std::optional<std::size_t> flat_output_index(std::string_view literal) {
  static_assert(kMaxOutputIndex > 9999, "four digits must stay in range");
  // The usual literal, up to four digits (below kMaxOutputIndex; the parser already checked it is
  // a JSON number, so no leading zero), read directly: about 200 instructions less on each of a
  // stream's delta events. Anything else takes the tree path's reading.
  if (!literal.empty() && literal.size() <= 4 &&
      literal.find_first_not_of("0123456789") == std::string_view::npos) {
    std::size_t n = 0;
    for (char c : literal) n = n * 10 + static_cast<std::size_t>(c - '0');
    return n;
  }
  auto number = json::Value::number(literal);  // the tree path's reading of the same literal
  if (!number) return std::nullopt;
  auto n = number->to_int64();
  if (!n || *n < 0 || static_cast<std::size_t>(*n) >= kMaxOutputIndex) return std::nullopt;
  return static_cast<std::size_t>(*n);
}

// What a streamed event repeats that the stream has already said or that the request sent: the
// reply's whole output again (in response.completed, every call's arguments and every text once
// more), the request's tools and instructions (echoed by response.created and completed), and a
// finished message item's text. They are checked with the rest of the event but never built.
constexpr std::string_view kResponseEchoes[] = {"/response/output", "/response/tools",
                                                "/response/instructions"};
constexpr std::string_view kItemEchoes[] = {"/item/content"};
// A content or summary part opened or closed: its text is what the deltas said (the reader takes
// only the output index of a summary part's opening).
constexpr std::string_view kPartEchoes[] = {"/part"};

// The echoes of an event, by the name its SSE event line gave it (an event named otherwise is
// read whole: its type member decides what it is).
std::span<const std::string_view> echoes_of(std::string_view event_name) {
  if (event_name.starts_with("response.output_item.")) return kItemEchoes;
  if (event_name.starts_with("response.content_part.") ||
      event_name.starts_with("response.reasoning_summary_part."))
    return kPartEchoes;
  if (event_name == "response.created" || event_name == "response.in_progress" ||
      event_name == "response.completed" || event_name == "response.incomplete")
    return kResponseEchoes;
  return {};
}

}  // namespace

// Most of a stream is delta events of a few scalar members each (and the done echoes we read
// nothing from): they are checked whole, as decode checks them, but read without building a
// tree. Answers nullopt when the event needs the tree path below.
std::optional<Result<void>> ResponsesDecoder::flat_event(const wire::SseEvent& sse) {
  FlatEvent& e = flat_;
  e.has_type = e.has_delta = e.has_index = false;
  auto flat = wire::decode_flat(sse.data, {}, [&e](const json::FlatMember& m) {
    if (m.type == json::Type::string && m.key == "type") {
      e.type.assign(m.text);
      e.has_type = true;
    } else if (m.type == json::Type::string && m.key == "delta") {
      e.delta.assign(m.text);
      e.has_delta = true;
    } else if (m.type == json::Type::number && m.key == "output_index") {
      e.index.assign(m.text);
      e.has_index = true;
    }
  });
  if (!flat)
    return make_error(Errc::protocol_error,
                      "malformed " + sse.type + " event: " + flat.error().message);
  if (!*flat) return std::nullopt;
  const std::string_view type =
      e.has_type && !e.type.empty() ? std::string_view(e.type) : std::string_view(sse.type);
  if (needs_tree(type)) return std::nullopt;
  const std::string_view delta = e.has_delta ? std::string_view(e.delta) : std::string_view();
  const std::optional<std::size_t> index = e.has_index ? flat_output_index(e.index) : std::nullopt;
  if (type == "response.output_text.delta" || type == "response.refusal.delta") {
    if (type == "response.refusal.delta") refused_ = true;
    if (!index) return Result<void>{};
    auto it = blocks_.find(*index);
    if (it == blocks_.end()) it = blocks_.emplace(*index, out_.begin_text()).first;
    out_.text(it->second, delta);
  } else if (type == "response.reasoning_summary_text.delta" ||
             type == "response.reasoning_text.delta" ||
             type == "response.function_call_arguments.delta") {
    auto it = index ? blocks_.find(*index) : blocks_.end();
    if (it == blocks_.end()) return Result<void>{};
    if (type == "response.function_call_arguments.delta") {
      out_.arguments(it->second, delta);
    } else {
      out_.thinking(it->second, delta);
    }
  }
  return Result<void>{};  // the done echoes repeat what the deltas said
}

Result<void> ResponsesDecoder::event(const wire::SseEvent& sse) {
  if (auto flat = flat_event(sse)) return *std::move(flat);
  auto doc = wire::decode(sse.data, {}, echoes_of(sse.type));
  if (!doc) return make_error(Errc::protocol_error, "malformed " + sse.type + " event: " + doc.error().message);
  std::string_view type = text_at(&*doc, "type");
  if (type.empty()) type = sse.type;
  if (type == "error") return vendor_error(*doc);
  if (type == "response.created" || type == "response.in_progress") {
    if (const json::Value* r = doc->find("response")) response_header(*r);
  } else if (type == "response.output_item.added") {
    item_added(*doc);
  } else if (type == "response.output_text.delta" || type == "response.refusal.delta") {
    if (type == "response.refusal.delta") refused_ = true;
    auto index = output_index(*doc);
    if (!index) return {};
    auto it = blocks_.find(*index);
    if (it == blocks_.end()) it = blocks_.emplace(*index, out_.begin_text()).first;
    out_.text(it->second, text_at(&*doc, "delta"));
  } else if (type == "response.reasoning_summary_part.added") {
    summary_part_added(*doc);
  } else if (type == "response.reasoning_summary_text.delta" ||
             type == "response.reasoning_text.delta") {
    if (int b = block_at(*doc); b >= 0) out_.thinking(b, text_at(&*doc, "delta"));
  } else if (type == "response.function_call_arguments.delta") {
    if (int b = block_at(*doc); b >= 0) out_.arguments(b, text_at(&*doc, "delta"));
  } else if (type == "response.output_item.done") {
    item_done(*doc);
  } else if (type == "response.completed" || type == "response.incomplete" ||
             type == "response.failed") {
    if (const json::Value* r = doc->find("response")) return response_end(*r);
    completed_ = true;
  }
  return {};  // other events (content_part.*, *.done echoes) repeat what the deltas said
}

Result<void> ResponsesDecoder::stream_end() {
  if (!completed_) return fail(Errc::protocol_error, "stream ended before response.completed");
  return {};
}

void ResponsesDecoder::whole_item(const json::Value& item) {
  const std::string_view type = text_at(&item, "type");
  if (type == "message") {
    std::string text;
    if (const json::Value* content = item.find("content"); content && content->is_array()) {
      for (const auto& part : content->as_array()) {
        const std::string_view part_type = text_at(&part, "type");
        if (part_type == "output_text") text += text_at(&part, "text");
        if (part_type == "refusal") {
          refused_ = true;
          text += text_at(&part, "refusal");
        }
      }
    }
    if (text.empty()) return;
    int b = out_.begin_text();
    out_.text(b, text);
    out_.end(b);
  } else if (type == "function_call") {
    any_call_ = true;
    int b = out_.begin_tool(join_call_id(string_at(&item, "call_id"), string_at(&item, "id")), string_at(&item, "name"));
    out_.arguments(b, text_at(&item, "arguments"));
    out_.end(b);
  } else if (type == "reasoning") {
    int b = out_.begin_thinking();
    out_.set_thinking_id(b, string_at(&item, "id"));
    out_.thinking(b, summary_text(item));
    out_.set_signature(b, string_at(&item, "encrypted_content"));
    out_.end(b);
  }
}

Result<void> ResponsesDecoder::whole(std::string_view body) {
  auto doc = wire::decode(body);
  if (!doc) return make_error(Errc::protocol_error, "malformed reply: " + doc.error().message);
  if (const json::Value* error = doc->find("error");
      error && error->is_object() && text_at(&*doc, "status").empty()) {
    return vendor_error(*error);
  }
  response_header(*doc);
  if (const json::Value* output = doc->find("output"); output && output->is_array()) {
    for (const auto& item : output->as_array()) whole_item(item);
  }
  return response_end(*doc);
}

}  // namespace agentkit::providers::detail
