// The MCP client: requests in either era, the cached tool list, tool calls with their limits and
// input rounds, and the tool source an agent connects through.
#include "agentkit/mcp/client.hpp"

#include <set>

#include "agentkit/base/sha256.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/core/tracing.hpp"
#include "client_state.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr std::string_view kToolsList = "tools/list";
constexpr std::string_view kToolsCall = "tools/call";
constexpr std::string_view kInputRequired = "input_required";
constexpr std::string_view kComplete = "complete";
// A server that keeps handing out cursors is stopped here rather than listed forever.
constexpr std::size_t kMaxListPages = 1000;

std::string text_of(const json::Value& v) {
  if (auto s = v.get_string()) return std::string(*s);
  if (v.is_number()) return std::string(v.number_text());
  if (auto b = v.get_bool()) return *b ? "true" : "false";
  return json::dump(v);
}

ToolInfo to_tool_info(ToolPayload payload, std::vector<std::pair<std::string, std::string>> header_params) {
  ToolInfo out;
  out.name = std::move(payload.name);
  out.description = payload.description.value_or("");
  out.title = payload.title.value_or("");
  json::Object annotations;
  if (payload.annotations) {
    const auto& a = *payload.annotations;
    if (out.title.empty() && a.title) out.title = *a.title;
    if (a.title) annotations.append_unique("title", *a.title);
    if (a.read_only_hint) annotations.append_unique("readOnlyHint", *a.read_only_hint);
    if (a.destructive_hint) annotations.append_unique("destructiveHint", *a.destructive_hint);
    if (a.idempotent_hint) annotations.append_unique("idempotentHint", *a.idempotent_hint);
    if (a.open_world_hint) annotations.append_unique("openWorldHint", *a.open_world_hint);
    out.annotations = json::Value(std::move(annotations));
  }
  out.input_schema = std::move(payload.input_schema);
  out.output_schema = std::move(payload.output_schema);
  out.header_params = std::move(header_params);
  return out;
}

Result<std::vector<ToolInfo>> fetch_tools(ClientState& state, const Connection& conn, agentkit::stop_token stop,
                                          std::optional<std::int64_t>& ttl) {
  std::vector<ToolInfo> out;
  std::set<std::string> seen_cursors;
  std::optional<std::string> cursor;
  for (std::size_t page = 0; page < kMaxListPages; ++page) {
    json::Object params;
    if (cursor) params.append_unique("cursor", *cursor);
    auto reply = send_request(state, conn, std::string(kToolsList), json::Value(std::move(params)), stop);
    if (!reply) return std::move(reply).error();
    if (!reply->ok) return peer_error(state, kToolsList, reply->error);
    auto list = wire::bind<ListToolsResult>(reply->result, wire::UnknownFields::reject);
    if (!list) {
      return make_error(Errc::protocol_error,
                        state.label() + " sent a tools/list result that breaks the protocol: " + list.error().message);
    }
    if (list->ttl_ms) ttl = ttl ? std::min(*ttl, *list->ttl_ms) : *list->ttl_ms;
    for (auto& tool : list->tools) {
      auto headers = header_params_of(tool.input_schema);
      if (!headers) {
        state.note("tool '" + tool.name + "' dropped: " + headers.error().message);
        continue;
      }
      out.push_back(to_tool_info(std::move(tool), std::move(*headers)));
    }
    if (!list->next_cursor) return out;
    if (!seen_cursors.insert(*list->next_cursor).second) {
      return make_error(Errc::protocol_error, state.label() + " repeated a tools/list cursor; stopping a paging loop");
    }
    cursor = std::move(list->next_cursor);
  }
  return make_error(Errc::limit_exceeded, state.label() + " listed more than " + std::to_string(kMaxListPages) + " pages of tools");
}

