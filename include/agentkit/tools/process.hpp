// agentkit/tools/process.hpp — the process engine behind execute, run_command and powershell.
//
//   using namespace agentkit::tools;
//   ProcessOptions opts;
//   opts.cwd = "/home/me/project";
//   opts.timeout = std::chrono::seconds(30);
//   auto r = execute("make test 2>&1 | tail -5", opts, stop_token);
//   if (r && r->outcome == Outcome::exited) std::cout << r->exit_code << format_output(*r);
//   auto g = run_command({"git", "status", "--short"}, opts);    // no shell involved
//
// How a command runs:
// - execute() goes through the shell ladder /bin/bash, then `bash` on PATH, then `sh` on PATH;
//   $SHELL is never read (a user's fish or zsh would change what the model's command means).
//   run_command() executes argv directly: no shell parses any argument.
// - stdin is /dev/null (an interactive prompt gets EOF instead of hanging the agent), unless
//   ProcessOptions::stdin_file names a file to read.
// - The child leads its own process group. Timeout and abort (the agentkit::stop_token) send SIGKILL
//   to the whole group (to the child alone if the group is gone). When the child exits, the
//   group is killed too once output has drained, so a background grandchild does not outlive
//   its command (a process that calls setsid() has left on purpose and is not followed).
// - stdout and stderr are ONE pipe (the same descriptor dup2'ed onto 1 and 2), so output keeps
//   the order in which it was written.
// - Output is kept as a tail window of ProcessOptions::output_cap bytes (50 KB) while it
//   streams: memory stays bounded whatever the command prints. On the first byte past the cap a
//   spill file is opened and receives the whole stream, from the first byte; its absolute path
//   is in the result and in format_output()'s marker.
// - After the child exits, reading continues while output keeps arriving: an idle timer
//   (drain_idle) re-arms on every read, bounded by drain_ceiling. Then the group is killed.
// - The outcome is classified abort > timeout > exit status (128 + signal for a signal death).
// - The child's environment is reduced_environment() unless ProcessOptions says otherwise.
//
// Thread safety: the functions are reentrant; each call owns its child, pipe and spill file.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/tools/ignore.hpp"

namespace agentkit::tools {

// 50 KB as the specification counts it: 51,200 bytes (the `head -c 51200` convention).
inline constexpr std::size_t kOutputCapBytes = 50 * 1024;

struct ProcessOptions {
  // Working folder of the child. Empty: the caller's current folder. Set by the embedder (the
  // workspace root); never by the model.
  std::filesystem::path cwd;
  // Kill the group after this long. nullopt: no limit (there is no default). A value
  // that is zero or negative is invalid_argument.
  std::optional<std::chrono::milliseconds> timeout;
  // Bytes of output kept (the tail). Default 50 KB.
  std::size_t output_cap = kOutputCapBytes;
  // Keep the first output_cap bytes instead of the last (for callers that parse a stream, such
  // as the ripgrep search backend). The shell tools keep the tail.
  bool keep_head = false;
  // Write the full stream to a spill file once it passes output_cap.
  bool spill = true;
  // Folder for spill files. Empty: the system temporary folder.
  std::filesystem::path spill_dir;
  // The child's complete environment as "NAME=value" strings. nullopt: reduced_environment().
  std::optional<std::vector<std::string>> environment;
  // After the child exits, keep reading while output arrives at least this often (re-arming).
  std::chrono::milliseconds drain_idle{250};
  // ...but never longer than this after the child exits (the backstop for descendants that
  // keep the pipe open).
  std::chrono::milliseconds drain_ceiling{2000};
  // The file the child reads as stdin. Empty (the default): /dev/null.
  std::filesystem::path stdin_file;
  // Send stderr to this file (created or truncated, mode 0600) instead of merging it into the
  // output stream. Empty (the default): one stream. The command hooks read a program's answer
  // on stdout and its reason on stderr.
  std::filesystem::path stderr_file;
};

enum class Outcome : std::uint8_t {
  exited,     // the child exited (exit_code is its status, or 128 + signal)
  timed_out,  // the timeout fired and the group was killed
  aborted,    // the stop_token fired and the group was killed
};
std::string_view outcome_name(Outcome o) noexcept;

struct ProcessResult {
  Outcome outcome = Outcome::exited;
  // Exit status; 128 + signal number when a signal ended the child; -1 when unknown.
  int exit_code = -1;
  // The last output_cap bytes of the combined stream, cut to start on a UTF-8 boundary (the
  // first output_cap bytes with keep_head).
  std::string output;
  // True when the stream was longer than output_cap.
  bool truncated = false;
  // Bytes the command wrote in total.
  std::uint64_t total_bytes = 0;
  // Absolute path of the file holding the whole stream (only when truncated and spilling).
  std::optional<std::filesystem::path> spill_file;
  std::chrono::milliseconds duration{0};
  // The program that ran (the shell for execute).
  std::string program;
};

// The classifier: abort beats timeout beats the wait status. `wait_status` is
// waitpid()'s; nullopt when the child was never reaped.
struct Classification {
  Outcome outcome;
  int exit_code;
};
Classification classify_outcome(bool aborted, bool timed_out, std::optional<int> wait_status) noexcept;

// Runs `command` through the shell ladder. Errors: invalid_argument (bad timeout, empty
// command); not_found with detail code=exec_failed when no shell or program can be started;
// io_error when a pipe or the spill file cannot be created.
Result<ProcessResult> execute(std::string_view command, const ProcessOptions& options,
                              agentkit::stop_token stop = {});
// Runs argv[0] (looked up on the child's PATH unless it contains '/') with no shell.
Result<ProcessResult> run_command(const std::vector<std::string>& argv, const ProcessOptions& options,
                                  agentkit::stop_token stop = {});
// Runs `command` with PowerShell (`pwsh -NoLogo -NoProfile -NonInteractive -Command`). The
// platform check happens here, at run time: without pwsh on PATH the error is unsupported,
// "PowerShell is not available on this platform" (the tool stays registered everywhere so the
// tool list, and the provider's cached prompt prefix, is the same on every OS).
Result<ProcessResult> powershell(std::string_view command, const ProcessOptions& options,
                                 agentkit::stop_token stop = {});

// The shell execute() would use: /bin/bash, else bash on PATH, else sh on PATH (the PATH of
// `env`). Never $SHELL. Error not_found listing every place tried.
Result<std::filesystem::path> find_shell(const EnvLookup& env);

// The full path of `name` on the PATH that `env` gives (or `name` itself when it holds a '/' and
// is executable); nullopt when there is none.
std::optional<std::filesystem::path> find_program(std::string_view name, const EnvLookup& env = process_env());

// The variables a child inherits by default: PATH, HOME, USER, LOGNAME, LANG,
// LANGUAGE, LC_ALL, LC_CTYPE, LC_COLLATE, LC_MESSAGES, LC_NUMERIC, LC_TIME, TZ, TMPDIR, TERM,
// when set in `env`; plus PAGER=cat, GIT_PAGER=cat and GIT_TERMINAL_PROMPT=0 so nothing waits
// for a human. Everything else — API keys, tokens, cloud credentials — stays behind.
std::vector<std::string> reduced_environment(const EnvLookup& env = process_env());

// The output with the truncation marker appended when it was truncated, e.g.
// "[Output truncated: showing the last 50.0KB of 1.2MB. Full output: /tmp/agentkit-exec-1a2b.log]".
std::string format_output(const ProcessResult& result);

// "50.0KB", "1.2MB": the size notation of the markers.
std::string format_size(std::uint64_t bytes);

}  // namespace agentkit::tools
