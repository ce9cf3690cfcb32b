// The Server facade and its stdio front end: one connection, which may hold a legacy session
// (after initialize) and serve modern requests statelessly at the same time.
#include "agentkit/mcp/server.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>

#include "agentkit/base/condition_variable.hpp"
#include "payloads.hpp"
#include "server_core.hpp"
#include "stdio_channel.hpp"

namespace agentkit::mcp {

ServerToolResult ServerToolResult::text(std::string text) {
  ServerToolResult r;
  r.content.emplace_back(json::Object{{"type", "text"}, {"text", std::move(text)}});
  return r;
}

ServerToolResult ServerToolResult::error(std::string text) {
  ServerToolResult r = ServerToolResult::text(std::move(text));
  r.is_error = true;
  return r;
}

json::Value elicitation_request(std::string message, json::Value requested_schema) {
  json::Object params;
  params.append_unique("mode", "form");
  params.append_unique("message", std::move(message));
  params.append_unique("requestedSchema", std::move(requested_schema));
  return json::Value(json::Object{{"method", "elicitation/create"}, {"params", json::Value(std::move(params))}});
}

}  // namespace agentkit::mcp

namespace agentkit::mcp::detail {
namespace {

using detail::kListen, detail::kResourceUpdated;
constexpr std::string_view kAcknowledged = "notifications/subscriptions/acknowledged";
// Listen streams one stdio client may hold open; each occupies a handler thread (not a gate slot).
constexpr std::size_t kMaxListensPerConnection = 16;

json::Value tagged(const RequestId& subscription) {
  return json::Value(json::Object{{"_meta", json::Object{{std::string(meta_key::subscription_id), subscription.to_json()}}}});
}

bool wants(const ListenFilter& f, ListKind kind) {
  switch (kind) {
    case ListKind::tools: return f.tools;
    case ListKind::resources: return f.resources;
    case ListKind::prompts: return f.prompts;
  }
  return false;
}

// One stdio client.
class StdioConnection final : public ChangeListener {
 public:
  explicit StdioConnection(std::shared_ptr<ServerCore> core) : core_(std::move(core)) {}

  void attach(const std::shared_ptr<RpcPeer>& peer) {
    peer_ = peer.get();
    weak_peer_ = peer;
  }

  Reply handle(const InboundCall& call) {
    RequestScope scope;
    scope.stop = call.stop;
    scope.notify = [peer = peer_](std::string_view method, const json::Value& params) { (void)peer->notify(method, &params); };
    switch (ServerCore::route(call.method, call.params)) {
      case ServerCore::Route::discover:
        return core_->discover(call.params);
      case ServerCore::Route::initialize:
        return initialize(call.params);
      case ServerCore::Route::modern:
        if (auto refused = core_->admit_modern(call.params, scope)) return std::move(*refused);
        // Modern servers never write requests: no ask_client here.
        if (call.method == kListen) return listen(call);
        return core_->dispatch(call.method, call.params, scope);
      case ServerCore::Route::legacy:
        if (!has_session_.load()) return core_->no_session_reply();
        ServerCore::admit_legacy(session_, call.params, scope);
        scope.ask_client = [peer = peer_, timeout = core_->options().client_request_timeout](
                               std::string_view method, const json::Value& params, agentkit::stop_token stop) {
          CallSpec spec;
          spec.method = std::string(method);
          spec.params = params;
          spec.timeout = timeout;
          spec.stop = std::move(stop);
          return peer->call(std::move(spec));
        };
        return core_->dispatch(call.method, call.params, scope);
    }
    return Reply::failure(rpc_code::internal_error, "unroutable request");
  }

  void on_notification(const RpcMessage& msg) {
    if (msg.method == "notifications/initialized" && has_session_.load()) session_.initialized.store(true);
  }

