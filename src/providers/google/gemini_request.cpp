#include "gemini_request.hpp"

#include <string>
#include <utility>

#include "../wire_common/encoded_history.hpp"
#include "../wire_common/wire_client_base.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/json/value.hpp"
#include "../wire_common/json_span.hpp"

namespace agentkit::providers::detail::gemini {
namespace {

constexpr std::string_view kUserRole = "user";
constexpr std::string_view kModelRole = "model";

using detail::json_string;

// Contents in order, written as JSON text into one buffer, each followed by ','. A part for the
// same role as the previous content joins it: Gemini turns alternate, and a run of tool results
// with the user text after it is one user turn. No part is a string of its own.
class ContentsWriter {
 public:
  // `splices`: where a call's long arguments are recorded (none: not recorded).
  explicit ContentsWriter(std::string& out, std::vector<Splice>* splices = nullptr)
      : out_(out), splices_(splices) {}
  std::vector<Splice>* splices() const { return splices_; }
  // Starts a part of `role`; the caller appends the part's JSON object to the buffer answered.
  std::string& part(std::string_view role) {
    if (!role_.empty() && role_ == role) {
      out_ += ',';
      return out_;
    }
    if (!role_.empty()) close();
    out_ += R"({"parts":[)";
    role_ = role;
    return out_;
  }
  // Closes the last content.
  void finish() {
    if (!role_.empty()) close();
    role_ = {};
  }

 private:
  void close() {
    out_ += R"(],"role":)";
    json::append_quoted(out_, role_);
    out_ += "},";
  }
  std::string& out_;
  std::vector<Splice>* splices_;
  std::string_view role_;  // the open content's (one of the role constants), empty when none
};

void text_part(std::string& out, std::string_view text) {
  out += R"({"text":)";
  json::append_quoted(out, text);
  out += '}';
}

void image_part(std::string& out, const ImageBlock& image) {
  out += R"({"inlineData":{"mimeType":)";
  json::append_quoted(out, image.mime_type);
  out += R"(,"data":)";
  json::append_quoted(out, image.data_base64);
  out += "}}";
}

void function_call_part(std::string& out, const ToolUseBlock& call, std::vector<Splice>* splices) {
  out += R"({"functionCall":{"name":)";
  json::append_quoted(out, call.name);
  out += R"(,"args":)";
  append_object_arguments(out, call, splices);  // a JSON object (REQ-PROV-17)
  out += '}';
  if (!call.thought_signature.empty()) {
    out += R"(,"thoughtSignature":)";
    json::append_quoted(out, call.thought_signature);
  }
  out += '}';
}

// Only thoughts the service signed are read back; the rest stay out of the request (see
// kUnsignedThoughtMarker).
bool replayable(const ThinkingBlock& thought) {
  return !thought.redacted && !thought.signature.empty() && thought.signature != kUnsignedThoughtMarker;
}

void thought_part(std::string& out, const ThinkingBlock& thought) {
  out += R"({"text":)";
  json::append_quoted(out, thought.thinking);
  out += R"(,"thought":true,"thoughtSignature":)";
  json::append_quoted(out, thought.signature);
  out += '}';
}

void add_user(ContentsWriter& out, const UserMessage& m) {
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextBlock>(&block); t && !t->text.empty())
      text_part(out.part(kUserRole), t->text);
    else if (const auto* image = std::get_if<ImageBlock>(&block))
      image_part(out.part(kUserRole), *image);
  }
}

void add_assistant(ContentsWriter& out, const AssistantMessage& m) {
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextBlock>(&block); t && !t->text.empty())
      text_part(out.part(kModelRole), t->text);
    else if (const auto* thought = std::get_if<ThinkingBlock>(&block);
             thought && replayable(*thought))
      thought_part(out.part(kModelRole), *thought);
    else if (const auto* call = std::get_if<ToolUseBlock>(&block))
      function_call_part(out.part(kModelRole), *call, out.splices());
    else if (const auto* image = std::get_if<ImageBlock>(&block))
      image_part(out.part(kModelRole), *image);
  }
}

// One functionResponse per result, paired with its call by name and position: the wire has no id.
// Gemini's convention puts a failure under "error" and a success under "output".
void function_response_part(std::string& out, const ToolResultMessage& r) {
  TextRun text;  // text_of's join, without a copy of a lone block
  for (const auto& block : r.content) {
    if (const auto* t = std::get_if<TextBlock>(&block)) text.add(t->text);
  }
  out += R"({"functionResponse":{"name":)";
  json::append_quoted(out, r.tool_name);
  out += r.is_error ? R"(,"response":{"error":)" : R"(,"response":{"output":)";
  json::append_quoted(out, text.view());
  out += "}}}";
}

