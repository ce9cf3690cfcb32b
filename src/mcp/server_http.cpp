// The HTTP front end of the MCP server (Streamable HTTP, both eras).
//
// Check order (ARCHITECTURE §7.1 and spec §8.3, merged with AgentKit's lessons): API key (401)
// before anything, so an unauthenticated caller learns nothing, not even which methods exist;
// then the path (404), Origin and Host (403), the HTTP method (405), Content-Type (415), Accept
// (406), the body bound (413), strict parsing (400), era classification, the modern routing
// headers against the body (400, -32020), the envelope and version (400), and only then dispatch.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <random>
#include <unordered_map>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/hex.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/mcp/server.hpp"
#include "payloads.hpp"
#include "server_core.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr int kOk = 200;
constexpr int kAccepted = 202;
constexpr int kBadRequest = 400;
constexpr int kUnauthorized = 401;
constexpr int kForbidden = 403;
constexpr int kNotFound = 404;
constexpr int kMethodNotAllowed = 405;
constexpr int kNotAcceptable = 406;
constexpr int kConflict = 409;
constexpr int kPayloadTooLarge = 413;
constexpr int kUnsupportedMediaType = 415;
constexpr int kUnavailable = 503;
constexpr std::size_t kSessionIdBytes = 16;  // 128 random bits, hex: unguessable, visible ASCII
using detail::kListen, detail::kResourceUpdated;

// Runs over the whole key whatever was presented, so the time taken says nothing about how much
// of a guess was right.
bool key_matches(std::string_view presented, std::string_view key) {
  unsigned char diff = presented.size() == key.size() ? 0 : 1;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char p = i < presented.size() ? presented[i] : '\0';
    diff |= static_cast<unsigned char>(p ^ key[i]);
  }
  return diff == 0 && !key.empty();
}

std::string random_session_id() {
  std::random_device device;
  std::string bytes(kSessionIdBytes, '\0');
  for (auto& b : bytes) b = static_cast<char>(device());
  return hex::encode(bytes);
}

std::string media_type(std::string_view value) { return to_lower_ascii(trim_ows(value.substr(0, value.find(';')))); }

http::Headers json_headers() { return http::Headers{{"Content-Type", "application/json"}}; }

