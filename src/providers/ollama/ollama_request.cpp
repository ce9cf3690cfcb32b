#include "ollama_request.hpp"

#include <functional>
#include <utility>

#include "../wire_common/encoded_history.hpp"
#include "../wire_common/wire_client_base.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/json/value.hpp"
#include "../wire_common/json_span.hpp"

namespace agentkit::providers::detail::ollama {
namespace {

using detail::json_string;

// Writes one JSON object member by member; values are JSON text.
class ObjectWriter {
 public:
  ObjectWriter& member(std::string_view key, std::string_view json_value) {
    out_ += out_.size() == 1 ? "" : ",";
    json::append_quoted(out_, key);
    out_ += ':';
    out_ += json_value;
    return *this;
  }
  ObjectWriter& text(std::string_view key, std::string_view value) { return member(key, json_string(value)); }
  // A member whose value `write` appends in place.
  ObjectWriter& member_written(std::string_view key,
                               const std::function<void(std::string&)>& write) {
    out_ += out_.size() == 1 ? "" : ",";
    json::append_quoted(out_, key);
    out_ += ':';
    write(out_);
    return *this;
  }
  std::string done() {
    out_ += '}';
    return std::move(out_);
  }

 private:
  std::string out_ = "{";
};

// "images":[...] with the images' data, when `content` carries any.
void add_images(MemberWriter& m, std::string& out, const std::vector<ContentBlock>& content) {
  bool first = true;
  for (const auto& block : content) {
    const auto* image = std::get_if<ImageBlock>(&block);
    if (image == nullptr) continue;
    if (first) m.open("images") += '[';
    else out += ',';
    first = false;
    json::append_quoted(out, image->data_base64);
  }
  if (!first) out += ']';
}

// The text of `content`'s text blocks, joined (text_of), without a copy of a lone block.
TextRun text_run(const std::vector<ContentBlock>& content) {
  TextRun text;
  for (const auto& block : content) {
    if (const auto* t = std::get_if<TextBlock>(&block)) text.add(t->text);
  }
  return text;
}

// Each message is written straight into `out` as a JSON object followed by ','.
void write_user(std::string& out, const UserMessage& m) {
  out += '{';
  MemberWriter w(out);
  w.add("role", "user");
  w.add("content", text_run(m.content).view());
  add_images(w, out, m.content);
  out += "},";
}

void write_assistant(std::string& out, const AssistantMessage& m, std::vector<Splice>* splices) {
  out += '{';
  MemberWriter w(out);
  w.add("role", "assistant");
  w.add("content", text_run(m.content).view());
  // Thinking the view still holds is this model's own (others' became text in repair).
  TextRun thinking;
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<ThinkingBlock>(&block)) thinking.add(t->thinking);
  }
  if (!thinking.view().empty()) w.add("thinking", thinking.view());
  bool first = true;
  for (const auto& block : m.content) {
    const auto* call = std::get_if<ToolUseBlock>(&block);
    if (call == nullptr) continue;
    if (first) w.open("tool_calls") += '[';
    else out += ',';
    first = false;
    out += R"({"function":{"name":)";
    json::append_quoted(out, call->name);
    out += R"(,"arguments":)";
    append_object_arguments(out, *call, splices);  // a JSON object (REQ-PROV-17)
    out += "}}";
  }
  if (!first) out += ']';
  out += "},";
}

// A run of consecutive results: N role:"tool" messages in call order, paired by position (the wire
// has no id); is_error becomes an "Error: " prefix (the wire has no slot for it). Images the
// results carried follow the whole run in one user message, never between results (REQ-LOOP-02).
std::size_t write_result_run(std::string& out, std::span<const Message> view, std::size_t first) {
  std::size_t end = first;
  while (end < view.size() && std::holds_alternative<ToolResultMessage>(view[end])) ++end;
  bool images = false;
  for (std::size_t i = first; i < end; ++i) {
    const auto& r = std::get<ToolResultMessage>(view[i]);
    out += '{';
    MemberWriter w(out);
    w.add("role", "tool");
    TextRun text = text_run(r.content);
    if (r.is_error) {
      std::string& content = w.open("content");
      content += R"("Error: )";
      const std::size_t at = content.size();
      json::append_quoted(content, text.view());
      content.erase(at, 1);  // the quote append_quoted opened with: one string, prefixed
    } else {
      w.add("content", text.view());
    }
    w.add("tool_name", r.tool_name);
    out += "},";
    for (const auto& block : r.content)
      images = images || std::holds_alternative<ImageBlock>(block);
  }
  if (images) {
    out += R"({"role":"user","content":"","images":[)";
    bool first_image = true;
    for (std::size_t i = first; i < end; ++i) {
      for (const auto& block : std::get<ToolResultMessage>(view[i]).content) {
        const auto* image = std::get_if<ImageBlock>(&block);
        if (image == nullptr) continue;
        if (!first_image) out += ',';
        first_image = false;
        json::append_quoted(out, image->data_base64);
      }
    }
    out += "]},";
  }
  return end;
}

std::string system_message(const Request& request) {
  return ObjectWriter().text("role", "system").text("content", request.system).done();
}

