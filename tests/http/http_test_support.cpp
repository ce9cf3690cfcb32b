#include "http_test_support.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>

namespace agentkit::testing {

std::string peer_script(const std::string& name) {
  return std::string(AGENTKIT_SOURCE_DIR) + "/tests/http/peers/" + name;
}

PeerProcess::PeerProcess(const std::vector<std::string>& argv) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  stdout_fd_ = out[0];
  // The first line announcing the port: "PORT <n>" (our Python peers) or "ACCEPT <host>:<n>"
  // (openssl s_server). Other lines before it are skipped.
  constexpr int startup_ms = 20'000;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(startup_ms);
  std::string line;
  char c = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{stdout_fd_, POLLIN, 0};
    if (::poll(&p, 1, startup_ms) <= 0 || ::read(stdout_fd_, &c, 1) != 1) break;
    if (c != '\n') {
      line += c;
      continue;
    }
    if (line.rfind("PORT ", 0) == 0 || line.rfind("ACCEPT ", 0) == 0) {
      const std::size_t at = line.find_last_of(": ");
      port_ = static_cast<std::uint16_t>(std::stoi(line.substr(at + 1)));
      break;
    }
    line.clear();
  }
}

PeerProcess::~PeerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

RawServer::RawServer(OnConnection on_connection, int backlog) : on_connection_(std::move(on_connection)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(listen_fd_, backlog);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  if (!on_connection_) return;  // a listener nobody accepts on (connect-time tests)
  acceptor_ = agentkit::jthread([this](agentkit::stop_token stop) {
    while (!stop.stop_requested()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++connections_;
      std::lock_guard lock(mutex_);
      threads_.emplace_back([this, fd](agentkit::stop_token st) {
        on_connection_(fd, st);
        ::close(fd);
      });
    }
  });
}

RawServer::~RawServer() {
  if (acceptor_.joinable()) {
    acceptor_.request_stop();
    acceptor_.join();
  }
  std::list<agentkit::jthread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.request_stop();
  threads.clear();
  ::close(listen_fd_);
}

std::string read_head(int fd, agentkit::stop_token stop) {
  std::string data;
  char buf[4096];
  while (data.find("\r\n\r\n") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (stop.stop_requested()) return data;
    if (::poll(&p, 1, 50) == 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return data;
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

std::string read_exactly(int fd, std::size_t n) {
  std::string data;
  char buf[4096];
  while (data.size() < n) {
    const ssize_t r = ::recv(fd, buf, std::min(sizeof buf, n - data.size()), 0);
    if (r <= 0) break;
    data.append(buf, static_cast<std::size_t>(r));
  }
  return data;
}

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void wait_for_close(int fd, agentkit::stop_token stop) {
  char buf[4096];
  while (!stop.stop_requested()) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) == 0) continue;
    if (::recv(fd, buf, sizeof buf, 0) <= 0) return;
  }
}

void Latch::open() {
  std::lock_guard lock(mutex_);
  open_ = true;
  cv_.notify_all();
}

bool Latch::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return open_; });
}

}  // namespace agentkit::testing
