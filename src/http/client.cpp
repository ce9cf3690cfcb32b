#include "agentkit/http/client.hpp"

#include <array>
#include <atomic>
#include <cstring>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/strings.hpp"
#include "connection_pool.hpp"
#include "message_parser.hpp"
#include "socket.hpp"
#include "view_reader.hpp"
#include "wire_format.hpp"

namespace agentkit::http {
namespace {

using detail::MessageKind;
using detail::MessageParser;
using detail::ParserLimits;

// A response's read buffer, made once its answer has begun to arrive (read_head) and held until
// its message ends. The size of a TLS record's plaintext, which is all a TLS stream returns in one
// read anyway; a larger buffer would save a plain socket's reads only for answers that are
// already there whole, at the price of memory held through each body's decoding.
using detail::read_buffer_bytes;
// A chunk at least this large (or the rest of the caller's buffer) is read straight into the
// caller's buffer; smaller ones go through the read buffer.
constexpr std::uint64_t kStraightChunkBytes = 4 * 1024;
// Bodies up to this size are copied after the head; larger ones are written from their own
// buffer, in the same send as the head where the stream allows (write_request).
constexpr std::size_t kInlineBodyBytes = 8 * 1024;
using ReadBuffer = std::array<char, read_buffer_bytes>;
constexpr std::size_t tunnel_buffer_bytes = 2 * 1024;

// Prefixes an error's message with what the client was doing, keeping code and detail.
Error annotate(Error e, const std::string& context) {
  e.message = context + ": " + e.message;
  return e;
}

std::string ms_text(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

// Bytes read from the connection and not yet taken: the part of a read buffer from `at` to `end`.
struct HeldBytes {
  std::unique_ptr<ReadBuffer> buffer;  // not zeroed: only bytes a read wrote are looked at
  std::size_t at = 0;
  std::size_t end = 0;
  bool empty() const noexcept { return at == end; }
  std::string_view view() const noexcept { return {buffer->data() + at, end - at}; }
};

// The body of a response read from one of our connections. Owns the connection until the message
// ends; then hands it back to the pool if both sides allow keep-alive.
//
// Body bytes are copied once, from the read buffer (or the connection) into the caller's buffer,
// or not at all when read_view lends them where the read buffer holds them: the parser only reads
// the framing around them (feed_framing), never copies them itself.
class ConnectionBody final : public detail::ViewReader {
 public:
  ConnectionBody(std::unique_ptr<Stream> stream, HeldBytes&& held, MessageParser&& parser,
                 bool reusable, std::shared_ptr<detail::ConnectionPool> pool, std::string key,
                 std::string origin, std::chrono::milliseconds idle_timeout,
                 agentkit::stop_token stop, detail::ConnectionPool::Lease lease)
      : held_(std::move(held)),
        stream_(std::move(stream)),
        parser_(std::move(parser)),
        reusable_(reusable),
        pool_(std::move(pool)),
        key_(std::move(key)),
        origin_(std::move(origin)),
        idle_timeout_(idle_timeout),
        stop_(std::move(stop)),
        lease_(std::move(lease)) {
    if (parser_.complete()) release();
  }

  Result<std::size_t> read_some(std::span<char> buffer) override {
    while (true) {
      if (parser_.complete()) {
        release();
        return std::size_t{0};
      }
      if (held_.empty()) {
        if (reads_straight(buffer.size())) return read_straight(buffer);
        auto r = fill();
        if (!r) return std::move(r).error();
        if (!*r) return std::size_t{0};  // the peer closed where the framing allows it
        continue;
      }
      if (parser_.raw_body_remaining() > 0) return buffer.empty() ? 0 : take_held(buffer);
      if (auto f = settle(); !f) return std::move(f).error();
    }
  }

  // read_some without the copy: the body bytes are lent where the read buffer holds them, so
  // there are no straight reads and the buffer stays until the next call even when the message
  // has ended (only the connection goes back to the pool at once).
  Result<std::string_view> read_view() override {
    while (true) {
      if (parser_.complete()) {
        release();
        return std::string_view();
      }
      if (held_.empty()) {
        auto r = fill();
        if (!r) return std::move(r).error();
        if (!*r) return std::string_view();  // the peer closed where the framing allows it
        continue;
      }
      if (parser_.raw_body_remaining() > 0) return lend_held();
      if (auto f = settle(); !f) return std::move(f).error();
    }
  }

  const Headers& trailers() const override { return parser_.trailers(); }

 private:
  // take_held's view form: the body bytes held, then the framing after them.
  std::string_view lend_held() {
    const auto n = static_cast<std::size_t>(
        std::min<std::uint64_t>(parser_.raw_body_remaining(), held_.end - held_.at));
    const std::string_view bytes(held_.buffer->data() + held_.at, n);
    held_.at += n;
    parser_.consume_raw_body(n);
    if (parser_.raw_body_remaining() == 0 && !held_.empty()) (void)settle();
    if (parser_.complete()) give_back_connection();
    return bytes;
  }

  // Copies body bytes already read into the caller's buffer, then reads the framing held after
  // them, so a caller that stops after the last byte, without reading the final 0, still frees
  // the connection for reuse. A framing error there waits for the next read.
  std::size_t take_held(std::span<char> buffer) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(
        {buffer.size(), parser_.raw_body_remaining(), held_.end - held_.at}));
    std::memcpy(buffer.data(), held_.buffer->data() + held_.at, n);
    held_.at += n;
    parser_.consume_raw_body(n);
    if (parser_.raw_body_remaining() == 0 && !held_.empty()) (void)settle();
    if (parser_.complete()) {
      release();
    } else if (held_.empty() && parser_.framing() != detail::BodyFraming::chunked) {
      held_ = HeldBytes{};  // the rest of the body is read straight (reads_straight)
    }
    return n;
  }

