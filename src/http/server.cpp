#include "agentkit/http/server.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <list>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/http/url.hpp"
#include "message_parser.hpp"
#include "socket.hpp"
#include "wire_format.hpp"

namespace agentkit::http {
namespace {
using detail::read_buffer_bytes;
constexpr int status_bad_request = 400;
constexpr int status_request_timeout = 408;
constexpr int status_content_too_large = 413;
constexpr int status_uri_too_long = 414;
constexpr int status_header_too_large = 431;
constexpr int status_internal_error = 500;
constexpr int status_not_implemented = 501;
constexpr int status_unavailable = 503;
constexpr int status_version_not_supported = 505;

bool status_has_body(int status) { return status >= 200 && status != 204 && status != 304; }
}  // namespace

namespace detail {


// One request and its response on a connection.
class ServerExchange {
 public:
  ServerExchange(SocketStream& stream, const ServerOptions& options, agentkit::stop_token stop, bool head_request,
                 int version_minor, bool close_after)
      : stream_(stream),
        options_(options),
        stop_(std::move(stop)),
        head_request_(head_request),
        version_minor_(version_minor),
        close_after_(close_after) {}

  ResponseWriter writer() noexcept { return ResponseWriter(*this); }

  Result<void> respond(int status, const Headers& headers, std::string_view body) {
    if (auto r = begin(status, headers); !r) return r;
    std::string out = status_line(status);
    append_common(out, headers);
    if (status_has_body(status)) out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += "\r\n";
    if (!head_request_ && status_has_body(status)) out += body;
    finished_ = true;
    return send(out);
  }

  Result<void> start_stream(int status, const Headers& headers) {
    if (auto r = begin(status, headers); !r) return r;
    chunked_ = version_minor_ >= 1;
    if (!chunked_) close_after_ = true;  // HTTP/1.0: the end of the body is the end of the connection
    std::string out = status_line(status);
    append_common(out, headers);
    if (chunked_) out += "Transfer-Encoding: chunked\r\n";
    out += "\r\n";
    return send(out);
  }

  Result<void> write(std::string_view data) {
    if (!started_ || finished_) return fail(Errc::invalid_argument, "write() needs an open stream: call start_stream() first");
    if (head_request_ || data.empty()) return {};
    return chunked_ ? send(format_chunk(data)) : send(data);
  }

  Result<void> finish(const Headers& trailers) {
    if (!started_ || finished_) return fail(Errc::invalid_argument, "finish() needs an open stream");
    finished_ = true;
    if (head_request_ || !chunked_) return {};
    if (auto h = check_outgoing_headers(trailers, {}); !h) return h;
    return send(format_last_chunk(trailers));
  }

  bool started() const noexcept { return started_; }
  bool finished() const noexcept { return finished_; }
  bool must_close() const noexcept { return close_after_ || failed_; }
  const agentkit::stop_token& stop_token() const noexcept { return stop_; }

 private:
  Result<void> begin(int status, const Headers& headers) {
    constexpr int min_final =
        200;  // 1xx interim answers are the server's business, not a handler's
    constexpr int max_final = 599;
    if (started_) return fail(Errc::invalid_argument, "the response has already been started");
    if (status < min_final || status > max_final) {
      return fail(Errc::invalid_argument, "status " + std::to_string(status) + " is not a final HTTP status (200-599)");
    }
    if (auto h = check_outgoing_headers(headers, {"content-length", "transfer-encoding"}); !h) return h;
    if (headers.has_token("connection", "close")) close_after_ = true;
    started_ = true;
    return {};
  }

  std::string status_line(int status) const {
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) + "\r\n";
  }

  void append_common(std::string& out, const Headers& headers) {
    if (!headers.contains("date")) out += "Date: " + http_date(std::chrono::system_clock::now()) + "\r\n";
    append_fields(out, headers);
    if (stop_.stop_requested()) close_after_ = true;
    if (close_after_ && !headers.has_token("connection", "close")) out += "Connection: close\r\n";
  }

  Result<void> send(std::string_view bytes) {
    auto r = stream_.write_all(bytes, IoDeadline::after(options_.write_timeout, stop_));
    if (!r) failed_ = true;
    return r;
  }

  SocketStream& stream_;
  const ServerOptions& options_;
  agentkit::stop_token stop_;
  bool head_request_;
  int version_minor_;
  bool close_after_;
  bool started_ = false;
  bool finished_ = false;
  bool chunked_ = false;
  bool failed_ = false;
};

}  // namespace detail

