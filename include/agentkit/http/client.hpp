// agentkit/http/client.hpp — HttpTransport (the seam) and HttpClient (the default HTTP/1.1 client).
//
//   agentkit::http::HttpClient client({.first_byte_timeout = std::chrono::seconds(30)});
//   auto resp = client.send({.method = "POST", .url = "http://127.0.0.1:11434/api/chat",
//                            .headers = {{"Content-Type", "application/json"}},
//                            .body = payload},
//                           stop);                 // agentkit::stop_token: cancels at once
//   if (!resp) return resp.error();                // Errc::timeout / cancelled / io_error / ...
//   if (resp->status() != 200) { ... }             // statuses are answers, not errors
//   auto body = resp->read_all();                  // or read_some() to stream (message.hpp)
//
//   // https:// needs a TlsProvider: build with -DAGENTKIT_WITH_OPENSSL=ON and pass
//   // agentkit::openssl::make_tls_provider(), or inject your own. Without one, an https:// URL
//   // fails with Errc::unsupported naming AGENTKIT_WITH_OPENSSL.
//
// HttpTransport is what the rest of the library talks to (providers, MCP, fetch_url), so an
// embedder can plug in libcurl or Beast: implement send() and return a Response whose BodyReader
// streams the body. The client sends only what the caller asked for: retries on statuses,
// Retry-After, credentials and header precedence belong to the layers above. The one retry it makes
// on its own is the one HTTP/1.1 requires to be safe (RFC 9112 §9.3.1): when a reused keep-alive
// connection turns out to have been closed by the server before it answered, an idempotent request
// (or one that never got written) is sent once more on a fresh connection.
//
// Thread safety: HttpClient::send may be called from many threads at once; the connection pool is
// shared and locked internally. A returned Response belongs to the calling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>

#include "agentkit/base/result.hpp"
#include "agentkit/base/version.hpp"
#include "agentkit/http/message.hpp"
#include "agentkit/http/proxy.hpp"
#include "agentkit/http/resolver.hpp"
#include "agentkit/http/stream.hpp"

namespace agentkit::http {

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Sends `request` and returns as soon as the response's status line and headers have arrived;
  // the body is then pulled through the Response. `stop` also governs those body reads.
  virtual Result<Response> send(const Request& request, agentkit::stop_token stop = {}) = 0;
};

// Settings for HttpClient. Safe to copy; read once when the client is built.
struct HttpOptions {
  // Give up opening a connection after this long: name resolution, TCP connect, the proxy's
  // CONNECT answer and the TLS handshake all count.
  std::chrono::milliseconds connect_timeout{10'000};
  // Fail a response whose first byte has not arrived this long after the request was written
  // (a model may think for a while before the first token; raise it for slow local models).
  std::chrono::milliseconds first_byte_timeout{60'000};
  // Fail when the connection is silent this long in the middle of a response (or a write stalls
  // this long). Streams send keep-alive comments well within it.
  std::chrono::milliseconds idle_timeout{300'000};
  // Longest status, header or chunk-size line accepted from a server.
  std::size_t max_line_bytes = 8 * 1024;
  // Largest header block (and, separately, trailer block) accepted from a server.
  std::size_t max_header_bytes = 64 * 1024;
  // Most header fields accepted in one block.
  std::size_t max_header_count = 256;
  // Idle keep-alive connections kept per origin (scheme, host, port, proxy); 0 disables reuse.
  // The least kept: the pool is sized from use, keeping as many as requests to the origin have
  // been in flight at once (up to 4096), because each session in flight holds one connection and
  // every one returned is reused instead of opening a new TCP connection (a bound of 8 made 200
  // concurrent sessions open a new connection for 78 % of their requests). Idle connections
  // cost one descriptor each and close after pool_idle_timeout.
  std::size_t max_idle_per_origin = 256;
  // An idle pooled connection older than this is closed instead of reused (servers drop idle
  // connections after 5-120 s; reusing one they already dropped wastes a round trip).
  std::chrono::milliseconds pool_idle_timeout{60'000};
  // Proxies. nullopt: ProxySettings::from_environment() when the client is built. A value (even
  // an empty one) is used as given, and the environment is not read.
  std::optional<ProxySettings> proxy{};
  // Name resolution. nullptr: a SystemResolver owned by the client.
  std::shared_ptr<Resolver> resolver{};
  // TLS for https://. nullptr: https:// URLs fail naming AGENTKIT_WITH_OPENSSL.
  std::shared_ptr<TlsProvider> tls{};
  // Called with the concrete address just before each TCP connect, after resolution and with no
  // lookup in between; an error vetoes that address (the next one is tried; if none is left the
  // request fails with the veto's error). The SSRF guard's connect-time check lives here.
  std::function<Result<void>(const ConnectTarget&)> before_connect{};
  // Sent as User-Agent unless the request sets its own ("agentkit-cpp/" and the version).
  std::string user_agent{kUserAgent};
};

// Counters for tests and diagnostics (keep-alive reuse is counted, not timed).
struct ClientStats {
  std::uint64_t connections_opened = 0;   // TCP connections the client opened
  std::uint64_t connections_reused = 0;   // requests sent on a pooled connection
  std::uint64_t requests_sent = 0;        // request heads written (retries included)
  std::uint64_t stale_retries = 0;        // resends after a pooled connection proved dead
};

class HttpClient final : public HttpTransport {
 public:
  explicit HttpClient(HttpOptions options = {});
  ~HttpClient() override;
  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  Result<Response> send(const Request& request, agentkit::stop_token stop = {}) override;

  ClientStats stats() const;
  // Closes every idle pooled connection now.
  void close_idle_connections();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace agentkit::http
