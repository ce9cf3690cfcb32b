// Private: POSIX sockets under the Stream seam. Every wait polls the socket together with an
// eventfd that a agentkit::stop_callback signals, so a stop token interrupts a blocked read or connect
// at once instead of at the next timeout.
#pragma once

#include <poll.h>

#include <cstdint>
#include <memory>
#include <string>

#include "agentkit/http/resolver.hpp"
#include "agentkit/http/stream.hpp"

namespace agentkit::http::detail {

// What one read from a socket asks for, on the client's and the server's side alike.
inline constexpr std::size_t read_buffer_bytes = 16 * 1024;

// Owns a file descriptor; closes it once.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset() noexcept;

 private:
  int fd_ = -1;
};

// A wake-up channel for one waiter: poll()able, signalled by a stop callback or by hand.
class WakeEvent {
 public:
  WakeEvent();
  bool valid() const noexcept { return fd_.valid(); }
  int fd() const noexcept { return fd_.get(); }
  void signal() const noexcept;
  void drain() const noexcept;

 private:
  UniqueFd fd_;
};

// What a wait is for, as its errors name it: a fixed text ("reading the response"), or the connect
// to an address ("connecting to 127.0.0.1:8080"), whose text is made only if the wait fails:
// formatting an address (inet_ntop, sprintf) takes more stack than the whole wait.
struct WaitSubject {
  WaitSubject(const char* step) : text(step) {}  // NOLINT: implicit, as the texts are literals
  WaitSubject(const IpAddress& connecting_to, std::uint16_t to_port)
      : address(&connecting_to), port(to_port) {}
  std::string str() const;

  std::string_view text;
  const IpAddress* address = nullptr;
  std::uint16_t port = 0;
};

// Waits until `fd` reports one of `events`, the deadline passes (Errc::timeout) or the stop token
// fires (Errc::cancelled). `what` names the step for the error message.
Result<void> wait_for_fd(int fd, short events, const IoDeadline& deadline, const WakeEvent& wake,
                         const WaitSubject& what);

class SocketStream final : public Stream {
 public:
  explicit SocketStream(UniqueFd fd);
  Result<std::size_t> read_some(std::span<char> buffer, const IoDeadline& deadline) override;
  // Waits with poll when an answer is awaited (a write came last); otherwise returns at once.
  Result<void> wait_readable(const IoDeadline& deadline) override;
  Result<void> write_all(std::string_view bytes, const IoDeadline& deadline) override;
  // Writes `first` then `second` with as few sends as the socket takes (usually one): a request's
  // head and its large body leave in one segment, not two. write_all is this with no second.
  Result<void> write_all_of(std::string_view first, std::string_view second,
                            const IoDeadline& deadline);
  bool has_unexpected_input() override;

  int fd() const noexcept { return fd_.get(); }
  const WakeEvent& wake() const noexcept { return wake_; }
  // Stops further sends (FIN), keeping the read side open.
  void shutdown_write() noexcept;
  // Reads of every SocketStream of the process that found nothing to read (EAGAIN) and had to
  // wait: tests count them (after a request has been written: none).
  static std::uint64_t empty_reads() noexcept;

 private:
  UniqueFd fd_;
  WakeEvent wake_;
  // Set when a write completes: the first read after it waits before it reads, since the peer
  // has yet to answer what was just sent (a read then would only find nothing, one system call
  // a request wasted).
  bool answer_awaited_ = false;
};

// Opens a TCP connection to address:port, honouring the deadline and the stop token.
Result<std::unique_ptr<SocketStream>> connect_tcp(const IpAddress& address, std::uint16_t port,
                                                  const IoDeadline& deadline);

// A listening TCP socket bound to address:port (0 picks a free port).
struct Listener {
  UniqueFd fd;
  std::uint16_t port = 0;
};
Result<Listener> listen_tcp(const IpAddress& address, std::uint16_t port, int backlog);

// Accepts one pending connection (non-blocking); nullopt-like empty fd when none is pending.
Result<UniqueFd> accept_connection(int listen_fd, IpAddress& peer);

std::string describe(const IpAddress& address, std::uint16_t port);

}  // namespace agentkit::http::detail
