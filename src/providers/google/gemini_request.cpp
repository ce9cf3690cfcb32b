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

// Contents in order. A part for the same role as the previous content joins it: Gemini turns
// alternate, and a run of tool results with the user text after it is one user turn.
class ContentsWriter {
 public:
  void add(std::string_view role, std::string part) {
    if (contents_.empty() || contents_.back().role != role) contents_.push_back(Content{std::string(role), {}});
    contents_.back().parts.push_back(std::move(part));
  }

  std::string json() const {
    std::string out = "[";
    for (std::size_t i = 0; i < contents_.size(); ++i) {
      if (i > 0) out += ',';
      out += R"({"parts":[)";
      for (std::size_t p = 0; p < contents_[i].parts.size(); ++p) {
        if (p > 0) out += ',';
        out += contents_[i].parts[p];
      }
      out += R"(],"role":)";
      out += json_string(contents_[i].role);
      out += '}';
    }
    out += ']';
    return out;
  }

 private:
  struct Content {
    std::string role;
    std::vector<std::string> parts;
  };
  std::vector<Content> contents_;
};

std::string text_part(std::string_view text) { return R"({"text":)" + json_string(text) + "}"; }

std::string image_part(const ImageBlock& image) {
  return R"({"inlineData":{"mimeType":)" + json_string(image.mime_type) + R"(,"data":)" + json_string(image.data_base64) + "}}";
}

// Gemini's args is a JSON object: the bytes the model produced go back unchanged (REQ-PROV-17).
// Anything else (a call cut off by the output limit, another wire's non-object arguments) cannot be
// expressed and is sent as {}; such a call's result already says it failed.
std::string_view replayable_args(const ToolUseBlock& call) {
  std::string_view bytes = trim_ows(call.input.bytes());
  if (bytes.empty() || bytes.front() != '{' || !valid_arguments(call.input)) return "{}";
  return call.input.bytes();
}

std::string function_call_part(const ToolUseBlock& call) {
  std::string out = R"({"functionCall":{"name":)" + json_string(call.name) + R"(,"args":)";
  out += replayable_args(call);
  out += '}';
  if (!call.thought_signature.empty()) out += R"(,"thoughtSignature":)" + json_string(call.thought_signature);
  out += '}';
  return out;
}

// Only thoughts the service signed are read back; the rest stay out of the request (see
// kUnsignedThoughtMarker).
bool replayable(const ThinkingBlock& thought) {
  return !thought.redacted && !thought.signature.empty() && thought.signature != kUnsignedThoughtMarker;
}

std::string thought_part(const ThinkingBlock& thought) {
  return R"({"text":)" + json_string(thought.thinking) + R"(,"thought":true,"thoughtSignature":)" + json_string(thought.signature) + "}";
}

void add_user(ContentsWriter& out, const UserMessage& m) {
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextBlock>(&block); t && !t->text.empty()) out.add(kUserRole, text_part(t->text));
    else if (const auto* image = std::get_if<ImageBlock>(&block)) out.add(kUserRole, image_part(*image));
  }
}

void add_assistant(ContentsWriter& out, const AssistantMessage& m) {
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextBlock>(&block); t && !t->text.empty()) out.add(kModelRole, text_part(t->text));
    else if (const auto* thought = std::get_if<ThinkingBlock>(&block); thought && replayable(*thought)) out.add(kModelRole, thought_part(*thought));
    else if (const auto* call = std::get_if<ToolUseBlock>(&block)) out.add(kModelRole, function_call_part(*call));
    else if (const auto* image = std::get_if<ImageBlock>(&block)) out.add(kModelRole, image_part(*image));
  }
}

// One functionResponse per result, paired with its call by name and position: the wire has no id.
// Gemini's convention puts a failure under "error" and a success under "output".
std::string function_response_part(const ToolResultMessage& r) {
  return R"({"functionResponse":{"name":)" + json_string(r.tool_name) + R"(,"response":{)" +
         (r.is_error ? R"("error":)" : R"("output":)") + json_string(text_of(r.content)) + "}}}";
}

// A run of consecutive results: N functionResponse parts in call order, then whatever else the
// results carried (images), after all of them (REQ-LOOP-02).
std::size_t add_result_run(ContentsWriter& out, std::span<const Message> view, std::size_t first) {
  std::vector<std::string> extras;
  std::size_t i = first;
  for (; i < view.size(); ++i) {
    const auto* r = std::get_if<ToolResultMessage>(&view[i]);
    if (r == nullptr) break;
    out.add(kUserRole, function_response_part(*r));
    for (const auto& block : r->content) {
      if (const auto* image = std::get_if<ImageBlock>(&block)) extras.push_back(image_part(*image));
    }
  }
  for (auto& part : extras) out.add(kUserRole, std::move(part));
  return i;
}

std::string contents_json(std::span<const Message> view) {
  ContentsWriter out;
  for (std::size_t i = 0; i < view.size();) {
    if (const auto* u = std::get_if<UserMessage>(&view[i])) {
      add_user(out, *u);
      ++i;
    } else if (const auto* a = std::get_if<AssistantMessage>(&view[i])) {
      add_assistant(out, *a);
      ++i;
    } else {
      i = add_result_run(out, view, i);
    }
  }
  return out.json();
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
    member("systemInstruction", R"({"parts":[)" + text_part(request.system) + R"(],"role":"user"})");
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

std::string contents_items(std::span<const Message> segment) {
  std::string json = contents_json(segment);  // "[...]"
  if (json.size() <= 2) return {};
  json.back() = ',';
  json.erase(0, 1);
  return json;
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
