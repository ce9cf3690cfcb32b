// Fixtures for the provider machinery tests: a scripted loopback server on agentkit_http's
// HttpServer that records what it received, an independent Python peer process, and a transport
// wrapper that counts sends.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <thread>

#include "agentkit/base/thread.hpp"
#include <condition_variable>
#include <string>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"

namespace agentkit::testing {

// One scripted answer.
struct ScriptedResponse {
  int status = 200;
  http::Headers headers;
  std::string body;
  // When set, the body is streamed in these pieces (chunked), with `piece_delay` between them.
  std::vector<std::string> pieces;
  std::chrono::milliseconds piece_delay{0};
  // Stream the pieces, then hold the connection open until the server stops (a stalled stream).
  bool hang_after_pieces = false;
};

struct ReceivedRequest {
  std::string method;
  std::string path;
  http::Headers headers;
  std::string body;
};

// A loopback server answering from a script (the last entry repeats when the script runs out).
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<ScriptedResponse> script);
  ~ScriptedServer();
  std::string base_url() const;
  std::vector<ReceivedRequest> requests() const;
  // Copies (never references into a temporary list): request i, and the latest one.
  ReceivedRequest request_at(std::size_t i) const;
  ReceivedRequest last_request() const;
  std::size_t request_count() const;
  // Blocks until at least `n` requests arrived (false on timeout).
  bool wait_for_requests(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;

 private:
  void handle(const http::ServerRequest& req, http::ResponseWriter& out);
  mutable std::mutex mutex_;
  mutable std::condition_variable arrived_;
  std::deque<ScriptedResponse> script_;
  std::vector<ReceivedRequest> received_;
  std::optional<http::HttpServer> server_;
};

// A raw loopback server (POSIX sockets, not agentkit_http) that answers every connection with the
// same bytes and then closes it: for responses no well-behaved server sends (a body cut short).
class RawResponder {
 public:
  explicit RawResponder(std::string response_bytes);
  ~RawResponder();
  RawResponder(const RawResponder&) = delete;
  RawResponder& operator=(const RawResponder&) = delete;
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const noexcept { return connections_.load(); }

 private:
  std::string bytes_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  agentkit::jthread acceptor_;
};

// A peer program announcing "PORT <n>" on stdout; killed and reaped on destruction.
class PythonPeer {
 public:
  explicit PythonPeer(const std::string& script_name);  // a file in tests/providers/peers/
  ~PythonPeer();
  PythonPeer(const PythonPeer&) = delete;
  PythonPeer& operator=(const PythonPeer&) = delete;
  bool started() const noexcept { return port_ != 0; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::uint16_t port_ = 0;
};

// Forwards to an inner transport and counts the sends.
class CountingTransport final : public http::HttpTransport {
 public:
  explicit CountingTransport(std::shared_ptr<http::HttpTransport> inner = std::make_shared<http::HttpClient>())
      : inner_(std::move(inner)) {}
  Result<http::Response> send(const http::Request& request, agentkit::stop_token stop) override {
    ++sends;
    return inner_->send(request, stop);
  }
  std::atomic<int> sends{0};

 private:
  std::shared_ptr<http::HttpTransport> inner_;
};

// A call with 3 KB of arguments ({"text":"aaa..."}) and its result "ok": the messages a
// steady-state request adds, for the encoders' allocation tests.
std::vector<Message> call_with_3kb_arguments(const std::string& call_id);

}  // namespace agentkit::testing