  // Reads the framing (chunk-size lines, chunk ends, trailers) among the held bytes, up to the
  // next body bytes or the end of the message.
  Result<void> settle() {
    auto used = parser_.feed_framing(held_.view());
    if (!used) {
      stream_.reset();
      return annotate(std::move(used).error(),
                      "the response body from " + origin_ + " is malformed");
    }
    held_.at += *used;
    if (parser_.complete() && !held_.empty()) reusable_ = false;  // bytes after the message
    return {};
  }

  // Whether the next bytes go straight from the connection into the caller's buffer: body bytes
  // with nothing to decode (a Content-Length or read-until-close body, or a large chunk's data).
  // They skip the read buffer, a copy of every byte. A small chunk is read through the buffer
  // instead, which takes many chunks in one read.
  bool reads_straight(std::size_t wanted) const {
    const std::uint64_t raw = parser_.raw_body_remaining();
    if (raw == 0 || wanted == 0 || !stream_) return false;
    return parser_.framing() != detail::BodyFraming::chunked ||
           raw >= std::min<std::uint64_t>(wanted, kStraightChunkBytes);
  }

  Result<std::size_t> read_straight(std::span<char> buffer) {
    const auto limit = static_cast<std::size_t>(
        std::min<std::uint64_t>(buffer.size(), parser_.raw_body_remaining()));
    auto n = read_stream(buffer.first(limit));
    if (!n) return std::move(n).error();
    if (*n == 0) {  // the peer closed: the end of a read-until-close body, or a truncation
      if (auto f = parser_.finish(); !f)
        return annotate(std::move(f).error(), "reading the response body from " + origin_);
      return std::size_t{0};
    }
    parser_.consume_raw_body(*n);
    if (parser_.complete()) release();
    return *n;
  }

  // Reads once from the connection; 0 when the peer closed it (the stream is then dropped).
  Result<std::size_t> read_stream(std::span<char> into) {
    auto n = stream_->read_some(into, IoDeadline::after(idle_timeout_, stop_));
    if (!n) {
      stream_.reset();
      Error e = std::move(n).error();
      if (e.code == Errc::timeout) {
        return annotate(std::move(e), "the response body from " + origin_ + " stalled for " + ms_text(idle_timeout_) +
                                          " (HttpOptions::idle_timeout)");
      }
      return annotate(std::move(e), "reading the response body from " + origin_);
    }
    if (*n == 0) stream_.reset();
    return *n;
  }

