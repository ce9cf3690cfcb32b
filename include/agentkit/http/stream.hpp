// agentkit/http/stream.hpp — the byte-stream and TLS seams under the HTTP client.
//
//   agentkit::http::IoDeadline wait = agentkit::http::IoDeadline::after(std::chrono::seconds(5), stop);
//   std::array<char, 4096> buf;
//   auto n = stream.read_some(buf, wait);   // >= 1 byte, 0 at end of stream, or an error:
//                                           // Errc::timeout at the deadline, Errc::cancelled the
//                                           // moment `stop` fires (even in the middle of a wait)
//
//   // A TLS adapter (agentkit_openssl, or your own) wraps a connected stream:
//   class MyTls : public agentkit::http::TlsProvider { ... };
//
// A Stream is what the client reads and writes: a TCP socket, a CONNECT tunnel through a proxy,
// or a TLS session over either. TlsProvider is the seam that turns the plain one into the secure
// one; the library itself has no TLS.
//
// Thread safety: a Stream is used by one thread at a time. A TlsProvider must allow concurrent
// connect() calls (the client calls it from every thread that sends).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::http {

// When a blocking step must give up: at a point in time, or when a stop token fires.
struct IoDeadline {
  agentkit::stop_token stop{};
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();

  // `d` from now. A duration too long to represent (milliseconds::max(), say) means no deadline,
  // rather than an overflow into the past.
  template <class Rep, class Period>
  static IoDeadline after(std::chrono::duration<Rep, Period> d, agentkit::stop_token stop = {}) {
    using std::chrono::steady_clock;
    const auto now = steady_clock::now();
    const auto room = std::chrono::duration_cast<std::chrono::duration<Rep, Period>>(steady_clock::time_point::max() - now);
    if (d >= room) return IoDeadline{std::move(stop)};
    return IoDeadline{std::move(stop), now + std::chrono::duration_cast<steady_clock::duration>(d)};
  }
  bool unbounded() const noexcept { return at == std::chrono::steady_clock::time_point::max(); }
  // The earlier of this deadline and `other_at`, with the same stop token.
  IoDeadline capped(std::chrono::steady_clock::time_point other_at) const {
    return IoDeadline{stop, other_at < at ? other_at : at};
  }
};

class Stream {
 public:
  virtual ~Stream() = default;
  // Waits until at least one byte is available and reads up to buffer.size() bytes; returns 0 at
  // the end of the stream. Errc::timeout when the deadline passes, Errc::cancelled when the stop
  // token fires, Errc::io_error for a failed read.
  virtual Result<std::size_t> read_some(std::span<char> buffer, const IoDeadline& deadline) = 0;
  // Waits, under the same rules, until a read would find a byte or the end of the stream. A
  // stream that cannot tell returns at once (this default), and read_some then waits as always.
  // The client calls it before it makes a response's read buffer, so a request waiting for its
  // answer holds no buffer, and the head and the first bytes of the body come in one read.
  virtual Result<void> wait_readable(const IoDeadline& /*deadline*/) { return {}; }
  // Writes every byte, waiting as needed, under the same rules.
  virtual Result<void> write_all(std::string_view bytes, const IoDeadline& deadline) = 0;
  // True when the peer has closed the stream or sent bytes nobody asked for. An idle pooled
  // connection in that state is discarded instead of reused.
  virtual bool has_unexpected_input() = 0;
};

// What a TLS client handshake needs to know about the peer.
struct TlsClientSettings {
  // The host the URL names: sent as SNI (names only) and checked against the certificate
  // (names against DNS SANs, IP literals against IP SANs).
  std::string server_name{};
  bool server_name_is_ip = false;
};

class TlsProvider {
 public:
  virtual ~TlsProvider() = default;
  // Performs the client handshake over `transport` and returns the encrypted stream. Certificate
  // and host-name verification failures are Errc::unauthenticated with the verifier's reason.
  virtual Result<std::unique_ptr<Stream>> connect(std::unique_ptr<Stream> transport,
                                                  const TlsClientSettings& settings,
                                                  const IoDeadline& deadline) = 0;
};

}  // namespace agentkit::http
