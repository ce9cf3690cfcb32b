// Running the harness's child programs (node, our drivers) with their output kept in files.
//
//   ChildResult r = run_child({"node", "preflight.mjs"}, work / "preflight");
//   if (!r.started) ...                  // not found / not executable
//   r.exit_code; r.out; r.err;           // exit_code -1 when killed by a signal
//
// Output goes to files (<stem>.out, <stem>.err) rather than pipes, so a chatty child can never
// block on a full pipe while we wait for it.
//
// Thread safety: call from one thread at a time (posix_spawn + waitpid on the child it made).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentkit::difftest {

struct ChildResult {
  bool started = false;
  int exit_code = -1;  // -1 when it died of a signal
  std::string out;
  std::string err;
  std::string start_error;  // why it could not start
};

// Runs argv (argv[0] looked up on PATH unless it has a slash) and waits for it.
ChildResult run_child(const std::vector<std::string>& argv, const std::filesystem::path& output_stem);

// The full path of `name` on PATH (or `name` itself when it has a slash and is executable).
std::optional<std::string> find_executable(const std::string& name);

}  // namespace agentkit::difftest