Result<void> ResponseWriter::respond(int status, const Headers& headers, std::string_view body) {
  return exchange_->respond(status, headers, body);
}
Result<void> ResponseWriter::start_stream(int status, const Headers& headers) {
  return exchange_->start_stream(status, headers);
}
Result<void> ResponseWriter::write(std::string_view data) { return exchange_->write(data); }
Result<void> ResponseWriter::finish(const Headers& trailers) { return exchange_->finish(trailers); }
bool ResponseWriter::started() const noexcept { return exchange_->started(); }
agentkit::stop_token ResponseWriter::stop_token() const noexcept { return exchange_->stop_token(); }

namespace {

using detail::MessageKind;
using detail::MessageParser;

// Where a connection is: waiting for or reading a request head (evictable), or serving one.
enum class Phase : int { head, serving, evicted };

// Shared between the accept loop (which evicts) and the connection's thread (which serves).
struct ConnectionState {
  std::atomic<bool> done{false};
  std::atomic<Phase> phase{Phase::head};
  std::atomic<std::int64_t> head_since{0};  // steady-clock ticks when the phase began

  void enter_head() {
    head_since.store(std::chrono::steady_clock::now().time_since_epoch().count());
    phase.store(Phase::head);
  }
  // False when the accept loop evicted the connection first.
  bool enter_serving() {
    Phase expected = Phase::head;
    return phase.compare_exchange_strong(expected, Phase::serving);
  }
};

struct ConnectionSlot {
  std::shared_ptr<ConnectionState> state;
  agentkit::jthread thread;
};

// What reading one request produced.
struct ReadOutcome {
  enum class Kind { request, closed, reject } kind = Kind::closed;
  int status = 0;          // for reject
  std::string message;     // for reject
};

ReadOutcome reject(int status, std::string message) {
  return {ReadOutcome::Kind::reject, status, std::move(message)};
}

ReadOutcome reject_for(const Error& e, const MessageParser& parser) {
  if (e.code == Errc::limit_exceeded) {
    return reject(parser.method().empty() ? status_uri_too_long : status_header_too_large, e.message);
  }
  if (e.code == Errc::unsupported) {
    return reject(parser.method().empty() ? status_version_not_supported : status_not_implemented, e.message);
  }
  return reject(status_bad_request, e.message);
}

ServerRequest to_server_request(MessageParser& parser, std::string body, const IpAddress& peer) {
  ServerRequest req;
  req.method = parser.method();
  req.target = parser.target();
  req.version_minor = parser.version_minor();
  req.headers = parser.headers();
  req.body = std::move(body);
  req.peer = peer;
  std::string_view target = req.target;
  if (target.starts_with("http://") || target.starts_with("https://")) {
    if (auto url = parse_url(target)) {
      req.path = url->path;
      req.query = url->query;
      return req;
    }
  }
  const std::size_t question = target.find('?');
  req.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) req.query = std::string(target.substr(question + 1));
  return req;
}

}  // namespace

struct HttpServer::State {
  ServerOptions options;
  Handler handler;
  detail::Listener listener;
  std::string host_text;
  std::mutex mutex;
  std::list<ConnectionSlot> connections;
  agentkit::jthread acceptor;
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> handled{0};
  std::atomic<std::uint64_t> rejected{0};
  std::atomic<std::uint64_t> evicted{0};
  std::atomic<std::size_t> serving{0};
  std::mutex stop_mutex;

  detail::ParserLimits limits() const {
    return {options.max_line_bytes, options.max_header_bytes, options.max_header_count};
  }

  void accept_loop(const agentkit::stop_token& stop);
  void serve(detail::UniqueFd fd, IpAddress peer, ConnectionState& state,
             const agentkit::stop_token& stop);
  ReadOutcome read_request(detail::SocketStream& stream, MessageParser& parser, std::string& inbuf,
                           std::string& body, bool first, const agentkit::stop_token& stop);
  void evict_oldest_waiting();
  void send_rejection(detail::SocketStream& stream, int status, const std::string& message, const agentkit::stop_token& stop);
  void reap_finished();
  void stop_all();
};

void HttpServer::State::send_rejection(detail::SocketStream& stream, int status, const std::string& message,
                                       const agentkit::stop_token& stop) {
  ++rejected;
  const std::string body = message + "\n";
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(detail::reason_phrase(status)) +
                    "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n\r\n" + body;
  (void)stream.write_all(out, IoDeadline::after(options.write_timeout, stop));
}

