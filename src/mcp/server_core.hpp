// ServerCore: the era-neutral heart of the MCP server — the registries, request dispatch in either
// era, sealed cursors and request states, the handler gate and list_changed fan-out. The stdio
// and HTTP front ends (server_stdio.cpp, server_http.cpp) own the wire and the sessions.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/mcp/server.hpp"
#include "request_state.hpp"
#include "rpc_peer.hpp"

namespace agentkit::mcp::detail {

// Who is asking, for one inbound request, and how to reach them.
struct RequestScope {
  Era era = Era::legacy;
  std::string version;
  json::Value client_capabilities;
  std::optional<json::Value> progress_token;
  agentkit::stop_token stop;
  // Sends a notification about this request (progress): on stdio the connection, on HTTP this
  // exchange's event stream.
  std::function<void(std::string_view method, const json::Value& params)> notify;
  // Legacy only: a server-to-client request on the session, answered by the client.
  std::function<Result<CallReply>(std::string_view method, const json::Value& params, agentkit::stop_token stop)> ask_client;
  // Legacy only: the session (its log level and resource subscriptions).
  struct LegacySession* session = nullptr;
  // Modern only: the request's io.modelcontextprotocol/logLevel; none: no log messages.
  std::optional<LogLevel> log_level;
};

// What `initialize` established for a legacy session, and what the client set on it since.
struct LegacySession {
  std::string version;
  json::Value client_capabilities;
  std::atomic<bool> initialized{false};  // notifications/initialized arrived

  // logging/setLevel; none: every message is sent.
  void set_log_level(LogLevel level);
  bool wants_log(LogLevel level) const;
  // resources/subscribe and resources/unsubscribe.
  void subscribe(std::string uri);
  void unsubscribe(std::string_view uri);
  bool subscribed(std::string_view uri) const;

 private:
  mutable std::mutex mu_;
  std::optional<LogLevel> log_level_;
  std::vector<std::string> subscriptions_;
};

// The lists a change notification is about.
enum class ListKind : std::uint8_t { tools, resources, prompts };

// Receives list_changed fan-out (a legacy session, a modern listen stream).
class ChangeListener {
 public:
  virtual ~ChangeListener() = default;
  virtual void list_changed(ListKind kind) = 0;
  // Server::resource_updated: the listener decides whether its client subscribed to `uri`.
  virtual void resource_updated(std::string_view uri) { (void)uri; }
};

// A subscriptions/listen request's filter.
struct ListenFilter {
  bool tools = false;
  bool prompts = false;
  bool resources = false;
  std::vector<std::string> resource_subscriptions;
};

// Bounds the handlers running at once; waiting ones wake on their stop token.
class HandlerGate {
 public:
  explicit HandlerGate(std::size_t limit) : limit_(limit == 0 ? 1 : limit) {}
  bool enter(const agentkit::stop_token& stop);
  void leave();
  std::size_t running() const;

 private:
  const std::size_t limit_;
  mutable std::mutex mu_;
  agentkit::condition_variable_any cv_;
  std::size_t running_ = 0;
};

class ServerCore {
 public:
  explicit ServerCore(ServerOptions options);

  const ServerOptions& options() const noexcept { return options_; }
  HandlerGate& gate() noexcept { return gate_; }

  // ---- Registry --------------------------------------------------------------------------------
  Result<void> add_tool(ServerTool tool);
  bool remove_tool(std::string_view name);
  Result<void> add_resource(ServerResource resource);
  Result<void> add_resource_template(ServerResourceTemplate resource_template);
  bool remove_resource(std::string_view uri_or_template);
  Result<void> add_prompt(ServerPrompt prompt);
  bool remove_prompt(std::string_view name);
  // The input schema of a registered tool (null when there is none by that name).
  json::Value tool_input_schema(std::string_view name) const;
  // Fan-out targets; held weakly, dropped once gone.
  void add_listener(const std::shared_ptr<ChangeListener>& listener);
  // Tells every listener that `uri` changed (Server::resource_updated).
  void resource_updated(std::string_view uri);

  // ---- Classification ------------------------------------------------------------------------
  enum class Route : std::uint8_t { discover, modern, initialize, legacy };
  static Route route(std::string_view method, const json::Value& params);
  // Checks the modern envelope and fills `scope` (era, version, capabilities, progress token);
  // the error reply otherwise (-32602 for a bad envelope, -32022 for a version we do not speak).
  std::optional<Reply> admit_modern(const json::Value& params, RequestScope& scope) const;
  // Fills `scope` from a legacy session.
  static void admit_legacy(LegacySession& session, const json::Value& params, RequestScope& scope);
  // The reply to a request that is neither modern nor in a legacy session.
  Reply no_session_reply() const;

