#include "agentkit/tools/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "output_window.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
// Without a pollable pidfd (kernels before 5.3) the loop wakes this often to check the child.
constexpr std::chrono::milliseconds kExitPollTick{20};
// Shell exit status convention for a signal death (NFR-COMPAT-06).
constexpr int kSignalExitBase = 128;

constexpr std::array<const char*, 15> kInheritedVariables = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE",
    "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "TZ", "TMPDIR", "TERM"};
// Nothing a child runs should wait for a human (a pager, a credential prompt).
constexpr std::array<const char*, 3> kFixedVariables = {"PAGER=cat", "GIT_PAGER=cat",
                                                        "GIT_TERMINAL_PROMPT=0"};

Error exec_failed(std::string message) {
  return fail(Errc::not_found, std::move(message)).with_detail("code", "exec_failed");
}

std::optional<std::string> env_value(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& kv : env) {
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 && kv[name.size()] == '=') {
      return kv.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::optional<fs::path> search_path(std::string_view program, const std::optional<std::string>& path_var) {
  if (program.find('/') != std::string_view::npos) {
    fs::path p(program);
    return is_executable_file(p) ? std::optional<fs::path>(p) : std::nullopt;
  }
  if (!path_var) return std::nullopt;
  std::string_view rest = *path_var;
  while (true) {
    std::size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / std::string(program);
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

// A descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

struct Spawned {
  pid_t pid = -1;
  int output_fd = -1;
};

Result<Spawned> spawn(const fs::path& program, const std::vector<std::string>& argv,
                      const std::vector<std::string>& env, const ProcessOptions& options) {
  const fs::path& cwd = options.cwd;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return errno_error(Errc::io_error, "cannot create the output pipe", errno);
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attr);
  const char* input = options.stdin_file.empty() ? "/dev/null" : options.stdin_file.c_str();
  ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input, O_RDONLY, 0);
  // One pipe for both streams: write order is kept (REQ-TOOL-17.4).
  ::posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  if (options.stderr_file.empty()) {
    ::posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  } else {
    ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, options.stderr_file.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  if (!cwd.empty()) ::posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  sigset_t defaults, empty;
  ::sigfillset(&defaults);
  ::sigdelset(&defaults, SIGKILL);
  ::sigdelset(&defaults, SIGSTOP);
  ::sigemptyset(&empty);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);  // an ignored SIGPIPE must not leak in
  ::posix_spawnattr_setsigmask(&attr, &empty);
  ::posix_spawnattr_setpgroup(&attr, 0);  // its own process group (REQ-TOOL-17.1)
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, args.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return exec_failed("cannot start '" + program.string() + "': " + errno_text(rc) +
                       (cwd.empty() ? "" : " (working folder '" + cwd.string() + "')"));
  }
  return Spawned{pid, fds[0]};
}

void kill_group(pid_t pid) {
  if (::kill(-pid, SIGKILL) != 0 && errno == ESRCH) ::kill(pid, SIGKILL);
}

