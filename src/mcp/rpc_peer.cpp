#include "rpc_peer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <utility>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/mcp/protocol.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr std::string_view kProgress = "notifications/progress";
constexpr std::string_view kCancelled = "notifications/cancelled";

json::Value with_progress_token(json::Value params, const RequestId& token) {
  if (!params.is_object()) params = json::Value(json::Object{});
  json::Value& meta = params["_meta"];
  if (!meta.is_object()) meta = json::Value(json::Object{});
  meta.as_object().set(std::string(meta_key::progress_token), token.to_json());
  return params;
}

std::string encode_reply(const RequestId& id, const Reply& reply) {
  if (reply.result) return encode_result(id, *reply.result);
  return encode_error(id, reply.error);
}

// How long a caller watches for its reply before sleeping on the condition variable.
constexpr std::chrono::microseconds kReplyLinger{50};

}  // namespace

struct RpcPeer::Pending {
  agentkit::condition_variable_any cv;
  bool done = false;
  // `done` for a caller lingering before it sleeps (read without mu_); set together with it.
  std::atomic<bool> settled{false};
  std::optional<CallReply> reply;
  std::optional<Error> failure;
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  bool progress_resets = false;
  std::function<void(const json::Value&)> on_progress;
};

std::shared_ptr<RpcPeer> RpcPeer::create(std::unique_ptr<Channel> channel, PeerHandlers handlers,
                                         PeerOptions options) {
  return std::shared_ptr<RpcPeer>(new RpcPeer(std::move(channel), std::move(handlers), std::move(options)));
}

RpcPeer::RpcPeer(std::unique_ptr<Channel> channel, PeerHandlers handlers, PeerOptions options)
    : channel_(std::move(channel)),
      handlers_(std::move(handlers)),
      options_(std::move(options)),
      pool_(options_.max_concurrent_requests, options_.max_queued_requests) {}

RpcPeer::~RpcPeer() { close(); }

Result<void> RpcPeer::start() {
  ChannelSink sink;
  sink.on_frame = [this](std::string_view frame, const RequestId* related) {
    return on_frame(frame, related);
  };
  sink.on_close = [this](const Error& why) {
    if (handlers_.on_input_end && why.code == Errc::closed) {
      fail_pending(why);
      handlers_.on_input_end();
      return;
    }
    if (mark_closed(why) && handlers_.on_closed) handlers_.on_closed(why);
  };
  sink.on_frame_error = [this](const Error& why) { (void)on_malformed(why); };
  sink.on_request_lost = [this](const RequestId& id, const Error& why) { on_request_lost(id, why); };
  return channel_->open(std::move(sink));
}

std::string RpcPeer::describe() const { return channel_->describe(); }

bool RpcPeer::is_open() const {
  std::lock_guard lock(mu_);
  return !closed_.has_value();
}

std::optional<Error> RpcPeer::close_reason() const {
  std::lock_guard lock(mu_);
  return closed_;
}

Result<CallReply> RpcPeer::call(CallSpec spec) {
  const RequestId id = next_id();
  json::Value params = spec.request_progress ? with_progress_token(std::move(spec.params), id) : std::move(spec.params);
  auto pending = std::make_shared<Pending>();
  pending->timeout = spec.timeout;
  if (spec.timeout) pending->deadline = std::chrono::steady_clock::now() + *spec.timeout;
  pending->progress_resets = spec.request_progress;
  pending->on_progress = spec.on_progress;
  {
    std::lock_guard lock(mu_);
    if (closed_) {
      return make_error(Errc::closed, options_.label + " is disconnected: " + closed_->message)
          .with_detail("reason", closed_->message);
    }
    if (input_ended_) return make_error(Errc::closed, options_.label + " closed its end; nothing can be answered");
    pending_.emplace(id, pending);
  }
  if (spec.on_sent) spec.on_sent(id);
  OutboundFrame frame{encode_request(id, spec.method, params.is_null() ? nullptr : &params), id, spec.routing};
  if (auto sent = channel_->send(std::move(frame), spec.stop); !sent) {
    std::lock_guard lock(mu_);
    pending_.erase(id);
    return std::move(sent).error();
  }
  return wait_for(pending, id, spec);
}