http::Headers sse_headers() {
  return http::Headers{{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
}

std::string sse_event(std::string_view data) {
  std::string out = "event: message\ndata: ";
  out += data;
  out += "\n\n";
  return out;
}

void respond_error(http::ResponseWriter& out, int status, const std::optional<RequestId>& id, std::int64_t code,
                   std::string message, http::Headers headers = json_headers()) {
  (void)out.respond(status, headers, encode_error(id, RpcError{code, std::move(message), std::nullopt}));
}

bool is_loopback_host(std::string_view host) {
  if (host.starts_with('[')) {
    const std::size_t close = host.find(']');
    return close != std::string_view::npos && host.substr(0, close + 1) == "[::1]";
  }
  host = host.substr(0, host.find(':'));
  return iequals(host, "localhost") || host == "127.0.0.1";
}

// "http://localhost:6274", "https://127.0.0.1", "http://[::1]:8080": scheme, loopback host,
// optional port, nothing after it.
bool is_loopback_origin(std::string_view origin) {
  std::string_view rest;
  if (origin.starts_with("http://")) {
    rest = origin.substr(7);
  } else if (origin.starts_with("https://")) {
    rest = origin.substr(8);
  } else {
    return false;
  }
  std::string_view host = rest;
  std::string_view port;
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    host = rest.substr(0, close + 1);
    port = rest.substr(close + 1);
  } else if (const std::size_t colon = rest.find(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon);
  }
  if (!port.empty()) {
    if (port.size() < 2 || port.front() != ':' || port.size() > 6) return false;
    for (char c : port.substr(1)) {
      if (c < '0' || c > '9') return false;
    }
  }
  return iequals(host, "localhost") || host == "127.0.0.1" || host == "[::1]";
}

bool is_loopback_bind(std::string_view address) {
  return address == "127.0.0.1" || address == "::1" || address == "localhost" || address.starts_with("127.");
}

// One request's exchange: JSON unless something must be sent before the answer (progress, a
// server-to-client request), then an SSE stream scoped to the request.
class Exchange {
 public:
  Exchange(http::ResponseWriter& out, http::Headers extra) : out_(out), extra_(std::move(extra)) {}

  // False once the client is gone (a failed write is how a closed stream shows; 2026-07-28
  // treats that as cancellation).
  bool send_event(std::string_view frame) {
    std::lock_guard lock(mu_);
    if (gone_) return false;
    if (!streaming_) {
      http::Headers h = sse_headers();
      for (const auto& f : extra_) h.add(f.name, f.value);
      if (!out_.start_stream(kOk, h)) return mark_gone();
      streaming_ = true;
    }
    if (!out_.write(sse_event(frame))) return mark_gone();
    return true;
  }

  void finish(const std::string& frame, int status) {
    std::lock_guard lock(mu_);
    if (gone_) return;
    if (streaming_) {
      (void)out_.write(sse_event(frame));
      (void)out_.finish();
      return;
    }
    http::Headers h = json_headers();
    for (const auto& f : extra_) h.add(f.name, f.value);
    (void)out_.respond(status, h, frame);
  }

  // A cancelled request goes unanswered: end the exchange without a response.
  void finish_unanswered() {
    std::lock_guard lock(mu_);
    if (gone_) return;
    if (!streaming_) (void)out_.start_stream(kOk, sse_headers());
    (void)out_.finish();
  }

  agentkit::stop_token stop() const { return stop_.get_token(); }
  void cancel() { stop_.request_stop(); }

 private:
  bool mark_gone() {
    gone_ = true;
    stop_.request_stop();
    return false;
  }

  http::ResponseWriter& out_;
  http::Headers extra_;
  std::mutex mu_;
  bool streaming_ = false;
  bool gone_ = false;
  agentkit::stop_source stop_;
};

// An answer the server awaits from a legacy HTTP client (a server-to-client request).
struct AwaitedReply {
  std::mutex mu;
  agentkit::condition_variable_any cv;
  std::optional<CallReply> reply;
};

// Notifications queued for one long-lived stream (a legacy GET stream, a modern listen).
class StreamOutbox : public ChangeListener {
 public:
  using ListRender = std::function<std::optional<std::string>(ListKind)>;
  using UpdateRender = std::function<std::optional<std::string>(std::string_view uri)>;
  StreamOutbox(ListRender render, UpdateRender render_update)
      : render_(std::move(render)), render_update_(std::move(render_update)) {}
  void list_changed(ListKind kind) override { push(render_(kind)); }
  void resource_updated(std::string_view uri) override { push(render_update_(uri)); }
  void push(std::optional<std::string> frame) {
    if (!frame) return;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(*frame));
    }
    cv_.notify_all();
  }
  void end() {
    {
      std::lock_guard lock(mu_);
      ended_ = true;
    }
    cv_.notify_all();
  }
  // Pumps frames to `write` until the stream ends, the writer fails or `stop` fires; writes a
  // comment every `keep_alive` so a client that left is noticed.
  void pump(const std::function<bool(std::string_view)>& write, std::chrono::milliseconds keep_alive, agentkit::stop_token stop) {
    std::unique_lock lock(mu_);
    while (!stop.stop_requested() && !ended_) {
      cv_.wait_for(lock, stop, keep_alive, [&] { return !queue_.empty() || ended_; });
      std::deque<std::string> batch;
      batch.swap(queue_);
      lock.unlock();
      bool ok = true;
      if (batch.empty()) ok = write(": keep-alive\n\n");
      for (const auto& f : batch) ok = ok && write(sse_event(f));
      lock.lock();
      if (!ok) return;
    }
  }

 private:
  ListRender render_;
  UpdateRender render_update_;
  std::mutex mu_;
  agentkit::condition_variable_any cv_;
  std::deque<std::string> queue_;
  bool ended_ = false;
};

// A legacy Streamable HTTP session (Mcp-Session-Id).
struct HttpSession {
  std::string id;
  LegacySession legacy;
  std::shared_ptr<StreamOutbox> stream;  // the GET stream, when open
  std::mutex mu;
};

}  // namespace

