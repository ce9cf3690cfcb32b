// RpcPeer: one JSON-RPC 2.0 connection over a Channel, used by both the client and the server.
//
// Outbound requests are correlated by a type-tagged id under one lock (REQ-GO-06); each waits
// with a deadline that a progress notification for its token pushes back, and on timeout or stop
// is cancelled (notifications/cancelled and/or the channel abandoning its exchange). Inbound
// requests run concurrently on a bounded HandlerPool (64 by default, REQ-MCP-SERVER seed); a
// notifications/cancelled for one of them fires its stop token and suppresses its reply. The
// first malformed frame poisons the connection (REQ-SEC-11 (4)): pending calls fail, in-flight
// handlers are cancelled, nothing after it is dispatched.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <unordered_map>
#include <vector>

#include "agentkit/json/value.hpp"
#include "agentkit/mcp/jsonrpc.hpp"
#include "agentkit/wire/limits.hpp"
#include "channel.hpp"
#include "handler_pool.hpp"

namespace agentkit::mcp::detail {

// The answer to an outbound request: the peer's result or its error object.
struct CallReply {
  bool ok = false;
  json::Value result;   // ok
  RpcError error;       // !ok
};

struct CallSpec {
  std::string method;
  json::Value params;                                  // an object, or null for none
  std::optional<std::chrono::milliseconds> timeout;    // nullopt: wait until answered or stopped
  // Put `_meta.progressToken` (= the request id) in params; progress then resets the timeout.
  bool request_progress = false;
  std::function<void(const json::Value& progress_params)> on_progress;
  // On timeout or stop, send notifications/cancelled for the request (legacy; modern stdio).
  bool send_cancelled = true;
  HttpRouting routing;
  agentkit::stop_token stop;
  // Told the request's id just before it is sent.
  std::function<void(const RequestId&)> on_sent;
};

// What an inbound request's handler answers: a result, an error, or nothing (a cancelled
// request goes unanswered).
struct Reply {
  std::optional<json::Value> result;
  RpcError error;
  static Reply success(json::Value r) { return Reply{std::move(r), {}}; }
  static Reply failure(std::int64_t code, std::string message, std::optional<json::Value> data = std::nullopt) {
    return Reply{std::nullopt, RpcError{code, std::move(message), std::move(data)}};
  }
};

class RpcPeer;

struct InboundCall {
  RequestId id;
  std::string method;
  json::Value params;  // an object, or null when absent
  agentkit::stop_token stop;
  RpcPeer* peer = nullptr;
};

struct PeerHandlers {
  // Runs on a pool thread.
  std::function<Reply(const InboundCall&)> on_request;
  // Runs on the channel's reader thread; keep it short. `related`: the request the channel tied
  // the notification to (its response stream), or nullptr (ChannelSink::on_frame).
  std::function<void(const RpcMessage&, const RequestId* related)> on_notification;
  // The connection ended (EOF, I/O error, poisoning). Called once, on whichever thread saw it.
  std::function<void(const Error&)> on_closed;
  // Server role: the client closed its end (EOF). When set, EOF does not close the peer: pending
  // outbound calls fail (nobody will answer them), in-flight handlers keep running, and their
  // answers still go out; the owner drains, then closes.
  std::function<void()> on_input_end;
};

struct PeerOptions {
  std::size_t max_concurrent_requests = 64;
  // Requests queued beyond the running ones before new ones are refused (-32603): a bound on
  // what a flooding peer can make us hold.
  std::size_t max_queued_requests = 1024;
  wire::Limits limits;
  // Server behaviour: answer a rejected frame (-32700 / -32600) before acting on it, and survive a
  // frame that decoded but has a bad envelope. A client tears down on either (REQ-SEC-11 (4)).
  bool answer_malformed = false;
  bool survive_bad_envelope = false;
  // Used in error messages: "MCP server 'files'".
  std::string label = "MCP peer";
  // Methods answered on the reading thread, before the next frame is read: a server's
  // `initialize`, so a request pipelined right behind it already sees the session it creates.
  // Only for handlers that are quick and never wait on the peer.
  std::vector<std::string> inline_methods;
};

class RpcPeer : public std::enable_shared_from_this<RpcPeer> {
 public:
  static std::shared_ptr<RpcPeer> create(std::unique_ptr<Channel> channel, PeerHandlers handlers,
                                         PeerOptions options);
  ~RpcPeer();
  RpcPeer(const RpcPeer&) = delete;
  RpcPeer& operator=(const RpcPeer&) = delete;

  Result<void> start();
  // Sends a request and waits for its answer. Errc::timeout, Errc::cancelled, Errc::closed (the
  // connection ended; detail "reason"), Errc::io_error (the frame could not be sent).
  Result<CallReply> call(CallSpec spec);
  Result<void> notify(std::string_view method, const json::Value* params, HttpRouting routing = {});
  // Sends a frame as is (a response to a server-initiated request, a pre-encoded message).
  Result<void> send_raw(std::string text, HttpRouting routing = {});
  // Ends the wait of an outstanding call with `why` (the peer ended a listen stream by
  // notifications/cancelled instead of answering it).
  void fail_call(const RequestId& id, const Error& why) { on_request_lost(id, why); }

  // Waits for in-flight inbound handlers to finish and their answers to go out.
  void drain();
  // Cancels everything in flight (inbound handlers' stop tokens fire first), fails pending calls,
  // then joins the handler threads and closes the channel. Idempotent.
  void close();

  bool is_open() const;
  std::optional<Error> close_reason() const;
  std::string describe() const;
  Channel& channel() noexcept { return *channel_; }
  std::size_t handlers_running() const { return pool_.running(); }
  RequestId next_id() { return RequestId(next_id_.fetch_add(1)); }

 private:
  struct Pending;
  struct Inbound {
    agentkit::stop_source stop;
    bool suppressed = false;
  };

  RpcPeer(std::unique_ptr<Channel> channel, PeerHandlers handlers, PeerOptions options);

  bool on_frame(std::string_view frame, const RequestId* related);
  bool on_malformed(const Error& error);
  void on_response(RpcMessage msg);
  void on_notification(RpcMessage msg, const RequestId* related);
  void on_request(RpcMessage msg);
  void on_progress(const json::Value& params);
  void on_cancelled(const json::Value& params);
  void on_request_lost(const RequestId& id, const Error& why);
  void run_inbound(const RequestId& id, const std::string& method, json::Value params, agentkit::stop_token stop);
  // Marks the peer closed with `why`, fails pending calls and fires inbound stop tokens.
  // Answers whether this call was the one that closed it.
  bool mark_closed(Error why);
  void fail_pending(const Error& why);
  Result<CallReply> wait_for(const std::shared_ptr<Pending>& pending, const RequestId& id, const CallSpec& spec);
  void abandon(const RequestId& id, const CallSpec& spec, std::string_view reason);

  std::unique_ptr<Channel> channel_;
  PeerHandlers handlers_;
  PeerOptions options_;
  HandlerPool pool_;
  std::atomic<std::int64_t> next_id_{1};

  mutable std::mutex mu_;
  std::unordered_map<RequestId, std::shared_ptr<Pending>, RequestId::Hash> pending_;
  std::unordered_map<RequestId, std::shared_ptr<Inbound>, RequestId::Hash> inbound_;
  std::optional<Error> closed_;
  bool channel_closed_ = false;
  bool input_ended_ = false;
};

}  // namespace agentkit::mcp::detail
