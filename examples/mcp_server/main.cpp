// mcp_server — the built-in coding tools as an MCP server, over stdio or HTTP, both protocol eras.
//
//   mcp_server [--workspace DIR] [--allow-shell] [--legacy reject]
//       stdio (the default): plug it into any MCP host, e.g. in an `mcpServers` configuration
//       {"agentkit": {"command": "/path/to/mcp_server", "args": ["--workspace", "/my/project"]}}
//   mcp_server --http [--port 8808] [--bind 127.0.0.1] [--api-key-env MCP_SERVER_API_KEY] ...
//       Streamable HTTP at http://<bind>:<port>/mcp; every request needs the key from that
//       variable (Authorization: Bearer <key> or X-API-Key: <key>); refuses to start without it.
//   mcp_server --check
//       serves one scripted session over in-process pipes and exits 0 when every answer is right
//       (run by ctest).
//
// Tools served: read_file, write_file, edit_file, list_files, find_files, search_files, all confined
// to the workspace (default: the current directory). The shell tools (execute, run_command,
// powershell) run anything the process can run, so they are served only with --allow-shell: an
// MCP host's own approval prompt is then the only guard, there is no before_tool_call here.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "agentkit/base/thread.hpp"
#include "agentkit/base/version.hpp"
#include <vector>

#include "agentkit/mcp/server.hpp"
#include "agentkit/tools/coding_tools.hpp"

using namespace agentkit;

namespace {

constexpr std::uint16_t kDefaultPort = 8808;
constexpr std::string_view kDefaultKeyVariable = "MCP_SERVER_API_KEY";

struct Settings {
  std::filesystem::path workspace = std::filesystem::current_path();
  bool allow_shell = false;
  bool http = false;
  bool check = false;
  std::uint16_t port = kDefaultPort;
  std::string bind = "127.0.0.1";
  std::string key_variable{kDefaultKeyVariable};
  mcp::LegacyMode legacy = mcp::LegacyMode::serve;
};

int usage(const char* why) {
  std::cerr << "mcp_server: " << why << "\n"
            << "usage: mcp_server [--workspace DIR] [--allow-shell] [--legacy serve|reject]\n"
            << "                  [--http [--port N] [--bind ADDR] [--api-key-env VAR]] | --check\n";
  return 2;
}

std::optional<Settings> parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    if (a == "--workspace") {
      auto v = value();
      if (!v) return std::nullopt;
      s.workspace = *v;
    } else if (a == "--allow-shell") {
      s.allow_shell = true;
    } else if (a == "--http") {
      s.http = true;
    } else if (a == "--check") {
      s.check = true;
    } else if (a == "--port") {
      auto v = value();
      if (!v) return std::nullopt;
      s.port = static_cast<std::uint16_t>(std::stoul(*v));
    } else if (a == "--bind") {
      auto v = value();
      if (!v) return std::nullopt;
      s.bind = *v;
    } else if (a == "--api-key-env") {
      auto v = value();
      if (!v) return std::nullopt;
      s.key_variable = *v;
    } else if (a == "--legacy") {
      auto v = value();
      if (!v || (*v != "serve" && *v != "reject")) return std::nullopt;
      s.legacy = *v == "reject" ? mcp::LegacyMode::reject : mcp::LegacyMode::serve;
    } else {
      return std::nullopt;
    }
  }
  return s;
}

bool is_shell(const ToolDefinition& t) { return is_shell_tool_name(t.name); }

Result<void> register_tools(mcp::Server& server, const Settings& s) {
  auto workspace = tools::Workspace::open(s.workspace);
  if (!workspace) return std::move(workspace).error();
  std::vector<ToolDefinition> served;
  for (auto& t : tools::coding_tools(*workspace)) {
    if (s.allow_shell || !is_shell(t)) served.push_back(std::move(t));
  }
  return server.add_tools(std::move(served));
}

int serve_http(mcp::Server& server, const Settings& s) {
  const char* key = std::getenv(s.key_variable.c_str());
  if (key == nullptr || *key == '\0') {
    std::cerr << "mcp_server: set " << s.key_variable << " to the API key clients must send; HTTP mode never runs without one\n";
    return 2;
  }
  // Block the stop signals before any thread starts, then wait for one here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto service = server.serve_http({.bind_address = s.bind, .port = s.port, .api_key = key});
  if (!service) {
    std::cerr << "mcp_server: " << service.error().to_string() << "\n";
    return 1;
  }
  std::cerr << "mcp_server: serving " << s.workspace.string() << " at " << service->url() << "\n";
  int received = 0;
  sigwait(&stop_signals, &received);
  service->stop();
  return 0;
}

// One scripted exchange over pipes, both eras: what a host would see.
int self_check(mcp::Server& server) {
  int to_server[2];
  int from_server[2];
  if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) return 1;
  agentkit::stop_source stop;
  agentkit::jthread serving([&] {
    (void)server.serve_stdio(stop.get_token(), to_server[0], from_server[1]);
    ::close(from_server[1]);
  });
  const std::string script =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"check","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_files","arguments":{"path":"."},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})"
      "\n";
  (void)::write(to_server[1], script.data(), script.size());
  ::close(to_server[1]);
  std::string out;
  char buf[65536];
  ssize_t n = 0;
  while ((n = ::read(from_server[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  serving.join();
  ::close(to_server[0]);
  ::close(from_server[0]);
  int answers = 0;
  bool listed = false;
  bool modern = false;
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t end = out.find('\n', start);
    auto msg = json::parse(out.substr(start, end - start));
    start = end == std::string::npos ? out.size() : end + 1;
    if (!msg || !msg->find("result")) continue;
    ++answers;
    const json::Value& r = *msg->find("result");
    if (const json::Value* tools = r.find("tools")) listed = tools->size() >= 6;
    if (const json::Value* type = r.find("resultType")) modern = type->as_string() == "complete";
  }
  const bool ok = answers == 3 && listed && modern;
  std::cerr << "mcp_server --check: " << (ok ? "ok" : "FAILED") << " (" << answers << " answers)\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  auto settings = parse(argc, argv);
  if (!settings) return usage("unrecognised arguments");
  mcp::Server server({.server_info = {"agentkit-mcp-server", std::string(agentkit::kVersion),
                                      "AgentKit coding tools"},
                      .instructions = "Coding tools confined to the workspace " +
                                      settings->workspace.string() + ".",
                      .legacy = settings->legacy});
  if (auto registered = register_tools(server, *settings); !registered) {
    std::cerr << "mcp_server: " << registered.error().to_string() << "\n";
    return 1;
  }
  if (settings->check) return self_check(server);
  if (settings->http) return serve_http(server, *settings);
  auto served = server.serve_stdio();  // stdout carries protocol only; diagnostics go to stderr
  if (!served) {
    std::cerr << "mcp_server: " << served.error().to_string() << "\n";
    return 1;
  }
  return 0;
}