// The messages of `view`, each followed by ','.
// `splices`, when set, gets the calls' long arguments.
void write_messages(std::string& out, std::span<const Message> view,
                    std::vector<Splice>* splices = nullptr) {
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* u = std::get_if<UserMessage>(&view[i])) {
      write_user(out, *u);
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      write_assistant(out, *a, splices);
      ++i;
    } else {
      i = write_result_run(out, view, i);
    }
  }
}

std::string messages_json(const Request& request, std::span<const Message> view) {
  std::string out = "[";
  if (!request.system.empty()) out += system_message(request) + ',';
  write_messages(out, view);
  if (out.back() == ',') out.back() = ']';
  else out += ']';
  return out;
}

// Sampling and limits go under "options"; unset fields are omitted, explicit zeros sent (REQ-PROV-16).
std::string options_json(const Request& request, const OllamaOptions& options) {
  json::Object o;
  if (request.max_tokens) o.append_unique("num_predict", json::Value(static_cast<long long>(*request.max_tokens)));
  if (request.temperature) o.append_unique("temperature", number(*request.temperature));
  if (request.top_p) o.append_unique("top_p", number(*request.top_p));
  if (!request.stop_sequences.empty()) o.append_unique("stop", json::Array(request.stop_sequences.begin(), request.stop_sequences.end()));
  std::int64_t window = options.context_tokens.value_or(request.model ? request.model->context_window : 0);
  if (window > 0) o.append_unique("num_ctx", json::Value(static_cast<long long>(window)));
  return o.empty() ? std::string() : json::dump(json::Value(std::move(o)));
}

Error forced_choice_unsupported(const Request& request) {
  return make_error(Errc::unsupported, "ollama-chat cannot force a tool call (tool_choice " +
                                           std::string(request.tool_choice->mode == ToolChoice::Mode::tool ? "tool" : "required") +
                                           "); the request was sent with the tools offered, the model may answer without them")
      .with_detail("field", "tool_choice");
}

}  // namespace

OllamaRequest encode_request(const Request& request, std::span<const Message> view,
                             std::span<const ToolBytes> tool_bytes, const OllamaOptions& options,
                             const ToolBytes& answer_schema, EncodedHistory* history,
                             CacheMeter* meter, HistoryPromise promise) {
  OllamaRequest out;
  ObjectWriter body;
  body.text("model", request.model->id);
  const bool offer_tools = !tool_bytes.empty() && !(request.tool_choice && request.tool_choice->mode == ToolChoice::Mode::none);
  // What follows the messages, so the body is sized for it with them: the tools going in after a
  // body sized for the messages alone grew it again, with a copy of the whole history.
  constexpr std::size_t kSmallMembers = 256;  // think, options, keep_alive, stream
  std::size_t after = kSmallMembers + (answer_schema ? answer_schema->size() + 16 : 0);
  if (offer_tools) {
    for (const auto& t : tool_bytes) after += t->size() + 1;
  }
  if (history && meter) {
    const std::string lead = request.system.empty() ? std::string() : system_message(request) + ',';
    const EncodedHistory::Wire wire{splits_result_runs, [](std::span<const Message> segment, bool) {
                                      EncodedHistory::Segment encoded;
                                      encoded.items = message_items(segment, &encoded.splices);
                                      return encoded;
                                    }};
    body.member_written("messages", [&](std::string& into) {
      history->append_array(request.session_id, request.model->vendor + '/' + request.model->id,
                            view, wire, into, *meter, promise, lead, after);
    });
  } else {
    body.member("messages", messages_json(request, view));
  }
  if (offer_tools) {
    body.member_written("tools", [&](std::string& into) {  // the cached forms, copied once
      into += '[';
      for (std::size_t i = 0; i < tool_bytes.size(); ++i) {
        if (i > 0) into += ',';
        into += *tool_bytes[i];
      }
      into += ']';
    });
    const auto mode = request.tool_choice ? request.tool_choice->mode : ToolChoice::Mode::automatic;
    if (mode == ToolChoice::Mode::required || mode == ToolChoice::Mode::tool) out.unsupported.push_back(forced_choice_unsupported(request));
  }
  // `format` takes the JSON Schema itself (Ollama 0.5+; "json" alone would be JSON mode).
  if (answer_schema) body.member("format", *answer_schema);
  if (auto choice = thinking_choice(request)) body.member("think", json::dump(choice->value));
  if (std::string o = options_json(request, options); !o.empty()) body.member("options", o);
  if (options.keep_alive) body.text("keep_alive", *options.keep_alive);
  // Always stated: the server streams by default, and the decoder follows the reply's type anyway.
  body.member("stream", "true");
  out.body = std::move(body).done();
  return out;
}

std::string message_items(std::span<const Message> segment, std::vector<Splice>* splices) {
  std::string items;
  items.reserve(segment_bytes_hint(segment));
  write_messages(items, segment, splices);
  return items;
}

std::string render_tool(const ToolSpec& tool) {
  json::Object function;
  function.append_unique("name", tool.name);
  function.append_unique("description", tool.description);
  function.append_unique("parameters", tool.input_schema.is_null() ? json::Value(json::Object{{"type", "object"}}) : tool.input_schema);
  return json::dump(json::Value(json::Object{{"type", "function"}, {"function", json::Value(std::move(function))}}));
}

}  // namespace agentkit::providers::detail::ollama
