#include "socket.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include "agentkit/base/stop_token.hpp"

namespace agentkit::http::detail {
namespace {

constexpr std::size_t wait_fd_count = 2;

// Milliseconds poll() should wait: -1 for no deadline, rounded up so a wait never ends early.
int poll_timeout_ms(const IoDeadline& deadline) {
  if (deadline.unbounded()) return -1;
  const auto left = deadline.at - std::chrono::steady_clock::now();
  if (left <= std::chrono::steady_clock::duration::zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  constexpr long long max_poll_ms = 1'000'000'000;  // poll takes an int; re-poll after ~11 days
  return static_cast<int>(ms > max_poll_ms ? max_poll_ms : ms);
}

// The stop callback: makes the waiter's eventfd readable.
struct SignalWake {
  const WakeEvent* wake;
  void operator()() const noexcept { wake->signal(); }
};

// The errors are made out of line: their text's temporaries in the waiting frames would deepen
// the stack under every read and connect (docs/architecture.md, "the caller's stack").
[[gnu::cold, gnu::noinline]] Error cancelled_error(std::string_view what) {
  return fail(Errc::cancelled, std::string(what) + " was cancelled");
}

[[gnu::cold, gnu::noinline]] Error timeout_error(std::string_view what) {
  return fail(Errc::timeout, std::string(what) + " timed out");
}

[[gnu::cold, gnu::noinline]] Error failed_with(std::string_view what, std::string_view how,
                                               int err) {
  return fail(Errc::io_error, std::string(what) + " failed: " + std::string(how) + errno_text(err));
}

socklen_t fill_sockaddr(const IpAddress& address, std::uint16_t port, sockaddr_storage& storage) {
  std::memset(&storage, 0, sizeof storage);
  if (address.family == IpAddress::Family::v4) {
    auto* in = reinterpret_cast<sockaddr_in*>(&storage);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    std::memcpy(&in->sin_addr, address.bytes.data(), IpAddress::v4_size);
    return sizeof(sockaddr_in);
  }
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
  in6->sin6_family = AF_INET6;
  in6->sin6_port = htons(port);
  std::memcpy(&in6->sin6_addr, address.bytes.data(), IpAddress::v6_size);
  return sizeof(sockaddr_in6);
}

// ::connect on `fd`; false with errno set when it did not complete at once. Out of line: the
// address's 128 bytes live only as long as the call.
[[gnu::noinline]] bool start_connect(int fd, const IpAddress& address, std::uint16_t port) {
  sockaddr_storage storage{};
  const socklen_t len = fill_sockaddr(address, port, storage);
  return ::connect(fd, reinterpret_cast<const sockaddr*>(&storage), len) == 0;
}

}  // namespace

void UniqueFd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

WakeEvent::WakeEvent() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

void WakeEvent::signal() const noexcept {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(fd_.get(), &one, sizeof one);
}

void WakeEvent::drain() const noexcept {
  std::uint64_t count = 0;
  [[maybe_unused]] const auto n = ::read(fd_.get(), &count, sizeof count);
}

std::string WaitSubject::str() const {
  return address ? "connecting to " + describe(*address, port) : std::string(text);
}

Result<void> wait_for_fd(int fd, short events, const IoDeadline& deadline, const WakeEvent& wake,
                         const WaitSubject& what) {
  if (deadline.stop.stop_requested()) return cancelled_error(what.str());
  // The callback runs at once if the token fires during the wait (or already has), making the
  // eventfd readable and so ending poll() immediately.
  std::optional<agentkit::stop_callback<SignalWake>> on_stop;
  if (deadline.stop.stop_possible()) on_stop.emplace(deadline.stop, SignalWake{&wake});
  std::array<pollfd, wait_fd_count> fds{};
  fds[0] = {fd, events, 0};
  fds[1] = {wake.fd(), POLLIN, 0};
  while (true) {
    const int rc = ::poll(fds.data(), wait_fd_count, poll_timeout_ms(deadline));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return failed_with(what.str(), "poll: ", errno);
    }
    if (deadline.stop.stop_requested() || (fds[1].revents & POLLIN) != 0) {
      wake.drain();
      return cancelled_error(what.str());
    }
    if (fds[0].revents != 0) return {};
    if (rc == 0 && std::chrono::steady_clock::now() >= deadline.at)
      return timeout_error(what.str());
  }
}

SocketStream::SocketStream(UniqueFd fd) : fd_(std::move(fd)) {}

namespace {
std::atomic<std::uint64_t> g_empty_reads{0};
}  // namespace

std::uint64_t SocketStream::empty_reads() noexcept {
  return g_empty_reads.load(std::memory_order_relaxed);
}

Result<void> SocketStream::wait_readable(const IoDeadline& deadline) {
  if (!answer_awaited_) return {};
  answer_awaited_ = false;
  return wait_for_fd(fd_.get(), POLLIN, deadline, wake_, "reading from the connection");
}

Result<std::size_t> SocketStream::read_some(std::span<char> buffer, const IoDeadline& deadline) {
  if (auto w = wait_readable(deadline); !w) return std::move(w).error();
  while (true) {
    if (deadline.stop.stop_requested()) return cancelled_error("reading from the connection");
    const ssize_t n = ::recv(fd_.get(), buffer.data(), buffer.size(), 0);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return failed_with("reading from the connection", "", errno);
    }
    g_empty_reads.fetch_add(1, std::memory_order_relaxed);
    if (auto w = wait_for_fd(fd_.get(), POLLIN, deadline, wake_, "reading from the connection"); !w) {
      return std::move(w).error();
    }
  }
}