  // Reads once from the connection into the held bytes; false when the peer closed it.
  Result<bool> fill() {
    if (!stream_) return fail(Errc::closed, "the connection of this response is already closed");
    if (!held_.buffer) held_.buffer.reset(new ReadBuffer);
    auto n = read_stream(*held_.buffer);
    if (!n) return std::move(n).error();
    held_.at = 0;
    held_.end = *n;
    if (*n == 0) {
      if (auto f = parser_.finish(); !f) return annotate(std::move(f).error(), "reading the response body from " + origin_);
      return false;
    }
    return true;
  }

  // The message has been read from the connection: the connection goes back to the pool and the
  // read buffer is freed at once, not when the response is dropped (a burst of answers to many
  // sessions would otherwise hold a buffer each while their bodies are decoded).
  void release() {
    give_back_connection();
    held_ = HeldBytes{};
  }

  void give_back_connection() {
    if (stream_ && reusable_ && parser_.keep_alive()) pool_->release(key_, std::move(stream_));
    stream_.reset();
  }

  // What read_head read past the head, then each later read: made once the answer had begun to
  // arrive, kept until the message ends (release).
  HeldBytes held_;
  std::unique_ptr<Stream> stream_;
  MessageParser parser_;
  bool reusable_;
  std::shared_ptr<detail::ConnectionPool> pool_;
  std::string key_;
  std::string origin_;
  std::chrono::milliseconds idle_timeout_;
  agentkit::stop_token stop_;
  // The request counts as in flight (the pool's sizing) until its body is read or dropped;
  // declared after pool_, so it ends first.
  detail::ConnectionPool::Lease lease_;
};

// The head (with a small body copied in) and then a large body: one send on a plain socket,
// where two would make two segments and wake the server twice. Out of line, so its frame is not
// part of the one `send` waits for the answer in.
[[gnu::noinline]] Result<void> write_request(Stream& stream, std::string_view head,
                                             const Request& request, const IoDeadline& deadline) {
  if (request.body.size() <= kInlineBodyBytes) return stream.write_all(head, deadline);
  if (auto* socket = dynamic_cast<detail::SocketStream*>(&stream))
    return socket->write_all_of(head, request.body, deadline);
  if (auto w = stream.write_all(head, deadline); !w) return w;
  return stream.write_all(request.body, deadline);
}

Error tls_missing(const Url& url) {
  return fail(Errc::unsupported,
              "cannot open " + url.to_string() +
                  ": https:// needs TLS and this HTTP client has no TlsProvider. Build AgentKit with "
                  "-DAGENTKIT_WITH_OPENSSL=ON and set HttpOptions::tls = agentkit::openssl::make_tls_provider(), "
                  "or inject your own TlsProvider or HttpTransport")
      .with_detail("cmake_option", "AGENTKIT_WITH_OPENSSL");
}

std::string proxy_authorization(const Url& proxy) {
  if (!proxy.userinfo) return {};
  auto decoded = percent_decode(*proxy.userinfo);
  return "Basic " + base64::encode(decoded ? *decoded : *proxy.userinfo);
}

// Out of line, so their temporaries take no room in the frames that wait for an answer (the deepest
// path of a session's stack runs through send and read_head).
[[gnu::cold, gnu::noinline]] Error failed_sending(Error error, const std::string& origin) {
  return annotate(std::move(error), "sending the request to " + origin);
}

[[gnu::cold, gnu::noinline]] Error ended_before_head(MessageParser& parser,
                                                     const std::string& origin) {
  auto f = parser.finish();
  return annotate(
      f ? fail(Errc::internal, "HTTP parser finished without a head") : std::move(f).error(),
      "reading the response from " + origin);
}

[[gnu::cold, gnu::noinline]] Error malformed_response(Error error, const std::string& origin) {
  return annotate(std::move(error), "the response from " + origin + " is malformed");
}

}  // namespace

struct HttpClient::State {
  explicit State(HttpOptions opts)
      : options(std::move(opts)),
        resolver(options.resolver ? options.resolver : std::make_shared<SystemResolver>()),
        proxy_policy(ProxyPolicy::make(options.proxy ? *options.proxy : ProxySettings::from_environment())),
        pool(std::make_shared<detail::ConnectionPool>(options.max_idle_per_origin, options.pool_idle_timeout)) {}

