// Connecting a client: the transport (reduced environment, interpolated secrets), the era
// negotiation (server/discover probe, initialize fallback), and the modern listen stream.
#include <condition_variable>
#include <cstdlib>
#include <span>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/mcp/config.hpp"
#include "client_state.hpp"
#include "http_channel.hpp"
#include "sse_channel.hpp"
#include "stdio_channel.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr std::string_view kDiscover = "server/discover";
constexpr std::string_view kInitialize = "initialize";
constexpr std::string_view kInitialized = "notifications/initialized";
using detail::kListen;
// A listen stream that ends with an error is re-opened after this pause, at most this many times.
constexpr std::chrono::milliseconds kRelistenPause{1000};
constexpr int kMaxRelistens = 3;

std::optional<std::string> read_env(const ClientOptions& options, std::string_view name) {
  if (options.getenv) return options.getenv(name);
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Error config_error(const ClientState& state, std::string message) {
  return make_error(Errc::invalid_argument, state.label() + ": " + std::move(message)).with_detail("server", state.config.name);
}

// Resolves ${VAR}; a missing variable is a configuration error naming the server and the field.
Result<std::string> resolve(const ClientState& state, std::string_view text, std::string_view field) {
  auto out = interpolate(text, [&](std::string_view n) { return read_env(state.options, n); });
  if (!out) {
    Error e = config_error(state, std::string(field) + ": " + out.error().message);
    for (const auto& d : out.error().detail) e.with_detail(d.key, d.value);
    return e;
  }
  return out;
}

bool has_control_byte(std::string_view value) {
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7F) return true;
  }
  return false;
}

