// Fixtures for the agentkit_http tests: independent peer processes (Python scripts) and a raw
// loopback TCP server written directly on POSIX sockets (not on agentkit_http), so misbehaving
// servers (stalls, truncation, oversized heads) can be scripted byte by byte.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <vector>

namespace agentkit::testing {

// A peer program that announces its port on stdout once it listens ("PORT <n>", or
// "ACCEPT <host>:<n>" as openssl s_server prints it). Killed and reaped on destruction.
class PeerProcess {
 public:
  explicit PeerProcess(const std::vector<std::string>& argv);
  ~PeerProcess();
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  bool started() const noexcept { return port_ != 0; }
  std::uint16_t port() const noexcept { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::uint16_t port_ = 0;
};

// Path of a script in tests/http/peers/.
std::string peer_script(const std::string& name);

// A loopback TCP server that hands each accepted connection (a blocking fd) to `on_connection` on
// its own thread. The destructor stops accepting, fires the stop tokens and joins every thread.
class RawServer {
 public:
  using OnConnection = std::function<void(int fd, agentkit::stop_token stop)>;
  explicit RawServer(OnConnection on_connection, int backlog = 16);
  ~RawServer();
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const noexcept { return connections_.load(); }
  int listen_fd() const noexcept { return listen_fd_; }

 private:
  OnConnection on_connection_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::mutex mutex_;
  std::list<agentkit::jthread> threads_;
  agentkit::jthread acceptor_;
};

// Reads from `fd` until the end of an HTTP head ("\r\n\r\n"); returns what was read ("" on EOF).
std::string read_head(int fd, agentkit::stop_token stop = {});
// Reads exactly `n` more bytes (less on EOF).
std::string read_exactly(int fd, std::size_t n);
void write_all(int fd, const std::string& bytes);
// Blocks until the peer closes `fd` or `stop` fires.
void wait_for_close(int fd, agentkit::stop_token stop);

// A one-shot flag threads can wait on (structural synchronisation instead of sleeps).
class Latch {
 public:
  void open();
  // Waits until open() was called; false if `timeout` passed first.
  bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(20'000));

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace agentkit::testing