bool child_has_exited(pid_t pid) {
  siginfo_t info{};
  // WNOWAIT: look without reaping, so the process group id stays reserved until we kill it.
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return true;
  return info.si_pid == pid;
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

// The poll loop: read the shared pipe into the window until the child has exited and output
// has drained, killing the group on timeout or abort.
struct Supervision {
  bool aborted = false;
  bool timed_out = false;
  std::optional<int> wait_status;
};

Supervision supervise(const Spawned& child, const ProcessOptions& options, agentkit::stop_token stop,
                      detail::TailWindow& window) {
  Supervision s;
  Fd out(child.output_fd);
  Fd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  Fd pidfd(open_pidfd(child.pid));
  agentkit::stop_callback on_stop(stop, [&wake] {
    std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake.get(), &one, sizeof one);
  });
  const auto start = Clock::now();
  std::optional<Clock::time_point> deadline;
  if (options.timeout) deadline = start + *options.timeout;
  std::optional<Clock::time_point> exited_at, drain_until;
  bool eof = false, killed = false;
  std::string buffer(kReadChunk, '\0');

  while (true) {
    auto now = Clock::now();
    if (!exited_at && child_has_exited(child.pid)) {
      exited_at = now;
      drain_until = now + options.drain_idle;
    }
    if (exited_at && (eof || now >= std::min(*drain_until, *exited_at + options.drain_ceiling))) break;
    if (!killed && stop.stop_requested()) {
      s.aborted = true;
      killed = true;
      kill_group(child.pid);
    }
    if (!killed && deadline && now >= *deadline) {
      s.timed_out = true;
      killed = true;
      kill_group(child.pid);
    }
    std::optional<Clock::time_point> wake_at;
    auto earliest = [&](Clock::time_point t) { wake_at = wake_at ? std::min(*wake_at, t) : t; };
    if (!killed && deadline) earliest(*deadline);
    if (exited_at) earliest(std::min(*drain_until, *exited_at + options.drain_ceiling));
    if (!exited_at && (pidfd.get() < 0 || eof)) earliest(now + kExitPollTick);

    std::array<pollfd, 3> fds{};
    nfds_t n = 0;
    int out_slot = -1, wake_slot = -1;
    if (!eof) { out_slot = static_cast<int>(n); fds[n++] = {out.get(), POLLIN, 0}; }
    if (wake.get() >= 0 && !killed) { wake_slot = static_cast<int>(n); fds[n++] = {wake.get(), POLLIN, 0}; }
    if (pidfd.get() >= 0 && !exited_at) fds[n++] = {pidfd.get(), POLLIN, 0};
    int timeout_ms = -1;
    if (wake_at) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wake_at - now).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(ms, 0, 60'000));
    }
    int ready = ::poll(fds.data(), n, timeout_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (out_slot >= 0 && (fds[out_slot].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = ::read(out.get(), buffer.data(), buffer.size());
      if (got > 0) {
        window.append(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
        if (exited_at) drain_until = Clock::now() + options.drain_idle;  // re-arm (REQ-TOOL-17.5)
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        eof = true;
      }
    }
    if (wake_slot >= 0 && (fds[wake_slot].revents & POLLIN)) {
      std::uint64_t v;
      [[maybe_unused]] auto r = ::read(wake.get(), &v, sizeof v);
    }
  }
  // Whatever is left of the group goes with the command (a background grandchild included).
  kill_group(child.pid);
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(child.pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r == child.pid) s.wait_status = status;
  return s;
}

Result<ProcessResult> run_program(const fs::path& program, const std::vector<std::string>& argv,
                                  const ProcessOptions& options, agentkit::stop_token stop) {
  if (options.timeout && options.timeout->count() <= 0) {
    return fail(Errc::invalid_argument, "timeout must be greater than 0 seconds when given")
        .with_detail("timeout_ms", std::to_string(options.timeout->count()));
  }
  std::vector<std::string> env = options.environment ? *options.environment : reduced_environment();
  const auto start = Clock::now();
  auto child = spawn(program, argv, env, options);
  if (!child) return child.error();
  detail::TailWindow window(options.output_cap, options.spill, options.spill_dir, options.keep_head);
  Supervision s = supervise(*child, options, std::move(stop), window);
  auto c = classify_outcome(s.aborted, s.timed_out, s.wait_status);
  ProcessResult result;
  result.outcome = c.outcome;
  result.exit_code = c.exit_code;
  result.output = window.tail();
  result.truncated = window.truncated();
  result.total_bytes = window.total();
  result.spill_file = window.spill_path();
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  result.program = program.string();
  return result;
}

EnvLookup lookup_in(const std::vector<std::string>& env) {
  return [&env](std::string_view name) { return env_value(env, name); };
}

}  // namespace

std::optional<fs::path> find_program(std::string_view name, const EnvLookup& env) {
  return search_path(name, env("PATH"));
}

std::string_view outcome_name(Outcome o) noexcept {
  switch (o) {
    case Outcome::exited: return "exited";
    case Outcome::timed_out: return "timed_out";
    case Outcome::aborted: return "aborted";
  }
  return "unknown";
}

Classification classify_outcome(bool aborted, bool timed_out, std::optional<int> wait_status) noexcept {
  int code = -1;
  if (wait_status) {
    if (WIFEXITED(*wait_status)) code = WEXITSTATUS(*wait_status);
    else if (WIFSIGNALED(*wait_status)) code = kSignalExitBase + WTERMSIG(*wait_status);
  }
  if (aborted) return {Outcome::aborted, code};
  if (timed_out) return {Outcome::timed_out, code};
  return {Outcome::exited, code};
}

std::vector<std::string> reduced_environment(const EnvLookup& env) {
  std::vector<std::string> out;
  for (const char* name : kInheritedVariables) {
    if (auto v = env(name)) out.push_back(std::string(name) + "=" + *v);
  }
  for (const char* fixed : kFixedVariables) out.emplace_back(fixed);
  return out;
}

Result<fs::path> find_shell(const EnvLookup& env) {
  // REQ-TOOL-06's ladder; $SHELL is deliberately never consulted.
  const fs::path first = "/bin/bash";
  if (is_executable_file(first)) return first;
  auto path_var = env("PATH");
  for (const char* name : {"bash", "sh"}) {
    if (auto p = search_path(name, path_var)) return *p;
  }
  return exec_failed("no shell found; tried /bin/bash, then bash and sh on PATH='" +
                     path_var.value_or("") + "'");
}

Result<ProcessResult> execute(std::string_view command, const ProcessOptions& options,
                              agentkit::stop_token stop) {
  if (command.empty()) return fail(Errc::invalid_argument, "empty command; pass a shell command line");
  std::vector<std::string> env = options.environment ? *options.environment : reduced_environment();
  auto shell = find_shell(lookup_in(env));
  if (!shell) return shell.error();
  return run_program(*shell, {shell->filename().string(), "-c", std::string(command)}, options,
                     std::move(stop));
}

Result<ProcessResult> run_command(const std::vector<std::string>& argv, const ProcessOptions& options,
                                  agentkit::stop_token stop) {
  if (argv.empty() || argv[0].empty()) {
    return fail(Errc::invalid_argument, "empty argv; pass the program and its arguments");
  }
  std::vector<std::string> env = options.environment ? *options.environment : reduced_environment();
  auto program = search_path(argv[0], env_value(env, "PATH"));
  if (!program) {
    return exec_failed("program '" + argv[0] + "' not found on PATH='" +
                       env_value(env, "PATH").value_or("") + "'");
  }
  return run_program(*program, argv, options, std::move(stop));
}

Result<ProcessResult> powershell(std::string_view command, const ProcessOptions& options,
                                 agentkit::stop_token stop) {
  std::vector<std::string> env = options.environment ? *options.environment : reduced_environment();
  auto pwsh = search_path("pwsh", env_value(env, "PATH"));
  if (!pwsh) {
    return fail(Errc::unsupported,
                "PowerShell is not available on this platform: no 'pwsh' on PATH; install "
                "PowerShell 7 or use execute")
        .with_detail("code", "exec_failed");
  }
  return run_program(*pwsh, {"pwsh", "-NoLogo", "-NoProfile", "-NonInteractive", "-Command",
                             std::string(command)},
                     options, std::move(stop));
}

std::string format_size(std::uint64_t bytes) {
  constexpr double kKiB = 1024.0;
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%lluB", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1fKB", static_cast<double>(bytes) / kKiB);
  } else {
    std::snprintf(buf, sizeof buf, "%.1fMB", static_cast<double>(bytes) / (kKiB * kKiB));
  }
  return buf;
}

std::string format_output(const ProcessResult& r) {
  std::string out = r.output;
  if (!r.truncated) return out;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "[Output truncated: showing the last " + format_size(r.output.size()) + " of " +
         format_size(r.total_bytes) + ".";
  if (r.spill_file) out += " Full output: " + r.spill_file->string();
  out += "]";
  return out;
}

}  // namespace agentkit::tools
