#include "sse_channel.hpp"

#include <atomic>
#include <mutex>
#include <optional>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/base/thread.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/wire/limits.hpp"
#include "agentkit/wire/sse_decoder.hpp"

namespace agentkit::mcp::detail {
namespace {

// The stream is quiet between messages for as long as the session lasts; the MCP layer owns
// request deadlines.
constexpr std::chrono::milliseconds kStreamSilenceCeiling{24LL * 60 * 60 * 1000};
constexpr std::string_view kEndpointEvent = "endpoint";
constexpr std::string_view kMessageEvent = "message";

std::string media_of(const http::Response& resp) {
  const std::string type(resp.headers().get("Content-Type").value_or(""));
  return std::string(trim_ows(std::string_view(type).substr(0, type.find(';'))));
}

class SseChannel final : public Channel {
 public:
  SseChannel(HttpEndpoint endpoint, std::chrono::milliseconds endpoint_timeout)
      : endpoint_(std::move(endpoint)), endpoint_timeout_(endpoint_timeout) {}
  ~SseChannel() override { close(); }

  Result<void> open(ChannelSink sink) override {
    sink_ = std::move(sink);
    auto resp = send_authorized(
        *endpoint_.transport, endpoint_.oauth.get(), [&] { return stream_request(); },
        stream_stop_.get_token());
    if (!resp) {
      if (resp.error().find_detail("server")) return std::move(resp).error();
      return make_error(resp.error().code, "opening the SSE stream of " + describe() +
                                               " failed: " + resp.error().message);
    }
    if (!is_success(resp->status()) || !iequals(media_of(*resp), "text/event-stream")) {
      return make_error(resp->status() == 401 || resp->status() == 403 ? Errc::unauthenticated
                                                                       : Errc::protocol_error,
                        describe() + " answered the SSE stream's GET with HTTP " +
                            std::to_string(resp->status()) + " " + media_of(*resp) +
                            ", not an event stream (is it a Streamable HTTP server? use \"type\": "
                            "\"http\")")
          .with_detail("http_status", std::to_string(resp->status()));
    }
    reader_ = agentkit::jthread(
        [this, r = std::move(*resp)](agentkit::stop_token) mutable { read_stream(r); });
    std::unique_lock lock(mu_);
    const bool settled = ready_.wait_for(lock, stream_stop_.get_token(), endpoint_timeout_, [&] {
      return post_url_.has_value() || failure_.has_value();
    });
    if (failure_) return *failure_;
    if (!settled) {
      return make_error(Errc::timeout,
                        describe() +
                            " opened its SSE stream but sent no \"endpoint\" event within " +
                            std::to_string(endpoint_timeout_.count()) + " ms");
    }
    return {};
  }

  Result<void> send(OutboundFrame frame, agentkit::stop_token stop) override {
    if (closed_.load()) return fail(Errc::closed, describe() + " is closed");
    std::string url;
    {
      std::lock_guard lock(mu_);
      if (!post_url_) return fail(Errc::closed, describe() + " has no message endpoint");
      url = *post_url_;
    }
    auto build = [&] {
      http::Request req{
          .method = "POST", .url = url, .headers = endpoint_.headers, .body = frame.text};
      req.headers.set("Content-Type", "application/json");
      req.headers.set("Accept", "application/json, text/event-stream");
      if (!frame.routing.protocol_version.empty()) {
        req.headers.set("MCP-Protocol-Version", frame.routing.protocol_version);
      }
      return req;
    };
    auto resp = send_authorized(*endpoint_.transport, endpoint_.oauth.get(), build, stop,
                                frame.request_id.has_value());
    if (!resp) {
      if (resp.error().find_detail("server")) return std::move(resp).error();
      return make_error(resp.error().code, "POST to " + url + " failed: " + resp.error().message);
    }
    auto body = resp->read_all(wire::kDefaultMaxMessageBytes);
    if (is_success(resp->status())) return {};
    std::string message =
        describe() + " refused a message POST with HTTP " + std::to_string(resp->status());
    if (body && !body->empty()) message += ": " + body->substr(0, 200);
    return make_error(resp->status() == 401 || resp->status() == 403 ? Errc::unauthenticated
                                                                     : Errc::protocol_error,
                      std::move(message))
        .with_detail("http_status", std::to_string(resp->status()));
  }

  void interrupt() override {
    closed_.store(true);
    stream_stop_.request_stop();
  }

  void close() override {
    interrupt();
    if (reader_.joinable()) reader_.join();
  }

  std::string describe() const override { return "MCP server at " + endpoint_.url + " (HTTP+SSE)"; }

