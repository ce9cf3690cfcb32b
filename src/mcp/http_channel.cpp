#include "http_channel.hpp"

#include <atomic>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/strings.hpp"
#include "agentkit/mcp/protocol.hpp"
#include "agentkit/wire/limits.hpp"
#include "agentkit/wire/sse_decoder.hpp"

namespace agentkit::mcp::detail {
namespace {

// The MCP layer owns request deadlines (30 s reset by progress, REQ-MCP-CLIENT-07) and cancels by
// stopping the exchange; the HTTP client's own silence limits must not fire first, and a listen
// stream may be quiet for long stretches.
constexpr std::chrono::milliseconds kExchangeSilenceCeiling{24LL * 60 * 60 * 1000};
constexpr std::chrono::milliseconds kSessionDeleteTimeout{2000};
constexpr int kHttpNotFound = 404;
constexpr int kHttpAccepted = 202;
// 2025-11-25 resumption (SEP-1699): the wait before reconnecting when the server sent no `retry`,
// how many times one request's stream is resumed, and how many empty standalone streams in a row
// end listening.
constexpr std::chrono::milliseconds kDefaultRetry{1000};
constexpr std::chrono::milliseconds kLongestRetry{60'000};
constexpr int kMaxResumes = 5;
constexpr int kMaxEmptyListens = 3;
// How long the notifications/initialized post waits for the standalone GET stream to be answered.
// A server may send a request (elicitation, say) on that stream as soon as the first tool call
// arrives, and a server with no stream yet drops it, so the session's first request must not
// overtake the GET. A server that is slower than this is not waited for any longer.
constexpr std::chrono::milliseconds kListenerOpenWait{5000};

// Sleeps `how_long`, waking early when `stop` fires; false when it fired.
bool pause(std::chrono::milliseconds how_long, const agentkit::stop_token& stop) {
  const auto until = std::chrono::steady_clock::now() + how_long;
  while (std::chrono::steady_clock::now() < until) {
    if (stop.stop_requested()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !stop.stop_requested();
}

// True when `frame` is the JSON-RPC answer (result or error) to `id`.
bool answers(std::string_view frame, const RequestId& id) {
  auto doc = json::parse(frame);
  if (!doc || !doc->is_object()) return false;
  const json::Value* got = doc->find("id");
  if (got == nullptr || (!doc->find("result") && !doc->find("error"))) return false;
  auto parsed = RequestId::from_json(*got);
  return parsed && *parsed == id;
}

Error http_error(int status, std::string_view where, std::string_view body) {
  const Errc code = (status == kHttpUnauthorized || status == kHttpForbidden) ? Errc::unauthenticated
                                                                                : Errc::protocol_error;
  std::string message = std::string(where) + " answered HTTP " + std::to_string(status);
  if (!body.empty()) message += ": " + std::string(body.substr(0, 200));
  if (status == kHttpUnauthorized) message += " (check the server's headers, e.g. an Authorization bearer token)";
  return make_error(code, std::move(message)).with_detail("http_status", std::to_string(status));
}

// An error body whose id is null answers the request this POST carried; give it that id so the
// waiting call gets the peer's own error (-32020, -32022, -32602, ...).
std::optional<std::string> error_body_for(const RequestId& id, std::string_view body) {
  auto msg = parse_message(body);
  if (!msg || msg->kind != MessageKind::error) return std::nullopt;
  return encode_error(id, msg->error);
}

class HttpChannel final : public Channel {
 public:
  explicit HttpChannel(HttpEndpoint endpoint) : endpoint_(std::move(endpoint)) {}
  ~HttpChannel() override { close(); }

  Result<void> open(ChannelSink sink) override {
    sink_ = std::move(sink);
    return {};
  }

  Result<void> send(OutboundFrame frame, agentkit::stop_token stop) override {
    if (closed_.load()) return fail(Errc::closed, describe() + " is closed");
    if (!frame.request_id) return post_message(frame, stop);
    std::lock_guard lock(mu_);
    reap_finished();
    auto& ex = exchanges_.emplace_back();
    ex.id = *frame.request_id;
    Exchange* raw = &ex;
    ex.thread = agentkit::jthread([this, raw, frame = std::move(frame)](agentkit::stop_token st) {
      run_exchange(frame, st);
      raw->done.store(true);
    });
    return {};
  }

  void abandon(const RequestId& id) override {
    std::lock_guard lock(mu_);
    for (auto& ex : exchanges_) {
      if (ex.id == id) ex.thread.request_stop();  // closing the stream is the cancellation
    }
  }

  void interrupt() override {
    closed_.store(true);
    std::lock_guard lock(mu_);
    for (auto& ex : exchanges_) ex.thread.request_stop();
    if (listener_.joinable()) listener_.request_stop();
  }

  void close() override {
    interrupt();
    std::list<Exchange> finished;
    agentkit::jthread listener;
    {
      std::lock_guard lock(mu_);
      finished.swap(exchanges_);
      listener = std::move(listener_);
    }
    finished.clear();  // joins
    if (listener.joinable()) {
      listener.request_stop();
      listener.join();
    }
    end_session();
  }

  std::string describe() const override { return "MCP server at " + endpoint_.url; }
  bool request_scoped() const override { return true; }

 private:
  struct Exchange {
    RequestId id;
    agentkit::jthread thread;
    std::atomic<bool> done{false};
  };
  // Where an event stream got to, for resuming it (2025-11-25, SEP-1699).
  struct StreamPosition {
    std::string last_event_id;
    std::chrono::milliseconds retry = kDefaultRetry;
  };
  enum class StreamEnd : std::uint8_t { answered, ended, broken, poisoned };

  void reap_finished() {
    for (auto it = exchanges_.begin(); it != exchanges_.end();) {
      if (it->done.load()) {
        it = exchanges_.erase(it);  // the thread has returned: the join is immediate
      } else {
        ++it;
      }
    }
  }

  http::Request build_post(const OutboundFrame& frame) const {
    http::Request req;
    req.method = "POST";
    req.url = endpoint_.url;
    req.headers = endpoint_.headers;
    req.headers.set("Content-Type", "application/json");
    req.headers.set("Accept", "application/json, text/event-stream");
    const auto& r = frame.routing;
    if (!r.protocol_version.empty()) req.headers.set(std::string(header::protocol_version), r.protocol_version);
    if (!r.method.empty()) req.headers.set(std::string(header::method), encode_header_value(r.method));
    if (r.name) req.headers.set(std::string(header::name), encode_header_value(*r.name));
    for (const auto& [name, value] : r.params) {
      req.headers.set(std::string(header::param_prefix) + name, encode_header_value(value));
    }
    if (!r.traceparent.empty()) req.headers.set("traceparent", r.traceparent);
    {
      std::lock_guard lock(session_mu_);
      if (!session_id_.empty()) req.headers.set(std::string(header::session_id), session_id_);
    }
    req.body = frame.text;
    req.first_byte_timeout = kExchangeSilenceCeiling;
    req.idle_timeout = kExchangeSilenceCeiling;
    return req;
  }

  void remember_session(const http::Response& resp) {
    if (auto sid = resp.headers().get(header::session_id)) {
      std::lock_guard lock(session_mu_);
      session_id_ = std::string(*sid);
    }
  }

  bool session_expired(int status) {
    std::lock_guard lock(session_mu_);
    if (status != kHttpNotFound || session_id_.empty()) return false;
    session_id_.clear();
    return true;
  }

  Result<http::Response> send_post(const OutboundFrame& frame, agentkit::stop_token stop) {
    // Only a request may log in: a notification goes with the token we have.
    auto resp = send_authorized(
        *endpoint_.transport, endpoint_.oauth.get(), [&] { return build_post(frame); }, stop,
        frame.request_id.has_value());
    if (!resp && !resp.error().find_detail("server")) {
      return make_error(resp.error().code,
                        "POST to " + endpoint_.url + " failed: " + resp.error().message);
    }
    return resp;
  }

  Result<void> post_message(const OutboundFrame& frame, agentkit::stop_token stop) {
    auto resp = send_post(frame, stop);
    if (!resp) return std::move(resp).error();
    auto body = resp->read_all(wire::kDefaultMaxMessageBytes);
    if (is_success(resp->status())) {
      if (frame.text.find(R"("method":"notifications/initialized")") != std::string::npos)
        start_listening(frame.routing.protocol_version);
      return {};
    }
    return http_error(resp->status(), describe(), body ? std::string_view(*body) : std::string_view());
  }

  void run_exchange(const OutboundFrame& frame, agentkit::stop_token stop) {
    const RequestId& id = *frame.request_id;
    auto resp = send_post(frame, stop);
    if (!resp) {
      lose(id, resp.error());
      return;
    }
    remember_session(*resp);
    const int status = resp->status();
    if (is_success(status) && status != kHttpAccepted && is_event_stream(*resp)) {
      read_event_stream(*resp, frame, stop);
      return;
    }
    auto body = resp->read_all(wire::kDefaultMaxMessageBytes);
    if (!body) {
      lose(id, make_error(body.error().code, "reading the answer from " + endpoint_.url + " failed: " + body.error().message));
      return;
    }
    if (session_expired(status)) {
      lose(id, make_error(Errc::closed, describe() + " no longer knows our session (HTTP 404)"));
      if (sink_.on_close) sink_.on_close(make_error(Errc::closed, describe() + " ended our session"));
      return;
    }
    if (!is_success(status)) {
      if (auto rewritten = error_body_for(id, *body)) {
        (void)sink_.on_frame(*rewritten, &id);
        return;
      }
      lose(id, http_error(status, describe(), *body));
      return;
    }
    if (!body->empty() && !sink_.on_frame(*body, &id)) return;
    lose(id, make_error(Errc::protocol_error, describe() + " answered HTTP " + std::to_string(status) +
                                                  " without a JSON-RPC response"));
  }

  static bool is_event_stream(const http::Response& resp) {
    const auto type = resp.headers().get("Content-Type").value_or("");
    return iequals(trim_ows(type.substr(0, type.find(';'))), "text/event-stream");
  }

  // Hands the stream's frames to the sink until it ends; notes where it got to in `pos`.
  StreamEnd pump_events(http::Response& resp, const RequestId* answer_to, StreamPosition& pos,
                        Error& why) {
    wire::SseDecoder sse;
    bool answered = false;
    while (true) {
      auto n = resp.read_view();  // the connection's own bytes: no buffer here, no copy
      if (!n) {
        why = make_error(n.error().code,
                         "the event stream from " + endpoint_.url + " broke: " + n.error().message);
        return answered ? StreamEnd::answered : StreamEnd::broken;
      }
      if (n->empty()) break;
      sse.feed(*n);
      while (true) {
        auto event = sse.next();
        if (!event) {
          // A bound crossed inside the stream (REQ-SEC-11): the stream is poisoned.
          if (sink_.on_frame_error) sink_.on_frame_error(event.error());
          return StreamEnd::poisoned;
        }
        if (!*event) break;
        if (!(*event)->id.empty()) pos.last_event_id = (*event)->id;
        if (auto retry = sse.retry_ms())
          pos.retry = std::min(std::chrono::milliseconds(*retry), kLongestRetry);
        // Priming events carry an id and empty data: nothing to dispatch.
        if ((*event)->data.empty()) continue;
        if (answer_to != nullptr && answers((*event)->data, *answer_to)) answered = true;
        if (!sink_.on_frame((*event)->data, answer_to)) return StreamEnd::poisoned;
      }
    }
    if (auto end = sse.finish(); !end) {
      why = make_error(Errc::protocol_error, "the event stream from " + endpoint_.url +
                                                 " ended inside an event: " + end.error().message);
      return answered ? StreamEnd::answered : StreamEnd::broken;
    }
    return answered ? StreamEnd::answered : StreamEnd::ended;
  }

  // A GET for the session's event stream, resuming after `last_event_id` when set.
  Result<http::Response> send_get(const std::string& last_event_id, const std::string& version,
                                  agentkit::stop_token stop) {
    const auto build = [&] {
      http::Request req;
      req.method = "GET";
      req.url = endpoint_.url;
      req.headers = endpoint_.headers;
      req.headers.set("Accept", "text/event-stream");
      if (!version.empty()) req.headers.set(std::string(header::protocol_version), version);
      if (!last_event_id.empty()) req.headers.set("Last-Event-ID", last_event_id);
      {
        std::lock_guard lock(session_mu_);
        if (!session_id_.empty()) req.headers.set(std::string(header::session_id), session_id_);
      }
      req.first_byte_timeout = kExchangeSilenceCeiling;
      req.idle_timeout = kExchangeSilenceCeiling;
      return req;
    };
    // Listening never starts a login: it goes with the token the requests obtained.
    return send_authorized(*endpoint_.transport, endpoint_.oauth.get(), build, stop, false);
  }

  // A request's stream that ended without its answer is resumed with GET + Last-Event-ID after
  // the server's `retry` (2025-11-25); a server that gave no event id cannot resume it.
  void read_event_stream(http::Response& resp, const OutboundFrame& frame,
                         agentkit::stop_token stop) {
    const RequestId& id = *frame.request_id;
    const bool resumable = era_of(frame.routing.protocol_version) == Era::legacy;
    StreamPosition pos;
    Error why;
    StreamEnd end = pump_events(resp, &id, pos, why);
    for (int attempt = 0; (end == StreamEnd::ended || end == StreamEnd::broken) && resumable &&
                          !pos.last_event_id.empty() && attempt < kMaxResumes;
         ++attempt) {
      if (!pause(pos.retry, stop) || closed_.load()) break;
      auto again = send_get(pos.last_event_id, frame.routing.protocol_version, stop);
      if (!again || !is_success(again->status()) || !is_event_stream(*again)) break;
      end = pump_events(*again, &id, pos, why);
    }
    if (end == StreamEnd::answered || end == StreamEnd::poisoned) return;
    if (end == StreamEnd::broken) {
      lose(id, Error(why).with_detail("lost", "true"));
      return;
    }
    lose(id, make_error(Errc::io_error,
                        "the event stream from " + endpoint_.url + " ended before the answer")
                 .with_detail("lost", "true"));
  }

  // 2025-11-25: once the session is initialised, a GET stream carries what the server sends on
  // its own (requests such as elicitation, notifications). A server that offers none answers 405.
  void start_listening(const std::string& version) {
    if (era_of(version) != Era::legacy || closed_.load()) return;
    auto opened = std::make_shared<OpenSignal>();
    {
      std::lock_guard lock(mu_);
      if (listener_.joinable()) return;
      listener_ = agentkit::jthread([this, version, opened](agentkit::stop_token st) {
        listen(version, *opened, st);
        opened->raise();  // a listener that never sent its GET must not hold the caller
      });
    }
    std::unique_lock lock(opened->mu);
    opened->cv.wait_for(lock, kListenerOpenWait, [&] { return opened->done || closed_.load(); });
  }

  // Raised once the first GET of the standalone stream has an answer (or failed).
  struct OpenSignal {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    void raise() {
      {
        std::lock_guard lock(mu);
        done = true;
      }
      cv.notify_all();
    }
  };

  void listen(const std::string& version, OpenSignal& opened, agentkit::stop_token stop) {
    StreamPosition pos;
    bool first = true;
    for (int empty = 0; empty < kMaxEmptyListens && !stop.stop_requested() && !closed_.load();) {
      auto resp = send_get(pos.last_event_id, version, stop);
      if (first) {
        first = false;
        opened.raise();
      }
      if (!resp) {
        ++empty;
      } else if (!is_success(resp->status()) || !is_event_stream(*resp)) {
        // 405: the server offers no stream; anything else: it will not give us one either.
        resp->discard();
        return;
      } else {
        const std::string before = pos.last_event_id;
        Error why;
        if (pump_events(*resp, nullptr, pos, why) == StreamEnd::poisoned) return;
        empty = pos.last_event_id == before ? empty + 1 : 0;
      }
      if (!pause(pos.retry, stop)) return;
    }
  }

  void lose(const RequestId& id, const Error& why) {
    if (sink_.on_request_lost) sink_.on_request_lost(id, why);
  }

  void end_session() {
    std::string sid;
    {
      std::lock_guard lock(session_mu_);
      sid.swap(session_id_);
    }
    if (sid.empty() || !endpoint_.transport) return;
    http::Request req;
    req.method = "DELETE";
    req.url = endpoint_.url;
    req.headers = endpoint_.headers;
    req.headers.set(std::string(header::session_id), sid);
    req.first_byte_timeout = kSessionDeleteTimeout;
    if (auto resp = endpoint_.transport->send(req); resp) (void)resp->read_all(wire::kDefaultMaxMessageBytes);
  }

  HttpEndpoint endpoint_;
  ChannelSink sink_;
  std::atomic<bool> closed_{false};
  std::mutex mu_;
  std::list<Exchange> exchanges_;
  agentkit::jthread listener_;  // the 2025-11-25 standalone GET stream; guarded by mu_
  mutable std::mutex session_mu_;
  std::string session_id_;
};

}  // namespace

std::unique_ptr<Channel> make_http_channel(HttpEndpoint endpoint) {
  return std::make_unique<HttpChannel>(std::move(endpoint));
}

}  // namespace agentkit::mcp::detail