  HttpOptions options;
  std::shared_ptr<Resolver> resolver;
  Result<ProxyPolicy> proxy_policy;
  std::shared_ptr<detail::ConnectionPool> pool;
  std::atomic<std::uint64_t> connections_opened{0};
  std::atomic<std::uint64_t> connections_reused{0};
  std::atomic<std::uint64_t> requests_sent{0};
  std::atomic<std::uint64_t> stale_retries{0};

  ParserLimits limits() const {
    return {options.max_line_bytes, options.max_header_bytes, options.max_header_count};
  }

  // What the exchange needs of a request once its URL is read (see prepare).
  struct Target {
    std::string key;     // the connection pool's: origin, and " via " the proxy's origin
    std::string wire;    // the request's head
    std::string origin;  // for error messages
  };

  Result<Target> prepare(const Request& request) const;
  Result<Response> send(const Request& request, const Target& target, agentkit::stop_token stop);
  Result<Response> respond(std::unique_ptr<Stream> stream, HeldBytes& held, MessageParser& parser,
                           const Request& request, const Target& target,
                           std::chrono::milliseconds idle, const agentkit::stop_token& stop,
                           detail::ConnectionPool::Lease& lease);
  Result<std::unique_ptr<Stream>> open_for(const Request& request, agentkit::stop_token stop);
  Result<std::unique_ptr<Stream>> open_connection(const Url& url, const std::optional<Url>& proxy, agentkit::stop_token stop);
  Result<std::unique_ptr<Stream>> connect_any(const Url& hop, bool to_proxy, const IoDeadline& deadline);
  [[gnu::noinline]] bool connect_allowed(const Url& hop, const IpAddress& address, bool to_proxy,
                                         std::optional<Error>& veto) const;
  [[gnu::cold, gnu::noinline]] static Error resolve_failure(
      const Url& hop, Result<std::vector<IpAddress>>& addresses);
  [[gnu::cold, gnu::noinline]] Error connect_failure(const Url& hop, std::optional<Error> veto,
                                                     std::optional<Error> last) const;
  Result<void> open_tunnel(Stream& stream, const Url& url, const Url& proxy, const IoDeadline& deadline);
  std::string format_request(const Request& request, const Url& url, const std::optional<Url>& proxy) const;
  Result<void> read_head(Stream& stream, HeldBytes& held, MessageParser& parser,
                         std::chrono::milliseconds first_byte, std::chrono::milliseconds idle,
                         const agentkit::stop_token& stop, const std::string& origin);
};

Result<std::unique_ptr<Stream>> HttpClient::State::connect_any(const Url& hop, bool to_proxy, const IoDeadline& deadline) {
  // The failures are told out of line (connect_failure): their text in this frame would sit under
  // every connect (docs/architecture.md, "the caller's stack").
  auto addresses = resolver->resolve(hop.host, deadline);
  if (!addresses || addresses->empty()) return resolve_failure(hop, addresses);
  std::optional<Error> veto;
  std::optional<Error> last;
  for (std::size_t i = 0; i < addresses->size(); ++i) {
    const IpAddress& address = (*addresses)[i];
    if (options.before_connect && !connect_allowed(hop, address, to_proxy, veto)) continue;
    // Later addresses get a share of the time left, so one black-holed address cannot use it all.
    IoDeadline attempt = deadline;
    if (!deadline.unbounded()) {
      const auto left = deadline.at - std::chrono::steady_clock::now();
      attempt.at = std::chrono::steady_clock::now() + left / static_cast<long>(addresses->size() - i);
    }
    auto stream = detail::connect_tcp(address, hop.port, attempt);
    if (stream) {
      ++connections_opened;
      return std::unique_ptr<Stream>(std::move(*stream));
    }
    if (stream.error().code == Errc::cancelled) return std::move(stream).error();
    last = std::move(stream).error();
  }
  return connect_failure(hop, std::move(veto), std::move(last));
}

Error HttpClient::State::resolve_failure(const Url& hop,
                                         Result<std::vector<IpAddress>>& addresses) {
  if (!addresses)
    return annotate(std::move(addresses).error(), "cannot connect to " + hop.origin());
  return fail(Errc::not_found, "the resolver returned no address for '" + hop.host + "'");
}

