#include "provider_test_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

namespace agentkit::testing {

ScriptedServer::ScriptedServer(std::vector<ScriptedResponse> script) : script_(script.begin(), script.end()) {
  auto started = http::HttpServer::start({}, [this](const http::ServerRequest& req, http::ResponseWriter& out) { handle(req, out); });
  if (started) server_.emplace(std::move(*started));
}

ScriptedServer::~ScriptedServer() {
  if (server_) server_->stop();
}

std::string ScriptedServer::base_url() const { return server_ ? server_->base_url() : std::string("http://127.0.0.1:9"); }

std::vector<ReceivedRequest> ScriptedServer::requests() const {
  std::scoped_lock lock(mutex_);
  return received_;
}

ReceivedRequest ScriptedServer::request_at(std::size_t i) const {
  std::scoped_lock lock(mutex_);
  return received_.at(i);
}

ReceivedRequest ScriptedServer::last_request() const {
  std::scoped_lock lock(mutex_);
  return received_.at(received_.size() - 1);
}

std::size_t ScriptedServer::request_count() const {
  std::scoped_lock lock(mutex_);
  return received_.size();
}

bool ScriptedServer::wait_for_requests(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return arrived_.wait_for(lock, timeout, [&] { return received_.size() >= n; });
}

void ScriptedServer::handle(const http::ServerRequest& req, http::ResponseWriter& out) {
  ScriptedResponse r;
  {
    std::scoped_lock lock(mutex_);
    received_.push_back(ReceivedRequest{req.method, req.target, req.headers, req.body});
    r = script_.front();
    if (script_.size() > 1) script_.pop_front();
  }
  arrived_.notify_all();
  if (r.pieces.empty()) {
    (void)out.respond(r.status, r.headers, r.body);
    return;
  }
  if (!out.start_stream(r.status, r.headers)) return;
  for (const auto& piece : r.pieces) {
    if (r.piece_delay.count() > 0) std::this_thread::sleep_for(r.piece_delay);
    if (!out.write(piece)) return;
  }
  if (r.hang_after_pieces) {
    std::mutex m;
    agentkit::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, out.stop_token(), [] { return false; });
    return;
  }
  (void)out.finish();
}

RawResponder::RawResponder(std::string response_bytes) : bytes_(std::move(response_bytes)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(listen_fd_, 16);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = agentkit::jthread([this](agentkit::stop_token stop) {
    while (!stop.stop_requested()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++connections_;
      // Read the request head (and whatever body came with it), then answer and close.
      std::string head;
      char buf[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        pollfd q{fd, POLLIN, 0};
        if (::poll(&q, 1, 2000) <= 0) break;
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        head.append(buf, static_cast<std::size_t>(n));
      }
      std::string_view out = bytes_;
      while (!out.empty()) {
        ssize_t n = ::write(fd, out.data(), out.size());
        if (n <= 0) break;
        out.remove_prefix(static_cast<std::size_t>(n));
      }
      ::close(fd);
    }
  });
}

RawResponder::~RawResponder() {
  acceptor_.request_stop();
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
}

PythonPeer::PythonPeer(const std::string& script_name) {
  std::string script = std::string(AGENTKIT_SOURCE_DIR) + "/tests/providers/peers/" + script_name;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], 1);
    const char* args[] = {"python3", script.c_str(), nullptr};
    ::execvp(args[0], const_cast<char* const*>(args));
    ::_exit(127);
  }
  ::close(out[1]);
  stdout_fd_ = out[0];
  constexpr int kStartupMs = 20'000;
  std::string line;
  char c = 0;
  while (true) {
    pollfd p{stdout_fd_, POLLIN, 0};
    if (::poll(&p, 1, kStartupMs) <= 0 || ::read(stdout_fd_, &c, 1) != 1) break;
    if (c != '\n') {
      line += c;
      continue;
    }
    if (line.rfind("PORT ", 0) == 0) {
      port_ = static_cast<std::uint16_t>(std::stoi(line.substr(5)));
      break;
    }
    line.clear();
  }
}

PythonPeer::~PythonPeer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

std::vector<Message> call_with_3kb_arguments(const std::string& call_id) {
  AssistantMessage call;
  call.content.push_back(ToolUseBlock{
      call_id, "write_note", json::Raw(R"({"text":")" + std::string(3000, 'a') + "\"}"), {}});
  ToolResultMessage result;
  result.tool_use_id = call_id;
  result.tool_name = "write_note";
  result.content.push_back(TextBlock{"ok"});
  return {call, result};
}

}  // namespace agentkit::testing