struct HttpServiceState {
  std::shared_ptr<ServerCore> core;
  HttpServeOptions options;
  std::optional<http::HttpServer> server;
  std::atomic<std::int64_t> next_request{1};

  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<HttpSession>> sessions;
  std::unordered_map<std::string, std::shared_ptr<AwaitedReply>> awaited;     // session \n id
  std::unordered_map<std::string, std::shared_ptr<Exchange>> in_flight;       // session \n id

  void handle(const http::ServerRequest& req, http::ResponseWriter& out);

 private:
  bool authorized(const http::ServerRequest& req) const;
  std::optional<int> refused_origin(const http::ServerRequest& req) const;
  void post(const http::ServerRequest& req, http::ResponseWriter& out);
  void get_stream(const http::ServerRequest& req, http::ResponseWriter& out);
  void end_session(const http::ServerRequest& req, http::ResponseWriter& out);
  void on_response(const http::ServerRequest& req, RpcMessage msg, http::ResponseWriter& out);
  void on_notification(const http::ServerRequest& req, const RpcMessage& msg, http::ResponseWriter& out);
  void on_request(const http::ServerRequest& req, RpcMessage msg, http::ResponseWriter& out);
  void initialize(const RpcMessage& msg, http::ResponseWriter& out);
  void serve(const RpcMessage& msg, RequestScope scope, const std::string& session_key, http::ResponseWriter& out,
             http::Headers extra);
  void listen(const RpcMessage& msg, http::ResponseWriter& out);
  std::optional<Reply> check_routing_headers(const http::ServerRequest& req, const RpcMessage& msg) const;
  std::shared_ptr<HttpSession> find_session(std::string_view id);
};

namespace {

std::string key_of(std::string_view session, const RequestId& id) { return std::string(session) + "\n" + id.to_text(); }

Reply header_mismatch(std::string header, std::string detail) {
  json::Value data(json::Object{{"mismatch", json::Object{{"header", std::move(header)}, {"problem", detail}}}});
  return Reply::failure(rpc_code::header_mismatch, "Header mismatch: " + detail, std::move(data));
}

// "Mcp-Param-<name>" values compare with the argument: strings exactly, integers numerically.
bool same_param(const json::Value& argument, std::string_view header_value) {
  if (auto s = argument.get_string()) return *s == header_value;
  if (auto b = argument.get_bool()) return header_value == (*b ? "true" : "false");
  if (argument.is_number()) {
    auto a = argument.to_int64();
    auto h = json::Value::number(header_value);
    return a && h && h->to_int64() && *a == *h->to_int64();
  }
  return false;
}

}  // namespace

bool HttpServiceState::authorized(const http::ServerRequest& req) const {
  if (options.unauthenticated_loopback && options.api_key.empty()) return true;
  std::string_view presented;
  if (auto auth = req.headers.get("Authorization")) {
    constexpr std::string_view kBearer = "Bearer ";
    if (auth->size() > kBearer.size() && iequals(auth->substr(0, kBearer.size()), kBearer)) {
      presented = trim_ows(auth->substr(kBearer.size()));
    }
  } else if (auto key = req.headers.get("X-API-Key")) {
    presented = trim_ows(*key);
  }
  return key_matches(presented, options.api_key);
}

std::optional<int> HttpServiceState::refused_origin(const http::ServerRequest& req) const {
  if (auto origin = req.headers.get("Origin")) {
    // A page served from this machine may call a loopback-bound server (the MCP Inspector);
    // "null" and every other origin are someone else's page unless the allow list names them.
    bool allowed = is_loopback_bind(options.bind_address) && is_loopback_origin(*origin);
    for (const auto& o : options.allowed_origins) allowed = allowed || o == *origin;
    if (!allowed) return kForbidden;
  }
  if (options.check_host && is_loopback_bind(options.bind_address)) {
    auto host = req.headers.get("Host");
    if (!host || !is_loopback_host(*host)) return kForbidden;  // DNS rebinding
  }
  return std::nullopt;
}