Result<std::vector<ToolInfo>> list_tools_of(const std::shared_ptr<ClientState>& state, agentkit::stop_token stop) {
  {
    std::lock_guard lock(state->mu);
    const auto& cache = state->tools;
    if (cache.valid && (!cache.expires || std::chrono::steady_clock::now() < *cache.expires)) return cache.tools;
  }
  auto conn = live_connection(state, stop);
  if (!conn) return std::move(conn).error();
  std::optional<std::int64_t> ttl;
  auto tools = fetch_tools(*state, **conn, stop, ttl);
  if (!tools) return tools;
  std::lock_guard lock(state->mu);
  state->tools.tools = *tools;
  state->tools.valid = true;
  state->tools.expires.reset();
  // Legacy servers announce changes on the session; a modern subscription does the same. Without
  // one, the ttlMs hint is the only way to learn the list went stale (0 or absent: stale now).
  if ((*conn)->era == Era::modern && !state->subscribed) {
    state->tools.expires = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<std::int64_t>(ttl.value_or(0), 0));
  }
  return tools;
}

Result<void> count_call(ClientState& state, const std::string& session) {
  std::lock_guard lock(state.mu);
  std::size_t& used = state.calls_per_session[session];
  if (used >= state.call_limit()) {
    return make_error(Errc::limit_exceeded, state.label() + " has had its " + std::to_string(state.call_limit()) +
                                                " tool calls for this session; the call was not sent. "
                                                "Start a new session or raise the server's call limit")
        .with_detail("server", state.config.name);
  }
  ++used;
  return {};
}

std::optional<ToolInfo> cached_tool(ClientState& state, std::string_view name) {
  std::lock_guard lock(state.mu);
  for (const auto& t : state.tools.tools) {
    if (t.name == name) return t;
  }
  return std::nullopt;
}

Result<json::Value> answer_inputs(const ClientState& state, const InputRequiredResult& asked) {
  json::Object responses;
  if (!asked.input_requests) return json::Value(std::move(responses));
  for (const auto& [key, request] : asked.input_requests->entries) {
    auto answer = fulfil_input(state, Era::modern, request.method, request.params.value_or(json::Value()));
    if (!answer) return std::move(answer).error();
    responses.append_unique(key, std::move(*answer));
  }
  return json::Value(std::move(responses));
}

}  // namespace

bool may_ask_for_input(std::string_view method) {
  return method == kToolsCall || method == "prompts/get" || method == "resources/read";
}

Result<InputRoundsReply> send_with_input_rounds(const ClientState& state, const Connection& conn,
                                                std::string_view method, const json::Value& params,
                                                agentkit::stop_token stop,
                                                const RequestOptions& how, std::string_view what) {
  json::Value responses;
  std::optional<std::string> request_state;
  for (int round = 0;; ++round) {
    json::Value sent = params;
    if (round > 0 && sent.is_object()) {
      sent.as_object().set("inputResponses", responses);
      // Byte-exact and never parsed; left out when the server gave none.
      if (request_state) sent.as_object().set("requestState", *request_state);
    }
    auto reply = send_request(state, conn, std::string(method), std::move(sent), stop, how);
    if (!reply) return std::move(reply).error();
    if (!reply->ok) return InputRoundsReply{std::move(*reply), round};
    const json::Value* type = reply->result.find("resultType");
    const std::string_view result_type =
        type && type->is_string() ? std::string_view(type->as_string()) : kComplete;
    if (result_type == kComplete) return InputRoundsReply{std::move(*reply), round};
    if (result_type != kInputRequired) {
      return make_error(Errc::protocol_error, state.label() + " answered " + std::string(method) +
                                                  " with unknown resultType '" +
                                                  std::string(result_type) + "'");
    }
    if (round >= state.options.max_input_rounds) {
      return make_error(Errc::limit_exceeded, state.label() + " still asked for input after " +
                                                  std::to_string(round) + " rounds of " +
                                                  std::string(what) +
                                                  "; giving up (ClientOptions::max_input_rounds)");
    }
    auto asked = wire::bind<InputRequiredResult>(reply->result, wire::UnknownFields::reject);
    if (!asked) {
      return make_error(
          Errc::protocol_error,
          state.label() +
              " sent an input_required result that breaks the protocol: " + asked.error().message);
    }
    auto answered = answer_inputs(state, *asked);
    if (!answered) return std::move(answered).error();
    responses = std::move(*answered);
    request_state = asked->request_state;
  }
}