// A run of consecutive results: N functionResponse parts in call order, then whatever else the
// results carried (images), after all of them (REQ-LOOP-02).
std::size_t add_result_run(ContentsWriter& out, std::span<const Message> view, std::size_t first) {
  std::size_t end = first;
  while (end < view.size() && std::holds_alternative<ToolResultMessage>(view[end])) ++end;
  for (std::size_t i = first; i < end; ++i)
    function_response_part(out.part(kUserRole), std::get<ToolResultMessage>(view[i]));
  for (std::size_t i = first; i < end; ++i) {
    for (const auto& block : std::get<ToolResultMessage>(view[i]).content) {
      if (const auto* image = std::get_if<ImageBlock>(&block))
        image_part(out.part(kUserRole), *image);
    }
  }
  return end;
}

// The contents of `view`, each followed by ','.
void write_contents(std::string& out, std::span<const Message> view,
                    std::vector<Splice>* splices = nullptr) {
  ContentsWriter contents(out, splices);
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* u = std::get_if<UserMessage>(&view[i])) {
      add_user(contents, *u);
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      add_assistant(contents, *a);
      ++i;
    } else {
      i = add_result_run(contents, view, i);
    }
  }
  contents.finish();
}

std::string contents_json(std::span<const Message> view) {
  std::string out = "[";
  write_contents(out, view);
  if (out.back() == ',') out.back() = ']';
  else out += ']';
  return out;
}

// Level style ("low") or token budget (a number); the catalog row's thinking map decides which.
// Thought summaries are asked for whenever the model thinks, so reasoning shows up as thinking
// blocks (and is counted inside output, REQ-PROV-05).
json::Value thinking_config(const json::Value& wire_value) {
  json::Object config;
  if (const auto level = wire_value.get_string()) {
    std::string upper(*level);
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c);
    config.append_unique("thinkingLevel", json::Value(std::move(upper)));
    config.append_unique("includeThoughts", true);
  } else if (wire_value.is_number()) {
    const bool thinks = wire_value.number_text() != "0";
    config.append_unique("thinkingBudget", wire_value);
    if (thinks) config.append_unique("includeThoughts", true);
  } else if (wire_value.get_bool() == std::optional<bool>(false)) {
    config.append_unique("thinkingBudget", 0);
  } else {
    config.append_unique("includeThoughts", true);
  }
  return config;
}

// Unset fields are omitted; explicit zeros are sent (REQ-PROV-16).
std::string generation_config(const Request& request, const ToolBytes& answer_schema) {
  json::Object config;
  if (request.temperature) config.append_unique("temperature", number(*request.temperature));
  if (request.top_p) config.append_unique("topP", number(*request.top_p));
  if (request.max_tokens) config.append_unique("maxOutputTokens", json::Value(static_cast<long long>(*request.max_tokens)));
  if (!request.stop_sequences.empty()) {
    json::Array stops(request.stop_sequences.begin(), request.stop_sequences.end());
    config.append_unique("stopSequences", std::move(stops));
  }
  if (auto choice = thinking_choice(request)) config.append_unique("thinkingConfig", thinking_config(choice->value));
  if (answer_schema) {
    // responseJsonSchema (plain JSON Schema), not the OpenAPI-subset responseSchema.
    config.append_unique("responseMimeType", "application/json");
    config.append_unique("responseJsonSchema", json::Raw(answer_schema));
  }
  return json::dump(json::Value(std::move(config)));
}

std::string tool_config(const ToolChoice& choice) {
  json::Object calling;
  switch (choice.mode) {
    case ToolChoice::Mode::automatic: calling.append_unique("mode", "AUTO"); break;
    case ToolChoice::Mode::none: calling.append_unique("mode", "NONE"); break;
    case ToolChoice::Mode::required: calling.append_unique("mode", "ANY"); break;
    case ToolChoice::Mode::tool:
      calling.append_unique("mode", "ANY");
      calling.append_unique("allowedFunctionNames", json::Array{json::Value(choice.tool_name)});
      break;
  }
  return json::dump(json::Value(json::Object{{"functionCallingConfig", json::Value(std::move(calling))}}));
}

