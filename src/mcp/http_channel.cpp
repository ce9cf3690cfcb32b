#include "http_channel.hpp"

#include <array>
#include <atomic>
#include <list>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/strings.hpp"
#include "agentkit/mcp/protocol.hpp"
#include "agentkit/wire/limits.hpp"
#include "agentkit/wire/sse_decoder.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr std::size_t kReadChunkBytes = 16 * 1024;
// The MCP layer owns request deadlines (30 s reset by progress, REQ-MCP-CLIENT-07) and cancels by
// stopping the exchange; the HTTP client's own silence limits must not fire first, and a listen
// stream may be quiet for long stretches.
constexpr std::chrono::milliseconds kExchangeSilenceCeiling{24LL * 60 * 60 * 1000};
constexpr std::chrono::milliseconds kSessionDeleteTimeout{2000};
constexpr int kHttpNotFound = 404;
constexpr int kHttpAccepted = 202;
constexpr int kHttpUnauthorized = 401;
constexpr int kHttpForbidden = 403;

bool is_success(int status) { return status >= 200 && status < 300; }

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
  }

  void close() override {
    interrupt();
    std::list<Exchange> finished;
    {
      std::lock_guard lock(mu_);
      finished.swap(exchanges_);
    }
    finished.clear();  // joins
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
    if (is_success(resp->status())) return {};
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
    const auto type = resp->headers().get("Content-Type").value_or("");
    if (is_success(status) && status != kHttpAccepted && iequals(trim_ows(type.substr(0, type.find(';'))), "text/event-stream")) {
      read_event_stream(*resp, id);
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
        (void)sink_.on_frame(*rewritten);
        return;
      }
      lose(id, http_error(status, describe(), *body));
      return;
    }
    if (!body->empty() && !sink_.on_frame(*body)) return;
    lose(id, make_error(Errc::protocol_error, describe() + " answered HTTP " + std::to_string(status) +
                                                  " without a JSON-RPC response"));
  }

  void read_event_stream(http::Response& resp, const RequestId& id) {
    wire::SseDecoder sse;
    std::array<char, kReadChunkBytes> buffer;
    while (true) {
      auto n = resp.read_some(buffer);
      if (!n) {
        lose(id, make_error(n.error().code, "the event stream from " + endpoint_.url + " broke: " + n.error().message)
                     .with_detail("lost", "true"));
        return;
      }
      if (*n == 0) break;
      sse.feed(std::string_view(buffer.data(), *n));
      while (true) {
        auto event = sse.next();
        if (!event) {
          // A bound crossed inside the stream (REQ-SEC-11): the stream is poisoned.
          if (sink_.on_frame_error) sink_.on_frame_error(event.error());
          return;
        }
        if (!*event) break;
        // Priming events (legacy polling) carry an id and empty data: nothing to dispatch.
        if ((*event)->data.empty()) continue;
        if (!sink_.on_frame((*event)->data)) return;
      }
    }
    if (auto end = sse.finish(); !end) {
      lose(id, make_error(Errc::protocol_error, "the event stream from " + endpoint_.url +
                                                    " ended inside an event: " + end.error().message)
                   .with_detail("lost", "true"));
      return;
    }
    // Usually the answer came first and this is ignored; otherwise the stream ended without it.
    lose(id, make_error(Errc::io_error, "the event stream from " + endpoint_.url + " ended before the answer")
                 .with_detail("lost", "true"));
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
  mutable std::mutex session_mu_;
  std::string session_id_;
};

}  // namespace

std::unique_ptr<Channel> make_http_channel(HttpEndpoint endpoint) {
  return std::make_unique<HttpChannel>(std::move(endpoint));
}

}  // namespace agentkit::mcp::detail
