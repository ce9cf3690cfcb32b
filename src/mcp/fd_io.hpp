// Small POSIX file-descriptor helpers for the stdio transports: owned descriptors, a waker that
// interrupts blocked reads and writes, and SIGPIPE-safe writes (a library must not change the
// process's signal dispositions, so the signal is blocked and consumed on the writing thread).
#pragma once

#include <cstddef>
#include <span>
#include "agentkit/base/stop_token.hpp"
#include <string_view>
#include <utility>

#include "agentkit/base/result.hpp"

namespace agentkit::mcp::detail {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

struct PipeEnds {
  UniqueFd read;
  UniqueFd write;
};

// A close-on-exec pipe.
Result<PipeEnds> make_pipe();
// Switches a descriptor to non-blocking mode.
Result<void> set_nonblocking(int fd);

// Once woken, stays woken: every wait that includes it returns at once.
class Waker {
 public:
  Waker();
  void wake() noexcept;
  bool woken() const noexcept;
  int fd() const noexcept { return ends_.read.get(); }

 private:
  PipeEnds ends_;
};

// Blocks SIGPIPE for the rest of the calling thread's life. For threads this library owns (handler
// workers, pumps): their writes then skip the per-write mask dance.
void block_sigpipe_for_this_thread();

// Reads what is available (at least one byte), waiting for it: the byte count, 0 at end of
// file, Errc::cancelled once `waker` fired, Errc::io_error on a failed read.
Result<std::size_t> read_some(int fd, std::span<char> buffer, const Waker& waker);
// Writes every byte to a non-blocking descriptor, waiting for room; Errc::cancelled when the
// waker fires or `stop` is requested, Errc::io_error (detail errno) when the reader is gone.
Result<void> write_all(int fd, std::string_view data, const Waker& waker, agentkit::stop_token stop);

}  // namespace agentkit::mcp::detail
