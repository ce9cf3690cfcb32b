// The shared state behind a Client and the tool handlers built from it.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <unordered_map>
#include <vector>

#include "agentkit/mcp/client.hpp"
#include "payloads.hpp"
#include "rpc_peer.hpp"

namespace agentkit::mcp::detail {

// One live connection: a peer plus what negotiation established.
struct Connection {
  std::shared_ptr<RpcPeer> peer;
  Era era = Era::legacy;
  std::string version;
  ServerCapabilities capabilities;
  std::string server_name;
  std::string server_version;
  std::string instructions;
  bool request_scoped = false;         // HTTP: one exchange per request
  // The id of the modern subscriptions/listen request (ours are positive integers; 0 = none).
  std::atomic<std::int64_t> listen_id{0};
  agentkit::jthread listener;               // runs the listen request (modern, when tools.listChanged)

  ~Connection();
};

struct ToolCache {
  std::vector<ToolInfo> tools;
  bool valid = false;
  std::optional<std::chrono::steady_clock::time_point> expires;  // nullopt: until list_changed
};

struct ClientState : std::enable_shared_from_this<ClientState> {
  ServerConfig config;
  ClientOptions options;
  std::shared_ptr<http::HttpTransport> http;

  mutable std::mutex mu;
  std::shared_ptr<Connection> connection;
  bool closed = false;
  int reconnects = 0;
  bool subscribed = false;  // a modern listen stream acknowledged toolsListChanged
  ToolCache tools;
  std::unordered_map<std::string, std::size_t> calls_per_session;
  std::vector<std::string> notes;
  std::mutex connect_mu;  // one (re)connection at a time
  // OAuth for an HTTP server, kept across reconnects (created with the first channel).
  std::shared_ptr<class OAuthSession> oauth;
  // CallControl::on_log of the calls in flight, by a registration number, with the id of the
  // request the call has on the wire (each input round sends a new one). Held while a sink runs,
  // so a call that has returned is never handed a log message afterwards.
  struct LogSinkEntry {
    CallControl::LogSink sink;
    std::optional<RequestId> request;  // none until the first request is sent
  };
  std::mutex log_mu;
  std::map<std::uint64_t, LogSinkEntry> log_sinks;  // guarded by log_mu
  std::uint64_t next_log_sink = 0;                  // guarded by log_mu

  ~ClientState();

  // Effective settings (per-server override, else the option).
  Negotiation negotiation() const { return config.negotiation.value_or(options.negotiation); }
  bool sampling_allowed() const { return config.allow_sampling.value_or(options.allow_sampling); }
  bool elicitation_allowed() const { return config.allow_elicitation.value_or(options.allow_elicitation); }
  std::size_t call_limit() const { return config.call_limit.value_or(options.call_limit); }
  std::chrono::milliseconds timeout() const { return config.request_timeout.value_or(options.request_timeout); }
  std::string label() const { return "MCP server '" + config.name + "'"; }

  void note(std::string text);
  void audit(AuditRecord record) const;
};

// Opens a connection and negotiates its era (client_connect.cpp).
Result<std::shared_ptr<Connection>> open_connection(const std::shared_ptr<ClientState>& state, agentkit::stop_token stop);
// The live connection, reconnecting within the budget when it died.
Result<std::shared_ptr<Connection>> live_connection(const std::shared_ptr<ClientState>& state, agentkit::stop_token stop);

// The params of a request in `conn`'s era: the modern `_meta` envelope added when modern.
// `log_level` non-empty: the modern envelope asks for log messages from that severity up.
json::Value with_envelope(const ClientState& state, const Connection& conn, json::Value params,
                          const std::string& log_level = {});
// The client capabilities this client declares (both eras use the same shape).
json::Value client_capabilities(const ClientState& state);
// Routing headers for a request in `conn`'s era.
HttpRouting routing_for(const Connection& conn, std::string_view method, const json::Value& params,
                        const ToolInfo* tool = nullptr);

struct RequestOptions {
  bool request_progress = false;                           // ask for progress; it resets the clock
  std::function<void(const json::Value&)> on_progress{};
  const ToolInfo* tool = nullptr;                          // for Mcp-Param-* headers
  std::optional<std::chrono::milliseconds> timeout{};      // default: the server's request timeout
  bool wait_forever = false;                               // subscriptions/listen
  std::function<void(const RequestId&)> on_sent{};
  std::string traceparent{};  // HTTP: sent as the traceparent header
  std::string log_level{};    // modern: the _meta logLevel asked for ("": no log messages)
};

// Sends one request on `conn` and waits: a modern HTTP exchange cut mid-stream is re-issued once
// with a new id (2026-07-28 has no resumption).
Result<CallReply> send_request(const ClientState& state, const Connection& conn, std::string method,
                               json::Value params, agentkit::stop_token stop, const RequestOptions& how = {});

struct InputRoundsReply {
  CallReply reply;  // the final answer: a complete result, or the server's error
  int rounds = 0;   // input_required rounds it took
};
// True for the methods a server may answer with input_required (tools/call, prompts/get,
// resources/read).
bool may_ask_for_input(std::string_view method);
// Sends `method` and answers its input_required rounds (2026-07-28): every input request through
// the embedder's providers, then the same params again with inputResponses and the byte-exact
// requestState, under a new id; at most max_input_rounds rounds. `what` names the request in
// errors ("tool 'x'").
Result<InputRoundsReply> send_with_input_rounds(const ClientState& state, const Connection& conn,
                                                std::string_view method, const json::Value& params,
                                                agentkit::stop_token stop,
                                                const RequestOptions& how, std::string_view what);

// Fulfils one input request (legacy server-to-client request, or a modern inputRequests entry).
Result<json::Value> fulfil_input(const ClientState& state, Era era, const std::string& method, const json::Value& params);

// Error for a JSON-RPC error answer.
Error peer_error(const ClientState& state, std::string_view method, const RpcError& error);

// A tool call with its audit record (REQ-OBS-05), for Client::call_tool and tool handlers.
Result<CallResult> call_tool_audited(const std::shared_ptr<ClientState>& state, std::string_view name,
                                     const json::Value& arguments, const CallControl& control);
Result<std::vector<ToolInfo>> list_tools_cached(const std::shared_ptr<ClientState>& state,
                                                agentkit::stop_token stop);

// Parses the x-mcp-header annotations of a tool; an error names why the tool must be dropped.
Result<std::vector<std::pair<std::string, std::string>>> header_params_of(const json::Value& input_schema);

}  // namespace agentkit::mcp::detail