namespace {

// The client span of one tools/call (MCP semantic conventions), ended when it goes out of scope.
class McpCallSpan {
 public:
  McpCallSpan(tracing::Span* parent, std::string_view tool, const Connection& conn,
              const std::string& server) {
    if (parent == nullptr || !parent->recording()) return;
    span_ = parent->start_span("tools/call " + std::string(tool), tracing::SpanKind::client);
    if (!span_ || !span_->recording()) return;
    span_->set_attributes({
        {"mcp.method.name", std::string("tools/call")},
        {"gen_ai.tool.name", std::string(tool)},
        {"gen_ai.operation.name", std::string("execute_tool")},
        {"mcp.protocol.version", conn.version},
        {"network.transport", std::string(conn.request_scoped ? "tcp" : "pipe")},
        {"agentkit.mcp.server", server},
    });
    traceparent_ = span_->context().traceparent();
  }
  McpCallSpan(const McpCallSpan&) = delete;
  McpCallSpan& operator=(const McpCallSpan&) = delete;
  ~McpCallSpan() {
    if (!span_) return;
    if (!ok_) {
      span_->set_attribute("error.type", std::string(tool_error_ ? "tool_error" : "mcp_error"));
      span_->set_status(tracing::StatusCode::error);
    }
    span_->end();
  }
  const std::string& traceparent() const noexcept { return traceparent_; }
  void succeeded(bool tool_error) noexcept {
    ok_ = !tool_error;
    tool_error_ = tool_error;
  }

 private:
  std::shared_ptr<tracing::Span> span_;
  std::string traceparent_;
  bool ok_ = false;
  bool tool_error_ = false;
};

// Holds a call's log sink in ClientState::log_sinks while the call is in flight.
class LogSinkRegistration {
 public:
  LogSinkRegistration(ClientState& state, const CallControl::LogSink& sink) : state_(state) {
    if (!sink) return;
    std::lock_guard lock(state_.log_mu);
    id_ = ++state_.next_log_sink;
    state_.log_sinks.emplace(id_, ClientState::LogSinkEntry{sink, std::nullopt});
  }
  // The call's request is now `request` (told just before it is sent, so a message on its
  // stream always finds it).
  void sent(const RequestId& request) {
    if (id_ == 0) return;
    std::lock_guard lock(state_.log_mu);
    if (auto it = state_.log_sinks.find(id_); it != state_.log_sinks.end())
      it->second.request = request;
  }
  ~LogSinkRegistration() {
    if (id_ == 0) return;
    std::lock_guard lock(state_.log_mu);
    state_.log_sinks.erase(id_);
  }
  LogSinkRegistration(const LogSinkRegistration&) = delete;
  LogSinkRegistration& operator=(const LogSinkRegistration&) = delete;