ReadOutcome HttpServer::State::read_request(detail::SocketStream& stream, MessageParser& parser,
                                            std::string& inbuf, std::string& body, bool first,
                                            const agentkit::stop_token& stop) {
  std::array<char, read_buffer_bytes> buffer{};
  // A new connection must send its head within header_timeout; an idle keep-alive one may wait
  // keep_alive_timeout for its next request, whose head then has header_timeout.
  IoDeadline deadline =
      IoDeadline::after(first ? options.header_timeout : options.keep_alive_timeout, stop);
  auto request_deadline = std::chrono::steady_clock::now() + options.request_timeout;
  bool head_checked = false;
  bool started = !inbuf.empty();  // a pipelined request has begun already
  if (started && !first) deadline = IoDeadline::after(options.header_timeout, stop);
  while (!parser.complete()) {
    if (inbuf.empty()) {
      auto n = stream.read_some(buffer, deadline);
      if (!n) {
        if (n.error().code == Errc::timeout && started) {
          return reject(status_request_timeout,
                        parser.head_complete()
                            ? "the request was not received within request_timeout"
                            : "the request head was not received within header_timeout");
        }
        return {};  // idle timeout, cancellation or a reset: close quietly
      }
      if (*n == 0) return {};  // the client closed (mid-request: nothing useful to answer)
      if (!started && !first) {
        deadline = IoDeadline::after(options.header_timeout, stop);
        request_deadline = std::chrono::steady_clock::now() + options.request_timeout;
      }
      started = true;
      inbuf.assign(buffer.data(), *n);
    }
    auto used = parser.feed(inbuf, body);
    if (!used) return reject_for(used.error(), parser);
    inbuf.erase(0, *used);
    if (parser.head_complete() && !head_checked) {
      head_checked = true;
      // The body has what is left of request_timeout, counted from when reading began.
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          request_deadline - std::chrono::steady_clock::now());
      deadline = IoDeadline::after(std::max(left, std::chrono::milliseconds(0)), stop);
      // Refuse a declared body that is too large before reading any of it.
      if (parser.content_length() && *parser.content_length() > options.max_body_bytes) {
        return reject(status_content_too_large, "the request body is larger than the limit of " +
                                                    std::to_string(options.max_body_bytes) + " bytes");
      }
      if (!parser.complete() && parser.headers().has_token("expect", "100-continue") && parser.version_minor() >= 1) {
        (void)stream.write_all("HTTP/1.1 100 Continue\r\n\r\n", IoDeadline::after(options.write_timeout, stop));
      }
    }
    if (body.size() > options.max_body_bytes) {
      return reject(status_content_too_large, "the request body is larger than the limit of " +
                                                  std::to_string(options.max_body_bytes) + " bytes");
    }
  }
  return {ReadOutcome::Kind::request, 0, {}};
}

void HttpServer::State::serve(detail::UniqueFd fd, IpAddress peer, ConnectionState& state,
                              const agentkit::stop_token& stop) {
  detail::SocketStream stream(std::move(fd));
  std::string inbuf;
  bool first = true;
  while (!stop.stop_requested()) {
    if (!first) state.enter_head();
    MessageParser parser(MessageKind::request, limits());
    std::string body;
    const ReadOutcome outcome = read_request(stream, parser, inbuf, body, first, stop);
    first = false;
    if (!state.enter_serving()) return;  // evicted while reading: the accept loop closed us
    // Counted from here to the end of the response; the guard runs on every return below.
    struct Serving {
      std::atomic<std::size_t>& n;
      ~Serving() { --n; }
    } serving_guard{serving};
    const std::size_t in_progress = ++serving;
    if (outcome.kind == ReadOutcome::Kind::closed) return;
    if (outcome.kind == ReadOutcome::Kind::reject) {
      send_rejection(stream, outcome.status, outcome.message, stop);
      return;
    }
    if (in_progress > options.max_connections) {
      send_rejection(stream, status_unavailable,
                     "the server is at its limit of requests in progress; retry later", stop);
      return;
    }
    const bool keep_alive = parser.keep_alive();
    const ServerRequest request = to_server_request(parser, std::move(body), peer);
    detail::ServerExchange exchange(stream, options, stop, request.method == "HEAD", request.version_minor, !keep_alive);
    ResponseWriter writer = exchange.writer();
    ++handled;
    try {
      handler(request, writer);
    } catch (const std::exception& e) {
      if (!exchange.started()) (void)exchange.respond(status_internal_error, {{"Content-Type", "text/plain"}}, "handler failed\n");
      return;  // a half-written response cannot be repaired: close the connection
    } catch (...) {
      if (!exchange.started()) (void)exchange.respond(status_internal_error, {{"Content-Type", "text/plain"}}, "handler failed\n");
      return;
    }
    if (!exchange.started()) {
      (void)exchange.respond(status_internal_error, {{"Content-Type", "text/plain"}}, "the handler did not respond\n");
    } else if (!exchange.finished()) {
      (void)exchange.finish({});
    }
    if (exchange.must_close()) return;
  }
}

