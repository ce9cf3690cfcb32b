// anthropic-messages in the conformance fixtures' terms.
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "conformance.hpp"

namespace agentkit::conformance {
namespace {

const char* stop_text(LogicalStop s) {
  switch (s) {
    case LogicalStop::end_turn: return "end_turn";
    case LogicalStop::max_tokens: return "max_tokens";
    case LogicalStop::tool_use: return "tool_use";
  }
  return "end_turn";
}

json::Value usage_of(const ScriptedReply& r, bool with_output) {
  json::Object u{{"input_tokens", r.usage.input}};
  if (r.usage.cache_write) u.append_unique("cache_creation_input_tokens", r.usage.cache_write);
  if (r.usage.cache_read) u.append_unique("cache_read_input_tokens", r.usage.cache_read);
  u.append_unique("output_tokens", with_output ? r.usage.output : 1);
  return u;
}

std::string model_of(const ScriptedReply& r) { return r.served_model.empty() ? "claude-sonnet-5-5" : r.served_model; }

std::string whole_body(const ScriptedReply& r) {
  json::Array content;
  if (!r.thinking.empty()) {
    std::string t;
    for (const auto& f : r.thinking) t += f;
    content.push_back(json::Object{{"type", "thinking"}, {"thinking", t}, {"signature", r.thinking_signature}});
  }
  if (!r.text.empty()) {
    std::string t;
    for (const auto& f : r.text) t += f;
    content.push_back(json::Object{{"type", "text"}, {"text", t}});
  }
  for (const auto& c : r.calls) {
    content.push_back(json::Object{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", json::Raw(c.arguments())}});
  }
  json::Object msg{{"id", "msg_conf_1"}, {"type", "message"}, {"role", "assistant"}, {"model", model_of(r)},
                   {"content", std::move(content)}, {"stop_reason", stop_text(r.stop)}, {"stop_sequence", nullptr},
                   {"usage", usage_of(r, true)}};
  return json::dump(msg);
}

std::string sse(const std::string& type, const json::Value& data) { return "event: " + type + "\ndata: " + json::dump(data) + "\n\n"; }

std::vector<std::string> stream_events(const ScriptedReply& r) {
  std::vector<std::string> out;
  json::Object start_msg{{"id", "msg_conf_s"}, {"type", "message"}, {"role", "assistant"}, {"model", model_of(r)},
                         {"content", json::Array{}}, {"stop_reason", nullptr}, {"stop_sequence", nullptr},
                         {"usage", usage_of(r, false)}};
  out.push_back(sse("message_start", json::Object{{"type", "message_start"}, {"message", start_msg}}));
  int index = 0;
  auto block = [&](json::Value start, const std::vector<std::string>& fragments, const char* delta_type, const char* field,
                   std::optional<std::string> signature = std::nullopt) {
    out.push_back(sse("content_block_start", json::Object{{"type", "content_block_start"}, {"index", index}, {"content_block", start}}));
    if (index == 0) out.push_back(sse("ping", json::Object{{"type", "ping"}}));
    for (const auto& f : fragments) {
      out.push_back(sse("content_block_delta", json::Object{{"type", "content_block_delta"}, {"index", index},
                                                             {"delta", json::Object{{"type", delta_type}, {field, f}}}}));
    }
    if (signature) {
      out.push_back(sse("content_block_delta", json::Object{{"type", "content_block_delta"}, {"index", index},
                                                             {"delta", json::Object{{"type", "signature_delta"}, {"signature", *signature}}}}));
    }
    out.push_back(sse("content_block_stop", json::Object{{"type", "content_block_stop"}, {"index", index}}));
    ++index;
  };
  if (!r.thinking.empty()) {
    block(json::Object{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}, r.thinking, "thinking_delta", "thinking",
          r.thinking_signature);
  }
  if (!r.text.empty()) block(json::Object{{"type", "text"}, {"text", ""}}, r.text, "text_delta", "text");
  for (const auto& c : r.calls) {
    block(json::Object{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", json::Object{}}}, c.fragments,
          "input_json_delta", "partial_json");
  }
  if (r.end == ScriptedEnd::error_event) {
    // The error arrives inside an open block, after its deltas: drop that block's stop.
    if (!out.empty() && out.back().find("content_block_stop") != std::string::npos) out.pop_back();
    out.push_back(sse("error", json::Object{{"type", "error"},
                                             {"error", json::Object{{"type", "overloaded_error"}, {"message", r.error_message}}}}));
    return out;
  }
  if (r.end == ScriptedEnd::cut) return out;
  out.push_back(sse("message_delta", json::Object{{"type", "message_delta"},
                                                   {"delta", json::Object{{"stop_reason", stop_text(r.stop)}, {"stop_sequence", nullptr}}},
                                                   {"usage", json::Object{{"output_tokens", r.usage.output}}}}));
  out.push_back(sse("message_stop", json::Object{{"type", "message_stop"}}));
  return out;
}

std::optional<std::string> literal(const json::Value& body, std::string_view key) {
  const json::Value* v = body.find(key);
  if (!v) return std::nullopt;
  return v->is_number() ? std::string(v->number_text()) : json::dump(*v);
}

std::string content_text(const json::Value* content) {
  if (!content) return {};
  if (content->is_string()) return content->as_string();
  std::string out;
  if (content->is_array()) {
    for (const auto& b : content->as_array()) {
      if (const json::Value* t = b.find("text"); t && t->is_string()) out += t->as_string();
      if (const json::Value* inner = b.find("content")) out += content_text(inner);
    }
  }
  return out;
}

std::vector<PackedItem> packed_items(const json::Value& body) {
  std::vector<PackedItem> out;
  const json::Value* messages = body.find("messages");
  if (!messages) return out;
  for (std::size_t i = 0; i < messages->size(); ++i) {
    const json::Value* content = (*messages)[i].find("content");
    if (!content || !content->is_array()) continue;
    for (const auto& b : content->as_array()) {
      const std::string type = b.find("type") ? b.find("type")->as_string() : "";
      PackedItem item;
      item.container = i;
      if (type == "tool_result") {
        item.kind = PackedItem::Kind::result;
        item.call_id = b.find("tool_use_id")->as_string();
        item.text = content_text(b.find("content"));
      } else if (type == "image") {
        item.kind = PackedItem::Kind::image;
      } else if (type == "text") {
        item.kind = PackedItem::Kind::text;
        item.text = b.find("text")->as_string();
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
  const json::Value* messages = body.find("messages");
  if (!messages) return 0;
  for (const auto& m : messages->as_array()) {
    const json::Value* content = m.find("content");
    if (!content || !content->is_array()) continue;
    for (const auto& b : content->as_array()) {
      if (b.find("type") && b.find("type")->as_string() == "image") ++n;
    }
  }
  return n;
}

std::string all_text(const json::Value& body) {
  std::string out = content_text(body.find("system"));
  if (const json::Value* messages = body.find("messages")) {
    for (const auto& m : messages->as_array()) out += content_text(m.find("content"));
  }
  return out;
}

std::optional<json::Value> thinking_value(const json::Value& body) {
  const json::Value* thinking = body.find("thinking");
  if (!thinking) return std::nullopt;
  const std::string type = thinking->find("type")->as_string();
  if (type == "disabled") return json::Value("disabled");
  if (type == "enabled") return *thinking->find("budget_tokens");
  const json::Value* config = body.find("output_config");
  return config && config->find("effort") ? std::optional<json::Value>(*config->find("effort")) : std::nullopt;
}

}  // namespace

WireDialect anthropic_dialect() {
  WireDialect d;
  d.api = "anthropic-messages";
  d.model = [](const std::string& base_url) {
    Model m = *catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5");
    m.base_url = base_url;
    return m;
  };
  d.make_client = [](const providers::WireOptions& o) { return providers::make_anthropic_messages_client(o); };
  d.served_model_alternative = "claude-haiku-5-5";
  d.whole_body = whole_body;
  d.stream_events = stream_events;
  d.stream_content_type = "text/event-stream";
  d.carries_call_ids = true;
  d.packing = ToolResultPacking::one_message_n_blocks;
  d.packed_items = packed_items;
  d.argument_text_in_body = [](std::string_view raw) { return "\"input\":" + std::string(raw); };
  d.sampling = [](const json::Value& body) {
    return SamplingView{literal(body, "temperature"), literal(body, "top_p"), literal(body, "max_tokens")};
  };
  d.stop_sequences_on_wire = true;
  d.stop_sequences = [](const json::Value& body) {
    std::vector<std::string> out;
    if (const json::Value* s = body.find("stop_sequences")) {
      for (const auto& v : s->as_array()) out.push_back(v.as_string());
    }
    return out;
  };
  d.thinking_value = thinking_value;
  d.image_count = image_count;
  d.all_text = all_text;
  d.tool_names = [](const json::Value& body) {
    std::vector<std::string> out;
    if (const json::Value* tools = body.find("tools")) {
      for (const auto& t : tools->as_array()) out.push_back(t.find("name")->as_string());
    }
    return out;
  };
  return d;
}

}  // namespace agentkit::conformance