void HttpServiceState::handle(const http::ServerRequest& req, http::ResponseWriter& out) {
  if (!authorized(req)) {
    http::Headers h = json_headers();
    h.add("WWW-Authenticate", "Bearer");
    respond_error(out, kUnauthorized, std::nullopt, rpc_code::invalid_request,
                  "Unauthorized: send the API key as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'", h);
    return;
  }
  if (req.path != options.path) {
    respond_error(out, kNotFound, std::nullopt, rpc_code::invalid_request, "Not found: the MCP endpoint is " + options.path);
    return;
  }
  if (auto status = refused_origin(req)) {
    respond_error(out, *status, std::nullopt, rpc_code::invalid_request, "Forbidden: Origin or Host is not allowed");
    return;
  }
  if (req.method == "POST") return post(req, out);
  if (req.method == "GET") return get_stream(req, out);
  if (req.method == "DELETE") return end_session(req, out);
  http::Headers h = json_headers();
  h.add("Allow", "GET, POST, DELETE");
  respond_error(out, kMethodNotAllowed, std::nullopt, rpc_code::invalid_request, "Method not allowed", h);
}

void HttpServiceState::post(const http::ServerRequest& req, http::ResponseWriter& out) {
  if (media_type(req.headers.get("Content-Type").value_or("")) != "application/json") {
    respond_error(out, kUnsupportedMediaType, std::nullopt, rpc_code::invalid_request,
                  "Unsupported Media Type: Content-Type must be application/json");
    return;
  }
  if (auto accept = req.headers.get("Accept")) {
    const std::string a = to_lower_ascii(*accept);
    if (a.find("application/json") == std::string::npos && a.find("text/event-stream") == std::string::npos &&
        a.find("*/*") == std::string::npos) {
      respond_error(out, kNotAcceptable, std::nullopt, rpc_code::invalid_request,
                    "Not Acceptable: Accept must list application/json and text/event-stream");
      return;
    }
  }
  if (req.body.size() > options.max_body_bytes) {
    respond_error(out, kPayloadTooLarge, std::nullopt, rpc_code::invalid_request, "Payload too large");
    return;
  }
  auto msg = parse_message(req.body);
  if (!msg) {
    auto [id, err] = failure_reply(msg.error());
    (void)out.respond(kBadRequest, json_headers(), encode_error(id, err));
    return;
  }
  switch (msg->kind) {
    case MessageKind::result:
    case MessageKind::error:
      return on_response(req, std::move(*msg), out);
    case MessageKind::notification:
      return on_notification(req, *msg, out);
    case MessageKind::request:
      return on_request(req, std::move(*msg), out);
  }
}

void HttpServiceState::on_response(const http::ServerRequest& req, RpcMessage msg, http::ResponseWriter& out) {
  const std::string session(req.headers.get(header::session_id).value_or(""));
  std::shared_ptr<AwaitedReply> awaited_reply;
  if (msg.id) {
    std::lock_guard lock(mu);
    auto it = awaited.find(key_of(session, *msg.id));
    if (it != awaited.end()) awaited_reply = it->second;
  }
  if (awaited_reply) {
    {
      std::lock_guard lock(awaited_reply->mu);
      CallReply reply;
      reply.ok = msg.kind == MessageKind::result;
      reply.result = std::move(msg.result);
      reply.error = std::move(msg.error);
      awaited_reply->reply = std::move(reply);
    }
    awaited_reply->cv.notify_all();
  }
  (void)out.respond(kAccepted, {}, "");
}

void HttpServiceState::on_notification(const http::ServerRequest& req, const RpcMessage& msg, http::ResponseWriter& out) {
  const std::string session(req.headers.get(header::session_id).value_or(""));
  const json::Value params = msg.params.value_or(json::Value());
  if (msg.method == "notifications/initialized") {
    if (auto s = find_session(session)) s->legacy.initialized.store(true);
  } else if (msg.method == "notifications/cancelled") {
    if (const json::Value* raw = params.find("requestId")) {
      if (auto id = RequestId::from_json(*raw)) {
        std::shared_ptr<Exchange> ex;
        {
          std::lock_guard lock(mu);
          auto it = in_flight.find(key_of(session, *id));
          if (it != in_flight.end()) ex = it->second;
        }
        if (ex) ex->cancel();
      }
    }
  }
  (void)out.respond(kAccepted, {}, "");
}