Error HttpClient::State::connect_failure(const Url& hop, std::optional<Error> veto,
                                         std::optional<Error> last) const {
  if (veto && !last) return annotate(std::move(*veto), "connection to " + hop.origin() + " refused by before_connect");
  if (last && last->code == Errc::timeout) {
    return annotate(std::move(*last), "connecting to " + hop.origin() + " exceeded " + ms_text(options.connect_timeout) +
                                          " (HttpOptions::connect_timeout)");
  }
  if (last) return annotate(std::move(*last), "cannot connect to " + hop.origin());
  return annotate(std::move(*veto), "connection to " + hop.origin() + " refused by before_connect");
}

bool HttpClient::State::connect_allowed(const Url& hop, const IpAddress& address, bool to_proxy,
                                        std::optional<Error>& veto) const {
  auto allowed = options.before_connect(ConnectTarget{hop.host, address, hop.port, to_proxy});
  if (!allowed && !veto) veto = std::move(allowed).error();
  return allowed.has_value();
}

Result<void> HttpClient::State::open_tunnel(Stream& stream, const Url& url, const Url& proxy, const IoDeadline& deadline) {
  const std::string authority = (url.host_kind == HostKind::ipv6 ? "[" + url.host + "]" : url.host) + ":" +
                                std::to_string(url.port);
  std::string head = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n";
  if (const std::string auth = proxy_authorization(proxy); !auth.empty()) head += "Proxy-Authorization: " + auth + "\r\n";
  head += "\r\n";
  const std::string where = "proxy " + proxy.origin() + " tunnelling to " + authority;
  if (auto w = stream.write_all(head, deadline); !w) return annotate(std::move(w).error(), where);
  MessageParser parser(MessageKind::response, limits());
  parser.set_response_has_no_body();
  std::string ignored;
  // A proxy's answer to CONNECT is a head alone: a small buffer on the stack.
  std::array<char, tunnel_buffer_bytes> buffer;  // not zeroed: only what a read wrote is looked at
  while (!parser.complete()) {
    auto n = stream.read_some(buffer, deadline);
    if (!n) return annotate(std::move(n).error(), where);
    if (*n == 0) {
      if (auto f = parser.finish(); !f) return annotate(std::move(f).error(), where);
      break;
    }
    auto used = parser.feed(std::string_view(buffer.data(), *n), ignored);
    if (!used) return annotate(std::move(used).error(), where);
    if (*used < *n) return fail(Errc::protocol_error, where + ": the proxy sent bytes before the tunnel was open");
  }
  constexpr int proxy_auth_required = 407;
  const int status = parser.status();
  if (status >= 200 && status < 300) return {};
  const Errc code = status == proxy_auth_required ? Errc::unauthenticated : Errc::io_error;
  return fail(code, where + ": the proxy answered " + std::to_string(status) + " " + parser.reason() +
                        (status == proxy_auth_required ? "; put credentials in the proxy URL (http://user:pass@host:port)" : ""))
      .with_detail("status", std::to_string(status));
}

Result<std::unique_ptr<Stream>> HttpClient::State::open_connection(const Url& url, const std::optional<Url>& proxy,
                                                                   agentkit::stop_token stop) {
  const IoDeadline deadline = IoDeadline::after(options.connect_timeout, stop);
  auto stream = connect_any(proxy ? *proxy : url, proxy.has_value(), deadline);
  if (!stream) return std::move(stream).error();
  if (!url.is_https()) return stream;
  if (proxy) {
    if (auto t = open_tunnel(**stream, url, *proxy, deadline); !t) return std::move(t).error();
  }
  auto secure = options.tls->connect(std::move(*stream), {url.host, url.host_kind != HostKind::name}, deadline);
  if (!secure) return annotate(std::move(secure).error(), "TLS handshake with " + url.origin());
  return secure;
}