std::string prefix_members(const Request& request, std::span<const ToolBytes> tool_bytes) {
  std::string out;
  auto member = [&out](std::string_view key, std::string_view value) {
    if (!out.empty()) out += ',';
    out += json_string(key);
    out += ':';
    out += value;
  };
  if (!request.system.empty()) {
    // The SDK states role "user" for the system instruction; the service accepts it either way.
    std::string instruction = R"({"parts":[)";
    text_part(instruction, request.system);
    instruction += R"(],"role":"user"})";
    member("systemInstruction", instruction);
  }
  if (!tool_bytes.empty()) {
    // The cached forms copied once, into a prefix sized for them.
    constexpr std::string_view kOpen = R"("tools":[{"functionDeclarations":[)";
    std::size_t size = out.size() + 1 + kOpen.size() + 3;
    for (const auto& t : tool_bytes) size += t->size() + 1;
    out.reserve(size);
    if (!out.empty()) out += ',';
    out += kOpen;
    for (std::size_t i = 0; i < tool_bytes.size(); ++i) {
      if (i > 0) out += ',';
      out += *tool_bytes[i];
    }
    out += "]}]";
    if (request.tool_choice) member("toolConfig", tool_config(*request.tool_choice));
  }
  return out;
}

}  // namespace

RequestParts encode_request(const Request& request, std::span<const Message> view,
                            std::span<const ToolBytes> tool_bytes, const ToolBytes& answer_schema,
                            const std::function<void(std::string&)>& write_contents) {
  RequestParts parts;
  parts.prefix = prefix_members(request, tool_bytes);
  parts.rest = R"("contents":)";
  if (write_contents) write_contents(parts.rest);
  else parts.rest += contents_json(view);
  parts.rest += R"(,"generationConfig":)";
  parts.rest += generation_config(request, answer_schema);
  return parts;
}

std::string contents_items(std::span<const Message> segment, std::vector<Splice>* splices) {
  std::string items;
  items.reserve(segment_bytes_hint(segment));
  write_contents(items, segment, splices);
  return items;
}

namespace {

// The role a message's contents take, or none when it yields no part.
char content_role(const Message& m) {
  if (std::holds_alternative<ToolResultMessage>(m)) return 'u';
  if (const auto* u = std::get_if<UserMessage>(&m)) {
    for (const auto& block : u->content) {
      if (const auto* t = std::get_if<TextBlock>(&block); t && !t->text.empty()) return 'u';
      if (std::holds_alternative<ImageBlock>(block)) return 'u';
    }
    return 0;
  }
  const auto& a = std::get<AssistantMessage>(m);
  for (const auto& block : a.content) {
    if (const auto* t = std::get_if<TextBlock>(&block); t && !t->text.empty()) return 'm';
    if (const auto* thought = std::get_if<ThinkingBlock>(&block); thought && replayable(*thought))
      return 'm';
    if (std::holds_alternative<ToolUseBlock>(block) || std::holds_alternative<ImageBlock>(block))
      return 'm';
  }
  return 0;
}

}  // namespace

bool contents_split(const Message& before, const Message& after) {
  // Same-role neighbours share one content, and a run's images follow all of its results.
  const char a = content_role(before);
  const char b = content_role(after);
  return a != 0 && b != 0 && a != b;
}

std::string render_tool(const ToolSpec& tool) {
  json::Object declaration;
  declaration.append_unique("name", tool.name);
  declaration.append_unique("description", tool.description);
  declaration.append_unique("parametersJsonSchema", tool.input_schema.is_null() ? json::Value(json::Object{{"type", "object"}}) : tool.input_schema);
  return json::dump(json::Value(std::move(declaration)));
}

std::string whole_body(const RequestParts& parts) {
  std::string body;
  body.reserve(parts.prefix.size() + parts.rest.size() + 3);
  body += '{';
  if (!parts.prefix.empty()) {
    body += parts.prefix;
    body += ',';
  }
  body += parts.rest;
  body += '}';
  return body;
}

std::string cached_body(std::string_view cache_name, const RequestParts& parts) {
  return R"({"cachedContent":)" + json_string(cache_name) + "," + parts.rest + "}";
}

std::string stream_path(std::string_view model_id) {
  return "/models/" + std::string(model_id) + ":streamGenerateContent?alt=sse";
}

}  // namespace agentkit::providers::detail::gemini