std::optional<Reply> HttpServiceState::check_routing_headers(const http::ServerRequest& req, const RpcMessage& msg) const {
  const json::Value params = msg.params.value_or(json::Value());
  const auto header_value = [&](std::string_view name) -> std::optional<Result<std::string>> {
    auto raw = req.headers.get(name);
    if (!raw) return std::nullopt;
    return decode_header_value(*raw);
  };
  const json::Value* meta = params.find("_meta");
  const json::Value* version = meta ? meta->find(meta_key::protocol_version) : nullptr;
  auto pv = header_value(header::protocol_version);
  if (!pv || !*pv) return header_mismatch(std::string(header::protocol_version), "missing or not a valid header value");
  if (version && version->is_string() && **pv != version->as_string()) {
    return header_mismatch(std::string(header::protocol_version), "'" + **pv + "' but the body says '" + version->as_string() + "'");
  }
  auto method = header_value(header::method);
  if (!method || !*method) return header_mismatch(std::string(header::method), "missing or not a valid header value");
  if (**method != msg.method) {
    return header_mismatch(std::string(header::method), "'" + **method + "' but the body's method is '" + msg.method + "'");
  }
  const json::Value* named = nullptr;
  if (msg.method == "tools/call" || msg.method == "prompts/get") named = params.find("name");
  if (msg.method == "resources/read") named = params.find("uri");
  if (named != nullptr) {
    auto name = header_value(header::name);
    if (!name || !*name) return header_mismatch(std::string(header::name), "missing or not a valid header value");
    if (!named->is_string() || **name != named->as_string()) {
      return header_mismatch(std::string(header::name), "'" + **name + "' does not match the body");
    }
  }
  // Mcp-Param-*: a tool's x-mcp-header properties are mirrored into headers; each present
  // argument needs its header, and the header must agree with it.
  if (msg.method == "tools/call" && named != nullptr && named->is_string()) {
    const json::Value schema = core->tool_input_schema(named->as_string());
    const json::Value* props = schema.find("properties");
    const json::Value* args = params.find("arguments");
    if (props != nullptr && props->is_object()) {
      for (const auto& [property, prop_schema] : props->as_object()) {
        const json::Value* mirrored = prop_schema.find("x-mcp-header");
        if (mirrored == nullptr || !mirrored->is_string()) continue;
        const std::string header_name = std::string(header::param_prefix) + mirrored->as_string();
        const json::Value* arg = args ? args->find(property) : nullptr;
        auto value = header_value(header_name);
        if (arg == nullptr || arg->is_null()) {
          if (value) return header_mismatch(header_name, "present but the argument '" + property + "' is not");
          continue;
        }
        if (!value || !*value) return header_mismatch(header_name, "missing for the argument '" + property + "'");
        if (!same_param(*arg, **value)) return header_mismatch(header_name, "does not match the argument '" + property + "'");
      }
    }
  }
  return std::nullopt;
}

