#include "server_core.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>

#include "agentkit/base/sha256.hpp"
#include "agentkit/wire/binder.hpp"
#include "payloads.hpp"

namespace agentkit::mcp::detail {
namespace {

// ---- Inbound params, bound strictly (REQ-SEC-12) -------------------------------------------------

struct PageParams {
  std::optional<std::string> cursor;
  std::optional<json::Value> meta;
};

struct CallParams {
  std::string name;
  std::optional<json::Value> arguments;
  std::optional<json::Value> meta;
  std::optional<json::Value> task;
  std::optional<json::Object> input_responses;
  std::optional<std::string> request_state;
};

struct ReadParams {
  std::string uri;
  std::optional<json::Value> meta;
  std::optional<json::Object> input_responses;
  std::optional<std::string> request_state;
};

struct PromptParams {
  std::string name;
  std::optional<wire::Map<std::string>> arguments;
  std::optional<json::Value> meta;
  std::optional<json::Object> input_responses;
  std::optional<std::string> request_state;
};

struct InitializeParams {
  std::string protocol_version;
  json::Object capabilities;
  ImplementationInfo client_info;
  std::optional<json::Value> meta;
};

struct ListenNotifications {
  std::optional<bool> tools;
  std::optional<bool> prompts;
  std::optional<bool> resources;
  std::optional<std::vector<std::string>> resource_subscriptions;
};

struct ListenParams {
  ListenNotifications notifications;
  std::optional<json::Value> meta;
};

}  // namespace
}  // namespace agentkit::mcp::detail

namespace agentkit::wire {
using namespace agentkit::mcp::detail;
template <>
struct Fields<PageParams> {
  static constexpr auto list = std::tuple{optional("cursor", &PageParams::cursor), optional("_meta", &PageParams::meta)};
};
template <>
struct Fields<CallParams> {
  using T = CallParams;
  static constexpr auto list = std::tuple{
      field("name", &T::name), optional("arguments", &T::arguments), optional("_meta", &T::meta),
      optional("task", &T::task), optional("inputResponses", &T::input_responses),
      optional("requestState", &T::request_state)};
};
template <>
struct Fields<ReadParams> {
  using T = ReadParams;
  static constexpr auto list = std::tuple{field("uri", &T::uri), optional("_meta", &T::meta),
                                          optional("inputResponses", &T::input_responses),
                                          optional("requestState", &T::request_state)};
};
template <>
struct Fields<PromptParams> {
  using T = PromptParams;
  static constexpr auto list = std::tuple{field("name", &T::name), optional("arguments", &T::arguments),
                                          optional("_meta", &T::meta), optional("inputResponses", &T::input_responses),
                                          optional("requestState", &T::request_state)};
};
template <>
struct Fields<InitializeParams> {
  using T = InitializeParams;
  static constexpr auto list = std::tuple{field("protocolVersion", &T::protocol_version),
                                          field("capabilities", &T::capabilities),
                                          field("clientInfo", &T::client_info), optional("_meta", &T::meta)};
};
template <>
struct Fields<ListenNotifications> {
  using T = ListenNotifications;
  static constexpr auto list = std::tuple{
      optional("toolsListChanged", &T::tools), optional("promptsListChanged", &T::prompts),
      optional("resourcesListChanged", &T::resources), optional("resourceSubscriptions", &T::resource_subscriptions)};
};
template <>
struct Fields<ListenParams> {
  using T = ListenParams;
  static constexpr auto list = std::tuple{field("notifications", &T::notifications), optional("_meta", &T::meta)};
};
}  // namespace agentkit::wire

namespace agentkit::mcp::detail {
namespace {

constexpr std::string_view kResultType = "resultType";
// 2026-07-28 removed these; a modern request for them is an unknown method.
// (completion/complete stays: 2026-07-28 serves it with the envelope.)
constexpr std::array<std::string_view, 5> kRemovedInModern = {
    "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"};
// completion/complete sends at most this many values (the specification's bound).
constexpr std::size_t kMaxCompletionValues = 100;

template <class T>
Result<T> bind_params(const json::Value& params) {
  if (params.is_null()) return wire::bind<T>(json::Value(json::Object{}), wire::UnknownFields::reject);
  return wire::bind<T>(params, wire::UnknownFields::reject);
}

// ToolCall::log for one request: the severity filter is the session's (legacy) or the request's
// (modern), decided at send time so a logging/setLevel mid-call takes effect.
std::function<void(LogLevel, json::Value, std::string_view)> log_sender(const RequestScope& scope) {
  if (!scope.notify) return [](LogLevel, json::Value, std::string_view) {};
  return [notify = scope.notify, session = scope.session, era = scope.era, floor = scope.log_level](
             LogLevel level, json::Value data, std::string_view logger) {
    const bool wanted = era == Era::modern ? floor && level >= *floor
                                           : session == nullptr || session->wants_log(level);
    if (!wanted) return;
    json::Object n;
    n.append_unique("level", std::string(log_level_name(level)));
    if (!logger.empty()) n.append_unique("logger", std::string(logger));
    n.append_unique("data", std::move(data));
    notify("notifications/message", json::Value(std::move(n)));
  };
}

Reply invalid_params(std::string message, std::optional<json::Value> data = std::nullopt) {
  return Reply::failure(rpc_code::invalid_params, std::move(message), std::move(data));
}

const json::Value* meta_of(const json::Value& params) { return params.find("_meta"); }

json::Value supported_versions(Era era_scope) {
  json::Array out;
  for (auto v : kModernVersions) out.emplace_back(std::string(v));
  if (era_scope == Era::legacy) {
    for (auto v : kLegacyVersions) out.emplace_back(std::string(v));
  }
  return json::Value(std::move(out));
}

std::string version_text(Era era_scope) {
  std::string out;
  const json::Value versions = supported_versions(era_scope);  // named: a range-for over a temporary's member dangles
  for (const auto& v : versions.as_array()) out += (out.empty() ? "" : ", ") + v.as_string();
  return out;
}

Reply unsupported_version(std::string_view requested, bool with_legacy, std::string why) {
  json::Object data;
  data.append_unique("supported", supported_versions(with_legacy ? Era::legacy : Era::modern));
  data.append_unique("requested", std::string(requested));
  return Reply::failure(rpc_code::unsupported_protocol_version,
                        "Unsupported protocol version: " + std::move(why) + "; this server speaks " +
                            version_text(with_legacy ? Era::legacy : Era::modern),
                        json::Value(std::move(data)));
}

json::Value content_json(const ServerToolResult& result, Era era) {
  json::Object out;
  out.append_unique("content", json::Value(json::Array(result.content.begin(), result.content.end())));
  // Legacy revisions require structuredContent to be an object; modern allows any JSON.
  if (result.structured_content && (era == Era::modern || result.structured_content->is_object())) {
    out.append_unique("structuredContent", *result.structured_content);
  }
  if (result.is_error) out.append_unique("isError", true);
  return json::Value(std::move(out));
}

// The capability an input request needs, as it appears in requiredCapabilities.
std::optional<std::pair<std::string, json::Value>> needed_capability(std::string_view method, const json::Value& params) {
  if (method == "elicitation/create") {
    const json::Value* mode = params.find("mode");
    const bool url = mode && mode->get_string() == std::optional<std::string_view>("url");
    return std::pair{std::string("elicitation"), json::Value(json::Object{{url ? "url" : "form", json::Object{}}})};
  }
  if (method == "sampling/createMessage") return std::pair{std::string("sampling"), json::Value(json::Object{})};
  if (method == "roots/list") return std::pair{std::string("roots"), json::Value(json::Object{})};
  return std::nullopt;
}

bool declares(const json::Value& caps, const std::string& key, const json::Value& needed) {
  const json::Value* have = caps.find(key);
  if (have == nullptr || !have->is_object()) return false;
  if (key != "elicitation") return true;
  // An empty elicitation object means form only (2025-11-25).
  const bool wants_url = needed.find("url") != nullptr;
  if (wants_url) return have->find("url") != nullptr;
  return have->as_object().empty() || have->find("form") != nullptr;
}

ToolOutcome invoke_tool(const ServerTool& tool, const ToolCall& call) {
  try {
    return tool.handler(call);
  } catch (const std::exception& e) {
    return ServerToolResult::error(std::string("tool '") + tool.name + "' failed: " + e.what());
  } catch (...) {
    return ServerToolResult::error("tool '" + tool.name + "' failed");
  }
}

class GateSlot {
 public:
  explicit GateSlot(HandlerGate& gate) : gate_(gate) {}
  ~GateSlot() { gate_.leave(); }
  GateSlot(const GateSlot&) = delete;
  GateSlot& operator=(const GateSlot&) = delete;

