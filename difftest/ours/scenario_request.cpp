#include "scenario_request.hpp"

#include <utility>
#include <variant>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/core/answer.hpp"

namespace agentkit::difftest {

namespace {

Error request_error(const std::string& what) { return fail(Errc::invalid_argument, "scenario request: " + what); }

Result<void> read_tools(const json::Value& logical, std::vector<ToolSpec>& out) {
  const json::Value* tools = logical.find("tools");
  if (tools == nullptr) return {};
  if (!tools->is_array()) return request_error("\"tools\" must be an array");
  for (const json::Value& t : tools->as_array()) {
    const json::Value* name = t.find("name");
    const json::Value* schema = t.find("input_schema");
    if (name == nullptr || !name->is_string() || schema == nullptr) {
      return request_error("each tool needs \"name\" and \"input_schema\"");
    }
    ToolSpec spec;
    spec.name = name->as_string();
    if (const json::Value* d = t.find("description"); d != nullptr && d->is_string()) spec.description = d->as_string();
    spec.input_schema = *schema;
    spec.fingerprint = fingerprint_of(spec);
    out.push_back(std::move(spec));
  }
  return {};
}

Result<void> read_messages(const json::Value& logical, const Model& model, std::vector<Message>& out) {
  const json::Value* messages = logical.find("messages");
  if (messages == nullptr || !messages->is_array()) return request_error("\"messages\" must be an array");
  for (const json::Value& m : messages->as_array()) {
    Result<Message> message = message_from_json(m);
    if (!message) return request_error(message.error().message);
    if (auto* a = std::get_if<AssistantMessage>(&*message)) {
      // Same-model provenance: the scenario's assistant turns were "produced" by the target.
      if (a->provider.empty()) a->provider = model.vendor;
      if (a->api.empty()) a->api = model.api;
      if (a->model.empty()) a->model = model.id;
    }
    out.push_back(std::move(*message));
  }
  return {};
}

Result<void> read_sampling(const json::Value& logical, Request& r) {
  if (const json::Value* v = logical.find("system"); v != nullptr && v->is_string()) r.system = v->as_string();
  if (const json::Value* v = logical.find("max_tokens")) {
    Result<std::int64_t> n = v->to_int64();
    if (!n) return request_error("\"max_tokens\" must be an integer");
    r.max_tokens = *n;
  }
  if (const json::Value* v = logical.find("temperature")) r.temperature = v->to_double().value_or(0);
  if (const json::Value* v = logical.find("top_p")) r.top_p = v->to_double().value_or(0);
  if (const json::Value* v = logical.find("stop_sequences"); v != nullptr && v->is_array()) {
    for (const json::Value& s : v->as_array()) {
      if (s.is_string()) r.stop_sequences.push_back(s.as_string());
    }
  }
  if (const json::Value* v = logical.find("thinking"); v != nullptr && v->is_string()) {
    r.thinking = parse_thinking_level(v->as_string());
    if (!r.thinking) return request_error("unknown thinking level \"" + v->as_string() + "\"");
  }
  if (const json::Value* v = logical.find("session_id"); v != nullptr && v->is_string()) r.session_id = v->as_string();
  return {};
}

void apply_overrides(Model& model, const json::Value& overrides) {
  if (const json::Value* v = overrides.find("image_input"); v != nullptr && v->is_bool()) model.image_input = v->as_bool();
}

}  // namespace

std::string rebase_origin(const std::string& base_url, const std::string& origin) {
  const std::size_t scheme_end = base_url.find("://");
  if (scheme_end == std::string::npos) return origin;
  const std::size_t path_start = base_url.find('/', scheme_end + 3);
  return path_start == std::string::npos ? origin : origin + base_url.substr(path_start);
}

Result<std::unique_ptr<BuiltRequest>> build_request(const json::Value& logical, const WireInfo& wire,
                                                    const std::string& recorder_origin,
                                                    const json::Value& model_overrides) {
  Result<Model> model = catalog::Catalog::builtin().resolve(wire.model);
  if (!model) return request_error("the catalog cannot resolve " + wire.model + ": " + model.error().message);
  if (model->api != wire.api) {
    return request_error(wire.model + " resolves to the wire " + model->api + ", not " + wire.api);
  }
  model->base_url = rebase_origin(model->base_url, recorder_origin);
  apply_overrides(*model, model_overrides);

  auto built = std::make_unique<BuiltRequest>();
  built->model = std::make_shared<Model>(std::move(*model));
  if (auto ok = read_tools(logical, built->tools); !ok) return std::move(ok).error();
  if (auto ok = read_messages(logical, *built->model, built->messages); !ok) return std::move(ok).error();
  Request& r = built->request;
  if (auto ok = read_sampling(logical, r); !ok) return std::move(ok).error();
  r.model = built->model;
  r.messages = built->messages;
  r.tools = built->tools;
  // A typed answer: the loop would put this format on the request (agentkit/core/answer.hpp).
  if (const json::Value* answer = logical.find("answer");
      answer != nullptr && answer->is_object()) {
    auto format = std::make_shared<AnswerFormat>();
    if (const json::Value* name = answer->find("name"); name != nullptr && name->is_string())
      format->name = name->as_string();
    if (const json::Value* schema = answer->find("schema")) format->schema = *schema;
    format->fingerprint = answer_fingerprint(*format);
    r.answer = std::move(format);
  }
  return built;
}

}  // namespace agentkit::difftest