void HttpServiceState::on_request(const http::ServerRequest& req, RpcMessage msg, http::ResponseWriter& out) {
  const json::Value params = msg.params.value_or(json::Value());
  auto route = ServerCore::route(msg.method, params);
  // A modern protocol-version header with no envelope is a modern request missing its envelope.
  if (route == ServerCore::Route::legacy) {
    if (auto pv = req.headers.get(header::protocol_version); pv && era_of(*pv) == Era::modern) route = ServerCore::Route::modern;
  }
  const auto answer = [&](const Reply& reply, Era era, http::Headers extra = {}) {
    http::Headers h = json_headers();
    for (const auto& f : extra) h.add(f.name, f.value);
    const std::string frame = reply.result ? encode_result(*msg.id, *reply.result) : encode_error(msg.id, reply.error);
    (void)out.respond(ServerCore::http_status(reply, era), h, frame);
  };
  switch (route) {
    case ServerCore::Route::discover: {
      // The version header must agree with the body before the body's version is judged.
      const json::Value* meta = params.find("_meta");
      const json::Value* version = meta ? meta->find(meta_key::protocol_version) : nullptr;
      if (auto pv = req.headers.get(header::protocol_version);
          pv && version && version->is_string()) {
        auto decoded = decode_header_value(*pv);
        if (!decoded || *decoded != version->as_string()) {
          return answer(header_mismatch(std::string(header::protocol_version),
                                        "'" + std::string(*pv) + "' but the body says '" +
                                            version->as_string() + "'"),
                        Era::modern);
        }
      }
      return answer(core->discover(params), Era::modern);
    }
    case ServerCore::Route::initialize:
      return initialize(msg, out);
    case ServerCore::Route::modern: {
      if (auto mismatch = check_routing_headers(req, msg)) return answer(*mismatch, Era::modern);
      RequestScope scope;
      if (auto refused = core->admit_modern(params, scope)) return answer(*refused, Era::modern);
      if (msg.method == kListen) return listen(msg, out);
      return serve(msg, std::move(scope), "", out, {});
    }
    case ServerCore::Route::legacy: {
      const auto sid = req.headers.get(header::session_id);
      if (!sid) {
        Reply r = core->no_session_reply();
        (void)out.respond(kBadRequest, json_headers(), encode_error(msg.id, r.error));
        return;
      }
      auto session = find_session(*sid);
      if (!session) {
        respond_error(out, kNotFound, msg.id, rpc_code::invalid_request, "Session not found: initialize again");
        return;
      }
      if (auto pv = req.headers.get(header::protocol_version); pv && era_of(*pv) != Era::legacy) {
        respond_error(out, kBadRequest, msg.id, rpc_code::invalid_request, "Bad Request: unsupported MCP-Protocol-Version " + std::string(*pv));
        return;
      }
      RequestScope scope;
      ServerCore::admit_legacy(session->legacy, params, scope);
      return serve(msg, std::move(scope), session->id, out, {});
    }
  }
}

void HttpServiceState::initialize(const RpcMessage& msg, http::ResponseWriter& out) {
  auto session = std::make_shared<HttpSession>();
  Reply reply = core->initialize(msg.params.value_or(json::Value()), session->legacy);
  if (!reply.result) {
    (void)out.respond(ServerCore::http_status(reply, Era::modern), json_headers(), encode_error(msg.id, reply.error));
    return;
  }
  {
    std::lock_guard lock(mu);
    if (sessions.size() >= options.max_sessions) {
      respond_error(out, kUnavailable, msg.id, rpc_code::internal_error, "too many sessions; close one (DELETE) and retry");
      return;
    }
    session->id = random_session_id();
    sessions.emplace(session->id, session);
  }
  http::Headers h = json_headers();
  h.add(std::string(header::session_id), session->id);
  (void)out.respond(kOk, h, encode_result(*msg.id, *reply.result));
}

void HttpServiceState::serve(const RpcMessage& msg, RequestScope scope, const std::string& session_key,
                             http::ResponseWriter& out, http::Headers extra) {
  auto exchange = std::make_shared<Exchange>(out, std::move(extra));
  // The exchange ends on cancellation, on the client leaving, or on the server stopping.
  agentkit::stop_callback on_server_stop(out.stop_token(), [exchange] { exchange->cancel(); });
  // Only a legacy session can cancel by notification; modern HTTP cancels by closing the stream.
  const bool cancellable = !session_key.empty();
  const std::string key = key_of(session_key, *msg.id);
  if (cancellable) {
    std::lock_guard lock(mu);
    in_flight[key] = exchange;
  }
  scope.stop = exchange->stop();
  scope.notify = [exchange](std::string_view method, const json::Value& params) {
    (void)exchange->send_event(encode_notification(method, &params));
  };
  if (scope.era == Era::legacy) {
    scope.ask_client = [this, exchange, session_key](std::string_view method, const json::Value& params,
                                                     agentkit::stop_token stop) -> Result<CallReply> {
      const RequestId id("srv-" + std::to_string(next_request.fetch_add(1)));
      auto awaited_reply = std::make_shared<AwaitedReply>();
      const std::string k = key_of(session_key, id);
      {
        std::lock_guard lock(mu);
        awaited[k] = awaited_reply;
      }
      const bool sent = exchange->send_event(encode_request(id, method, &params));
      std::unique_lock lock(awaited_reply->mu);
      const bool answered = sent && awaited_reply->cv.wait_for(lock, stop, core->options().client_request_timeout,
                                                               [&] { return awaited_reply->reply.has_value(); });
      {
        std::lock_guard map_lock(mu);
        awaited.erase(k);
      }
      if (!answered) return make_error(Errc::timeout, "the client did not answer " + std::string(method));
      return std::move(*awaited_reply->reply);
    };
  }
  Reply reply = core->dispatch(msg.method, msg.params.value_or(json::Value()), scope);
  if (cancellable) {
    std::lock_guard lock(mu);
    in_flight.erase(key);
  }
  if (exchange->stop().stop_requested()) {
    exchange->finish_unanswered();
    return;
  }
  const std::string frame = reply.result ? encode_result(*msg.id, *reply.result) : encode_error(msg.id, reply.error);
  exchange->finish(frame, ServerCore::http_status(reply, scope.era));
}

