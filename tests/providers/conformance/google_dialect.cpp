// google-generative-ai in the conformance fixtures' terms: replies rendered as the Gemini API sends
// them (GenerateContentResponse chunks over SSE, no event names and no terminator; the last chunk
// carries finishReason and usageMetadata), request bodies read back from generateContent JSON.
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/google.hpp"
#include "conformance.hpp"

namespace agentkit::conformance {
namespace {

constexpr const char* kModelId = "gemini-4-hydrogen";

std::string joined(const std::vector<std::string>& fragments) {
  std::string out;
  for (const auto& f : fragments) out += f;
  return out;
}

// Gemini reports prompt tokens including the cached ones, and thoughts beside the candidates.
json::Value usage_of(const ScriptedReply& r) {
  const std::int64_t prompt = r.usage.input + r.usage.cache_read + r.usage.cache_write;
  json::Object u{{"promptTokenCount", prompt}, {"candidatesTokenCount", r.usage.output - r.usage.reasoning}};
  if (r.usage.cache_read) u.append_unique("cachedContentTokenCount", r.usage.cache_read);
  if (r.usage.reasoning) u.append_unique("thoughtsTokenCount", r.usage.reasoning);
  u.append_unique("totalTokenCount", prompt + r.usage.output);
  return u;
}

std::string model_of(const ScriptedReply& r) { return r.served_model.empty() ? kModelId : r.served_model; }

json::Value thought_part(const std::string& text, const std::string& signature) {
  json::Object p{{"text", text}, {"thought", true}};
  if (!signature.empty()) p.append_unique("thoughtSignature", signature);
  return p;
}

json::Value call_part(const ScriptedCall& c) {
  return json::Object{{"functionCall", json::Object{{"name", c.name}, {"args", json::Raw(c.arguments())}}}};
}

json::Value response(json::Array parts, const ScriptedReply& r, bool last) {
  json::Object candidate{{"content", json::Object{{"role", "model"}, {"parts", std::move(parts)}}}, {"index", 0}};
  if (last) candidate.append_unique("finishReason", r.stop == LogicalStop::max_tokens ? "MAX_TOKENS" : "STOP");
  json::Object out{{"candidates", json::Array{json::Value(std::move(candidate))}}};
  if (last) out.append_unique("usageMetadata", usage_of(r));
  out.append_unique("modelVersion", model_of(r));
  out.append_unique("responseId", "conf-1");
  return out;
}

std::string whole_body(const ScriptedReply& r) {
  json::Array parts;
  if (!r.thinking.empty()) parts.push_back(thought_part(joined(r.thinking), r.thinking_signature));
  if (!r.text.empty()) parts.push_back(json::Object{{"text", joined(r.text)}});
  for (const auto& c : r.calls) parts.push_back(call_part(c));
  return json::dump(response(std::move(parts), r, true));
}

std::string sse(const json::Value& data) { return "data: " + json::dump(data) + "\r\n\r\n"; }

std::vector<std::string> stream_events(const ScriptedReply& r) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < r.thinking.size(); ++i) {
    const bool last = i + 1 == r.thinking.size();
    out.push_back(sse(response(json::Array{thought_part(r.thinking[i], last ? r.thinking_signature : "")}, r, false)));
  }
  for (const auto& t : r.text) out.push_back(sse(response(json::Array{json::Object{{"text", t}}}, r, false)));
  // Gemini delivers each function call whole, in one chunk.
  for (const auto& c : r.calls) out.push_back(sse(response(json::Array{call_part(c)}, r, false)));
  if (r.end == ScriptedEnd::error_event) {
    out.push_back(sse(json::Object{{"error", json::Object{{"code", 503}, {"message", r.error_message}, {"status", "UNAVAILABLE"}}}}));
    return out;
  }
  if (r.end == ScriptedEnd::cut) return out;
  out.push_back(sse(response(json::Array{}, r, true)));
  return out;
}

// ---- reading request bodies --------------------------------------------------------------------

const json::Array& array_at(const json::Value* v) {
  static const json::Array kEmpty;
  return v && v->is_array() ? v->as_array() : kEmpty;
}

std::string string_of(const json::Value* v) { return v && v->is_string() ? v->as_string() : std::string(); }

std::optional<std::string> literal(const json::Value* config, std::string_view key) {
  const json::Value* v = config ? config->find(key) : nullptr;
  if (!v) return std::nullopt;
  return v->is_number() ? std::string(v->number_text()) : json::dump(*v);
}