// The child's whole environment: named variables inherited from ours, then the configured ones
// (REQ-MCP-CLIENT-10: a third-party server never sees our provider keys).
Result<std::vector<std::string>> child_environment(const ClientState& state, const StdioLaunch& launch) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& name : state.options.inherited_environment) {
    if (auto v = read_env(state.options, name)) env.emplace_back(name, *v);
  }
  for (const auto& [name, raw] : launch.env) {
    auto value = resolve(state, raw, "env " + name);
    if (!value) return std::move(value).error();
    bool replaced = false;
    for (auto& kv : env) {
      if (kv.first == name) {
        kv.second = *value;
        replaced = true;
      }
    }
    if (!replaced) env.emplace_back(name, std::move(*value));
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

Result<std::unique_ptr<Channel>> stdio_channel(const std::shared_ptr<ClientState>& state, const StdioLaunch& launch) {
  ChildLaunch child;
  auto command = resolve(*state, launch.command, "command");
  if (!command) return std::move(command).error();
  child.command = std::move(*command);
  for (const auto& a : launch.args) {
    auto arg = resolve(*state, a, "args");
    if (!arg) return std::move(arg).error();
    child.args.push_back(std::move(*arg));
  }
  auto cwd = resolve(*state, launch.working_directory, "working_directory");
  if (!cwd) return std::move(cwd).error();
  child.working_directory = std::move(*cwd);
  auto env = child_environment(*state, launch);
  if (!env) return std::move(env).error();
  child.environment = std::move(*env);
  child.shutdown_grace = state->options.shutdown_grace;
  if (state->options.on_stderr) {
    child.on_stderr = [sink = state->options.on_stderr, name = state->config.name](std::string_view line) {
      sink(name, line);
    };
  }
  return make_child_channel(std::move(child));
}

// OAuth runs for a server with settings, or for every HTTP server once the embedder says how the
// user logs in. One session per client, so tokens survive reconnects.
std::shared_ptr<OAuthSession> oauth_session(const std::shared_ptr<ClientState>& state,
                                            const std::optional<OAuthSettings>& settings,
                                            const std::string& url) {
  if (!settings && !state->options.authorize) return nullptr;
  std::lock_guard lock(state->mu);
  if (state->oauth) return state->oauth;
  OAuthContext context;
  context.server = state->config.name;
  context.label = state->label();
  context.resource_url = url;
  context.settings = settings.value_or(OAuthSettings{});
  context.authorize = state->options.authorize;
  context.store = state->options.tokens;
  context.transport = state->http;
  context.refresh_margin = state->options.refresh_margin;
  context.max_step_ups = state->options.max_step_ups;
  context.note = [weak = std::weak_ptr<ClientState>(state)](std::string text) {
    if (auto s = weak.lock()) s->note(std::move(text));
  };
  state->oauth = std::make_shared<OAuthSession>(std::move(context));
  return state->oauth;
}

Result<std::unique_ptr<Channel>> http_channel(const std::shared_ptr<ClientState>& state, const HttpTarget& target) {
  auto url = resolve(*state, target.url, "url");
  if (!url) return std::move(url).error();
  auto parsed = http::parse_url(*url);
  if (!parsed) return config_error(*state, "url '" + *url + "' is not an http:// or https:// URL: " + parsed.error().message);
  HttpEndpoint endpoint;
  endpoint.url = std::move(*url);
  endpoint.transport = state->http;
  for (const auto& [name, raw] : target.headers) {
    auto value = interpolate(raw, [&](std::string_view n) { return read_env(state->options, n); });
    // A header whose secret is unset is dropped, never sent as "Bearer " (seed test list).
    if (!value || trim_ows(*value).empty()) {
      state->note("header '" + name + "' resolved to nothing and was not sent");
      continue;
    }
    if (has_control_byte(*value) || has_control_byte(name)) {
      return config_error(*state, "header '" + name + "' holds a control byte after interpolation; refusing to send it "
                                  "(a CR or LF would inject headers)");
    }
    endpoint.headers.add(name, std::move(*value));
  }
  std::optional<OAuthSettings> oauth = target.oauth;
  if (oauth) {
    // Like header values, a client secret may be a ${VAR} reference, resolved only now.
    auto secret = resolve(*state, oauth->client_secret, "oauth clientSecret");
    if (!secret) return std::move(secret).error();
    oauth->client_secret = std::move(*secret);
  }
  endpoint.oauth = oauth_session(state, oauth, endpoint.url);
  if (target.kind == HttpKind::sse) return make_sse_channel(std::move(endpoint), state->timeout());
  return make_http_channel(std::move(endpoint));
}

Result<std::unique_ptr<Channel>> make_channel(const std::shared_ptr<ClientState>& state) {
  if (const auto* launch = std::get_if<StdioLaunch>(&state->config.transport)) return stdio_channel(state, *launch);
  return http_channel(state, std::get<HttpTarget>(state->config.transport));
}

// ---- Inbound traffic ----------------------------------------------------------------------------

Reply on_server_request(const std::weak_ptr<ClientState>& weak, const InboundCall& call) {
  auto state = weak.lock();
  if (!state) return Reply::failure(rpc_code::internal_error, "client is closing");
  if (call.method == "ping") return Reply::success(json::Value(json::Object{}));
  if (call.method == "sampling/createMessage" || call.method == "elicitation/create" || call.method == "roots/list") {
    auto answer = fulfil_input(*state, Era::legacy, call.method, call.params);
    if (!answer) return Reply::failure(rpc_code::method_not_found, answer.error().message);
    return Reply::success(std::move(*answer));
  }
  return Reply::failure(rpc_code::method_not_found, "Method not found: " + call.method);
}

// A log message goes to the call whose request the channel tied it to (over Streamable HTTP, the
// request whose response stream carried it), and to nobody else; one that nothing ties to a
// request (stdio, HTTP+SSE, the standalone GET stream: the protocol's log message names no
// request) goes to every call in flight that asked for them (CallControl::on_log).
void deliver_log(ClientState& state, const json::Value& params, const RequestId* related) {
  const json::Value* level = params.find("level");
  const json::Value* logger = params.find("logger");
  const json::Value* data = params.find("data");
  if (level == nullptr || !level->is_string()) return;
  const std::string_view name =
      logger && logger->is_string() ? std::string_view(logger->as_string()) : std::string_view();
  const json::Value none;
  std::lock_guard lock(state.log_mu);
  for (const auto& [id, entry] : state.log_sinks) {
    if (related != nullptr && entry.request != *related) continue;
    entry.sink(level->as_string(), name, data ? *data : none);
  }
}

void on_server_notification(const std::weak_ptr<ClientState>& weak,
                            const std::weak_ptr<Connection>& weak_conn, const RpcMessage& msg,
                            const RequestId* related) {
  auto state = weak.lock();
  if (!state) return;
  const json::Value params = msg.params.value_or(json::Value());
  if (msg.method == "notifications/tools/list_changed") {
    std::lock_guard lock(state->mu);
    state->tools.valid = false;
  } else if (msg.method == "notifications/subscriptions/acknowledged") {
    const json::Value* filter = params.find("notifications");
    const json::Value* tools = filter ? filter->find("toolsListChanged") : nullptr;
    std::lock_guard lock(state->mu);
    state->subscribed = tools && tools->get_bool() == std::optional<bool>(true);
  } else if (msg.method == "notifications/message") {
    deliver_log(*state, params, related);
  } else if (msg.method == "notifications/cancelled") {
    // A server shutting down ends our listen stream this way (2026-07-28 stdio).
    auto conn = weak_conn.lock();
    const json::Value* id = params.find("requestId");
    const std::int64_t listen_id = conn ? conn->listen_id.load() : 0;
    if (listen_id != 0 && id != nullptr) {
      if (auto rid = RequestId::from_json(*id); rid && *rid == RequestId(listen_id)) {
        {
          std::lock_guard lock(state->mu);
          state->subscribed = false;
        }
        conn->peer->fail_call(*rid, make_error(Errc::closed, state->label() + " ended the subscription"));
      }
    }
  }
  if (state->options.on_notification) state->options.on_notification(state->config.name, msg.method, params);
}

// ---- Negotiation --------------------------------------------------------------------------------

enum class ProbeOutcome { modern, legacy, died };

void sleep_unless_stopped(std::chrono::milliseconds pause, const agentkit::stop_token& stop) {
  std::mutex m;
  agentkit::condition_variable_any cv;
  std::unique_lock lock(m);
  (void)cv.wait_for(lock, stop, pause, [] { return false; });
}

std::string version_list(std::span<const std::string_view> versions) {
  std::string out;
  for (auto v : versions) out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

bool lists_version(const json::Value* supported, std::string_view version) {
  if (supported == nullptr || !supported->is_array()) return false;
  for (const auto& v : supported->as_array()) {
    if (v.get_string() == std::optional<std::string_view>(version)) return true;
  }
  return false;
}

void adopt_discovery(Connection& conn, const DiscoverResult& found) {
  conn.era = Era::modern;
  conn.version = std::string(kModernVersion);
  conn.capabilities = found.capabilities;
  conn.instructions = found.instructions.value_or("");
  if (found.server_info) {
    conn.server_name = found.server_info->name;
    conn.server_version = found.server_info->version;
  }
  if (found.meta) {
    if (const json::Value* info = found.meta->find(meta_key::server_info)) {
      if (auto bound = wire::bind<ImplementationInfo>(*info, wire::UnknownFields::tolerate)) {
        conn.server_name = bound->name;
        conn.server_version = bound->version;
      }
    }
  }
}

Result<ProbeOutcome> probe(ClientState& state, Connection& conn, bool stdio, agentkit::stop_token stop) {
  const bool automatic = state.negotiation() == Negotiation::automatic;
  conn.era = Era::modern;  // the probe itself carries the envelope
  conn.version = std::string(kModernVersion);
  RequestOptions how;
  if (stdio && automatic) how.timeout = state.options.probe_timeout;
  auto reply = send_request(state, conn, std::string(kDiscover), json::Value(json::Object{}), stop, how);
  // -32022 whose `supported` names the very version we sent: pick it from the list and retry
  // once, as the specification asks of a client (the rejection said nothing else to act on).
  if (reply && !reply->ok && reply->error.code == rpc_code::unsupported_protocol_version &&
      lists_version(reply->error.data ? reply->error.data->find("supported") : nullptr,
                    kModernVersion)) {
    state.note("server/discover answered -32022 yet lists " + std::string(kModernVersion) +
               "; retried once");
    reply =
        send_request(state, conn, std::string(kDiscover), json::Value(json::Object{}), stop, how);
  }
  if (!reply) {
    const Error& e = reply.error();
    if (e.code == Errc::timeout && stdio) {
      state.note("server/discover got no answer within " + std::to_string(state.options.probe_timeout.count()) +
                 " ms; taking silence as a legacy server");
      return ProbeOutcome::legacy;
    }
    if (e.code == Errc::closed && stdio) {
      state.note("the server exited when probed with server/discover");
      return ProbeOutcome::died;
    }
    if (e.code == Errc::protocol_error && e.find_detail("http_status")) {
      state.note("server/discover was refused at the HTTP level (" + e.message + "); taking it as a legacy server");
      return ProbeOutcome::legacy;
    }
    return e;
  }
  if (!reply->ok) {
    const RpcError& err = reply->error;
    const json::Value* supported = err.data ? err.data->find("supported") : nullptr;
    if (err.code == rpc_code::unsupported_protocol_version && !lists_version(supported, kModernVersion)) {
      bool any_legacy = false;
      for (auto v : kLegacyVersions) any_legacy = any_legacy || lists_version(supported, v);
      if (!any_legacy) {
        return make_error(Errc::unsupported, state.label() + " speaks none of our versions (" +
                                                 version_list(kModernVersions) + ", " + version_list(kLegacyVersions) +
                                                 "); it answered: " + err.message);
      }
    }
    state.note("server/discover answered " + std::to_string(err.code) + " (" + err.message + "): not a modern server");
    return ProbeOutcome::legacy;
  }
  auto found = wire::bind<DiscoverResult>(reply->result, wire::UnknownFields::reject);
  if (!found) {
    return make_error(Errc::protocol_error, state.label() + " sent a server/discover result that breaks the protocol: " +
                                                found.error().message);
  }
  bool speaks_modern = false;
  for (const auto& v : found->supported_versions) speaks_modern = speaks_modern || v == kModernVersion;
  if (!speaks_modern) {
    state.note("server/discover lists no modern version we speak; using the initialize handshake");
    return ProbeOutcome::legacy;
  }
  adopt_discovery(conn, *found);
  state.note("server/discover answered; speaking " + std::string(kModernVersion) + " (modern era)");
  return ProbeOutcome::modern;
}

Result<void> initialize(ClientState& state, Connection& conn, agentkit::stop_token stop) {
  conn.era = Era::legacy;
  conn.version.clear();  // no MCP-Protocol-Version header before the handshake
  json::Object params;
  params.append_unique("protocolVersion", std::string(kLegacyVersion));
  params.append_unique("capabilities", client_capabilities(state));
  params.append_unique("clientInfo", state.options.client_info.to_json());
  auto reply = send_request(state, conn, std::string(kInitialize), json::Value(std::move(params)), stop);
  if (!reply) return std::move(reply).error();
  if (!reply->ok) return peer_error(state, kInitialize, reply->error);
  auto result = wire::bind<InitializeResult>(reply->result, wire::UnknownFields::reject);
  if (!result) {
    return make_error(Errc::protocol_error,
                      state.label() + " sent an initialize result that breaks the protocol: " + result.error().message);
  }
  if (era_of(result->protocol_version) != Era::legacy) {
    return make_error(Errc::unsupported, state.label() + " answered initialize with protocol version '" +
                                             result->protocol_version + "', which this client does not speak (" +
                                             version_list(kLegacyVersions) + ")");
  }
  conn.version = result->protocol_version;
  conn.capabilities = result->capabilities;
  conn.server_name = result->server_info.name;
  conn.server_version = result->server_info.version;
  conn.instructions = result->instructions.value_or("");
  HttpRouting routing;
  routing.protocol_version = conn.version;
  if (auto sent = conn.peer->notify(kInitialized, nullptr, routing); !sent) return sent;
  state.note("initialize negotiated " + conn.version + " (legacy era)");
  return {};
}

// Builds the listen request while holding the state, so the wait itself holds no strong reference:
// the state owns this connection, and a listener keeping the state alive would never let it close.
std::optional<CallSpec> listen_spec(const std::weak_ptr<ClientState>& weak, Connection* conn, agentkit::stop_token stop) {
  auto state = weak.lock();
  if (!state) return std::nullopt;
  json::Value params(json::Object{{"notifications", json::Object{{"toolsListChanged", true}}}});
  CallSpec spec;
  spec.method = std::string(kListen);
  spec.params = with_envelope(*state, *conn, std::move(params));
  spec.routing = routing_for(*conn, kListen, spec.params);
  spec.send_cancelled = !conn->request_scoped;  // stdio ends a listen with notifications/cancelled
  spec.stop = std::move(stop);
  spec.on_sent = [conn](const RequestId& id) { conn->listen_id.store(id.is_number() ? id.number() : 0); };
  return spec;
}

void listen_for_changes(std::weak_ptr<ClientState> weak, Connection* conn, agentkit::stop_token stop) {
  for (int attempt = 0; attempt <= kMaxRelistens && !stop.stop_requested(); ++attempt) {
    auto spec = listen_spec(weak, conn, stop);
    if (!spec) return;
    auto reply = conn->peer->call(std::move(*spec));  // waits as long as the subscription lasts
    auto state = weak.lock();
    if (!state) return;
    {
      std::lock_guard lock(state->mu);
      state->subscribed = false;
      state->tools.valid = false;  // whatever we missed while not subscribed
    }
    if (reply && !reply->ok && reply->error.code == rpc_code::method_not_found) {
      state->note("the server does not offer subscriptions/listen; the tool list follows the ttlMs hint");
      return;
    }
    if (!conn->peer->is_open() || stop.stop_requested()) return;
    if (reply && reply->ok) return;  // the server ended the subscription gracefully
    state.reset();
    sleep_unless_stopped(kRelistenPause, stop);
  }
}

Result<std::shared_ptr<Connection>> start_peer(const std::shared_ptr<ClientState>& state) {
  auto channel = make_channel(state);
  if (!channel) return std::move(channel).error();
  auto conn = std::make_shared<Connection>();
  conn->request_scoped = (*channel)->request_scoped();
  std::weak_ptr<ClientState> weak = state;
  std::weak_ptr<Connection> weak_conn = conn;
  PeerHandlers handlers;
  handlers.on_request = [weak](const InboundCall& call) { return on_server_request(weak, call); };
  handlers.on_notification = [weak, weak_conn](const RpcMessage& msg, const RequestId* related) {
    on_server_notification(weak, weak_conn, msg, related);
  };
  PeerOptions options;
  options.label = state->label();
  conn->peer = RpcPeer::create(std::move(*channel), std::move(handlers), std::move(options));
  if (auto started = conn->peer->start(); !started) return std::move(started).error();
  return conn;
}

}  // namespace

Connection::~Connection() {
  if (listener.joinable()) {
    listener.request_stop();
    listener.join();
  }
  if (peer) peer->close();
}

Result<std::shared_ptr<Connection>> open_connection(const std::shared_ptr<ClientState>& state, agentkit::stop_token stop) {
  const bool stdio = std::holds_alternative<StdioLaunch>(state->config.transport);
  const auto* target = std::get_if<HttpTarget>(&state->config.transport);
  // The HTTP+SSE transport predates the modern era: its servers only know initialize.
  const bool sse = target != nullptr && target->kind == HttpKind::sse;
  bool skip_probe = state->negotiation() == Negotiation::legacy || sse;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto conn = start_peer(state);
    if (!conn) return conn;
    auto& c = **conn;
    if (!skip_probe) {
      auto outcome = probe(*state, c, stdio, stop);
      if (!outcome) return std::move(outcome).error();
      if (*outcome == ProbeOutcome::modern) {
        if (c.capabilities.tools && c.capabilities.tools->list_changed.value_or(false)) {
          c.listener = agentkit::jthread([weak = std::weak_ptr<ClientState>(state), raw = &c](agentkit::stop_token st) {
            listen_for_changes(weak, raw, st);
          });
        }
        return conn;
      }
      if (state->negotiation() == Negotiation::modern) {
        return make_error(Errc::unsupported, state->label() + " does not speak " + std::string(kModernVersion) +
                                                 " and the client is pinned to the modern era; use automatic or "
                                                 "legacy negotiation for this server");
      }
      if (*outcome == ProbeOutcome::died) {
        skip_probe = true;  // respawn once and go straight to initialize
        continue;
      }
    }
    if (auto ok = initialize(*state, c, stop); !ok) return std::move(ok).error();
    return conn;
  }
  return make_error(Errc::io_error, state->label() + " exited twice while connecting");
}