void HttpServiceState::listen(const RpcMessage& msg, http::ResponseWriter& out) {
  auto filter = core->parse_listen(msg.params.value_or(json::Value()));
  if (!filter) {
    respond_error(out, kBadRequest, msg.id, rpc_code::invalid_params, "invalid subscriptions/listen params: " + filter.error().message);
    return;
  }
  const RequestId id = *msg.id;
  const json::Value tag(json::Object{{std::string(meta_key::subscription_id), id.to_json()}});
  auto outbox = std::make_shared<StreamOutbox>(
      [f = *filter, tag](ListKind kind) -> std::optional<std::string> {
        const bool wanted = (kind == ListKind::tools && f.tools) ||
                            (kind == ListKind::prompts && f.prompts) ||
                            (kind == ListKind::resources && f.resources);
        if (!wanted) return std::nullopt;
        json::Value params(json::Object{{"_meta", tag}});
        return encode_notification(ServerCore::list_changed_method(kind), &params);
      },
      [subs = filter->resource_subscriptions,
       tag](std::string_view uri) -> std::optional<std::string> {
        if (std::find(subs.begin(), subs.end(), uri) == subs.end()) return std::nullopt;
        json::Value params(json::Object{{"uri", std::string(uri)}, {"_meta", tag}});
        return encode_notification(kResourceUpdated, &params);
      });
  core->add_listener(outbox);
  if (!out.start_stream(kOk, sse_headers())) return;
  json::Value ack = core->acknowledged(*filter);
  ack["_meta"] = tag;
  if (!out.write(sse_event(encode_notification("notifications/subscriptions/acknowledged", &ack)))) return;
  outbox->pump([&](std::string_view bytes) { return out.write(bytes).has_value(); }, options.keep_alive_interval,
               out.stop_token());
  // The server is shutting down (or the client left): the graceful, empty SubscriptionsListenResult.
  json::Value result(json::Object{{"resultType", "complete"}, {"_meta", tag}});
  (void)out.write(sse_event(encode_result(id, result)));
  (void)out.finish();
}

void HttpServiceState::get_stream(const http::ServerRequest& req, http::ResponseWriter& out) {
  const auto sid = req.headers.get(header::session_id);
  if (!sid) {
    // No standalone stream outside a legacy session (2026-07-28 is POST only).
    http::Headers h = json_headers();
    h.add("Allow", "POST");
    respond_error(out, kMethodNotAllowed, std::nullopt, rpc_code::invalid_request, "Method not allowed without a session", h);
    return;
  }
  auto session = find_session(*sid);
  if (!session) {
    respond_error(out, kNotFound, std::nullopt, rpc_code::invalid_request, "Session not found");
    return;
  }
  if (media_type(req.headers.get("Accept").value_or("")).find("text/event-stream") == std::string::npos &&
      to_lower_ascii(req.headers.get("Accept").value_or("")).find("text/event-stream") == std::string::npos) {
    respond_error(out, kNotAcceptable, std::nullopt, rpc_code::invalid_request, "Not Acceptable: the stream is text/event-stream");
    return;
  }
  auto outbox = std::make_shared<StreamOutbox>(
      [session](ListKind kind) -> std::optional<std::string> {
        if (!session->legacy.initialized.load())
          return std::nullopt;  // never before the handshake completes
        return encode_notification(ServerCore::list_changed_method(kind), nullptr);
      },
      [session](std::string_view uri) -> std::optional<std::string> {
        if (!session->legacy.initialized.load() || !session->legacy.subscribed(uri))
          return std::nullopt;
        json::Value params(json::Object{{"uri", std::string(uri)}});
        return encode_notification(kResourceUpdated, &params);
      });
  {
    std::lock_guard lock(session->mu);
    if (session->stream) {
      respond_error(out, kConflict, std::nullopt, rpc_code::invalid_request, "Conflict: this session already has a stream");
      return;
    }
    session->stream = outbox;
  }
  core->add_listener(outbox);
  http::Headers h = sse_headers();
  h.add(std::string(header::session_id), session->id);
  if (out.start_stream(kOk, h)) {
    outbox->pump([&](std::string_view bytes) { return out.write(bytes).has_value(); }, options.keep_alive_interval,
                 out.stop_token());
    (void)out.finish();
  }
  std::lock_guard lock(session->mu);
  if (session->stream == outbox) session->stream.reset();
}