 private:
  ClientState& state_;
  std::uint64_t id_ = 0;
};

Result<CallResult> call_tool_of(const std::shared_ptr<ClientState>& state, std::string_view name,
                                const json::Value& arguments, const CallControl& control) {
  if (!arguments.is_object() && !arguments.is_null()) {
    return fail(Errc::invalid_argument, "tool arguments must be a JSON object");
  }
  if (auto counted = count_call(*state, control.session); !counted) return std::move(counted).error();
  auto conn = live_connection(state, control.stop);
  if (!conn) return std::move(conn).error();
  const std::optional<ToolInfo> tool = cached_tool(*state, name);
  RequestOptions how;
  how.request_progress = true;
  how.tool = tool ? &*tool : nullptr;
  if (control.on_progress) {
    how.on_progress = [cb = control.on_progress](const json::Value& p) {
      const json::Value* progress = p.find("progress");
      const json::Value* total = p.find("total");
      const json::Value* message = p.find("message");
      std::optional<double> t;
      if (total) t = total->to_double().value_or(0);
      cb(progress ? progress->to_double().value_or(0) : 0, t,
         message && message->is_string() ? std::string_view(message->as_string()) : std::string_view());
    };
  }
  const json::Value args = arguments.is_null() ? json::Value(json::Object{}) : arguments;
  LogSinkRegistration logs(*state, control.on_log);
  if (control.on_log) {
    how.log_level = "debug";
    how.on_sent = [&logs](const RequestId& request) { logs.sent(request); };
  }
  McpCallSpan traced(control.span, name, **conn, state->config.name);
  if (conn.value()->request_scoped) how.traceparent = traced.traceparent();
  json::Object params;
  params.append_unique("name", std::string(name));
  params.append_unique("arguments", args);
  if (!(*conn)->request_scoped && !traced.traceparent().empty()) {
    params.append_unique("_meta", json::Object{{"traceparent", traced.traceparent()}});
  }
  auto answered = send_with_input_rounds(*state, **conn, kToolsCall, json::Value(std::move(params)),
                                         control.stop, how, "tool '" + std::string(name) + "'");
  if (!answered) return std::move(answered).error();
  if (!answered->reply.ok) return peer_error(*state, kToolsCall, answered->reply.error);
  auto result = wire::bind<CallToolResult>(answered->reply.result, wire::UnknownFields::reject);
  if (!result) {
    return make_error(Errc::protocol_error,
                      state->label() + " sent a tools/call result that breaks the protocol: " +
                          result.error().message);
  }
  CallResult out;
  traced.succeeded(result->is_error.value_or(false));
  out.content = std::move(result->content);
  out.structured_content = std::move(result->structured_content);
  out.is_error = result->is_error.value_or(false);
  out.input_rounds = answered->rounds;
  return out;
}

}  // namespace

Result<CallResult> call_tool_audited(const std::shared_ptr<ClientState>& state, std::string_view name,
                                     const json::Value& arguments, const CallControl& control) {
  auto result = call_tool_of(state, name, arguments, control);
  AuditRecord record;
  record.server = state->config.name;
  record.kind = "tool_call";
  record.name = std::string(name);
  record.arguments_sha256 = sha256_hex(json::dump(arguments));  // the hash, never the arguments
  record.allowed = result || result.error().code != Errc::limit_exceeded;
  record.is_error = !result || result->is_error;
  {
    std::lock_guard lock(state->mu);
    record.era = state->connection ? state->connection->era : Era::legacy;
  }
  if (!result) record.detail = result.error().message;
  state->audit(std::move(record));
  return result;
}

Result<std::vector<ToolInfo>> list_tools_cached(const std::shared_ptr<ClientState>& state, agentkit::stop_token stop) {
  return list_tools_of(state, stop);
}

ClientState::~ClientState() {
  std::shared_ptr<Connection> conn;
  {
    std::lock_guard lock(mu);
    conn = std::move(connection);
  }
}

void ClientState::note(std::string text) {
  std::lock_guard lock(mu);
  notes.push_back(std::move(text));
}

void ClientState::audit(AuditRecord record) const {
  if (!options.audit) return;
  try {
    options.audit(record);
  } catch (...) {
    // An audit sink that throws must not take the call with it.
  }
}

json::Value client_capabilities(const ClientState& state) {
  json::Object caps;
  if (state.sampling_allowed() && state.options.sampling) caps.append_unique("sampling", json::Object{});
  if (state.elicitation_allowed() && state.options.elicitation) {
    caps.append_unique("elicitation", json::Object{{"form", json::Object{}}});
  }
  if (state.options.roots) caps.append_unique("roots", json::Object{});
  return json::Value(std::move(caps));
}

json::Value with_envelope(const ClientState& state, const Connection& conn, json::Value params,
                          const std::string& log_level) {
  if (conn.era != Era::modern) return params;
  if (!params.is_object()) params = json::Value(json::Object{});
  json::Value& meta = params["_meta"];
  if (!meta.is_object()) meta = json::Value(json::Object{});
  json::Object& m = meta.as_object();
  m.set(std::string(meta_key::protocol_version), conn.version);
  m.set(std::string(meta_key::client_info), state.options.client_info.to_json());
  m.set(std::string(meta_key::client_capabilities), client_capabilities(state));
  if (!log_level.empty()) m.set(std::string(meta_key::log_level), log_level);
  return params;
}