 private:
  http::Request stream_request() const {
    http::Request req{.method = "GET", .url = endpoint_.url, .headers = endpoint_.headers};
    req.headers.set("Accept", "text/event-stream");
    req.first_byte_timeout = endpoint_timeout_;
    req.idle_timeout = kStreamSilenceCeiling;
    return req;
  }

  void settle_failure(Error why) {
    {
      std::lock_guard lock(mu_);
      if (!post_url_ && !failure_) failure_ = why;
    }
    ready_.notify_all();
  }

  // False: stop reading.
  bool dispatch(const wire::SseEvent& event) {
    if (event.type == kEndpointEvent) {
      std::lock_guard lock(mu_);
      if (post_url_) return true;  // the first endpoint stands; a server may not move it
      auto resolved = resolve_sse_endpoint(endpoint_.url, trim_ows(event.data));
      if (!resolved) {
        failure_ = make_error(resolved.error().code, describe() + ": " + resolved.error().message);
        ready_.notify_all();
        return false;
      }
      post_url_ = std::move(*resolved);
      ready_.notify_all();
      return true;
    }
    if (event.type != kMessageEvent || event.data.empty()) return true;
    {
      std::lock_guard lock(mu_);
      if (!post_url_) return true;  // nothing can be awaited before the endpoint is known
    }
    return sink_.on_frame(event.data, nullptr);
  }

  void read_stream(http::Response& resp) {
    wire::SseDecoder sse;
    Error why = make_error(Errc::closed, describe() + " ended its SSE stream");
    while (true) {
      auto n = resp.read_view();  // the connection's own bytes: no buffer here, no copy
      if (!n) {
        why = make_error(n.error().code,
                         "the SSE stream of " + describe() + " broke: " + n.error().message);
        break;
      }
      if (n->empty()) break;
      sse.feed(*n);
      bool keep = true;
      while (keep) {
        auto event = sse.next();
        if (!event) {
          if (sink_.on_frame_error) sink_.on_frame_error(event.error());
          keep = false;
          why = event.error();
          break;
        }
        if (!*event) break;
        keep = dispatch(**event);
      }
      if (!keep) break;
    }
    settle_failure(why);
    if (!closed_.load() && sink_.on_close) sink_.on_close(why);
  }

  HttpEndpoint endpoint_;
  std::chrono::milliseconds endpoint_timeout_;
  ChannelSink sink_;
  agentkit::stop_source stream_stop_;
  std::atomic<bool> closed_{false};
  std::mutex mu_;
  agentkit::condition_variable_any ready_;
  std::optional<std::string> post_url_;
  std::optional<Error> failure_;
  agentkit::jthread reader_;
};

std::string directory_of(const std::string& path) { return path.substr(0, path.rfind('/') + 1); }

}  // namespace

Result<std::string> resolve_sse_endpoint(std::string_view stream_url, std::string_view reference) {
  auto base = http::parse_url(stream_url);
  if (!base)
    return make_error(Errc::invalid_argument,
                      "the stream URL does not parse: " + base.error().message);
  const std::string ref(reference);
  std::string absolute;
  const std::size_t colon = ref.find(':');
  const std::size_t delim = ref.find_first_of("/?#");
  if (ref.empty()) {
    absolute = base->to_string();
  } else if (ref.rfind("//", 0) == 0) {
    absolute = base->scheme + ":" + ref;
  } else if (colon != std::string::npos && (delim == std::string::npos || colon < delim)) {
    absolute = ref;
  } else if (ref.front() == '/') {
    absolute = base->scheme + "://" + base->authority() + ref;
  } else if (ref.front() == '?') {
    absolute = base->scheme + "://" + base->authority() + base->path + ref;
  } else {
    absolute = base->scheme + "://" + base->authority() + directory_of(base->path) + ref;
  }
  auto target = http::parse_url(absolute);
  if (!target) {
    return make_error(Errc::protocol_error,
                      "the \"endpoint\" event names \"" + ref.substr(0, 200) +
                          "\", which is not a usable URL: " + target.error().message);
  }
  if (target->scheme != base->scheme || target->host != base->host || target->port != base->port) {
    return make_error(Errc::protocol_error,
                      "the \"endpoint\" event points at " + target->origin() +
                          ", another origin than the stream's " + base->origin() +
                          "; refusing to send our messages and credentials there")
        .with_detail("endpoint", target->origin());
  }
  return target->to_string();
}

std::unique_ptr<Channel> make_sse_channel(HttpEndpoint endpoint,
                                          std::chrono::milliseconds endpoint_timeout) {
  return std::make_unique<SseChannel>(std::move(endpoint), endpoint_timeout);
}

}  // namespace agentkit::mcp::detail