void HttpServiceState::end_session(const http::ServerRequest& req, http::ResponseWriter& out) {
  const auto sid = req.headers.get(header::session_id);
  std::shared_ptr<HttpSession> session;
  if (sid) {
    std::lock_guard lock(mu);
    auto it = sessions.find(std::string(*sid));
    if (it != sessions.end()) {
      session = it->second;
      sessions.erase(it);
    }
  }
  if (!session) {
    respond_error(out, kNotFound, std::nullopt, rpc_code::invalid_request, "Session not found");
    return;
  }
  std::shared_ptr<StreamOutbox> stream;
  {
    std::lock_guard lock(session->mu);
    stream = session->stream;
  }
  if (stream) stream->end();
  (void)out.respond(kOk, {}, "");
}

std::shared_ptr<HttpSession> HttpServiceState::find_session(std::string_view id) {
  std::lock_guard lock(mu);
  auto it = sessions.find(std::string(id));
  return it == sessions.end() ? nullptr : it->second;
}

}  // namespace agentkit::mcp::detail

namespace agentkit::mcp {

HttpService::HttpService(std::unique_ptr<detail::HttpServiceState> state) noexcept : state_(std::move(state)) {}
HttpService::HttpService(HttpService&&) noexcept = default;
HttpService& HttpService::operator=(HttpService&& other) noexcept {
  if (this != &other) {
    stop();
    state_ = std::move(other.state_);
  }
  return *this;
}
HttpService::~HttpService() { stop(); }

std::uint16_t HttpService::port() const noexcept { return state_ && state_->server ? state_->server->port() : 0; }

std::string HttpService::url() const {
  if (!state_ || !state_->server) return {};
  return state_->server->base_url() + state_->options.path;
}

void HttpService::stop() {
  if (state_ && state_->server) state_->server->stop();
}

Result<HttpService> Server::serve_http(HttpServeOptions options) {
  if (options.unauthenticated_loopback && !detail::is_loopback_bind(options.bind_address)) {
    return fail(Errc::invalid_argument,
                "HttpServeOptions::unauthenticated_loopback needs a loopback bind_address, not '" +
                    options.bind_address + "'; set an api_key to serve other interfaces");
  }
  if (options.api_key.empty() && !options.unauthenticated_loopback) {
    return fail(Errc::invalid_argument,
                "MCP HTTP mode refuses to start without an API key; set HttpServeOptions::api_key");
  }
  if (options.path.empty() || options.path.front() != '/') return fail(Errc::invalid_argument, "the MCP path must start with '/'");
  auto state = std::make_unique<detail::HttpServiceState>();
  state->core = core_;
  state->options = options;
  http::ServerOptions http_options;
  http_options.bind_address = options.bind_address;
  http_options.port = options.port;
  http_options.max_body_bytes = options.max_body_bytes;
  // Handlers are bounded by the core's gate; long-lived streams need connections of their own.
  http_options.max_connections = core_->options().max_concurrent_handlers * 2;
  auto* raw = state.get();
  auto server = http::HttpServer::start(http_options, [raw](const http::ServerRequest& req, http::ResponseWriter& out) {
    raw->handle(req, out);
  });
  if (!server) return std::move(server).error();
  state->server.emplace(std::move(*server));
  return HttpService(std::move(state));
}

}  // namespace agentkit::mcp
