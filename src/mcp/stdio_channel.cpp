#include "stdio_channel.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <unistd.h>

#include "agentkit/wire/ndjson_reader.hpp"
#include "fd_io.hpp"

namespace agentkit::mcp::detail {
namespace {

// Read granularity of the pumps; a frame larger than this simply takes several reads.
constexpr std::size_t kReadChunkBytes = 64 * 1024;
// A stderr line longer than this is delivered in pieces (stderr is logs, never protocol).
constexpr std::size_t kMaxStderrLineBytes = 8 * 1024;
// How often a shutdown looks at whether the child has exited.
constexpr std::chrono::milliseconds kExitPollInterval{10};

wire::NdjsonReaderOptions reader_options(std::size_t max_line_bytes) {
  wire::NdjsonReaderOptions o;
  if (max_line_bytes != 0) o.max_line_bytes = max_line_bytes;
  return o;
}

// Reads NDJSON frames from `fd` until EOF, an error, the sink's refusal or the waker.
void pump_frames(int fd, const Waker& waker, const ChannelSink& sink, std::size_t max_line_bytes,
                 std::string_view source) {
  block_sigpipe_for_this_thread();  // a malformed-frame answer may be written from here
  wire::NdjsonReader reader(reader_options(max_line_bytes));
  std::array<char, kReadChunkBytes> buffer;
  std::optional<Error> ended;
  while (!ended) {
    auto n = read_some(fd, buffer, waker);
    if (!n) {
      if (n.error().code == Errc::cancelled) return;  // closing: nothing to report
      ended = make_error(Errc::io_error, std::string(source) + ": " + n.error().message);
      break;
    }
    if (*n == 0) {
      auto end = reader.finish();
      ended = end ? make_error(Errc::closed, std::string(source) + " closed (end of stream)")
                  : make_error(Errc::protocol_error, std::string(source) + ": " + end.error().message);
    } else {
      reader.feed(std::string_view(buffer.data(), *n));
    }
    while (true) {
      auto line = reader.next();
      if (!line) {
        // An over-long or cut line poisons the stream (REQ-SEC-11): report it as a malformed frame.
        Error e = make_error(line.error().code, std::string(source) + ": " + line.error().message);
        e.with_detail("rpc_code", "-32700");
        if (sink.on_frame_error) sink.on_frame_error(e);
        return;
      }
      if (!*line) break;
      if (!sink.on_frame(**line, nullptr)) return;
    }
  }
  if (sink.on_close) sink.on_close(*ended);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

class ChildChannel final : public Channel {
 public:
  explicit ChildChannel(ChildLaunch launch) : launch_(std::move(launch)) {}
  ~ChildChannel() override { close(); }

  Result<void> open(ChannelSink sink) override {
    sink_ = std::move(sink);
    auto program = resolve_program();
    if (!program) return std::move(program).error();
    auto in = make_pipe();
    auto out = make_pipe();
    auto err = make_pipe();
    if (!in || !out || !err) return fail(Errc::io_error, "could not create pipes for " + describe());
    if (auto spawned = spawn(*program, *in, *out, *err); !spawned) return spawned;
    stdin_ = std::move(in->write);
    (void)set_nonblocking(stdin_.get());  // a child that stops reading must not wedge a writer
    stdout_ = std::move(out->read);
    stderr_ = std::move(err->read);
    reader_ = agentkit::jthread([this] {
      pump_frames(stdout_.get(), waker_, sink_, launch_.max_line_bytes, describe() + " stdout");
    });
    stderr_pump_ = agentkit::jthread([this] { drain_stderr(); });
    return {};
  }

  Result<void> send(OutboundFrame frame, agentkit::stop_token stop) override {
    frame.text += '\n';
    std::lock_guard lock(write_mu_);
    if (!stdin_.valid()) return fail(Errc::closed, describe() + " is closed");
    auto written = write_all(stdin_.get(), frame.text, waker_, stop);
    if (!written) {
      return make_error(written.error().code == Errc::cancelled ? Errc::cancelled : Errc::io_error,
                        "could not write to " + describe() + ": " + written.error().message);
    }
    return {};
  }

  void interrupt() override { waker_.wake(); }

  void close() override {
    std::lock_guard close_lock(close_mu_);
    if (pid_.load() > 0) terminate();
    waker_.wake();
    if (reader_.joinable()) reader_.join();
    if (stderr_pump_.joinable()) stderr_pump_.join();
  }

  std::string describe() const override {
    std::string out = "stdio server '" + launch_.command;
    for (const auto& a : launch_.args) out += " " + a;
    out += "'";
    if (const pid_t pid = pid_.load(); pid > 0) out += " (pid " + std::to_string(pid) + ")";
    return out;
  }

 private:
  Result<std::string> resolve_program() const {
    std::string_view path_value;
    for (const auto& kv : launch_.environment) {
      if (std::string_view(kv).starts_with("PATH=")) path_value = std::string_view(kv).substr(5);
    }
    std::string program = find_on_path(launch_.command, path_value);
    if (program.empty()) {
      return make_error(Errc::not_found, "cannot start MCP server: '" + launch_.command +
                                             "' was not found on the server's PATH (" + std::string(path_value) +
                                             "); give a full path or add its directory to PATH in the server's env")
          .with_detail("command", launch_.command);
    }
    return program;
  }

  Result<void> spawn(const std::string& program, const PipeEnds& in, const PipeEnds& out, const PipeEnds& err) {
    std::vector<std::string> argv_store;
    argv_store.push_back(launch_.command);
    argv_store.insert(argv_store.end(), launch_.args.begin(), launch_.args.end());
    std::vector<char*> argv;
    for (auto& a : argv_store) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_store = launch_.environment;
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attr);
    ::posix_spawn_file_actions_adddup2(&actions, in.read.get(), STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, out.write.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, err.write.get(), STDERR_FILENO);
    if (!launch_.working_directory.empty()) {
      ::posix_spawn_file_actions_addchdir_np(&actions, launch_.working_directory.c_str());
    }
    // Its own process group, so shutdown can signal the server and everything it started
    // (npx -> node) at once (REQ-MCP-CLIENT-04).
    ::posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigset_t empty;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    sigemptyset(&empty);
    ::posix_spawnattr_setsigdefault(&attr, &defaults);  // an ignored SIGPIPE must not leak in
    ::posix_spawnattr_setsigmask(&attr, &empty);
    ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      return errno_error(Errc::io_error, "cannot start MCP server " + describe(), rc)
          .with_detail("errno", std::to_string(rc));
    }
    pid_.store(pid);
    return {};
  }