void HttpServer::State::reap_finished() {
  std::lock_guard lock(mutex);
  connections.remove_if([](const ConnectionSlot& slot) { return slot.state->done.load(); });
}

// Called with `mutex` held, when the connections still in their head phase are at the cap.
void HttpServer::State::evict_oldest_waiting() {
  while (true) {
    std::size_t waiting = 0;
    ConnectionSlot* oldest = nullptr;
    for (auto& slot : connections) {
      if (slot.state->done.load() || slot.state->phase.load() != Phase::head) continue;
      ++waiting;
      if (oldest == nullptr || slot.state->head_since.load() < oldest->state->head_since.load())
        oldest = &slot;
    }
    if (waiting < options.max_header_connections || oldest == nullptr) return;
    Phase expected = Phase::head;
    // Lost the race to a head that just completed: look again.
    if (!oldest->state->phase.compare_exchange_strong(expected, Phase::evicted)) continue;
    oldest->thread.request_stop();  // wakes its blocked read; the thread closes the socket
    ++evicted;
  }
}

void HttpServer::State::accept_loop(const agentkit::stop_token& stop) {
  detail::WakeEvent wake;
  while (!stop.stop_requested()) {
    if (auto w = detail::wait_for_fd(listener.fd.get(), POLLIN, IoDeadline{stop}, wake, "accepting"); !w) return;
    IpAddress peer;
    auto fd = detail::accept_connection(listener.fd.get(), peer);
    if (!fd || !fd->valid()) continue;
    ++accepted;
    reap_finished();
    std::lock_guard lock(mutex);
    if (options.max_header_connections > 0) evict_oldest_waiting();
    auto state = std::make_shared<ConnectionState>();
    state->enter_head();
    connections.push_back({state, agentkit::jthread([this, state, conn = std::move(*fd),
                                                     peer](agentkit::stop_token st) mutable {
                             serve(std::move(conn), peer, *state, st);
                             state->done.store(true);
                           })});
  }
}

void HttpServer::State::stop_all() {
  std::lock_guard stop_lock(stop_mutex);
  if (acceptor.joinable()) {
    acceptor.request_stop();
    acceptor.join();
  }
  std::list<ConnectionSlot> running;
  {
    std::lock_guard lock(mutex);
    running.swap(connections);
  }
  for (auto& slot : running) slot.thread.request_stop();
  running.clear();  // joins every connection thread
  listener.fd.reset();
}

HttpServer::HttpServer(std::unique_ptr<State> state) : state_(std::move(state)) {}
HttpServer::HttpServer(HttpServer&&) noexcept = default;
HttpServer& HttpServer::operator=(HttpServer&& other) noexcept {
  if (this != &other) {
    stop();
    state_ = std::move(other.state_);
  }
  return *this;
}
HttpServer::~HttpServer() { stop(); }

Result<HttpServer> HttpServer::start(ServerOptions options, Handler handler) {
  if (!handler) return fail(Errc::invalid_argument, "HttpServer::start needs a handler");
  const std::string bind = options.bind_address == "localhost" ? "127.0.0.1" : options.bind_address;
  auto address = IpAddress::parse(bind);
  if (!address) {
    return fail(Errc::invalid_argument, "bind_address '" + options.bind_address +
                                            "' is not an IP address (use 127.0.0.1, ::1, 0.0.0.0 or ::)");
  }
  auto listener = detail::listen_tcp(*address, options.port, options.listen_backlog);
  if (!listener) return std::move(listener).error();
  auto state = std::make_unique<State>();
  state->options = std::move(options);
  state->handler = std::move(handler);
  state->listener = std::move(*listener);
  state->host_text = address->family == IpAddress::Family::v6 ? "[" + address->to_string() + "]" : address->to_string();
  State* raw = state.get();
  state->acceptor = agentkit::jthread([raw](agentkit::stop_token st) { raw->accept_loop(st); });
  return HttpServer(std::move(state));
}

std::uint16_t HttpServer::port() const noexcept { return state_ ? state_->listener.port : 0; }

std::string HttpServer::base_url() const {
  return state_ ? "http://" + state_->host_text + ":" + std::to_string(state_->listener.port) : std::string{};
}

ServerStats HttpServer::stats() const {
  if (!state_) return {};
  return {state_->accepted.load(), state_->handled.load(), state_->rejected.load(),
          state_->evicted.load()};
}

void HttpServer::stop() {
  if (state_) state_->stop_all();
}

}  // namespace agentkit::http
