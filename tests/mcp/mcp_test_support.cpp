#include "mcp_test_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>

#include "support/fixtures.hpp"

namespace agentkit::mcp_test {

mcp::ServerConfig fixture(std::vector<std::string> args, std::string name) {
  return mcp::ServerConfig{.name = std::move(name), .transport = mcp::StdioLaunch{.command = MCP_FIXTURE_SERVER, .args = std::move(args)}};
}

mcp::ServerConfig fake(const std::string& mode, const std::filesystem::path& log, const std::filesystem::path& state) {
  mcp::StdioLaunch launch{.command = "python3", .args = {MCP_FAKE_SERVER, mode}};
  if (!log.empty()) launch.env.emplace_back("FAKE_LOG", log.string());
  if (!state.empty()) launch.env.emplace_back("FAKE_STATE", state.string());
  return mcp::ServerConfig{.name = "fake", .transport = std::move(launch)};
}

std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

mcp::ClientOptions quick_options() {
  mcp::ClientOptions o;
  o.request_timeout = std::chrono::milliseconds(10'000);
  // The fake servers are Python scripts: on a loaded machine one can take seconds to start and
  // answer the probe, and a probe timeout would then read it as a legacy server. Tests of a
  // silent server set their own short timeout.
  o.probe_timeout = std::chrono::milliseconds(10'000);
  o.shutdown_grace = std::chrono::milliseconds(300);
  return o;
}

PipeServer::PipeServer(mcp::Server& server) : result_() {
  (void)::pipe2(to_server_, O_CLOEXEC);
  (void)::pipe2(from_server_, O_CLOEXEC);
  thread_ = agentkit::jthread([this, &server] {
    result_ = server.serve_stdio(stop_.get_token(), to_server_[0], from_server_[1]);
    ::close(from_server_[1]);  // EOF for the reader once the server is done
    from_server_[1] = -1;
  });
}

PipeServer::~PipeServer() {
  stop();
  if (thread_.joinable()) thread_.join();
  for (int fd : {to_server_[0], to_server_[1], from_server_[0], from_server_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void PipeServer::send(std::string_view line) {
  std::string data(line);
  data += '\n';
  std::string_view rest(data);
  while (!rest.empty()) {
    const ssize_t n = ::write(to_server_[1], rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::optional<json::Value> PipeServer::next(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      auto v = json::parse(line);
      if (!v) return json::Value(json::Object{{"unparsable", line}});
      return *v;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{from_server_[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
    char chunk[65536];
    const ssize_t n = ::read(from_server_[0], chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::optional<json::Value> PipeServer::reply_to(std::string_view id_json, std::vector<json::Value>* others,
                                                std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    auto frame = next(left);
    if (!frame) return std::nullopt;
    const json::Value* id = frame->find("id");
    if (id != nullptr && !frame->find("method") && json::dump(*id) == id_json) return frame;
    if (others) others->push_back(*frame);
  }
}

void PipeServer::close_input() {
  if (to_server_[1] >= 0) {
    ::close(to_server_[1]);
    to_server_[1] = -1;
  }
}

void PipeServer::stop() { stop_.request_stop(); }

Result<void> PipeServer::finish() {
  if (thread_.joinable()) thread_.join();
  return result_;
}

TwoCallsLogs two_calls_logging(mcp::Client& client) {
  TwoCallsLogs out;
  std::mutex mu;
  std::atomic<int> succeeded{0};
  const auto call = [&](std::vector<std::string>& seen, std::string tag) {
    mcp::CallControl control;
    control.on_log = [&](std::string_view, std::string_view, const json::Value& data) {
      std::lock_guard lock(mu);
      seen.push_back(data.is_string() ? data.as_string() : json::dump(data));
    };
    if (client.call_tool("meet", json::Value(json::Object{{"tag", std::move(tag)}}), control))
      ++succeeded;
  };
  {
    std::thread a(call, std::ref(out.a), "a");
    std::thread b(call, std::ref(out.b), "b");
    a.join();
    b.join();
  }
  std::sort(out.a.begin(), out.a.end());
  std::sort(out.b.begin(), out.b.end());
  out.ok = succeeded.load() == 2;
  return out;
}

std::string modern_meta(std::string_view version) {
  return std::string(R"("_meta":{"io.modelcontextprotocol/protocolVersion":")") + std::string(version) +
         R"(","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}})";
}

}  // namespace agentkit::mcp_test