 private:
  HandlerGate& gate_;
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string arguments_digest(const json::Value& arguments) { return sha256_hex(json::dump(arguments)); }

std::string cursor_payload(std::string_view kind, std::string_view key) {
  return "cursor\n" + std::string(kind) + "\n" + std::string(key);
}

}  // namespace

// ---- HandlerGate ----------------------------------------------------------------------------------

bool HandlerGate::enter(const agentkit::stop_token& stop) {
  std::unique_lock lock(mu_);
  if (!cv_.wait(lock, stop, [&] { return running_ < limit_; })) return false;
  ++running_;
  return true;
}

void HandlerGate::leave() {
  {
    std::lock_guard lock(mu_);
    --running_;
  }
  cv_.notify_one();
}

std::size_t HandlerGate::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

// ---- Registry ---------------------------------------------------------------------------------------

ServerCore::ServerCore(ServerOptions options) : options_(std::move(options)), gate_(options_.max_concurrent_handlers) {}

Result<void> ServerCore::add_tool(ServerTool tool) {
  if (tool.name.empty()) return fail(Errc::invalid_argument, "an MCP tool needs a name");
  if (!tool.handler) return fail(Errc::invalid_argument, "MCP tool '" + tool.name + "' has no handler");
  const json::Value* type = tool.input_schema.find("type");
  if (!tool.input_schema.is_object() || type == nullptr || type->get_string() != std::optional<std::string_view>("object")) {
    return fail(Errc::invalid_argument, "MCP tool '" + tool.name + "': inputSchema must be an object schema with \"type\":\"object\"");
  }
  {
    std::lock_guard lock(mu_);
    for (const auto& t : tools_) {
      if (t->name == tool.name) return fail(Errc::already_exists, "an MCP tool named '" + tool.name + "' is already registered");
    }
    tools_.push_back(std::make_shared<const ServerTool>(std::move(tool)));
  }
  notify_change(ListKind::tools);  // after the lock: a wedged client cannot block registration
  return {};
}

bool ServerCore::remove_tool(std::string_view name) {
  bool removed = false;
  {
    std::lock_guard lock(mu_);
    std::erase_if(tools_, [&](const auto& t) { return t->name == name && (removed = true); });
  }
  if (removed) notify_change(ListKind::tools);
  return removed;
}

Result<void> ServerCore::add_resource(ServerResource resource) {
  if (resource.uri.empty() || !resource.read) return fail(Errc::invalid_argument, "an MCP resource needs a URI and a reader");
  {
    std::lock_guard lock(mu_);
    for (const auto& r : resources_) {
      if (r->uri == resource.uri) return fail(Errc::already_exists, "an MCP resource '" + resource.uri + "' is already registered");
    }
    resources_.push_back(std::make_shared<const ServerResource>(std::move(resource)));
  }
  notify_change(ListKind::resources);
  return {};
}

Result<void> ServerCore::add_resource_template(ServerResourceTemplate resource_template) {
  if (!resource_template.read) return fail(Errc::invalid_argument, "an MCP resource template needs a reader");
  auto parsed = UriTemplate::parse(resource_template.uri_template);
  if (!parsed) return std::move(parsed).error();
  {
    std::lock_guard lock(mu_);
    for (const auto& [t, r] : templates_) {
      if (r->uri_template == resource_template.uri_template) {
        return fail(Errc::already_exists, "an MCP resource template '" + r->uri_template + "' is already registered");
      }
    }
    templates_.emplace_back(std::move(*parsed), std::make_shared<const ServerResourceTemplate>(std::move(resource_template)));
  }
  notify_change(ListKind::resources);
  return {};
}

bool ServerCore::remove_resource(std::string_view uri_or_template) {
  bool removed = false;
  {
    std::lock_guard lock(mu_);
    removed = std::erase_if(resources_, [&](const auto& r) { return r->uri == uri_or_template; }) > 0;
    removed = std::erase_if(templates_, [&](const auto& t) { return t.second->uri_template == uri_or_template; }) > 0 || removed;
  }
  if (removed) notify_change(ListKind::resources);
  return removed;
}

Result<void> ServerCore::add_prompt(ServerPrompt prompt) {
  if (prompt.name.empty() || !prompt.get) return fail(Errc::invalid_argument, "an MCP prompt needs a name and a getter");
  {
    std::lock_guard lock(mu_);
    for (const auto& p : prompts_) {
      if (p->name == prompt.name) return fail(Errc::already_exists, "an MCP prompt named '" + prompt.name + "' is already registered");
    }
    prompts_.push_back(std::make_shared<const ServerPrompt>(std::move(prompt)));
  }
  notify_change(ListKind::prompts);
  return {};
}

bool ServerCore::remove_prompt(std::string_view name) {
  bool removed = false;
  {
    std::lock_guard lock(mu_);
    removed = std::erase_if(prompts_, [&](const auto& p) { return p->name == name; }) > 0;
  }
  if (removed) notify_change(ListKind::prompts);
  return removed;
}

json::Value ServerCore::tool_input_schema(std::string_view name) const {
  std::lock_guard lock(mu_);
  for (const auto& t : tools_) {
    if (t->name == name) return t->input_schema;
  }
  return json::Value();
}

void ServerCore::add_listener(const std::shared_ptr<ChangeListener>& listener) {
  std::lock_guard lock(listeners_mu_);
  std::erase_if(listeners_, [](const auto& w) { return w.expired(); });
  listeners_.push_back(listener);
}

std::vector<std::shared_ptr<ChangeListener>> ServerCore::live_listeners() {
  std::vector<std::shared_ptr<ChangeListener>> live;
  std::lock_guard lock(listeners_mu_);
  for (const auto& w : listeners_) {
    if (auto l = w.lock()) live.push_back(std::move(l));
  }
  return live;
}

void ServerCore::notify_change(ListKind kind) {
  for (const auto& l : live_listeners()) l->list_changed(kind);
}

void ServerCore::resource_updated(std::string_view uri) {
  for (const auto& l : live_listeners()) l->resource_updated(uri);
}

std::string_view ServerCore::list_changed_method(ListKind kind) {
  switch (kind) {
    case ListKind::tools: return "notifications/tools/list_changed";
    case ListKind::resources: return "notifications/resources/list_changed";
    case ListKind::prompts: return "notifications/prompts/list_changed";
  }
  return {};
}

// ---- Classification ---------------------------------------------------------------------------------

ServerCore::Route ServerCore::route(std::string_view method, const json::Value& params) {
  if (method == "server/discover") return Route::discover;
  if (const json::Value* meta = meta_of(params); meta && meta->find(meta_key::protocol_version)) return Route::modern;
  if (method == "initialize") return Route::initialize;
  return Route::legacy;
}

std::optional<Reply> ServerCore::admit_modern(const json::Value& params, RequestScope& scope) const {
  const json::Value* meta = meta_of(params);
  const auto envelope_error = [](std::string_view key, std::string_view problem) {
    json::Value data(json::Object{{"envelope", json::Object{{"key", std::string(key)}, {"problem", std::string(problem)}}}});
    return invalid_params("Invalid _meta envelope for protocol revision " + std::string(kModernVersion) + ": " +
                              std::string(key) + ": " + std::string(problem),
                          std::move(data));
  };
  if (meta == nullptr || !meta->is_object()) return envelope_error(meta_key::protocol_version, "missing");
  const json::Value* version = meta->find(meta_key::protocol_version);
  if (version == nullptr) return envelope_error(meta_key::protocol_version, "missing");
  if (!version->is_string()) return envelope_error(meta_key::protocol_version, "not a string");
  if (era_of(version->as_string()) != Era::modern) {
    return unsupported_version(version->as_string(), false, "'" + version->as_string() + "' is not served per request");
  }
  const json::Value* caps = meta->find(meta_key::client_capabilities);
  if (caps == nullptr) return envelope_error(meta_key::client_capabilities, "missing");
  if (!caps->is_object()) return envelope_error(meta_key::client_capabilities, "not an object");
  if (const json::Value* info = meta->find(meta_key::client_info)) {
    if (!wire::bind<ImplementationInfo>(*info, wire::UnknownFields::reject)) {
      return envelope_error(meta_key::client_info, "not an Implementation object");
    }
  }
  scope.era = Era::modern;
  scope.version = version->as_string();
  scope.client_capabilities = *caps;
  if (const json::Value* token = meta->find(meta_key::progress_token)) scope.progress_token = *token;
  if (const json::Value* level = meta->find(meta_key::log_level)) {
    scope.log_level = level->is_string() ? parse_log_level(level->as_string()) : std::nullopt;
    if (!scope.log_level)
      return envelope_error(meta_key::log_level, "not one of the eight syslog level names");
  }
  return std::nullopt;
}

void ServerCore::admit_legacy(LegacySession& session, const json::Value& params,
                              RequestScope& scope) {
  scope.era = Era::legacy;
  scope.session = &session;
  scope.version = session.version;
  scope.client_capabilities = session.client_capabilities;
  if (const json::Value* meta = meta_of(params)) {
    if (const json::Value* token = meta->find(meta_key::progress_token)) scope.progress_token = *token;
  }
}

Reply ServerCore::no_session_reply() const {
  if (options_.legacy == LegacyMode::reject) {
    return unsupported_version("", false, "the request did not name a protocol version in _meta");
  }
  return Reply::failure(rpc_code::invalid_request,
                        "Bad Request: no session. Send initialize first (2025 revisions), or put the " +
                            std::string(kModernVersion) + " _meta envelope on every request");
}

// ---- Methods -----------------------------------------------------------------------------------------

json::Value ServerCore::capabilities() const {
  json::Object caps;
  caps.append_unique("tools", json::Object{{"listChanged", true}});
  caps.append_unique("resources", json::Object{{"subscribe", true}, {"listChanged", true}});
  caps.append_unique("prompts", json::Object{{"listChanged", true}});
  caps.append_unique("logging", json::Object{});
  caps.append_unique("completions", json::Object{});
  return json::Value(std::move(caps));
}

json::Value ServerCore::decorate(json::Value result, Era era, bool cacheable) const {
  if (era != Era::modern) return result;
  json::Object& o = result.as_object();
  if (!o.contains(kResultType)) o.set(std::string(kResultType), "complete");
  if (cacheable) {
    o.set("ttlMs", json::Value(static_cast<long long>(options_.list_ttl_ms)));
    o.set("cacheScope", options_.cache_scope);
  }
  json::Value& meta = result["_meta"];
  if (!meta.is_object()) meta = json::Value(json::Object{});
  meta.as_object().set(std::string(meta_key::server_info), options_.server_info.to_json());
  return result;
}

Reply ServerCore::discover(const json::Value& params) const {
  if (const json::Value* meta = meta_of(params)) {
    if (const json::Value* v = meta->find(meta_key::protocol_version); v && v->is_string() && !era_of(v->as_string())) {
      return unsupported_version(v->as_string(), options_.legacy == LegacyMode::serve, "'" + v->as_string() + "' is unknown");
    }
  }
  // Its params are the envelope (2026-07-28): a probe without one is refused like any request.
  RequestScope envelope;
  if (auto refused = admit_modern(params, envelope)) return std::move(*refused);
  json::Object result;
  result.append_unique("supportedVersions", supported_versions(options_.legacy == LegacyMode::serve ? Era::legacy : Era::modern));
  result.append_unique("capabilities", capabilities());
  if (!options_.instructions.empty()) result.append_unique("instructions", options_.instructions);
  return Reply::success(decorate(json::Value(std::move(result)), Era::modern, true));
}

Reply ServerCore::initialize(const json::Value& params, LegacySession& session) const {
  auto p = bind_params<InitializeParams>(params);
  const json::Value* requested = params.find("protocolVersion");
  const std::string requested_text = requested && requested->is_string() ? requested->as_string() : "";
  if (options_.legacy == LegacyMode::reject) {
    // A legacy client cannot fall forward: this message is the only diagnostic its user sees.
    return unsupported_version(requested_text, false, "this server does not serve the initialize handshake");
  }
  if (!p) return invalid_params("invalid initialize params: " + p.error().message);
  // Echo a version we speak; otherwise counter-offer our newest handshake version.
  session.version = era_of(p->protocol_version) == Era::legacy ? p->protocol_version : std::string(kLegacyVersion);
  session.client_capabilities = json::Value(std::move(p->capabilities));
  json::Object result;
  result.append_unique("protocolVersion", session.version);
  result.append_unique("capabilities", capabilities());
  result.append_unique("serverInfo", options_.server_info.to_json());
  if (!options_.instructions.empty()) result.append_unique("instructions", options_.instructions);
  return Reply::success(json::Value(std::move(result)));
}

Reply ServerCore::dispatch(std::string_view method, const json::Value& params, RequestScope& scope) {
  Reply reply = answer(method, params, scope);
  if (reply.result && reply.result->is_object()) {
    // A call's outcome is computed per request; lists and resource reads may be reused until ttlMs.
    // An input_required answer is a question for this request, never cacheable.
    const json::Value* type = reply.result->find(kResultType);
    const bool asking =
        type != nullptr && type->get_string() == std::optional<std::string_view>("input_required");
    const bool cacheable = method != "tools/call" && method != "prompts/get" && !asking;
    reply.result = decorate(std::move(*reply.result), scope.era, cacheable);
  }
  return reply;
}

Reply ServerCore::answer(std::string_view method, const json::Value& params, RequestScope& scope) {
  if (scope.era == Era::modern) {
    for (auto removed : kRemovedInModern) {
      if (method == removed) return Reply::failure(rpc_code::method_not_found, "Method not found: " + std::string(method));
    }
  }
  if (method == "tools/list") return list("tools", snapshot(ListKind::tools), params);
  if (method == "resources/list") return list("resources", snapshot(ListKind::resources), params);
  if (method == "resources/templates/list") {
    std::vector<ListEntry> entries;
    {
      std::lock_guard lock(mu_);
      for (const auto& [t, r] : templates_) {
        json::Object d;
        d.append_unique("uriTemplate", r->uri_template);
        d.append_unique("name", r->name);
        if (!r->title.empty()) d.append_unique("title", r->title);
        if (!r->description.empty()) d.append_unique("description", r->description);
        if (!r->mime_type.empty()) d.append_unique("mimeType", r->mime_type);
        entries.push_back({r->uri_template, json::Value(std::move(d))});
      }
    }
    return list("resourceTemplates", entries, params);
  }
  if (method == "prompts/list") return list("prompts", snapshot(ListKind::prompts), params);
  if (method == "tools/call") return call_tool(params, scope);
  if (method == "resources/read") return read_resource(params, scope);
  if (method == "prompts/get") return get_prompt(params, scope);
  if (method == "ping") return Reply::success(json::Value(json::Object{}));
  if (method == "completion/complete") return complete(params);
  if (method == "logging/setLevel" || method == "resources/subscribe" ||
      method == "resources/unsubscribe") {
    return session_method(method, params, scope);
  }
  return Reply::failure(rpc_code::method_not_found, "Method not found: " + std::string(method));
}

Reply ServerCore::session_method(std::string_view method, const json::Value& params,
                                 RequestScope& scope) const {
  if (scope.session == nullptr)
    return Reply::failure(rpc_code::method_not_found, "Method not found: " + std::string(method));
  const json::Value* meta = params.find("_meta");
  const std::size_t known = meta != nullptr ? 2 : 1;
  if (!params.is_object() || params.as_object().size() != known) {
    return invalid_params(std::string(method) + " takes exactly one parameter");
  }
  if (method == "logging/setLevel") {
    const json::Value* level = params.find("level");
    auto parsed = level && level->is_string() ? parse_log_level(level->as_string()) : std::nullopt;
    if (!parsed)
      return invalid_params(
          "logging/setLevel: level must be one of debug, info, notice, warning, error, critical, "
          "alert, emergency");
    scope.session->set_log_level(*parsed);
    return Reply::success(json::Value(json::Object{}));
  }
  const json::Value* uri = params.find("uri");
  if (uri == nullptr || !uri->is_string() || uri->as_string().empty()) {
    return invalid_params(std::string(method) + ": uri must be a non-empty string");
  }
  if (method == "resources/subscribe") {
    scope.session->subscribe(uri->as_string());
  } else {
    scope.session->unsubscribe(uri->as_string());
  }
  return Reply::success(json::Value(json::Object{}));
}

Reply ServerCore::complete(const json::Value& params) const {
  const json::Value* ref = params.find("ref");
  const json::Value* argument = params.find("argument");
  const json::Value* type = ref ? ref->find("type") : nullptr;
  const json::Value* arg_name = argument ? argument->find("name") : nullptr;
  const json::Value* arg_value = argument ? argument->find("value") : nullptr;
  if (type == nullptr || !type->is_string() || arg_name == nullptr || !arg_name->is_string() ||
      arg_value == nullptr || !arg_value->is_string()) {
    return invalid_params(
        "completion/complete needs ref {type, name|uri} and argument {name, value} (strings)");
  }
  CompletionRequest request{arg_name->as_string(), arg_value->as_string(), {}};
  if (const json::Value* context = params.find("context")) {
    if (const json::Value* args = context->find("arguments"); args && args->is_object()) {
      for (const auto& [k, v] : args->as_object()) {
        if (v.is_string()) request.context.emplace_back(k, v.as_string());
      }
    }
  }
  Completer completer;
  const std::string& kind = type->as_string();
  const json::Value* key = ref->find(kind == "ref/prompt" ? "name" : "uri");
  if ((kind != "ref/prompt" && kind != "ref/resource") || key == nullptr || !key->is_string()) {
    return invalid_params(
        "completion/complete: ref must be {type: ref/prompt, name} or {type: ref/resource, uri}");
  }
  {
    std::lock_guard lock(mu_);
    bool found = false;
    if (kind == "ref/prompt") {
      for (const auto& q : prompts_) {
        if (q->name == key->as_string()) {
          found = true;
          completer = q->complete;
        }
      }
    } else {
      for (const auto& [t, r] : templates_) {
        if (r->uri_template == key->as_string()) {
          found = true;
          completer = r->complete;
        }
      }
    }
    if (!found) {
      return invalid_params("completion/complete: no " +
                            std::string(kind == "ref/prompt" ? "prompt" : "resource template") +
                            " '" + key->as_string() + "'");
    }
  }
  std::vector<std::string> values;
  if (completer) {
    try {
      values = completer(request);
    } catch (const std::exception& e) {
      return Reply::failure(rpc_code::internal_error,
                            "completion for '" + key->as_string() + "' failed: " + e.what());
    }
  }
  json::Array sent;
  for (std::size_t i = 0; i < values.size() && i < kMaxCompletionValues; ++i)
    sent.emplace_back(values[i]);
  json::Object completion;
  completion.append_unique("values", std::move(sent));
  completion.append_unique("total", static_cast<long long>(values.size()));
  completion.append_unique("hasMore", values.size() > kMaxCompletionValues);
  return Reply::success(
      json::Value(json::Object{{"completion", json::Value(std::move(completion))}}));
}

std::vector<ServerCore::ListEntry> ServerCore::snapshot(ListKind kind) const {
  std::vector<ListEntry> out;
  std::lock_guard lock(mu_);
  if (kind == ListKind::tools) {
    for (const auto& t : tools_) {
      json::Object d;
      d.append_unique("name", t->name);
      if (!t->title.empty()) d.append_unique("title", t->title);
      if (!t->description.empty()) d.append_unique("description", t->description);
      d.append_unique("inputSchema", t->input_schema);
      if (t->output_schema) d.append_unique("outputSchema", *t->output_schema);
      if (!t->annotations.is_null()) d.append_unique("annotations", t->annotations);
      out.push_back({t->name, json::Value(std::move(d))});
    }
  } else if (kind == ListKind::resources) {
    for (const auto& r : resources_) {
      json::Object d;
      d.append_unique("uri", r->uri);
      d.append_unique("name", r->name);
      if (!r->title.empty()) d.append_unique("title", r->title);
      if (!r->description.empty()) d.append_unique("description", r->description);
      if (!r->mime_type.empty()) d.append_unique("mimeType", r->mime_type);
      out.push_back({r->uri, json::Value(std::move(d))});
    }
  } else {
    for (const auto& p : prompts_) {
      json::Object d;
      d.append_unique("name", p->name);
      if (!p->title.empty()) d.append_unique("title", p->title);
      if (!p->description.empty()) d.append_unique("description", p->description);
      if (!p->arguments.empty()) {
        json::Array args;
        for (const auto& a : p->arguments) {
          json::Object ad;
          ad.append_unique("name", a.name);
          if (!a.description.empty()) ad.append_unique("description", a.description);
          ad.append_unique("required", a.required);
          args.emplace_back(std::move(ad));
        }
        d.append_unique("arguments", std::move(args));
      }
      out.push_back({p->name, json::Value(std::move(d))});
    }
  }
  return out;
}

Reply ServerCore::list(std::string_view kind, const std::vector<ListEntry>& entries,
                       const json::Value& params) const {
  auto p = bind_params<PageParams>(params);
  if (!p) return invalid_params("invalid " + std::string(kind) + " list params: " + p.error().message);
  std::size_t start = 0;
  if (p->cursor) {
    // The cursor names the first entry of the page; one we never sealed, or for another list, is
    // refused rather than guessed at (seed: pagination cursors name an entry, not an index).
    auto payload = seal_key_.open(*p->cursor);
    const std::string prefix = cursor_payload(kind, "");
    if (!payload || !payload->starts_with(prefix)) return invalid_params("Invalid cursor: not issued by this server for this list");
    const std::string key = payload->substr(prefix.size());
    std::size_t i = 0;
    while (i < entries.size() && entries[i].key != key) ++i;
    if (i == entries.size()) return invalid_params("Invalid cursor: '" + key + "' is no longer listed; list again from the start");
    start = i;
  }
  const std::size_t page = options_.page_size == 0 ? entries.size() : options_.page_size;
  const std::size_t end = std::min(entries.size(), start + page);
  json::Array items;
  for (std::size_t i = start; i < end; ++i) items.push_back(entries[i].json);
  json::Object result;
  result.append_unique(std::string(kind), std::move(items));
  if (end < entries.size()) result.append_unique("nextCursor", seal_key_.seal(cursor_payload(kind, entries[end].key)));
  return Reply::success(json::Value(std::move(result)));
}

Reply ServerCore::call_tool(const json::Value& params, RequestScope& scope) {
  auto p = bind_params<CallParams>(params);
  if (!p) return invalid_params("invalid tools/call params: " + p.error().message);
  std::shared_ptr<const ServerTool> tool;
  {
    std::lock_guard lock(mu_);
    for (const auto& t : tools_) {
      if (t->name == p->name) tool = t;
    }
  }
  if (!tool) return invalid_params("Tool " + p->name + " not found");
  json::Value arguments = p->arguments.value_or(json::Value(json::Object{}));
  if (!arguments.is_object()) return invalid_params("tools/call arguments must be an object");

  RoundTarget target{
      "tools/call", tool->name, arguments, "tool '" + tool->name + "'",
      [era = scope.era](std::string why) {
        return Reply::success(content_json(ServerToolResult::error(std::move(why)), era));
      }};
  ToolCall call;
  call.name = tool->name;
  call.arguments = arguments;
  call.client_capabilities = scope.client_capabilities;
  call.era = scope.era;
  call.protocol_version = scope.version;
  call.stop = scope.stop;
  call.input_responses = p->input_responses.value_or(json::Object{});
  int round = 0;
  if (p->request_state) {
    // Attacker-controlled until proven ours: sealed, unexpired, and for this very call.
    auto sealed = open_request_state(*p->request_state, target);
    if (!sealed) return invalid_params("requestState is invalid, expired, or belongs to another request");
    call.state = sealed->handler_state;
    round = sealed->round;
  }
  const json::Value token = scope.progress_token.value_or(json::Value());
  if (scope.progress_token && scope.notify) {
    call.progress = [notify = scope.notify, token](double progress, std::optional<double> total, std::string_view message) {
      json::Object n;
      n.append_unique("progressToken", token);
      n.append_unique("progress", progress);
      if (total) n.append_unique("total", *total);
      if (!message.empty()) n.append_unique("message", std::string(message));
      notify("notifications/progress", json::Value(std::move(n)));
    };
  } else {
    call.progress = [](double, std::optional<double>, std::string_view) {};
  }
  call.log = log_sender(scope);

  if (!gate_.enter(scope.stop)) return Reply::failure(rpc_code::internal_error, "cancelled before the handler started");
  GateSlot slot(gate_);
  while (true) {
    ToolOutcome outcome = invoke_tool(*tool, call);
    if (auto* done = std::get_if<ServerToolResult>(&outcome)) {
      return Reply::success(content_json(*done, scope.era));
    }
    const auto& asked = std::get<InputRequired>(outcome);
    if (auto end = next_round(asked, target, scope, round, call.input_responses))
      return std::move(*end);
    call.state = asked.state;
  }
}

std::optional<Reply> ServerCore::next_round(const InputRequired& asked, const RoundTarget& target,
                                            const RequestScope& scope, int& round,
                                            json::Object& answers) const {
  if (round >= options_.max_input_rounds) {
    return target.failure(target.label + " asked for input more than " +
                          std::to_string(options_.max_input_rounds) + " times");
  }
  json::Object requests;
  if (auto stop_here = check_input_round(asked, target, scope, requests)) return stop_here;
  if (scope.era == Era::modern)
    return input_required_reply(std::move(requests), asked, target, round);
  // Legacy: ask the client ourselves over the session; the caller runs the handler again.
  json::Object got;
  for (const auto& [key, request] : asked.requests) {
    const std::string method = request.find("method")->as_string();
    const json::Value* rp = request.find("params");
    auto reply = scope.ask_client(method, rp ? *rp : json::Value(json::Object{}), scope.stop);
    if (!reply || !reply->ok) {
      const std::string why = !reply ? reply.error().message : reply->error.message;
      return target.failure("the client did not answer " + method + ": " + why);
    }
    got.append_unique(key, std::move(reply->result));
  }
  answers = std::move(got);
  ++round;
  return std::nullopt;
}

std::optional<Reply> ServerCore::check_input_round(const InputRequired& asked,
                                                   const RoundTarget& target,
                                                   const RequestScope& scope,
                                                   json::Object& requests) const {
  json::Object missing;
  for (const auto& [key, request] : asked.requests) {
    const json::Value* method = request.find("method");
    const json::Value* params = request.find("params");
    if (method == nullptr || !method->is_string())
      return target.failure(target.label + " asked for input without a method");
    auto need = needed_capability(method->as_string(), params ? *params : json::Value());
    if (!need)
      return target.failure(target.label + " asked for unsupported input '" + method->as_string() +
                            "'");
    if (!declares(scope.client_capabilities, need->first, need->second)) missing.set(need->first, need->second);
    requests.append_unique(key, request);
  }
  if (!missing.empty()) {
    // The server must not ask for what this request's capabilities did not declare.
    json::Value data(json::Object{{"requiredCapabilities", json::Value(std::move(missing))}});
    return Reply::failure(rpc_code::missing_client_capability,
                          "Missing required client capability for " + target.label,
                          std::move(data));
  }
  if (scope.era == Era::legacy && !scope.ask_client) {
    return target.failure(target.label + " needs input this session cannot ask for");
  }
  return std::nullopt;
}

Reply ServerCore::input_required_reply(json::Object requests, const InputRequired& asked,
                                       const RoundTarget& target, int round) const {
  json::Object state;
  state.append_unique("m", std::string(target.method));
  state.append_unique("n", target.name);
  state.append_unique("d", arguments_digest(target.arguments));
  const auto lifetime = std::chrono::duration_cast<std::chrono::milliseconds>(options_.request_state_lifetime).count();
  state.append_unique("e", json::Value(static_cast<long long>(now_ms() + lifetime)));
  state.append_unique("r", round + 1);
  if (asked.state) state.append_unique("s", *asked.state);
  json::Object result;
  result.append_unique("resultType", "input_required");
  result.append_unique("inputRequests", json::Value(std::move(requests)));
  result.append_unique("requestState", seal_key_.seal(json::dump(json::Value(std::move(state)))));
  return Reply::success(json::Value(std::move(result)));
}

std::optional<ServerCore::SealedRound> ServerCore::open_request_state(
    const std::string& token, const RoundTarget& target) const {
  auto payload = seal_key_.open(token);
  if (!payload) return std::nullopt;
  auto state = json::parse(*payload);
  if (!state || !state->is_object()) return std::nullopt;
  const auto text = [&](std::string_view k) { const json::Value* v = state->find(k); return v ? v->get_string() : std::nullopt; };
  const json::Value* expiry = state->find("e");
  const json::Value* round = state->find("r");
  if (text("m") != std::optional<std::string_view>(target.method) ||
      text("n") != std::optional<std::string_view>(target.name) ||
      text("d") != std::optional<std::string_view>(arguments_digest(target.arguments)) ||
      expiry == nullptr || round == nullptr || expiry->to_int64().value_or(0) < now_ms()) {
    return std::nullopt;
  }
  SealedRound out;
  out.round = static_cast<int>(round->to_int64().value_or(0));
  if (auto s = text("s")) out.handler_state = std::string(*s);
  return out;
}

Reply ServerCore::read_resource(const json::Value& params, RequestScope& scope) {
  auto p = bind_params<ReadParams>(params);
  if (!p) return invalid_params("invalid resources/read params: " + p.error().message);
  std::shared_ptr<const ServerResource> exact;
  std::shared_ptr<const ServerResourceTemplate> templated;
  UriVariables variables;
  {
    std::lock_guard lock(mu_);
    // An exact registration beats any template, so registration order never decides (seed).
    for (const auto& r : resources_) {
      if (r->uri == p->uri) exact = r;
    }
    if (!exact) {
      for (const auto& [t, r] : templates_) {
        if (auto vars = t.match(p->uri)) {
          templated = r;
          variables = std::move(*vars);
          break;
        }
      }
    }
  }
  if (!exact && !templated) {
    json::Value data(json::Object{{"uri", p->uri}});
    const std::int64_t code = scope.era == Era::modern ? rpc_code::invalid_params : rpc_code::resource_not_found_legacy;
    return Reply::failure(code, "Resource not found: " + p->uri, std::move(data));
  }
  RoundTarget target{
      "resources/read", p->uri, json::Value(), "resource " + p->uri,
      [](std::string why) { return Reply::failure(rpc_code::internal_error, std::move(why)); }};
  ResourceRead read{p->uri, std::move(variables), scope.stop};
  read.input_responses = p->input_responses.value_or(json::Object{});
  read.client_capabilities = scope.client_capabilities;
  read.era = scope.era;
  int round = 0;
  if (p->request_state) {
    auto sealed = open_request_state(*p->request_state, target);
    if (!sealed)
      return invalid_params("requestState is invalid, expired, or belongs to another request");
    read.state = sealed->handler_state;
    round = sealed->round;
  }
  const ResourceReader& reader = exact ? exact->read : templated->read;
  if (!gate_.enter(scope.stop)) return Reply::failure(rpc_code::internal_error, "cancelled before the handler started");
  GateSlot slot(gate_);
  ResourceOutcome outcome = fail(Errc::internal, "no reader");
  while (true) {
    try {
      outcome = reader(read);
    } catch (const std::exception& e) {
      outcome = make_error(Errc::internal, std::string("reader failed: ") + e.what());
    }
    const auto* asked = std::get_if<InputRequired>(&outcome);
    if (asked == nullptr) break;
    if (auto end = next_round(*asked, target, scope, round, read.input_responses))
      return std::move(*end);
    read.state = asked->state;
  }
  const auto& contents = std::get<Result<std::vector<ResourceContents>>>(outcome);
  if (!contents) return Reply::failure(rpc_code::internal_error, "reading " + p->uri + " failed: " + contents.error().message);
  json::Array items;
  for (const auto& c : *contents) {
    json::Object item;
    item.append_unique("uri", c.uri.empty() ? p->uri : c.uri);
    if (!c.mime_type.empty()) item.append_unique("mimeType", c.mime_type);
    if (c.text) {
      item.append_unique("text", *c.text);
    } else {
      item.append_unique("blob", c.blob_base64.value_or(""));
    }
    items.emplace_back(std::move(item));
  }
  json::Object result;
  result.append_unique("contents", std::move(items));
  return Reply::success(json::Value(std::move(result)));
}

Reply ServerCore::get_prompt(const json::Value& params, RequestScope& scope) {
  auto p = bind_params<PromptParams>(params);
  if (!p) return invalid_params("invalid prompts/get params: " + p.error().message);
  std::shared_ptr<const ServerPrompt> prompt;
  {
    std::lock_guard lock(mu_);
    for (const auto& q : prompts_) {
      if (q->name == p->name) prompt = q;
    }
  }
  if (!prompt) return invalid_params("Prompt " + p->name + " not found");
  PromptGet get{p->name, p->arguments ? p->arguments->entries : std::vector<std::pair<std::string, std::string>>{}, scope.stop};
  for (const auto& a : prompt->arguments) {
    bool given = false;
    for (const auto& [k, v] : get.arguments) given = given || k == a.name;
    if (a.required && !given) return invalid_params("prompt '" + prompt->name + "' needs the argument '" + a.name + "'");
  }
  json::Object arguments;
  for (const auto& [k, v] : get.arguments) arguments.append_unique(k, v);
  RoundTarget target{"prompts/get", prompt->name, json::Value(std::move(arguments)),
                     "prompt '" + prompt->name + "'", [](std::string why) {
                       return Reply::failure(rpc_code::internal_error, std::move(why));
                     }};
  get.input_responses = p->input_responses.value_or(json::Object{});
  get.client_capabilities = scope.client_capabilities;
  get.era = scope.era;
  int round = 0;
  if (p->request_state) {
    auto sealed = open_request_state(*p->request_state, target);
    if (!sealed)
      return invalid_params("requestState is invalid, expired, or belongs to another request");
    get.state = sealed->handler_state;
    round = sealed->round;
  }
  if (!gate_.enter(scope.stop)) return Reply::failure(rpc_code::internal_error, "cancelled before the handler started");
  GateSlot slot(gate_);
  PromptOutcome outcome = fail(Errc::internal, "no getter");
  while (true) {
    try {
      outcome = prompt->get(get);
    } catch (const std::exception& e) {
      outcome = make_error(Errc::internal, std::string("prompt failed: ") + e.what());
    }
    const auto* asked = std::get_if<InputRequired>(&outcome);
    if (asked == nullptr) break;
    if (auto end = next_round(*asked, target, scope, round, get.input_responses))
      return std::move(*end);
    get.state = asked->state;
  }
  const auto& got = std::get<Result<PromptResult>>(outcome);
  if (!got) return Reply::failure(rpc_code::internal_error, "prompt '" + prompt->name + "' failed: " + got.error().message);
  json::Object result;
  if (!got->description.empty()) result.append_unique("description", got->description);
  json::Array messages;
  for (const auto& m : got->messages) messages.emplace_back(json::Object{{"role", m.role}, {"content", m.content}});
  result.append_unique("messages", std::move(messages));
  return Reply::success(json::Value(std::move(result)));
}

Result<ListenFilter> ServerCore::parse_listen(const json::Value& params) const {
  auto p = bind_params<ListenParams>(params);
  if (!p) return std::move(p).error();
  ListenFilter f;
  f.tools = p->notifications.tools.value_or(false);
  f.prompts = p->notifications.prompts.value_or(false);
  f.resources = p->notifications.resources.value_or(false);
  f.resource_subscriptions = p->notifications.resource_subscriptions.value_or(std::vector<std::string>{});
  return f;
}

json::Value ServerCore::acknowledged(const ListenFilter& filter) const {
  // Only what this server produces: no per-resource update notifications exist here.
  json::Object n;
  if (filter.tools) n.append_unique("toolsListChanged", true);
  if (filter.prompts) n.append_unique("promptsListChanged", true);
  if (filter.resources) n.append_unique("resourcesListChanged", true);
  return json::Value(json::Object{{"notifications", json::Value(std::move(n))}});
}

int ServerCore::http_status(const Reply& reply, Era era) {
  constexpr int kOk = 200;
  constexpr int kBadRequest = 400;
  constexpr int kNotFound = 404;
  if (reply.result) return kOk;
  switch (reply.error.code) {
    case rpc_code::header_mismatch:
    case rpc_code::missing_client_capability:
    case rpc_code::unsupported_protocol_version:
      return kBadRequest;
    case rpc_code::invalid_params:
      // Envelope problems are transport-level in 2026-07-28; other invalid params stay 200.
      return reply.error.data && reply.error.data->find("envelope") ? kBadRequest : kOk;
    case rpc_code::method_not_found:
      return era == Era::modern ? kNotFound : kOk;
    default:
      return kOk;
  }
}

// ---- Tool definitions as MCP tools --------------------------------------------------------------

ServerTool server_tool_from(ToolDefinition definition) {
  ServerTool tool;
  tool.name = definition.name;
  tool.description = definition.description;
  if (!definition.prompt_guidelines.empty()) tool.description += "\n\n" + definition.prompt_guidelines;
  tool.input_schema = definition.input_schema.json();
  if (!tool.input_schema.is_object() || !tool.input_schema.find("type")) {
    tool.input_schema = json::Value(json::Object{{"type", "object"}});
  }
  auto def = std::make_shared<const ToolDefinition>(std::move(definition));
  tool.handler = [def](const ToolCall& call) -> ToolOutcome {
    // Input-validation failures are tool errors the model can correct (2025-11-25).
    auto prepared = prepare_arguments(def->input_schema, call.arguments);
    if (!prepared) return ServerToolResult::error("invalid arguments for '" + def->name + "': " + prepared.error().message);
    ToolContext ctx;
    ctx.tool_name = def->name;
    ctx.session_id = "mcp";
    ctx.stop = call.stop;
    ctx.report = [progress = call.progress, n = 0.0](std::string_view chunk) mutable { progress(++n, std::nullopt, chunk); };
    ToolResult r = def->handler(*prepared, ctx);
    ServerToolResult out;
    for (const auto& block : r.to_content()) {
      if (const auto* text = std::get_if<TextBlock>(&block)) {
        out.content.emplace_back(json::Object{{"type", "text"}, {"text", text->text}});
      } else if (const auto* image = std::get_if<ImageBlock>(&block)) {
        out.content.emplace_back(json::Object{{"type", "image"}, {"data", image->data_base64}, {"mimeType", image->mime_type}});
      }
    }
    out.is_error = !r.ok;
    return out;
  };
  return tool;
}

}  // namespace agentkit::mcp::detail

namespace agentkit::mcp::detail {

void LegacySession::set_log_level(LogLevel level) {
  std::lock_guard lock(mu_);
  log_level_ = level;
}

bool LegacySession::wants_log(LogLevel level) const {
  std::lock_guard lock(mu_);
  return !log_level_ || level >= *log_level_;
}

void LegacySession::subscribe(std::string uri) {
  std::lock_guard lock(mu_);
  if (std::find(subscriptions_.begin(), subscriptions_.end(), uri) == subscriptions_.end()) {
    subscriptions_.push_back(std::move(uri));
  }
}

void LegacySession::unsubscribe(std::string_view uri) {
  std::lock_guard lock(mu_);
  std::erase(subscriptions_, uri);
}

bool LegacySession::subscribed(std::string_view uri) const {
  std::lock_guard lock(mu_);
  return std::find(subscriptions_.begin(), subscriptions_.end(), uri) != subscriptions_.end();
}

}  // namespace agentkit::mcp::detail

namespace agentkit::mcp {

namespace {
constexpr std::array<std::string_view, 8> kLogLevelNames = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
  for (std::size_t i = 0; i < kLogLevelNames.size(); ++i) {
    if (kLogLevelNames[i] == name) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

std::string_view log_level_name(LogLevel level) {
  return kLogLevelNames[static_cast<std::size_t>(level)];
}

}  // namespace agentkit::mcp