HttpRouting routing_for(const Connection& conn, std::string_view method, const json::Value& params, const ToolInfo* tool) {
  HttpRouting r;
  r.protocol_version = conn.version;
  if (conn.era != Era::modern) return r;
  r.method = std::string(method);
  if (method == "tools/call" || method == "prompts/get") {
    if (const json::Value* n = params.find("name"); n && n->is_string()) r.name = n->as_string();
  } else if (method == "resources/read") {
    if (const json::Value* u = params.find("uri"); u && u->is_string()) r.name = u->as_string();
  }
  if (tool != nullptr) {
    const json::Value* args = params.find("arguments");
    for (const auto& [property, header_name] : tool->header_params) {
      const json::Value* v = args ? args->find(property) : nullptr;
      if (v != nullptr && !v->is_null()) r.params.emplace_back(header_name, text_of(*v));
    }
  }
  return r;
}

Result<CallReply> send_request(const ClientState& state, const Connection& conn, std::string method, json::Value params,
                               agentkit::stop_token stop, const RequestOptions& how) {
  params = with_envelope(state, conn, std::move(params), how.log_level);
  const bool modern_http = conn.era == Era::modern && conn.request_scoped;
  for (int attempt = 0;; ++attempt) {
    CallSpec spec;
    spec.method = method;
    spec.params = params;
    if (!how.wait_forever) spec.timeout = how.timeout.value_or(state.timeout());
    spec.request_progress = how.request_progress;
    spec.on_progress = how.on_progress;
    // Modern HTTP cancels by closing the exchange; notifications/cancelled is for streams.
    spec.send_cancelled = !modern_http;
    spec.routing = routing_for(conn, method, params, how.tool);
    spec.routing.traceparent = how.traceparent;
    spec.stop = stop;
    spec.on_sent = how.on_sent;
    auto reply = conn.peer->call(std::move(spec));
    // A cut modern stream loses the request (no resumption): re-issue once, with a new id.
    if (!reply && modern_http && attempt == 0 && reply.error().find_detail("lost") == std::optional<std::string_view>("true")) {
      continue;
    }
    return reply;
  }
}

Error peer_error(const ClientState& state, std::string_view method, const RpcError& error) {
  Error e = make_error(Errc::protocol_error, state.label() + " answered " + std::string(method) + " with error " +
                                                 std::to_string(error.code) + ": " + error.message);
  e.with_detail("rpc_code", std::to_string(error.code));
  if (error.data) e.with_detail("data", json::dump(*error.data));
  // A version refusal names what the server does speak: say it, since it is what to change.
  const json::Value* supported = error.data ? error.data->find("supported") : nullptr;
  if (error.code == rpc_code::unsupported_protocol_version && supported != nullptr) {
    e.message += " (the server speaks " + json::dump(*supported) + ")";
  }
  return e;
}

// An accepted form answer gets the requested schema's `default` for every property the user left
// out (SEP-1034: the server sees the value the form showed, not a hole).
void apply_form_defaults(const json::Value& params, json::Value& answer) {
  const json::Value* action = answer.find("action");
  const json::Value* schema = params.find("requestedSchema");
  const json::Value* props = schema ? schema->find("properties") : nullptr;
  if (action == nullptr || action->get_string() != std::optional<std::string_view>("accept") ||
      props == nullptr || !props->is_object() || !answer.is_object()) {
    return;
  }
  json::Value& content = answer["content"];
  if (content.is_null()) content = json::Value(json::Object{});
  if (!content.is_object()) return;
  for (const auto& [name, property] : props->as_object()) {
    const json::Value* fallback = property.find("default");
    if (fallback != nullptr && !content.as_object().contains(name))
      content.as_object().set(name, *fallback);
  }
}

