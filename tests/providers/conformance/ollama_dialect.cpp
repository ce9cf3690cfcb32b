// ollama-chat in the conformance fixtures' terms: replies rendered as Ollama's /api/chat sends them
// (NDJSON lines, the last with done:true; a failure as {"error": "..."} inside the 200 body),
// request bodies read back from the /api/chat JSON.
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/ollama.hpp"
#include "conformance.hpp"

namespace agentkit::conformance {
namespace {

constexpr const char* kModelId = "gpt-oss:20b";
constexpr const char* kCreatedAt = "2026-11-30T00:00:00Z";

std::string joined(const std::vector<std::string>& fragments) {
  std::string out;
  for (const auto& f : fragments) out += f;
  return out;
}

json::Value call_of(const ScriptedCall& c) {
  return json::Object{{"function", json::Object{{"name", c.name}, {"arguments", json::Raw(c.arguments())}}}};
}

json::Value line(json::Object message, bool done) {
  message.set("role", "assistant");
  return json::Object{{"model", kModelId}, {"created_at", kCreatedAt}, {"message", json::Value(std::move(message))}, {"done", done}};
}

// The done:true line; Ollama has no cached count, so prompt_eval_count is the input.
json::Value final_line(json::Object message, const ScriptedReply& r) {
  json::Value out = line(std::move(message), true);
  out.as_object().append_unique("done_reason", r.stop == LogicalStop::max_tokens ? "length" : "stop");
  out.as_object().append_unique("total_duration", 1000);
  out.as_object().append_unique("prompt_eval_count", r.usage.input);
  out.as_object().append_unique("eval_count", r.usage.output);
  return out;
}

std::string whole_body(const ScriptedReply& r) {
  json::Object message{{"role", "assistant"}, {"content", joined(r.text)}};
  if (!r.thinking.empty()) message.append_unique("thinking", joined(r.thinking));
  if (!r.calls.empty()) {
    json::Array calls;
    for (const auto& c : r.calls) calls.push_back(call_of(c));
    message.append_unique("tool_calls", std::move(calls));
  }
  return json::dump(final_line(std::move(message), r));
}

std::string ndjson(const json::Value& v) { return json::dump(v) + "\n"; }

std::vector<std::string> stream_events(const ScriptedReply& r) {
  std::vector<std::string> out;
  for (const auto& t : r.thinking) out.push_back(ndjson(line(json::Object{{"content", ""}, {"thinking", t}}, false)));
  for (const auto& t : r.text) out.push_back(ndjson(line(json::Object{{"content", t}}, false)));
  if (!r.calls.empty()) {
    // Ollama delivers the calls whole, in one line.
    json::Array calls;
    for (const auto& c : r.calls) calls.push_back(call_of(c));
    out.push_back(ndjson(line(json::Object{{"content", ""}, {"tool_calls", std::move(calls)}}, false)));
  }
  if (r.end == ScriptedEnd::error_event) {
    out.push_back(ndjson(json::Object{{"error", r.error_message}}));
    return out;
  }
  if (r.end == ScriptedEnd::cut) return out;
  out.push_back(ndjson(final_line(json::Object{{"content", ""}}, r)));
  return out;
}

// ---- reading request bodies --------------------------------------------------------------------

const json::Array& array_at(const json::Value* v) {
  static const json::Array kEmpty;
  return v && v->is_array() ? v->as_array() : kEmpty;
}

std::string string_of(const json::Value* v) { return v && v->is_string() ? v->as_string() : std::string(); }

std::optional<std::string> literal(const json::Value* options, std::string_view key) {
  const json::Value* v = options ? options->find(key) : nullptr;
  if (!v) return std::nullopt;
  return v->is_number() ? std::string(v->number_text()) : json::dump(*v);
}

std::vector<PackedItem> packed_items(const json::Value& body) {
  std::vector<PackedItem> out;
  const json::Array& messages = array_at(body.find("messages"));
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::string role = string_of(messages[i].find("role"));
    if (role == "tool") {
      PackedItem item;
      item.kind = PackedItem::Kind::result;
      item.container = i;
      item.tool_name = string_of(messages[i].find("tool_name"));
      item.text = string_of(messages[i].find("content"));  // no id: pairing is by position
      out.push_back(item);
    } else if (role == "user") {
      for (std::size_t n = 0; n < array_at(messages[i].find("images")).size(); ++n) {
        out.push_back(PackedItem{PackedItem::Kind::image, i, {}, {}, {}});
      }
    }
  }
  return out;
}

std::size_t image_count(const json::Value& body) {
  std::size_t n = 0;
  for (const auto& m : array_at(body.find("messages"))) n += array_at(m.find("images")).size();
  return n;
}

std::string all_text(const json::Value& body) {
  std::string out;
  for (const auto& m : array_at(body.find("messages"))) out += string_of(m.find("content"));
  return out;
}

}  // namespace

WireDialect ollama_dialect() {
  WireDialect d;
  d.api = "ollama-chat";
  d.model = [](const std::string& base_url) {
    Model m = *catalog::Catalog::builtin().find("ollama", kModelId);
    m.base_url = base_url;
    return m;
  };
  d.make_client = [](const providers::WireOptions& o) {
    providers::WireOptions options = o;
    if (!options.transport.credentials.environment) {
      // Nothing from the process environment: OLLAMA_HOST would redirect the loopback server.
      options.transport.credentials.environment = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
    }
    return providers::make_ollama_client(options);
  };
  // Every Ollama row is free: there is no differently priced model to be served instead.
  d.served_model_alternative = "";
  d.whole_body = whole_body;
  d.stream_events = stream_events;
  d.stream_content_type = "application/x-ndjson";
  d.carries_call_ids = false;
  // Ollama reports no cached-token count at all (prompt_eval_count is what it evaluated).
  d.cached_places = {};
  d.packing = ToolResultPacking::n_messages_by_position;
  d.packed_items = packed_items;
  d.argument_text_in_body = [](std::string_view raw) { return "\"arguments\":" + std::string(raw); };
  d.sampling = [](const json::Value& body) {
    const json::Value* options = body.find("options");
    return SamplingView{literal(options, "temperature"), literal(options, "top_p"), literal(options, "num_predict")};
  };
  d.stop_sequences_on_wire = true;
  d.stop_sequences = [](const json::Value& body) {
    std::vector<std::string> out;
    const json::Value* options = body.find("options");
    for (const auto& s : array_at(options ? options->find("stop") : nullptr)) out.push_back(s.as_string());
    return out;
  };
  d.thinking_value = [](const json::Value& body) -> std::optional<json::Value> {
    const json::Value* think = body.find("think");
    return think ? std::optional<json::Value>(*think) : std::nullopt;
  };
  d.image_count = image_count;
  d.all_text = all_text;
  d.tool_names = [](const json::Value& body) {
    std::vector<std::string> out;
    for (const auto& t : array_at(body.find("tools"))) {
      const json::Value* f = t.find("function");
      out.push_back(string_of(f ? f->find("name") : nullptr));
    }
    return out;
  };
  return d;
}

}  // namespace agentkit::conformance