std::string HttpClient::State::format_request(const Request& request, const Url& url, const std::optional<Url>& proxy) const {
  const bool absolute_form = proxy && !url.is_https();  // RFC 9112 §3.2.2: requests to a proxy
  std::string out;
  out.reserve((request.body.size() <= kInlineBodyBytes ? request.body.size() : 0) + 256);
  out += request.method;
  out += ' ';
  out += absolute_form ? url.to_string() : url.target();
  out += " HTTP/1.1\r\nHost: ";
  out += url.authority();
  out += "\r\n";
  if (!request.headers.contains("user-agent") && !options.user_agent.empty()) out += "User-Agent: " + options.user_agent + "\r\n";
  if (absolute_form) {
    if (const std::string auth = proxy_authorization(*proxy); !auth.empty()) out += "Proxy-Authorization: " + auth + "\r\n";
  }
  detail::append_fields(out, request.headers);
  const bool method_has_body = request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
  if (!request.body.empty() || method_has_body) out += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  out += "\r\n";
  // A small body joins the head (one memcpy is cheaper than a second send); a large one is
  // written from the request's own buffer, never copied (write_request).
  if (request.body.size() <= kInlineBodyBytes) out += request.body;
  return out;
}

[[gnu::noinline]] Result<void> HttpClient::State::read_head(
    Stream& stream, HeldBytes& held, MessageParser& parser, std::chrono::milliseconds first_byte,
    std::chrono::milliseconds idle, const agentkit::stop_token& stop, const std::string& origin) {
  const auto failed = [&](Error e, bool waiting_first) {
    if (e.code == Errc::timeout && waiting_first) {
      return annotate(std::move(e), "no response from " + origin + " within " +
                                        ms_text(first_byte) + " (HttpOptions::first_byte_timeout)");
    }
    if (e.code == Errc::timeout) {
      return annotate(std::move(e), "the response head from " + origin + " stalled for " +
                                        ms_text(idle) + " (HttpOptions::idle_timeout)");
    }
    return annotate(std::move(e), "reading the response from " + origin);
  };
  // The answer is waited for before its buffer is made: a thousand sessions waiting on a slow
  // model hold no buffer (nor a stack page for one), and once it has begun to arrive, the head
  // and the body's first bytes come in one read. What follows the head stays in the buffer for
  // the body (ConnectionBody), which copies it once, into its reader's buffer.
  const IoDeadline first_deadline = IoDeadline::after(first_byte, stop);
  if (auto w = stream.wait_readable(first_deadline); !w) return failed(std::move(w).error(), true);
  if (!held.buffer) held.buffer.reset(new ReadBuffer);  // default-initialised: not zeroed
  held.at = held.end = 0;
  while (!parser.head_complete()) {
    const bool waiting_first = parser.bytes_consumed() == 0;
    auto n = stream.read_some(*held.buffer,
                              waiting_first ? first_deadline : IoDeadline::after(idle, stop));
    if (!n) return failed(std::move(n).error(), waiting_first);
    if (*n == 0) return ended_before_head(parser, origin);
    auto used = parser.feed_framing(std::string_view(held.buffer->data(), *n));
    if (!used) return malformed_response(std::move(used).error(), origin);
    held.at = *used;
    held.end = *n;
  }
  return {};
}

// Reads the URL and checks the request before `send` is entered (HttpClient::send calls both): the
// URL, the proxy's, their results and the formatting's temporaries would otherwise stay below
// `send`'s frame, which waits for the answer on the deepest path of a session's stack.
Result<HttpClient::State::Target> HttpClient::State::prepare(const Request& request) const {
  auto url = parse_url(request.url);
  if (!url) return std::move(url).error();
  if (!is_token(request.method)) {
    constexpr std::size_t max_quoted = 32;
    return fail(Errc::invalid_argument, "HTTP method '" + request.method.substr(0, max_quoted) + "' is not a valid token");
  }
  if (auto h = detail::check_outgoing_headers(request.headers, {"host", "content-length", "transfer-encoding"}); !h) {
    return std::move(h).error();
  }
  if (!proxy_policy) return proxy_policy.error();
  const std::optional<Url> proxy = proxy_policy->proxy_for(*url);
  if (url->is_https() && !options.tls) return tls_missing(*url);
  Target target{url->origin(), format_request(request, *url, proxy), {}};
  target.origin = target.key;
  if (proxy) target.key += " via " + proxy->origin();
  return target;
}