Result<json::Value> fulfil_input(const ClientState& state, Era era, const std::string& method, const json::Value& params) {
  AuditRecord record;
  record.server = state.config.name;
  record.name = method;
  record.era = era;
  const InputProvider* provider = nullptr;
  bool allowed = false;
  std::string_view setting;
  if (method == "sampling/createMessage") {
    record.kind = "sampling";
    provider = &state.options.sampling;
    allowed = state.sampling_allowed();
    setting = "allow_sampling and a sampling provider";
  } else if (method == "elicitation/create") {
    record.kind = "elicitation";
    provider = &state.options.elicitation;
    allowed = state.elicitation_allowed();
    setting = "allow_elicitation and an elicitation provider";
  } else if (method == "roots/list") {
    record.kind = "roots";
    provider = &state.options.roots;
    allowed = true;
    setting = "a roots provider";
  } else {
    return make_error(Errc::unsupported, state.label() + " asked for '" + method + "', which this client does not answer");
  }
  if (!allowed || !*provider) {
    record.allowed = false;
    record.detail = "refused: not enabled for this server";
    state.audit(record);
    return make_error(Errc::permission_denied, state.label() + " asked for " + method +
                                                   ", which is not enabled for this server (needs " + std::string(setting) + ")");
  }
  Result<json::Value> answer = fail(Errc::internal, "input provider did not answer");
  try {
    answer = (*provider)(InputRequest{state.config.name, method, params});
  } catch (const std::exception& e) {
    answer = make_error(Errc::internal, std::string("input provider threw: ") + e.what());
  } catch (...) {
    answer = fail(Errc::internal, "input provider threw");
  }
  record.is_error = !answer;
  if (!answer) record.detail = answer.error().message;
  state.audit(record);
  if (answer && method == "elicitation/create") apply_form_defaults(params, *answer);
  return answer;
}

Result<std::vector<std::pair<std::string, std::string>>> header_params_of(const json::Value& input_schema) {
  std::vector<std::pair<std::string, std::string>> out;
  const json::Value* props = input_schema.find("properties");
  if (props == nullptr || !props->is_object()) return out;
  for (const auto& [property, schema] : props->as_object()) {
    const json::Value* header = schema.find("x-mcp-header");
    if (header == nullptr) continue;
    const auto name = header->get_string();
    if (!name || name->empty()) return fail(Errc::validation_error, "x-mcp-header on '" + property + "' is not a non-empty string");
    if (!is_token(*name)) {
      return fail(Errc::validation_error,
                  "x-mcp-header '" + std::string(*name) + "' is not an HTTP token");
    }
    const json::Value* type = schema.find("type");
    const auto t = type ? type->get_string() : std::nullopt;
    if (!t || (*t != "string" && *t != "integer" && *t != "boolean")) {
      return fail(Errc::validation_error, "x-mcp-header on '" + property + "' needs a string, integer or boolean property");
    }
    for (const auto& [p, h] : out) {
      if (iequals(h, *name)) return fail(Errc::validation_error, "x-mcp-header '" + std::string(*name) + "' is used twice");
    }
    out.emplace_back(property, std::string(*name));
  }
  return out;
}

}  // namespace agentkit::mcp::detail

namespace agentkit::mcp {

Client::Client(std::shared_ptr<detail::ClientState> state) noexcept : state_(std::move(state)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    (void)close();
    state_ = std::move(other.state_);
  }
  return *this;
}
Client::~Client() { (void)close(); }

Result<Client> Client::connect(ServerConfig config, ClientOptions options, agentkit::stop_token stop) {
  if (config.name.empty()) return fail(Errc::invalid_argument, "an MCP server needs a name");
  auto state = std::make_shared<detail::ClientState>();
  state->config = std::move(config);
  state->options = std::move(options);
  state->http = state->options.http ? state->options.http : std::make_shared<http::HttpClient>();
  auto conn = detail::open_connection(state, stop);
  if (!conn) {
    Error e = std::move(conn).error();
    if (e.message.find(state->label()) == std::string::npos) e.message = state->label() + ": " + e.message;
    return e;
  }
  {
    std::lock_guard lock(state->mu);
    state->connection = std::move(*conn);
  }
  return Client(std::move(state));
}

Diagnostics Client::diagnostics() const {
  Diagnostics d;
  if (!state_) return d;
  std::lock_guard lock(state_->mu);
  d.server = state_->config.name;
  d.reconnects = state_->reconnects;
  d.notes = state_->notes;
  if (const auto& c = state_->connection) {
    d.transport = c->peer->describe();
    d.era = c->era;
    d.protocol_version = c->version;
    d.server_name = c->server_name;
    d.server_version = c->server_version;
    d.instructions = c->instructions;
  }
  return d;
}