  void drain_stderr() {
    std::array<char, kReadChunkBytes> buffer;
    std::string line;
    const auto deliver = [&] {
      if (launch_.on_stderr) launch_.on_stderr(line);
      line.clear();
    };
    while (true) {
      auto n = read_some(stderr_.get(), buffer, waker_);
      if (!n || *n == 0) break;
      for (std::size_t i = 0; i < *n; ++i) {
        const char c = buffer[i];
        if (c == '\n') {
          deliver();
        } else {
          line += c;
          if (line.size() >= kMaxStderrLineBytes) deliver();
        }
      }
    }
    if (!line.empty()) deliver();
  }

  bool exited_within(std::chrono::milliseconds wait) const {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    const pid_t pid = pid_.load();
    while (true) {
      siginfo_t info{};
      // WNOWAIT: the exited leader stays a zombie, so its pid (and the group id) cannot be reused
      // before the group is signalled below.
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
        return true;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(kExitPollInterval);
    }
  }

  // Close stdin, wait, SIGTERM the group, wait, SIGKILL the group; never hangs on a stuck child.
  void terminate() {
    {
      std::lock_guard lock(write_mu_);
      stdin_.reset();
    }
    const pid_t pid = pid_.load();
    if (!exited_within(launch_.shutdown_grace)) {
      ::kill(-pid, SIGTERM);
      if (!exited_within(launch_.shutdown_grace)) {
        ::kill(-pid, SIGKILL);
      }
    }
    // Whatever the leader left behind in its group goes too.
    ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid_.store(-1);
  }

  ChildLaunch launch_;
  ChannelSink sink_;
  Waker waker_;
  UniqueFd stdin_;
  UniqueFd stdout_;
  UniqueFd stderr_;
  std::atomic<pid_t> pid_{-1};  // read by describe() from any thread
  std::mutex write_mu_;
  std::mutex close_mu_;
  agentkit::jthread reader_;
  agentkit::jthread stderr_pump_;
};

class FdChannel final : public Channel {
 public:
  FdChannel(int in_fd, int out_fd, bool owned, std::size_t max_line_bytes)
      : in_(in_fd), out_(out_fd), owned_(owned), max_line_bytes_(max_line_bytes) {}
  ~FdChannel() override { close(); }

  Result<void> open(ChannelSink sink) override {
    sink_ = std::move(sink);
    reader_ = agentkit::jthread([this] { pump_frames(in_, waker_, sink_, max_line_bytes_, "the client's stdin"); });
    return {};
  }

  Result<void> send(OutboundFrame frame, agentkit::stop_token stop) override {
    frame.text += '\n';
    std::lock_guard lock(write_mu_);
    if (out_ < 0) return fail(Errc::closed, "stdout is closed");
    auto written = write_all(out_, frame.text, waker_, stop);
    if (!written) return make_error(Errc::io_error, "could not write to the client: " + written.error().message);
    return {};
  }

  void interrupt() override { waker_.wake(); }

  void close() override {
    std::lock_guard close_lock(close_mu_);
    waker_.wake();
    if (reader_.joinable()) reader_.join();
    std::lock_guard lock(write_mu_);
    if (owned_) {
      if (in_ >= 0) ::close(in_);
      if (out_ >= 0 && out_ != in_) ::close(out_);
    }
    in_ = -1;
    out_ = -1;
  }

  std::string describe() const override { return "stdio client"; }

 private:
  int in_;
  int out_;
  bool owned_;
  std::size_t max_line_bytes_;
  ChannelSink sink_;
  Waker waker_;
  std::mutex write_mu_;
  std::mutex close_mu_;
  agentkit::jthread reader_;
};

}  // namespace

std::string find_on_path(std::string_view command, std::string_view path_value) {
  if (command.empty()) return {};
  if (command.find('/') != std::string_view::npos) return std::string(command);
  std::size_t start = 0;
  while (start <= path_value.size()) {
    std::size_t end = path_value.find(':', start);
    if (end == std::string_view::npos) end = path_value.size();
    std::string dir(path_value.substr(start, end - start));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + std::string(command);
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

std::unique_ptr<Channel> make_child_channel(ChildLaunch launch) {
  return std::make_unique<ChildChannel>(std::move(launch));
}

std::unique_ptr<Channel> make_fd_channel(int in_fd, int out_fd, bool owned, std::size_t max_line_bytes) {
  return std::make_unique<FdChannel>(in_fd, out_fd, owned, max_line_bytes);
}

}  // namespace agentkit::mcp::detail