  // ---- Methods ---------------------------------------------------------------------------------
  Reply discover(const json::Value& params) const;
  // Answers initialize and fills `session`; with LegacyMode::reject, -32022 naming our versions.
  Reply initialize(const json::Value& params, LegacySession& session) const;
  // Every other request (not subscriptions/listen, which the front ends stream themselves). Every
  // successful modern-era result is decorated here, once, whichever path produced it.
  Reply dispatch(std::string_view method, const json::Value& params, RequestScope& scope);
  Result<ListenFilter> parse_listen(const json::Value& params) const;
  // The notifications/subscriptions/acknowledged params: what this server will honour.
  json::Value acknowledged(const ListenFilter& filter) const;

  // The HTTP status of a reply (2026-07-28 status mapping; legacy errors stay 200).
  static int http_status(const Reply& reply, Era era);
  static std::string_view list_changed_method(ListKind kind);

  std::size_t handlers_running() const { return gate_.running(); }

 private:
  struct ListEntry {
    std::string key;    // name, or URI / URI template
    json::Value json;   // the descriptor as listed
  };

  // dispatch() without the decoration.
  Reply answer(std::string_view method, const json::Value& params, RequestScope& scope);
  Reply list(std::string_view kind, const std::vector<ListEntry>& entries,
             const json::Value& params) const;
  Reply call_tool(const json::Value& params, RequestScope& scope);
  Reply read_resource(const json::Value& params, RequestScope& scope);
  Reply get_prompt(const json::Value& params, RequestScope& scope);
  Reply complete(const json::Value& params) const;
  // logging/setLevel, resources/subscribe and resources/unsubscribe (legacy sessions only).
  Reply session_method(std::string_view method, const json::Value& params,
                       RequestScope& scope) const;
  std::vector<std::shared_ptr<ChangeListener>> live_listeners();
  // What a handler's input rounds are bound to (tools/call, prompts/get, resources/read), and how
  // a round that cannot go on is reported.
  struct RoundTarget {
    std::string_view method;
    std::string name;       // the tool or prompt name, or the resource URI
    json::Value arguments;  // bound into the sealed requestState by digest
    std::string label;      // "tool 'x'", "prompt 'x'", "resource x:/y": for messages
    // A tool reports it as an isError result; a prompt or a read as a JSON-RPC error.
    std::function<Reply(std::string why)> failure;
  };
  struct SealedRound {
    int round = 0;
    std::optional<std::string> handler_state;
  };
  // After a handler answered `asked`: the reply that ends this request (modern: the
  // input_required result; or a failure), or nullopt once the client's answers are in `answers`
  // (legacy: the server asked them over the session) and `round` counts this one.
  std::optional<Reply> next_round(const InputRequired& asked, const RoundTarget& target,
                                  const RequestScope& scope, int& round,
                                  json::Object& answers) const;
  // A reply that ends the call instead of asking (a malformed input request, a capability the
  // request did not declare); nullopt when the round may proceed. Fills `requests`.
  std::optional<Reply> check_input_round(const InputRequired& asked, const RoundTarget& target,
                                         const RequestScope& scope, json::Object& requests) const;
  Reply input_required_reply(json::Object requests, const InputRequired& asked,
                             const RoundTarget& target, int round) const;
  std::optional<SealedRound> open_request_state(const std::string& token,
                                                const RoundTarget& target) const;
  // The modern era's result members: resultType (unless set), serverInfo, and for cacheable
  // methods ttlMs/cacheScope. Legacy results pass unchanged.
  json::Value decorate(json::Value result, Era era, bool cacheable) const;
  json::Value capabilities() const;
  std::vector<ListEntry> snapshot(ListKind kind) const;
  void notify_change(ListKind kind);

  ServerOptions options_;
  HandlerGate gate_;
  SealKey seal_key_;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const ServerTool>> tools_;
  std::vector<std::shared_ptr<const ServerResource>> resources_;
  std::vector<std::pair<UriTemplate, std::shared_ptr<const ServerResourceTemplate>>> templates_;
  std::vector<std::shared_ptr<const ServerPrompt>> prompts_;

  std::mutex listeners_mu_;
  std::vector<std::weak_ptr<ChangeListener>> listeners_;
};

// Adapts an agent tool definition to an MCP tool (Server::add_tools).
ServerTool server_tool_from(ToolDefinition definition);

}  // namespace agentkit::mcp::detail