Result<CallReply> RpcPeer::wait_for(const std::shared_ptr<Pending>& pending, const RequestId& id,
                                    const CallSpec& spec) {
  // A reply usually comes back within microseconds; waking a sleeping thread on a virtual machine
  // with idle cores costs tens of them. Watch briefly before sleeping.
  const auto linger_until = std::chrono::steady_clock::now() + kReplyLinger;
  while (!pending->settled.load(std::memory_order_acquire) && !spec.stop.stop_requested() &&
         std::chrono::steady_clock::now() < linger_until) {
    std::this_thread::yield();
  }
  std::unique_lock lock(mu_);
  const auto answered = [&] { return pending->done; };
  std::optional<Errc> gave_up;
  while (!pending->done) {
    if (pending->timeout) {
      // A copy: the wait reads its deadline while our lock is released, when on_progress may move it.
      const auto deadline = pending->deadline;
      pending->cv.wait_until(lock, spec.stop, deadline, answered);
    } else {
      pending->cv.wait(lock, spec.stop, answered);
    }
    if (pending->done) break;
    if (spec.stop.stop_requested()) {
      gave_up = Errc::cancelled;
      break;
    }
    // A progress notification may have moved the deadline while we slept.
    if (pending->timeout && std::chrono::steady_clock::now() >= pending->deadline) {
      gave_up = Errc::timeout;
      break;
    }
  }
  if (gave_up) {
    pending_.erase(id);
    lock.unlock();
    const bool timed_out = *gave_up == Errc::timeout;
    abandon(id, spec, timed_out ? "timeout" : "cancelled by the caller");
    if (timed_out) {
      return make_error(Errc::timeout, spec.method + " to " + options_.label + " got no answer within " +
                                           std::to_string(spec.timeout->count()) +
                                           " ms (progress resets the clock); raise the timeout or check the server")
          .with_detail("method", spec.method);
    }
    return make_error(Errc::cancelled, spec.method + " to " + options_.label + " was cancelled");
  }
  if (pending->failure) return *pending->failure;
  return std::move(*pending->reply);
}

void RpcPeer::abandon(const RequestId& id, const CallSpec& spec, std::string_view reason) {
  if (spec.send_cancelled) {
    json::Value params(json::Object{{"requestId", id.to_json()}, {"reason", std::string(reason)}});
    (void)notify(kCancelled, &params,
                 HttpRouting{spec.routing.protocol_version, std::string(kCancelled), {}, {}, {}});
  }
  channel_->abandon(id);
}

Result<void> RpcPeer::notify(std::string_view method, const json::Value* params, HttpRouting routing) {
  return send_raw(encode_notification(method, params), std::move(routing));
}

Result<void> RpcPeer::send_raw(std::string text, HttpRouting routing) {
  {
    std::lock_guard lock(mu_);
    if (channel_closed_) return fail(Errc::closed, options_.label + " is closed");
  }
  return channel_->send(OutboundFrame{std::move(text), std::nullopt, std::move(routing)}, {});
}

bool RpcPeer::on_frame(std::string_view frame, const RequestId* related) {
  auto msg = parse_message(frame, options_.limits);
  if (!msg) return on_malformed(msg.error());
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;  // nothing after poisoning is dispatched
  }
  switch (msg->kind) {
    case MessageKind::result:
    case MessageKind::error:
      on_response(std::move(*msg));
      break;
    case MessageKind::notification: on_notification(std::move(*msg), related); break;
    case MessageKind::request:
      on_request(std::move(*msg));
      break;
  }
  return true;
}

bool RpcPeer::on_malformed(const Error& error) {
  const bool undecodable = error.find_detail("rpc_code") == std::to_string(rpc_code::parse_error);
  if (options_.answer_malformed) {
    auto [id, err] = failure_reply(error);
    (void)send_raw(encode_error(id, err));
  }
  if (!undecodable && options_.survive_bad_envelope) return true;
  Error why = make_error(Errc::protocol_error, options_.label + " sent a malformed frame; the connection is torn "
                                                                "down and never resynchronised: " + error.message);
  for (const auto& d : error.detail) why.with_detail(d.key, d.value);
  if (mark_closed(why) && handlers_.on_closed) handlers_.on_closed(why);
  return false;
}

void RpcPeer::on_response(RpcMessage msg) {
  if (!msg.id) return;  // an error about a frame we sent that the peer could not read
  std::shared_ptr<Pending> pending;
  {
    std::lock_guard lock(mu_);
    auto it = pending_.find(*msg.id);
    if (it == pending_.end()) return;  // late or unknown: ignored (the caller gave up)
    pending = std::move(it->second);
    pending_.erase(it);
    CallReply reply;
    reply.ok = msg.kind == MessageKind::result;
    reply.result = std::move(msg.result);
    reply.error = std::move(msg.error);
    pending->reply = std::move(reply);
    pending->done = true;
    pending->settled.store(true, std::memory_order_release);
  }
  pending->cv.notify_all();
}

void RpcPeer::on_request_lost(const RequestId& id, const Error& why) {
  std::shared_ptr<Pending> pending;
  {
    std::lock_guard lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    pending = std::move(it->second);
    pending_.erase(it);
    pending->failure = why;
    pending->done = true;
    pending->settled.store(true, std::memory_order_release);
  }
  pending->cv.notify_all();
}

void RpcPeer::on_notification(RpcMessage msg, const RequestId* related) {
  static const json::Value kNoParams;
  const json::Value& params = msg.params ? *msg.params : kNoParams;
  if (msg.method == kProgress) {
    on_progress(params);
  } else if (msg.method == kCancelled) {
    on_cancelled(params);
  }
  if (handlers_.on_notification) handlers_.on_notification(msg, related);
}