std::string response_text(const json::Value& part) {
  const json::Value* fr = part.find("functionResponse");
  const json::Value* r = fr ? fr->find("response") : nullptr;
  if (!r) return {};
  return string_of(r->find("output")) + string_of(r->find("error"));
}

std::vector<PackedItem> packed_items(const json::Value& body) {
  std::vector<PackedItem> out;
  const json::Array& contents = array_at(body.find("contents"));
  for (std::size_t i = 0; i < contents.size(); ++i) {
    for (const auto& p : array_at(contents[i].find("parts"))) {
      PackedItem item;
      item.container = i;
      if (const json::Value* fr = p.find("functionResponse")) {
        item.kind = PackedItem::Kind::result;
        item.tool_name = string_of(fr->find("name"));
        item.text = response_text(p);  // no id: pairing is by position
      } else if (p.find("inlineData")) {
        item.kind = PackedItem::Kind::image;
      } else if (p.find("text") && !p.find("thought")) {
        item.kind = PackedItem::Kind::text;
        item.text = string_of(p.find("text"));
      } else {
        continue;
      }
      out.push_back(item);
    }
  }
  return out;
}

std::size_t image_count(const json::Value& body) {
  std::size_t n = 0;
  for (const auto& c : array_at(body.find("contents"))) {
    for (const auto& p : array_at(c.find("parts"))) n += p.find("inlineData") ? 1 : 0;
  }
  return n;
}

std::string all_text(const json::Value& body) {
  std::string out;
  if (const json::Value* system = body.find("systemInstruction")) {
    for (const auto& p : array_at(system->find("parts"))) out += string_of(p.find("text"));
  }
  for (const auto& c : array_at(body.find("contents"))) {
    for (const auto& p : array_at(c.find("parts"))) out += string_of(p.find("text")) + response_text(p);
  }
  return out;
}

// The catalog's vocabulary: thinkingLevel is sent upper-case ("MEDIUM") for the row's "medium".
std::optional<json::Value> thinking_value(const json::Value& body) {
  const json::Value* config = body.find("generationConfig");
  const json::Value* thinking = config ? config->find("thinkingConfig") : nullptr;
  if (!thinking) return std::nullopt;
  if (const json::Value* budget = thinking->find("thinkingBudget")) return *budget;
  std::string level = string_of(thinking->find("thinkingLevel"));
  for (char& ch : level) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch);
  return json::Value(level);
}

}  // namespace

WireDialect google_dialect() {
  WireDialect d;
  d.api = "google-generative-ai";
  d.model = [](const std::string& base_url) {
    Model m = *catalog::Catalog::builtin().find("google", kModelId);
    m.base_url = base_url;
    return m;
  };
  d.make_client = [](const providers::WireOptions& o) {
    providers::WireOptions options = o;
    if (!options.transport.credentials.environment) {
      // A key for the pipeline to send; nothing else from the process environment (its base-URL
      // variable would redirect the loopback server).
      options.transport.credentials.environment = [](std::string_view name) -> std::optional<std::string> {
        if (name == "GEMINI_API_KEY") return "conformance-key";
        return std::nullopt;
      };
    }
    return providers::make_google_client(options);
  };
  d.served_model_alternative = "gemini-4-argon";
  d.whole_body = whole_body;
  d.stream_events = stream_events;
  d.stream_content_type = "text/event-stream";
  d.carries_call_ids = false;
  d.packing = ToolResultPacking::one_content_n_parts;
  d.packed_items = packed_items;
  d.argument_text_in_body = [](std::string_view raw) { return "\"args\":" + std::string(raw); };
  d.sampling = [](const json::Value& body) {
    const json::Value* config = body.find("generationConfig");
    return SamplingView{literal(config, "temperature"), literal(config, "topP"), literal(config, "maxOutputTokens")};
  };
  d.stop_sequences_on_wire = true;
  d.stop_sequences = [](const json::Value& body) {
    std::vector<std::string> out;
    const json::Value* config = body.find("generationConfig");
    for (const auto& s : array_at(config ? config->find("stopSequences") : nullptr)) out.push_back(s.as_string());
    return out;
  };
  d.thinking_value = thinking_value;
  d.image_count = image_count;
  d.all_text = all_text;
  d.tool_names = [](const json::Value& body) {
    std::vector<std::string> out;
    for (const auto& tool : array_at(body.find("tools"))) {
      for (const auto& f : array_at(tool.find("functionDeclarations"))) out.push_back(string_of(f.find("name")));
    }
    return out;
  };
  return d;
}

}  // namespace agentkit::conformance