  // list_changed goes to the legacy session once its handshake is complete, and to the modern
  // subscriptions that asked for this list — never to anyone else.
  void list_changed(ListKind kind) override {
    const std::string_view method = ServerCore::list_changed_method(kind);
    auto peer = weak_peer_.lock();  // the connection may be ending while a registration fans out
    if (!peer) return;
    if (has_session_.load() && session_.initialized.load()) (void)peer->notify(method, nullptr);
    std::vector<RequestId> targets;
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, filter] : listens_) {
        if (wants(filter, kind)) targets.push_back(id);
      }
    }
    for (const auto& id : targets) {
      json::Value params = tagged(id);
      (void)peer->notify(method, &params);
    }
  }

  // notifications/resources/updated to the legacy session if it subscribed to `uri`, and to the
  // modern subscriptions whose resourceSubscriptions name it.
  void resource_updated(std::string_view uri) override {
    auto peer = weak_peer_.lock();
    if (!peer) return;
    const json::Value plain(json::Object{{"uri", std::string(uri)}});
    if (has_session_.load() && session_.initialized.load() && session_.subscribed(uri)) {
      (void)peer->notify(kResourceUpdated, &plain);
    }
    std::vector<RequestId> targets;
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, filter] : listens_) {
        if (std::find(filter.resource_subscriptions.begin(), filter.resource_subscriptions.end(),
                      uri) != filter.resource_subscriptions.end()) {
          targets.push_back(id);
        }
      }
    }
    for (const auto& id : targets) {
      json::Value params = tagged(id);
      params["uri"] = std::string(uri);
      (void)peer->notify(kResourceUpdated, &params);
    }
  }

  // The client hung up: open listen streams end so the drain can finish.
  void end_listens() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    cv_.notify_all();
  }

 private:
  Reply initialize(const json::Value& params) {
    std::lock_guard lock(init_mu_);
    if (has_session_.load()) return Reply::failure(rpc_code::invalid_request, "this connection is already initialized");
    Reply reply = core_->initialize(params, session_);
    if (reply.result) has_session_.store(true);
    return reply;
  }

  Reply listen(const InboundCall& call) {
    auto filter = core_->parse_listen(call.params);
    if (!filter) return Reply::failure(rpc_code::invalid_params, "invalid subscriptions/listen params: " + filter.error().message);
    {
      std::lock_guard lock(mu_);
      if (listens_.size() >= kMaxListensPerConnection) {
        return Reply::failure(rpc_code::internal_error, "too many open subscriptions on this connection");
      }
      listens_.emplace_back(call.id, *filter);
    }
    json::Value ack = core_->acknowledged(*filter);
    ack["_meta"] = tagged(call.id)["_meta"];
    (void)peer_->notify(kAcknowledged, &ack);
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, call.stop, [&] { return closing_; });
      std::erase_if(listens_, [&](const auto& l) { return l.first == call.id; });
    }
    // A graceful end (the client hung up first): the final, empty SubscriptionsListenResult.
    json::Value result = tagged(call.id);
    result["resultType"] = "complete";
    return Reply::success(std::move(result));
  }

  std::shared_ptr<ServerCore> core_;
  RpcPeer* peer_ = nullptr;  // valid while handling (the peer runs the handlers)
  std::weak_ptr<RpcPeer> weak_peer_;
  LegacySession session_;
  std::atomic<bool> has_session_{false};
  std::mutex init_mu_;
  std::mutex mu_;
  agentkit::condition_variable_any cv_;
  bool closing_ = false;
  std::vector<std::pair<RequestId, ListenFilter>> listens_;
};

}  // namespace
}  // namespace agentkit::mcp::detail

namespace agentkit::mcp {

Server::Server(ServerOptions options) : core_(std::make_shared<detail::ServerCore>(std::move(options))) {}
Server::~Server() = default;
Server::Server(Server&&) noexcept = default;
Server& Server::operator=(Server&&) noexcept = default;

Result<void> Server::add_tool(ServerTool tool) { return core_->add_tool(std::move(tool)); }

Result<void> Server::add_tools(std::vector<ToolDefinition> tools) {
  for (auto& t : tools) {
    if (auto added = core_->add_tool(detail::server_tool_from(std::move(t))); !added) return added;
  }
  return {};
}

bool Server::remove_tool(std::string_view name) { return core_->remove_tool(name); }
Result<void> Server::add_resource(ServerResource resource) { return core_->add_resource(std::move(resource)); }
Result<void> Server::add_resource_template(ServerResourceTemplate t) { return core_->add_resource_template(std::move(t)); }
bool Server::remove_resource(std::string_view uri_or_template) { return core_->remove_resource(uri_or_template); }
Result<void> Server::add_prompt(ServerPrompt prompt) { return core_->add_prompt(std::move(prompt)); }
bool Server::remove_prompt(std::string_view name) { return core_->remove_prompt(name); }
std::size_t Server::handlers_running() const { return core_->handlers_running(); }
void Server::resource_updated(std::string_view uri) { core_->resource_updated(uri); }

Result<void> Server::serve_stdio(agentkit::stop_token stop, int in_fd, int out_fd) {
  auto conn = std::make_shared<detail::StdioConnection>(core_);
  std::mutex m;
  agentkit::condition_variable_any cv;
  bool input_ended = false;
  std::optional<Error> broken;

  detail::PeerHandlers handlers;
  handlers.on_request = [conn](const detail::InboundCall& call) { return conn->handle(call); };
  handlers.on_notification = [conn](const RpcMessage& msg, const RequestId*) {
    conn->on_notification(msg);
  };
  handlers.on_closed = [&](const Error& why) {
    std::lock_guard lock(m);
    broken = why;
    cv.notify_all();
  };
  handlers.on_input_end = [&] {
    std::lock_guard lock(m);
    input_ended = true;
    cv.notify_all();
  };
  detail::PeerOptions options;
  options.label = "MCP client";
  options.answer_malformed = true;
  options.survive_bad_envelope = true;
  options.max_concurrent_requests = core_->options().max_concurrent_handlers + 16;
  options.inline_methods = {"initialize"};  // a request pipelined behind it must see the session
  auto peer = detail::RpcPeer::create(detail::make_fd_channel(in_fd, out_fd, false), std::move(handlers), options);
  conn->attach(peer);
  core_->add_listener(conn);
  if (auto started = peer->start(); !started) return started;

  std::unique_lock lock(m);
  cv.wait(lock, stop, [&] { return input_ended || broken.has_value(); });
  const bool drain = input_ended && !stop.stop_requested();
  lock.unlock();
  conn->end_listens();
  if (drain) peer->drain();  // answers to requests already received still go out
  peer->close();             // a stop cancels in-flight handlers before waiting for them
  lock.lock();
  if (broken && broken->code == Errc::protocol_error) return *broken;
  return {};
}

}  // namespace agentkit::mcp