// A new connection reads the URL again (prepare accepted it): once a connection, not a request.
[[gnu::noinline]] Result<std::unique_ptr<Stream>> HttpClient::State::open_for(
    const Request& request, agentkit::stop_token stop) {
  auto url = parse_url(request.url);
  if (!url) return std::move(url).error();
  return open_connection(*url, proxy_policy->proxy_for(*url), std::move(stop));
}

Result<Response> HttpClient::State::send(const Request& request, const Target& target,
                                         agentkit::stop_token stop) {
  const std::string& key = target.key;
  const std::string& wire = target.wire;
  const std::string& origin = target.origin;
  const bool replayable = detail::is_idempotent(request.method) || request.headers.contains("idempotency-key");
  const auto first_byte = request.first_byte_timeout.value_or(options.first_byte_timeout);
  const auto idle = request.idle_timeout.value_or(options.idle_timeout);
  detail::ConnectionPool::Start start = pool->start(key);
  detail::ConnectionPool::Lease lease = std::move(start.lease);

  HeldBytes held;  // its buffer made by read_head, kept across a resend
  for (int attempt = 0;; ++attempt) {
    // A resend always takes a fresh connection: the next pooled one may be just as stale.
    std::unique_ptr<Stream> stream = attempt == 0 ? std::move(start.stream) : nullptr;
    const bool reused = stream != nullptr;
    if (reused) {
      ++connections_reused;
    } else {
      auto opened = open_for(request, stop);
      if (!opened) return std::move(opened).error();
      stream = std::move(*opened);
    }
    const bool may_retry = reused && attempt == 0;
    ++requests_sent;
    auto w = write_request(*stream, wire, request, IoDeadline::after(idle, stop));
    if (!w) {
      if (may_retry && w.error().code == Errc::io_error) {
        ++stale_retries;
        continue;
      }
      return failed_sending(std::move(w).error(), origin);
    }
    // Only a replayable request on a reused connection can be written again below.
    const bool may_resend = may_retry && replayable;
    if (!may_resend && request.on_body_written) request.on_body_written();
    MessageParser parser(MessageKind::response, limits());
    if (request.method == "HEAD") parser.set_response_has_no_body();
    if (auto h = read_head(*stream, held, parser, first_byte, idle, stop, origin); !h) {
      // A reused connection the server closed before answering: RFC 9112 §9.3.1 allows one resend.
      if (may_resend && parser.bytes_consumed() == 0 && h.error().code == Errc::io_error) {
        ++stale_retries;
        continue;
      }
      return std::move(h).error();
    }
    if (may_resend && request.on_body_written) request.on_body_written();
    return respond(std::move(stream), held, parser, request, target, idle, stop, lease);
  }
}

// Out of line, so what building the response takes (the head's copies, the body's parts) adds
// nothing to the frame of `send`, which waits for the answer.
[[gnu::noinline]] Result<Response> HttpClient::State::respond(
    std::unique_ptr<Stream> stream, HeldBytes& held, MessageParser& parser, const Request& request,
    const Target& target, std::chrono::milliseconds idle, const agentkit::stop_token& stop,
    detail::ConnectionPool::Lease& lease) {
  // Bytes after a message that has ended: whatever they are, the connection is not reused.
  const bool leftover = parser.complete() && !held.empty();
  const bool reusable = !leftover && !request.headers.has_token("connection", "close");
  const int status = parser.status();
  std::string reason = parser.reason();
  Headers headers = parser.headers();
  auto body = std::make_unique<ConnectionBody>(std::move(stream), std::move(held),
                                               std::move(parser), reusable, pool, target.key,
                                               target.origin, idle, stop, std::move(lease));
  return Response(status, std::move(reason), std::move(headers), std::move(body));
}

HttpClient::HttpClient(HttpOptions options) : state_(std::make_shared<State>(std::move(options))) {}
HttpClient::~HttpClient() = default;
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;

Result<Response> HttpClient::send(const Request& request, agentkit::stop_token stop) {
  auto target = state_->prepare(request);
  if (!target) return std::move(target).error();
  return state_->send(request, *target, std::move(stop));
}

ClientStats HttpClient::stats() const {
  return {state_->connections_opened.load(), state_->connections_reused.load(), state_->requests_sent.load(),
          state_->stale_retries.load()};
}

void HttpClient::close_idle_connections() { state_->pool->clear(); }

}  // namespace agentkit::http
