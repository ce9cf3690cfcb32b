// The stdio transports: a child server process spoken to over its stdin/stdout (client side),
// and this process's own stdin/stdout (server side). Both frame messages as NDJSON.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "channel.hpp"

namespace agentkit::mcp::detail {

struct ChildLaunch {
  std::string command;                 // a path, or a name looked up on the child's PATH
  std::vector<std::string> args;
  std::vector<std::string> environment;  // "NAME=value", exactly the child's environment
  std::string working_directory;       // empty: ours
  // Grace between closing stdin and SIGTERM, and between SIGTERM and SIGKILL (both to the group).
  std::chrono::milliseconds shutdown_grace{2000};
  // Receives each stderr line (bounded); may be empty. Runs on the stderr thread.
  std::function<void(std::string_view line)> on_stderr;
  // Bounds of one inbound line (REQ-SEC-11).
  std::size_t max_line_bytes = 0;  // 0: the wire default
};

// Spawns `launch` in its own process group when opened.
std::unique_ptr<Channel> make_child_channel(ChildLaunch launch);

// Frames over descriptors this process already has (its stdin/stdout, or a test's pipes). The
// descriptors are closed by close() only when `owned`.
std::unique_ptr<Channel> make_fd_channel(int in_fd, int out_fd, bool owned, std::size_t max_line_bytes = 0);

// Resolves a command against a PATH value the way execvp would; empty when not found.
std::string find_on_path(std::string_view command, std::string_view path_value);

}  // namespace agentkit::mcp::detail
