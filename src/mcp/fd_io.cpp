#include "fd_io.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace agentkit::mcp::detail {
namespace {

// How long a blocked write sleeps between looks at its stop token.
constexpr int kStopPollMillis = 50;

// Set on threads that blocked SIGPIPE for good (block_sigpipe_for_this_thread).
thread_local bool t_sigpipe_blocked = false;

// Takes a SIGPIPE our own write raised off the pending set, so it is never delivered later.
void consume_sigpipe() {
  sigset_t pipe_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  const timespec zero{0, 0};
  while (sigtimedwait(&pipe_set, nullptr, &zero) == -1 && errno == EINTR) {
  }
}

Error errno_error(std::string_view what, int err) {
  return agentkit::errno_error(Errc::io_error, std::string(what), err)
      .with_detail("errno", std::to_string(err));
}

// Blocks SIGPIPE on this thread for its lifetime and swallows one raised meanwhile, so writing to
// a pipe whose reader exited fails with EPIPE instead of killing the process.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    if (t_sigpipe_blocked) {
      active_ = false;
      return;
    }
    sigemptyset(&pipe_set_);
    sigaddset(&pipe_set_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    already_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_);
  }
  ~SigpipeGuard() {
    if (!active_) {
      if (raised_) consume_sigpipe();
      return;
    }
    if (raised_ && !already_pending_) consume_sigpipe();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;
  void note_epipe() noexcept { raised_ = true; }

 private:
  sigset_t pipe_set_{};
  sigset_t old_{};
  bool already_pending_ = false;
  bool raised_ = false;
  bool active_ = true;
};

}  // namespace

void block_sigpipe_for_this_thread() {
  if (t_sigpipe_blocked) return;
  sigset_t pipe_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, nullptr);
  t_sigpipe_blocked = true;
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Result<PipeEnds> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno_error("pipe", errno);
  return PipeEnds{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

Result<void> set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return errno_error("fcntl", errno);
  return {};
}

Waker::Waker() {
  if (auto p = make_pipe()) {
    ends_ = std::move(*p);
    (void)set_nonblocking(ends_.write.get());
  }
}

void Waker::wake() noexcept {
  if (!ends_.write.valid()) return;
  const char byte = 1;
  while (::write(ends_.write.get(), &byte, 1) < 0 && errno == EINTR) {
  }
}

bool Waker::woken() const noexcept {
  pollfd p{ends_.read.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

Result<std::size_t> read_some(int fd, std::span<char> buffer, const Waker& waker) {
  while (true) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {waker.fd(), POLLIN, 0}};
    const int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("poll", errno);
    }
    if (fds[1].revents != 0) return fail(Errc::cancelled, "read interrupted: the channel is closing");
    if (fds[0].revents == 0) continue;
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno == EINTR || errno == EAGAIN) continue;
    return errno_error("read", errno);
  }
}

Result<void> write_all(int fd, std::string_view data, const Waker& waker, agentkit::stop_token stop) {
  SigpipeGuard guard;
  while (!data.empty()) {
    const ssize_t put = ::write(fd, data.data(), data.size());
    if (put > 0) {
      data.remove_prefix(static_cast<std::size_t>(put));
      continue;
    }
    if (put < 0 && errno == EINTR) continue;
    if (put < 0 && errno != EAGAIN) {
      if (errno == EPIPE) guard.note_epipe();
      return errno_error("write", errno);
    }
    pollfd fds[2] = {{fd, POLLOUT, 0}, {waker.fd(), POLLIN, 0}};
    const int n = ::poll(fds, 2, kStopPollMillis);
    if (n < 0 && errno != EINTR) return errno_error("poll", errno);
    if (n > 0 && fds[1].revents != 0) return fail(Errc::cancelled, "write interrupted: the channel is closing");
    if (stop.stop_requested()) return fail(Errc::cancelled, "write cancelled");
  }
  return {};
}

}  // namespace agentkit::mcp::detail