Result<void> SocketStream::write_all(std::string_view bytes, const IoDeadline& deadline) {
  return write_all_of(bytes, {}, deadline);
}

Result<void> SocketStream::write_all_of(std::string_view first, std::string_view second,
                                        const IoDeadline& deadline) {
  while (!first.empty() || !second.empty()) {
    if (deadline.stop.stop_requested()) return cancelled_error("writing to the connection");
    std::array<iovec, 2> parts{{{const_cast<char*>(first.data()), first.size()},
                                {const_cast<char*>(second.data()), second.size()}}};
    msghdr message{};
    message.msg_iov = first.empty() ? &parts[1] : &parts[0];  // no empty part
    message.msg_iovlen = first.empty() || second.empty() ? 1 : 2;
    // MSG_NOSIGNAL: a peer that has gone away is an error result, not a SIGPIPE for the process.
    const ssize_t n = ::sendmsg(fd_.get(), &message, MSG_NOSIGNAL);
    if (n >= 0) {
      const auto sent = static_cast<std::size_t>(n);
      const std::size_t from_first = std::min(sent, first.size());
      first.remove_prefix(from_first);
      second.remove_prefix(sent - from_first);
      answer_awaited_ = first.empty() && second.empty();
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return failed_with("writing to the connection", "", errno);
    }
    if (auto w = wait_for_fd(fd_.get(), POLLOUT, deadline, wake_, "writing to the connection");
        !w) {
      return std::move(w).error();
    }
  }
  return {};
}

