// agentkit/http/server.hpp — a small HTTP/1.1 server (MCP's HTTP mode, and test peers).
//
//   auto server = agentkit::http::HttpServer::start({.port = 0},
//       [](const agentkit::http::ServerRequest& req, agentkit::http::ResponseWriter& out) {
//         if (req.path == "/events") {                       // a streamed (SSE) response
//           (void)out.start_stream(200, {{"Content-Type", "text/event-stream"}});
//           (void)out.write("data: hello\n\n");             // sent at once, as one chunk
//           (void)out.finish();
//           return;
//         }
//         (void)out.respond(200, {{"Content-Type", "text/plain"}}, "hi");
//       });
//   if (!server) return server.error();
//   std::string url = server->base_url();                   // "http://127.0.0.1:41234"
//   server->stop();                                          // or let the destructor do it
//
// Binds loopback unless told otherwise. Enforces request limits before reading further (414 for
// an over-long request line, 431 for headers, 413 for a body, 408 for a head not sent within
// header_timeout, 503 beyond max_connections requests in progress) and keeps connections alive
// between requests. Connections still sending headers are capped apart from requests in
// progress; idle and slow ones are closed oldest first to admit new ones. Each connection runs
// on its own agentkit::jthread; stop() closes the listener, fires every handler's stop token
// (ResponseWriter::stop_token), wakes blocked reads and writes, and joins every thread before it
// returns. A handler must return once its stop token fires: stop() waits for it.
//
// Thread safety: start/stop/port/stats may be called from any thread. The handler runs
// concurrently on connection threads; a ResponseWriter belongs to the thread running the handler.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/http/message.hpp"
#include "agentkit/http/resolver.hpp"

namespace agentkit::http {

namespace detail {
class ServerExchange;
}

// Settings for HttpServer. Safe to copy; read once at start().
struct ServerOptions {
  // Address to listen on: loopback by default; "0.0.0.0" or "::" exposes the server to the network.
  std::string bind_address = "127.0.0.1";
  // Port to listen on; 0 lets the system pick a free one (see HttpServer::port()).
  std::uint16_t port = 0;
  // Longest request line (longer: 414) and longest header line (longer: 431).
  std::size_t max_line_bytes = 8 * 1024;
  // Largest header block (larger: 431).
  std::size_t max_header_bytes = 64 * 1024;
  // Most header fields in one request (more: 431).
  std::size_t max_header_count = 256;
  // Largest request body (larger: 413). 16 MiB is the library-wide bound on one message.
  std::size_t max_body_bytes = 16 * 1024 * 1024;
  // Requests in progress at once (a handler running, a stream open); a request that arrives
  // beyond it is answered 503 and its connection closed.
  std::size_t max_connections = 64;
  // Connections waiting for or still sending a request head (new ones, idle keep-alive ones).
  // A new connection beyond it closes the one that has waited longest, so connections that
  // never finish their headers cannot keep a legitimate client out.
  std::size_t max_header_connections = 64;
  // Time a connection may take to send a complete request head: from accept for its first
  // request, from the first byte for later ones (slowloris bound). Silence: closed; a partial
  // head: 408.
  std::chrono::milliseconds header_timeout{10'000};
  // Time allowed to receive a whole request once its first byte has arrived (slow-sender bound).
  std::chrono::milliseconds request_timeout{30'000};
  // How long an idle keep-alive connection waits for its next request.
  std::chrono::milliseconds keep_alive_timeout{30'000};
  // How long one write to a client that does not read may stall.
  std::chrono::milliseconds write_timeout{30'000};
  // Pending-connection queue of listen(2).
  int listen_backlog = 128;
};

struct ServerRequest {
  std::string method{};
  std::string target{};                 // as sent: "/mcp?x=1"
  std::string path{};                   // "/mcp"
  std::optional<std::string> query{};   // "x=1"
  int version_minor = 1;              // HTTP/1.<version_minor>
  Headers headers{};
  std::string body{};                   // complete, within max_body_bytes
  IpAddress peer{};                     // the client's address
};

// How a handler answers: either respond() once, or start_stream(), write() any number of times,
// finish(). Returning without answering sends 500; returning mid-stream ends the stream cleanly.
class ResponseWriter {
 public:
  // A complete response with Content-Length. Content-Length and Transfer-Encoding in `headers`
  // are refused (the server sets them).
  Result<void> respond(int status, const Headers& headers, std::string_view body);
  // Sends the status and headers now; the body follows through write(). HTTP/1.1 clients get
  // chunked encoding, HTTP/1.0 clients a body ended by closing the connection.
  Result<void> start_stream(int status, const Headers& headers);
  // Sends `data` at once (one chunk). Fails when the client has gone or the server is stopping.
  Result<void> write(std::string_view data);
  // Ends a streamed body, with optional trailer fields (chunked only).
  Result<void> finish(const Headers& trailers = {});

  bool started() const noexcept;
  // Fires when the server stops: long-running handlers (streams) must watch it.
  agentkit::stop_token stop_token() const noexcept;

 private:
  friend class detail::ServerExchange;
  explicit ResponseWriter(detail::ServerExchange& exchange) noexcept : exchange_(&exchange) {}
  detail::ServerExchange* exchange_;
};

using Handler = std::function<void(const ServerRequest&, ResponseWriter&)>;

struct ServerStats {
  std::uint64_t connections_accepted = 0;
  std::uint64_t requests_handled = 0;    // handler invocations
  std::uint64_t requests_rejected = 0;   // answered 4xx/5xx by the server itself (limits, parse errors)
  std::uint64_t connections_evicted =
      0;  // closed unfinished to admit a new one (max_header_connections)
};

class HttpServer {
 public:
  // Binds, listens and starts the accept thread. Errc::io_error when the address cannot be bound.
  static Result<HttpServer> start(ServerOptions options, Handler handler);

  HttpServer(HttpServer&&) noexcept;
  HttpServer& operator=(HttpServer&&) noexcept;
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();

  std::uint16_t port() const noexcept;
  // "http://<bind address>:<port>".
  std::string base_url() const;
  ServerStats stats() const;
  // Stops accepting, cancels in-flight handlers and joins every thread. Idempotent.
  void stop();

 private:
  struct State;
  explicit HttpServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace agentkit::http