void RpcPeer::on_progress(const json::Value& params) {
  const json::Value* token = params.find(meta_key::progress_token);
  if (token == nullptr) return;
  auto id = RequestId::from_json(*token);
  if (!id) return;
  std::function<void(const json::Value&)> callback;
  {
    std::lock_guard lock(mu_);
    auto it = pending_.find(*id);
    if (it == pending_.end()) return;  // progress for a finished request is ignored
    Pending& p = *it->second;
    if (p.timeout && p.progress_resets) p.deadline = std::chrono::steady_clock::now() + *p.timeout;
    callback = p.on_progress;
  }
  if (callback) callback(params);
}

void RpcPeer::on_cancelled(const json::Value& params) {
  const json::Value* raw = params.find("requestId");
  if (raw == nullptr) return;
  auto id = RequestId::from_json(*raw);
  if (!id) return;
  std::lock_guard lock(mu_);
  auto it = inbound_.find(*id);  // keyed by kind and value: "5" never cancels 5
  if (it == inbound_.end()) return;
  it->second->suppressed = true;
  it->second->stop.request_stop();
}

void RpcPeer::on_request(RpcMessage msg) {
  const RequestId id = *msg.id;
  if (!handlers_.on_request) {
    (void)send_raw(encode_error(id, RpcError{rpc_code::method_not_found, "Method not found", std::nullopt}));
    return;
  }
  auto entry = std::make_shared<Inbound>();
  {
    std::lock_guard lock(mu_);
    if (!inbound_.emplace(id, entry).second) {
      // Ids must not collide with the sender's outstanding requests; the first one keeps running.
      (void)channel_->send(OutboundFrame{encode_error(id, RpcError{rpc_code::invalid_request,
                                                                   "request id already in use", std::nullopt}),
                                         std::nullopt, {}},
                           {});
      return;
    }
  }
  agentkit::stop_token stop = entry->stop.get_token();
  json::Value params = msg.params ? std::move(*msg.params) : json::Value();
  // std::find, not std::ranges::find: libc++ 14 lacks the latter.
  const auto& inline_methods = options_.inline_methods;
  if (std::find(inline_methods.begin(), inline_methods.end(), msg.method) != inline_methods.end()) {
    run_inbound(id, msg.method, std::move(params), stop);
    return;
  }
  auto task = [this, id, method = std::move(msg.method), params = std::move(params), stop]() mutable {
    run_inbound(id, method, std::move(params), stop);
  };
  if (!pool_.submit(std::move(task))) {
    {
      std::lock_guard lock(mu_);
      inbound_.erase(id);
    }
    (void)send_raw(encode_error(id, RpcError{rpc_code::internal_error,
                                             "too many requests in flight; retry later", std::nullopt}));
  }
}

void RpcPeer::run_inbound(const RequestId& id, const std::string& method, json::Value params, agentkit::stop_token stop) {
  Reply reply;
  try {
    reply = handlers_.on_request(InboundCall{id, method, std::move(params), stop, this});
  } catch (const std::exception& e) {
    reply = Reply::failure(rpc_code::internal_error, std::string("handler failed: ") + e.what());
  } catch (...) {
    reply = Reply::failure(rpc_code::internal_error, "handler failed");
  }
  bool suppressed = false;
  {
    std::lock_guard lock(mu_);
    auto it = inbound_.find(id);
    if (it != inbound_.end()) {
      suppressed = it->second->suppressed;
      inbound_.erase(it);
    }
    // A reply after close() or to a cancelled request would answer something nobody asks.
    suppressed = suppressed || stop.stop_requested() || closed_.has_value();
  }
  if (!suppressed) (void)send_raw(encode_reply(id, reply));
}

void RpcPeer::fail_pending(const Error& why) {
  std::vector<std::shared_ptr<Pending>> woken;
  {
    std::lock_guard lock(mu_);
    input_ended_ = true;
    for (auto& [id, p] : pending_) {
      p->failure = make_error(Errc::closed, options_.label + " stopped reading before answering: " + why.message);
      p->done = true;
      p->settled.store(true, std::memory_order_release);
      woken.push_back(p);
    }
    pending_.clear();
  }
  for (auto& p : woken) p->cv.notify_all();
}

bool RpcPeer::mark_closed(Error why) {
  std::vector<std::shared_ptr<Pending>> woken;
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    closed_ = why;
    for (auto& [id, p] : pending_) {
      p->failure = make_error(Errc::closed, options_.label + " disconnected before answering: " + why.message)
                       .with_detail("reason", why.message);
      p->done = true;
      p->settled.store(true, std::memory_order_release);
      woken.push_back(p);
    }
    pending_.clear();
    for (auto& [id, in] : inbound_) in->stop.request_stop();
  }
  for (auto& p : woken) p->cv.notify_all();
  return true;
}

void RpcPeer::drain() { pool_.drain(); }

void RpcPeer::close() {
  if (mark_closed(make_error(Errc::closed, options_.label + " was closed by this side"))) {
    if (handlers_.on_closed) handlers_.on_closed(*close_reason());
  }
  {
    std::lock_guard lock(mu_);
    if (channel_closed_) return;
    channel_closed_ = true;
  }
  channel_->interrupt();  // wakes a handler blocked writing to a peer that stopped reading
  pool_.close();          // handlers saw their stop tokens fire above; wait for them
  channel_->close();
}

}  // namespace agentkit::mcp::detail
