// openai-completions and openai-responses in the conformance fixtures' terms.
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/openai.hpp"
#include "conformance.hpp"

namespace agentkit::conformance {
namespace {

std::string joined(const std::vector<std::string>& fragments) {
  std::string out;
  for (const auto& f : fragments) out += f;
  return out;
}

std::string sse_data(const json::Value& data) { return "data: " + json::dump(data) + "\n\n"; }
std::string sse_event(const std::string& type, const json::Value& data) { return "event: " + type + "\n" + sse_data(data); }

std::optional<std::string> literal(const json::Value& body, std::string_view key) {
  const json::Value* v = body.find(key);
  if (!v) return std::nullopt;
  return v->is_number() ? std::string(v->number_text()) : json::dump(*v);
}

std::vector<std::string> string_list(const json::Value* array) {
  std::vector<std::string> out;
  if (array && array->is_array()) {
    for (const auto& v : array->as_array()) out.push_back(v.as_string());
  }
  return out;
}

std::string text_in(const json::Value* content) {
  if (!content) return {};
  if (content->is_string()) return content->as_string();
  std::string out;
  if (content->is_array()) {
    for (const auto& part : content->as_array()) {
      if (const json::Value* t = part.find("text"); t && t->is_string()) out += t->as_string();
    }
  }
  return out;
}

std::size_t images_in(const json::Value* content, std::string_view image_type) {
  std::size_t n = 0;
  if (content && content->is_array()) {
    for (const auto& part : content->as_array()) {
      if (part.find("type") && part.find("type")->as_string() == image_type) ++n;
    }
  }
  return n;
}

// ---- Chat Completions ------------------------------------------------------------------------

const char* finish_text(LogicalStop s) {
  switch (s) {
    case LogicalStop::end_turn: return "stop";
    case LogicalStop::max_tokens: return "length";
    case LogicalStop::tool_use: return "tool_calls";
  }
  return "stop";
}

std::string chat_model(const ScriptedReply& r) { return r.served_model.empty() ? "openai/gpt-6.2-sol" : r.served_model; }

json::Value chat_usage(const ScriptedReply& r) {
  json::Object u{{"prompt_tokens", r.usage.input + r.usage.cache_read + r.usage.cache_write},
                 {"completion_tokens", r.usage.output},
                 {"total_tokens", r.usage.input + r.usage.cache_read + r.usage.cache_write + r.usage.output}};
  switch (r.cached_place) {
    case CachedPlace::standard:
      u.append_unique("prompt_tokens_details", json::Object{{"cached_tokens", r.usage.cache_read}});
      break;
    case CachedPlace::prompt_cache_hit_tokens:
      u.append_unique("prompt_cache_hit_tokens", r.usage.cache_read);
      u.append_unique("prompt_cache_miss_tokens", r.usage.input);
      break;
    case CachedPlace::top_level_cached_tokens:
      u.append_unique("cached_tokens", r.usage.cache_read);
      break;
  }
  u.append_unique("completion_tokens_details", json::Object{{"reasoning_tokens", r.usage.reasoning}});
  return u;
}

json::Object chunk(const ScriptedReply& r, json::Value delta, json::Value finish = nullptr) {
  return json::Object{{"id", "chatcmpl-conf"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
                      {"model", chat_model(r)},
                      {"choices", json::Array{json::Object{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}}}};
}

std::string chat_whole(const ScriptedReply& r) {
  json::Object message{{"role", "assistant"}};
  message.append_unique("content", r.text.empty() ? json::Value(nullptr) : json::Value(joined(r.text)));
  if (!r.thinking.empty()) message.append_unique("reasoning_content", joined(r.thinking));
  if (!r.calls.empty()) {
    json::Array calls;
    for (const auto& c : r.calls) {
      calls.push_back(json::Object{{"id", c.id}, {"type", "function"},
                                   {"function", json::Object{{"name", c.name}, {"arguments", c.arguments()}}}});
    }
    message.append_unique("tool_calls", std::move(calls));
  }
  json::Object doc{{"id", "chatcmpl-conf"}, {"object", "chat.completion"}, {"created", 1700000000}, {"model", chat_model(r)},
                   {"choices", json::Array{json::Object{{"index", 0}, {"message", std::move(message)}, {"finish_reason", finish_text(r.stop)}}}},
                   {"usage", chat_usage(r)}};
  return json::dump(doc);
}

std::vector<std::string> chat_stream(const ScriptedReply& r) {
  std::vector<std::string> out;
  out.push_back(sse_data(chunk(r, json::Object{{"role", "assistant"}, {"content", ""}})));
  for (const auto& f : r.thinking) out.push_back(sse_data(chunk(r, json::Object{{"reasoning_content", f}})));
  for (const auto& f : r.text) out.push_back(sse_data(chunk(r, json::Object{{"content", f}})));
  for (std::size_t i = 0; i < r.calls.size(); ++i) {
    const auto& c = r.calls[i];
    out.push_back(sse_data(chunk(r, json::Object{{"tool_calls", json::Array{json::Object{
                                           {"index", i}, {"id", c.id}, {"type", "function"},
                                           {"function", json::Object{{"name", c.name}, {"arguments", ""}}}}}}})));
    for (const auto& f : c.fragments) {
      out.push_back(sse_data(chunk(r, json::Object{{"tool_calls", json::Array{json::Object{
                                             {"index", i}, {"function", json::Object{{"arguments", f}}}}}}})));
    }
  }
  if (r.end == ScriptedEnd::error_event) {
    out.push_back(sse_data(json::Object{{"error", json::Object{{"message", r.error_message}, {"type", "server_error"},
                                                                {"param", nullptr}, {"code", nullptr}}}}));
    return out;
  }
  if (r.end == ScriptedEnd::cut) return out;
  out.push_back(sse_data(chunk(r, json::Object{}, finish_text(r.stop))));
  json::Object usage_chunk{{"id", "chatcmpl-conf"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
                           {"model", chat_model(r)}, {"choices", json::Array{}}, {"usage", chat_usage(r)}};
  out.push_back(sse_data(usage_chunk));
  out.push_back("data: [DONE]\n\n");
  return out;
}

std::vector<PackedItem> chat_packed(const json::Value& body) {
  std::vector<PackedItem> out;
  const json::Value* messages = body.find("messages");
  for (std::size_t i = 0; messages && i < messages->size(); ++i) {
    const json::Value& m = (*messages)[i];
    const std::string role = m.find("role")->as_string();
    if (role == "tool") {
      PackedItem item;
      item.container = i;
      item.call_id = m.find("tool_call_id")->as_string();
      item.text = text_in(m.find("content"));
      out.push_back(item);
    } else if (role == "user" && !out.empty()) {
      for (std::size_t k = 0; k < images_in(m.find("content"), "image_url"); ++k) {
        PackedItem img;
        img.kind = PackedItem::Kind::image;
        img.container = i;
        out.push_back(img);
      }
    }
  }
  return out;
}

std::string chat_all_text(const json::Value& body) {
  std::string out;
  if (const json::Value* messages = body.find("messages")) {
    for (const auto& m : messages->as_array()) out += text_in(m.find("content"));
  }
  return out;
}

std::size_t chat_images(const json::Value& body) {
  std::size_t n = 0;
  if (const json::Value* messages = body.find("messages")) {
    for (const auto& m : messages->as_array()) n += images_in(m.find("content"), "image_url");
  }
  return n;
}

// ---- Responses -------------------------------------------------------------------------------------

std::string responses_model(const ScriptedReply& r) { return r.served_model.empty() ? "gpt-6.2-sol" : r.served_model; }

json::Value responses_usage(const ScriptedReply& r) {
  return json::Object{{"input_tokens", r.usage.input + r.usage.cache_read},
                      {"input_tokens_details", json::Object{{"cached_tokens", r.usage.cache_read}}},
                      {"output_tokens", r.usage.output},
                      {"output_tokens_details", json::Object{{"reasoning_tokens", r.usage.reasoning}}},
                      {"total_tokens", r.usage.input + r.usage.cache_read + r.usage.output}};
}

json::Array responses_output(const ScriptedReply& r) {
  json::Array out;
  if (!r.thinking.empty()) {
    out.push_back(json::Object{{"type", "reasoning"}, {"id", "rs_conf"},
                               {"summary", json::Array{json::Object{{"type", "summary_text"}, {"text", joined(r.thinking)}}}},
                               {"encrypted_content", r.thinking_signature}});
  }
  if (!r.text.empty()) {
    out.push_back(json::Object{{"type", "message"}, {"id", "msg_conf"}, {"status", "completed"}, {"role", "assistant"},
                               {"content", json::Array{json::Object{{"type", "output_text"}, {"text", joined(r.text)}, {"annotations", json::Array{}}}}}});
  }
  for (std::size_t i = 0; i < r.calls.size(); ++i) {
    out.push_back(json::Object{{"type", "function_call"}, {"id", "fc_conf_" + std::to_string(i)}, {"call_id", r.calls[i].id},
                               {"name", r.calls[i].name}, {"arguments", r.calls[i].arguments()}, {"status", "completed"}});
  }
  return out;
}

json::Object responses_doc(const ScriptedReply& r, bool complete) {
  json::Object doc{{"id", "resp_conf"}, {"object", "response"}, {"created_at", 1700000000}};
  if (!complete) {
    doc.append_unique("status", "in_progress");
    doc.append_unique("model", responses_model(r));
    doc.append_unique("output", json::Array{});
    return doc;
  }
  const bool incomplete = r.stop == LogicalStop::max_tokens;
  doc.append_unique("status", incomplete ? "incomplete" : "completed");
  doc.append_unique("incomplete_details", incomplete ? json::Value(json::Object{{"reason", "max_output_tokens"}}) : json::Value(nullptr));
  doc.append_unique("model", responses_model(r));
  doc.append_unique("output", responses_output(r));
  doc.append_unique("usage", responses_usage(r));
  return doc;
}

std::string responses_whole(const ScriptedReply& r) { return json::dump(responses_doc(r, true)); }

std::vector<std::string> responses_stream(const ScriptedReply& r) {
  std::vector<std::string> out;
  int seq = 0;
  auto ev = [&](const std::string& type, json::Object data) {
    json::Object full{{"type", type}, {"sequence_number", seq++}};
    for (auto& m : data) full.append_unique(m.key, std::move(m.value));
    out.push_back(sse_event(type, full));
  };
  ev("response.created", json::Object{{"response", responses_doc(r, false)}});
  json::Array output = responses_output(r);
  for (std::size_t i = 0; i < output.size(); ++i) {
    json::Value& item = output[i];
    const std::string type = item.find("type")->as_string();
    json::Value added = item;
    if (type == "function_call") added["arguments"] = "";
    if (type == "message") added["content"] = json::Array{};
    if (type == "reasoning") added["summary"] = json::Array{};
    ev("response.output_item.added", json::Object{{"output_index", i}, {"item", added}});
    if (type == "message") {
      for (const auto& f : r.text) {
        ev("response.output_text.delta", json::Object{{"item_id", "msg_conf"}, {"output_index", i}, {"content_index", 0}, {"delta", f}});
      }
    } else if (type == "reasoning") {
      for (const auto& f : r.thinking) {
        ev("response.reasoning_summary_text.delta", json::Object{{"item_id", "rs_conf"}, {"output_index", i}, {"summary_index", 0}, {"delta", f}});
      }
    } else {
      const std::size_t call = i - (output.size() - r.calls.size());
      for (const auto& f : r.calls[call].fragments) {
        ev("response.function_call_arguments.delta", json::Object{{"item_id", item.find("id")->as_string()}, {"output_index", i}, {"delta", f}});
      }
    }
    if (r.end != ScriptedEnd::complete && i + 1 == output.size()) break;  // fail inside the last item
    ev("response.output_item.done", json::Object{{"output_index", i}, {"item", item}});
  }
  if (r.end == ScriptedEnd::error_event) {
    ev("error", json::Object{{"code", "server_error"}, {"message", r.error_message}, {"param", nullptr}});
    return out;
  }
  if (r.end == ScriptedEnd::cut) return out;
  ev(r.stop == LogicalStop::max_tokens ? "response.incomplete" : "response.completed", json::Object{{"response", responses_doc(r, true)}});
  return out;
}

std::vector<PackedItem> responses_packed(const json::Value& body) {
  std::vector<PackedItem> out;
  const json::Value* input = body.find("input");
  for (std::size_t i = 0; input && input->is_array() && i < input->size(); ++i) {
    const json::Value& item = (*input)[i];
    if (item.find("type") && item.find("type")->as_string() == "function_call_output") {
      PackedItem p;
      p.container = i;
      p.call_id = item.find("call_id")->as_string();
      p.text = item.find("output")->as_string();
      out.push_back(p);
    } else if (item.find("role") && item.find("role")->as_string() == "user" && !out.empty()) {
      for (std::size_t k = 0; k < images_in(item.find("content"), "input_image"); ++k) {
        PackedItem img;
        img.kind = PackedItem::Kind::image;
        img.container = i;
        out.push_back(img);
      }
    }
  }
  return out;
}

std::string responses_all_text(const json::Value& body) {
  std::string out;
  if (const json::Value* s = body.find("instructions")) out += s->as_string();
  if (const json::Value* input = body.find("input"); input && input->is_array()) {
    for (const auto& item : input->as_array()) {
      out += text_in(item.find("content"));
      if (const json::Value* o = item.find("output"); o && o->is_string()) out += o->as_string();
    }
  } else if (input && input->is_string()) {
    out += input->as_string();
  }
  return out;
}

std::size_t responses_images(const json::Value& body) {
  std::size_t n = 0;
  if (const json::Value* input = body.find("input"); input && input->is_array()) {
    for (const auto& item : input->as_array()) n += images_in(item.find("content"), "input_image");
  }
  return n;
}

void common(WireDialect& d) {
  d.stream_content_type = "text/event-stream";
  d.carries_call_ids = true;
  d.packing = ToolResultPacking::n_messages_by_id;
  d.argument_text_in_body = [](std::string_view raw) { return "\"arguments\":" + json::dump(json::Value(std::string(raw))); };
  d.prompt_cache_key = [](const json::Value& body) -> std::optional<std::string> {
    const json::Value* k = body.find("prompt_cache_key");
    return k ? std::optional<std::string>(k->as_string()) : std::nullopt;
  };
}

}  // namespace

WireDialect openai_completions_dialect() {
  WireDialect d;
  d.api = "openai-completions";
  common(d);
  d.model = [](const std::string& base_url) {
    // An OpenRouter row: its vendor takes prompt_cache_key (level 0) and its profile is not the
    // default one (developer role, OpenRouter's reasoning object).
    Model m = *catalog::Catalog::builtin().find("openrouter", "openai/gpt-6.2-sol");
    m.base_url = base_url;
    return m;
  };
  d.make_client = [](const providers::WireOptions& o) { return providers::make_openai_completions_client(o); };
  d.served_model_alternative = "x-ai/grok-4.5";
  d.whole_body = chat_whole;
  d.stream_events = chat_stream;
  d.cached_places = {CachedPlace::standard, CachedPlace::prompt_cache_hit_tokens, CachedPlace::top_level_cached_tokens};
  d.packed_items = chat_packed;
  d.sampling = [](const json::Value& body) {
    auto max = literal(body, "max_completion_tokens");
    if (!max) max = literal(body, "max_tokens");
    return SamplingView{literal(body, "temperature"), literal(body, "top_p"), max};
  };
  d.stop_sequences_on_wire = true;
  d.stop_sequences = [](const json::Value& body) { return string_list(body.find("stop")); };
  d.thinking_value = [](const json::Value& body) -> std::optional<json::Value> {
    if (const json::Value* r = body.find("reasoning")) {
      if (const json::Value* e = r->find("effort")) return *e;
      return json::Value(r->find("enabled")->as_bool() ? "enabled" : "disabled");
    }
    if (const json::Value* e = body.find("reasoning_effort")) return *e;
    return std::nullopt;
  };
  d.image_count = chat_images;
  d.all_text = chat_all_text;
  d.tool_names = [](const json::Value& body) {
    std::vector<std::string> out;
    if (const json::Value* tools = body.find("tools")) {
      for (const auto& t : tools->as_array()) out.push_back(t.find("function")->find("name")->as_string());
    }
    return out;
  };
  return d;
}

WireDialect openai_responses_dialect() {
  WireDialect d;
  d.api = "openai-responses";
  common(d);
  d.model = [](const std::string& base_url) {
    Model m = *catalog::Catalog::builtin().find("openai", "gpt-6.2-sol");
    m.base_url = base_url;
    return m;
  };
  d.make_client = [](const providers::WireOptions& o) { return providers::make_openai_responses_client(o); };
  d.served_model_alternative = "gpt-6-luna";
  d.whole_body = responses_whole;
  d.stream_events = responses_stream;
  d.cached_places = {CachedPlace::standard};
  d.packed_items = responses_packed;
  d.sampling = [](const json::Value& body) {
    return SamplingView{literal(body, "temperature"), literal(body, "top_p"), literal(body, "max_output_tokens")};
  };
  d.stop_sequences_on_wire = false;  // the API has no stop parameter
  d.stop_sequences = [](const json::Value& body) { return string_list(body.find("stop")); };
  d.thinking_value = [](const json::Value& body) -> std::optional<json::Value> {
    const json::Value* r = body.find("reasoning");
    if (!r || !r->find("effort")) return std::nullopt;
    return *r->find("effort");
  };
  d.image_count = responses_images;
  d.all_text = responses_all_text;
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