Result<std::shared_ptr<Connection>> live_connection(const std::shared_ptr<ClientState>& state, agentkit::stop_token stop) {
  {
    std::lock_guard lock(state->mu);
    if (state->closed) return fail(Errc::closed, state->label() + " was closed");
    if (state->connection && state->connection->peer->is_open()) return state->connection;
  }
  std::lock_guard connecting(state->connect_mu);
  std::shared_ptr<Connection> dead;
  {
    std::lock_guard lock(state->mu);
    if (state->closed) return fail(Errc::closed, state->label() + " was closed");
    if (state->connection && state->connection->peer->is_open()) return state->connection;
    if (state->reconnects >= state->options.reconnect_limit) {
      std::string why = state->connection ? state->connection->peer->close_reason().value_or(Error{}).message : "";
      return make_error(Errc::closed, state->label() + " is down and its " + std::to_string(state->options.reconnect_limit) +
                                          " reconnects are spent (last failure: " + why + ")")
          .with_detail("server", state->config.name);
    }
    ++state->reconnects;
    dead = std::move(state->connection);
  }
  dead.reset();  // reaps the dead child before starting another
  state->note("reconnecting (" + std::to_string(state->reconnects) + " of " +
              std::to_string(state->options.reconnect_limit) + ")");
  auto conn = open_connection(state, stop);
  if (!conn) return conn;
  std::lock_guard lock(state->mu);
  state->connection = *conn;
  state->tools.valid = false;
  return *conn;
}

}  // namespace agentkit::mcp::detail
