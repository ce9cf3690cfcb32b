// Shared helpers for the MCP tests: the fixture server and the fake Python peer as ServerConfigs,
// and our Server driven over in-process pipes with raw frames.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <vector>

#include "agentkit/json/value.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/server.hpp"

namespace agentkit::mcp_test {

// Our fixture server over stdio (tests/mcp/fixture_server.cpp), with extra arguments.
mcp::ServerConfig fixture(std::vector<std::string> args = {}, std::string name = "fixture");
// The misbehaving Python peer in `mode`, logging what it receives to `log` (when not empty).
mcp::ServerConfig fake(const std::string& mode, const std::filesystem::path& log = {},
                       const std::filesystem::path& state = {});
// Lines of a log file.
std::vector<std::string> read_lines(const std::filesystem::path& path);
// Client options with short timeouts for tests.
mcp::ClientOptions quick_options();

// A Server served over pipes on its own thread; the test plays the client with raw frames.
class PipeServer {
 public:
  explicit PipeServer(mcp::Server& server);
  ~PipeServer();
  PipeServer(const PipeServer&) = delete;
  PipeServer& operator=(const PipeServer&) = delete;

  void send(std::string_view line);
  // The next frame the server wrote, parsed; nullopt on timeout or EOF.
  std::optional<json::Value> next(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Frames until the response with this id (JSON text of the id), collecting the others.
  std::optional<json::Value> reply_to(std::string_view id_json, std::vector<json::Value>* others = nullptr,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(5));
  void close_input();
  void stop();
  // serve_stdio's result, after it returned.
  Result<void> finish();

 private:
  int to_server_[2] = {-1, -1};
  int from_server_[2] = {-1, -1};
  std::string buffer_;
  agentkit::stop_source stop_;
  Result<void> result_;
  agentkit::jthread thread_;
};

// Two `meet` calls (tags "a" and "b") in flight at once on `client`: the log messages each call's
// on_log received (sorted), and whether both calls succeeded.
struct TwoCallsLogs {
  std::vector<std::string> a, b;
  bool ok = false;
};
TwoCallsLogs two_calls_logging(mcp::Client& client);
// A modern request envelope for hand-written frames.
std::string modern_meta(std::string_view version = "2026-07-28");

}  // namespace agentkit::mcp_test