bool SocketStream::has_unexpected_input() {
  pollfd p{fd_.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;
}

void SocketStream::shutdown_write() noexcept { ::shutdown(fd_.get(), SHUT_WR); }

std::string describe(const IpAddress& address, std::uint16_t port) {
  const bool v6 = address.family == IpAddress::Family::v6;
  std::string out = v6 ? "[" : "";
  out += address.to_string();
  out += v6 ? "]:" : ":";
  out += std::to_string(port);
  return out;
}

namespace {
// What connect_tcp says when it fails, out of line (see cancelled_error). `err`: the errno, or 0
// for a cancelled connect.
[[gnu::cold, gnu::noinline]] Error connect_failure(const IpAddress& address, std::uint16_t port,
                                                   int err) {
  const std::string where = describe(address, port);
  if (err == 0) return cancelled_error("connecting to " + where);
  return fail(Errc::io_error, "connecting to " + where + " failed: " + errno_text(err))
      .with_detail("address", where);
}

[[gnu::cold, gnu::noinline]] Error socket_failure(const IpAddress& address, std::uint16_t port,
                                                  int err) {
  return fail(Errc::io_error,
              "cannot create a socket for " + describe(address, port) + ": " + errno_text(err));
}

[[gnu::cold, gnu::noinline]] Error eventfd_failure(int err) {
  return fail(Errc::io_error, "cannot create an eventfd: " + errno_text(err));
}

[[gnu::cold, gnu::noinline]] Error connect_wait_failure(const IpAddress& address,
                                                        std::uint16_t port, Error e) {
  return std::move(e).with_detail("address", describe(address, port));
}
}  // namespace

Result<std::unique_ptr<SocketStream>> connect_tcp(const IpAddress& address, std::uint16_t port,
                                                  const IoDeadline& deadline) {
  if (deadline.stop.stop_requested()) return connect_failure(address, port, 0);
  const int family = address.family == IpAddress::Family::v4 ? AF_INET : AF_INET6;
  UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return socket_failure(address, port, errno);
  // Requests are written in one go and answered at once; Nagle's delay would only add latency.
  const int on = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  auto stream = std::make_unique<SocketStream>(std::move(fd));
  if (!stream->wake().valid()) return eventfd_failure(errno);
  if (!start_connect(stream->fd(), address, port)) {
    if (errno != EINPROGRESS) return connect_failure(address, port, errno);
    if (auto w = wait_for_fd(stream->fd(), POLLOUT, deadline, stream->wake(), {address, port});
        !w) {
      return connect_wait_failure(address, port, std::move(w).error());
    }
    int err = 0;
    socklen_t err_len = sizeof err;
    ::getsockopt(stream->fd(), SOL_SOCKET, SO_ERROR, &err, &err_len);
    if (err != 0) return connect_failure(address, port, err);
  }
  return stream;
}

Result<Listener> listen_tcp(const IpAddress& address, std::uint16_t port, int backlog) {
  const std::string where = describe(address, port);
  const int family = address.family == IpAddress::Family::v4 ? AF_INET : AF_INET6;
  UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail(Errc::io_error, "cannot create a socket for " + where + ": " + errno_text(errno));
  const int on = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_storage storage{};
  socklen_t len = fill_sockaddr(address, port, storage);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&storage), len) != 0) {
    return fail(Errc::io_error, "cannot bind " + where + ": " + errno_text(errno) +
                                    "; pick another port or stop the program using it");
  }
  if (::listen(fd.get(), backlog) != 0) return fail(Errc::io_error, "cannot listen on " + where + ": " + errno_text(errno));
  len = sizeof storage;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&storage), &len);
  const std::uint16_t bound = storage.ss_family == AF_INET
                                  ? ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port)
                                  : ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port);
  return Listener{std::move(fd), bound};
}

Result<UniqueFd> accept_connection(int listen_fd, IpAddress& peer) {
  sockaddr_storage storage{};
  socklen_t len = sizeof storage;
  UniqueFd fd(::accept4(listen_fd, reinterpret_cast<sockaddr*>(&storage), &len, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd.valid()) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) return UniqueFd{};
    return fail(Errc::io_error, "accepting a connection failed: " + errno_text(errno));
  }
  if (storage.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&storage);
    peer = IpAddress{};
    std::memcpy(peer.bytes.data(), &in->sin_addr, IpAddress::v4_size);
  } else {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    peer = IpAddress{};
    peer.family = IpAddress::Family::v6;
    std::memcpy(peer.bytes.data(), &in6->sin6_addr, IpAddress::v6_size);
  }
  const int on = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return fd;
}

}  // namespace agentkit::http::detail