Result<std::vector<ToolInfo>> Client::list_tools(agentkit::stop_token stop) {
  if (!state_) return fail(Errc::closed, "MCP client was moved from");
  return detail::list_tools_cached(state_, stop);
}

Result<CallResult> Client::call_tool(std::string_view name, const json::Value& arguments, const CallControl& control) {
  if (!state_) return fail(Errc::closed, "MCP client was moved from");
  return detail::call_tool_audited(state_, name, arguments, control);
}

Result<json::Value> Client::request(std::string_view method, json::Value params, agentkit::stop_token stop) {
  if (!state_) return fail(Errc::closed, "MCP client was moved from");
  auto conn = detail::live_connection(state_, stop);
  if (!conn) return std::move(conn).error();
  if (!detail::may_ask_for_input(method)) {
    auto reply =
        detail::send_request(*state_, **conn, std::string(method), std::move(params), stop);
    if (!reply) return std::move(reply).error();
    if (!reply->ok) return detail::peer_error(*state_, method, reply->error);
    return std::move(reply->result);
  }
  // tools/call, prompts/get and resources/read may ask for input first (MRTR), like a tool call.
  std::string what(method);
  if (const json::Value* n = params.find(method == "resources/read" ? "uri" : "name");
      n && n->is_string()) {
    what += " '" + n->as_string() + "'";
  }
  auto answered = detail::send_with_input_rounds(*state_, **conn, method, params, stop, {}, what);
  if (!answered) return std::move(answered).error();
  if (!answered->reply.ok) return detail::peer_error(*state_, method, answered->reply.error);
  return std::move(answered->reply.result);
}

Result<void> Client::close() {
  if (!state_) return {};
  std::shared_ptr<detail::Connection> conn;
  {
    std::lock_guard lock(state_->mu);
    state_->closed = true;
    conn = std::move(state_->connection);
  }
  conn.reset();  // stops the listener, closes the peer, reaps the child
  return {};
}

std::function<Result<std::vector<ToolDefinition>>(agentkit::stop_token)> tool_connector(ServerConfig config,
                                                                                  ClientOptions options) {
  return [config = std::move(config), options = std::move(options)](agentkit::stop_token stop)
             -> Result<std::vector<ToolDefinition>> {
    auto client = Client::connect(config, options, stop);
    if (!client) return std::move(client).error();
    auto listed = client->list_tools(stop);
    if (!listed) return std::move(listed).error();
    // The handlers own the connection from here: it closes with the last of them.
    std::shared_ptr<detail::ClientState> state = std::move(client->state_);
    std::vector<ToolDefinition> tools;
    for (const auto& info : *listed) {
      ToolDefinition def;
      def.name = info.name;
      def.description = info.description.empty() ? info.title : info.description;
      auto schema = Schema::from_json(info.input_schema);
      if (schema) def.input_schema = std::move(*schema);
      def.origin = "mcp:" + state->config.name;
      // The MCP layer keeps its own deadline, which progress resets (REQ-MCP-CLIENT-07).
      def.timeout = ToolTimeout::none();
      def.handler = [state, name = info.name](const json::Value& args, const ToolContext& ctx) -> ToolResult {
        CallControl control;
        control.stop = ctx.stop;
        control.session = ctx.session_id;
        control.span = ctx.span;
        if (ctx.report) {
          control.on_progress = [report = ctx.report](double progress, std::optional<double> total, std::string_view message) {
            std::string line = "progress " + json::dump(json::Value(progress));
            if (total) line += "/" + json::dump(json::Value(*total));
            if (!message.empty()) line += ": " + std::string(message);
            report(line);
          };
        }
        control.on_log = ctx.log;
        auto result = detail::call_tool_audited(state, name, args, control);
        if (!result) return ToolResult::failure(result.error());
        return to_tool_result(*result, state->options.result_cap);
      };
      tools.push_back(std::move(def));
    }
    return tools;
  };
}

}  // namespace agentkit::mcp
