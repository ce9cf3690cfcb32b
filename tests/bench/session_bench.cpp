// Session log figures: loading 100,000 entries (throughput and peak memory, against Python's
// json module reading the same file line by line), append latency per durability mode, and what
// a log (file store, fsync off) adds to each turn of the loop over an instant faux provider, and
// the cost of encoding a message through the tree against the direct text encoder.
//   ./build/bench/tests/bench/bench_session [entries | loop | encode | profile N]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/session/log.hpp"

using namespace agentkit;
using SteadyClock = std::chrono::steady_clock;

namespace {

constexpr int kDefaultEntries = 100'000;
constexpr int kAppendsPerMode = 2'000;
constexpr int kEntriesPerTurn = 3;  // a user message, a tool call, its result

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// A realistic mix: user turns, assistant replies with a tool call, tool results.
Message nth_message(int i) {
  switch (i % kEntriesPerTurn) {
    case 0: return user_text("please look at file " + std::to_string(i) + " and fix the bug");
    case 1: {
      AssistantMessage a;
      a.content.push_back(TextBlock{"Reading the file first."});
      a.content.push_back(ToolUseBlock{"call_" + std::to_string(i), "read",
                                       json::Raw(R"({"path":"src/f)" + std::to_string(i) +
                                                 R"(.cpp"})"),
                                       ""});
      a.provider = "anthropic";
      a.api = "anthropic-messages";
      a.model = "claude-sonnet-4-5";
      a.usage.input_tokens = 1200;
      a.usage.output_tokens = 80;
      return a;
    }
    default: {
      ToolResultMessage r;
      r.tool_use_id = "call_" + std::to_string(i - 1);
      r.tool_name = "read";
      r.content.push_back(TextBlock{std::string(400, 'c') + "\n"});
      return r;
    }
  }
}

// Written by a child: the writer keeps every entry in memory, and a parent that had held them
// would pass its high-water mark on to each loading child (its RSS "growth" would read as ~1x).
std::filesystem::path write_log(const std::filesystem::path& dir, int entries) {
  auto path = dir / "load.jsonl";
  pid_t pid = ::fork();
  if (pid == 0) {
    session::CreateOptions options;
    options.durability = session::Durability::none;
    auto log = session::Log::create(session::file_store(path), options).value();
    for (int i = 0; i < entries; ++i) (void)log.append_message(nth_message(i));
    ::_exit(0);
  }
  ::waitpid(pid, nullptr, 0);
  return path;
}

double cpu_seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

long max_rss_kib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

struct LoadRun {
  double wall = 0;   // seconds
  double user = 0;   // CPU seconds in user mode
  double sys = 0;    // CPU seconds in the kernel (the read, page faults)
  long rss_kib = 0;  // peak RSS growth
  long faults = 0;   // minor page faults (the kernel's share is mostly these and the read)
  friend bool operator<(const LoadRun& a, const LoadRun& b) { return a.wall < b.wall; }
};

// Loads in a fresh child so its peak RSS is the load's own.
LoadRun load_in_child(const std::filesystem::path& path) {
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  pid_t pid = ::fork();
  if (pid == 0) {
    long before = max_rss_kib();
    rusage r0{};
    ::getrusage(RUSAGE_SELF, &r0);
    auto start = SteadyClock::now();
    auto loaded = session::load(*session::file_store(path));
    LoadRun out;
    out.wall = seconds_since(start);
    rusage r1{};
    ::getrusage(RUSAGE_SELF, &r1);
    out.user = cpu_seconds(r1.ru_utime) - cpu_seconds(r0.ru_utime);
    out.sys = cpu_seconds(r1.ru_stime) - cpu_seconds(r0.ru_stime);
    out.faults = r1.ru_minflt - r0.ru_minflt;
    if (!loaded || !loaded->repairs.empty()) ::_exit(1);
    out.rss_kib = max_rss_kib() - before;
    if (::write(fds[1], &out, sizeof out) != sizeof out) ::_exit(2);
    ::_exit(0);
  }
  ::close(fds[1]);
  LoadRun out;
  if (::read(fds[0], &out, sizeof out) != sizeof out) std::abort();
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return out;
}

double python_load_seconds(const std::filesystem::path& path) {
  std::string script =
      "import json,time,sys\nt=time.perf_counter()\n"
      "with open(sys.argv[1],'rb') as f: rows=[json.loads(l) for l in f]\n"
      "print(time.perf_counter()-t)\n";
  auto script_path = path.parent_path() / "peer.py";
  std::FILE* f = std::fopen(script_path.c_str(), "w");
  if (f == nullptr) return 0;
  std::fputs(script.c_str(), f);
  std::fclose(f);
  std::string command = "python3 '" + script_path.string() + "' '" + path.string() + "'";
  std::FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return 0;
  char line[64] = {};
  bool read = std::fgets(line, sizeof line, p) != nullptr;
  return ::pclose(p) == 0 && read ? std::atof(line) : 0;
}

void bench_load(const std::filesystem::path& dir, int entries) {
  auto path = write_log(dir, entries);
  double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::vector<LoadRun> runs;
  for (int i = 0; i < 5; ++i) runs.push_back(load_in_child(path));
  std::sort(runs.begin(), runs.end());
  const LoadRun& median = runs[runs.size() / 2];
  double secs = median.wall;
  double peer = python_load_seconds(path);
  std::printf(
      "load %d entries (%.1f MB): %.1f ms, %.0f MB/s (bar 200), peak RSS growth %.2fx "
      "the file (bar 3x)\n",
      entries, mb, secs * 1e3, mb / secs, median.rss_kib * 1024.0 / (mb * 1e6));
  std::printf("  CPU: %.1f ms user + %.1f ms kernel = %.0f MB/s of CPU time; %ld page faults\n",
              median.user * 1e3, median.sys * 1e3, mb / (median.user + median.sys), median.faults);
  if (peer > 0) {
    std::printf("  python3 json.loads per line: %.1f ms, %.0f MB/s; agentkit %.2fx its speed\n",
                peer * 1e3, mb / peer, peer / secs);
  }
}

void bench_append(const std::filesystem::path& dir, session::Durability mode, const char* name) {
  auto path = dir / (std::string("append-") + name + ".jsonl");
  session::CreateOptions options;
  options.durability = mode;
  auto log = session::Log::create(session::file_store(path), options).value();
  std::vector<double> micros;
  for (int i = 0; i < kAppendsPerMode; ++i) {
    Message m = nth_message(i);
    auto start = SteadyClock::now();
    (void)log.append_message(m);
    if (i % kEntriesPerTurn == kEntriesPerTurn - 1) (void)log.end_turn();
    micros.push_back(seconds_since(start) * 1e6);
  }
  std::sort(micros.begin(), micros.end());
  std::printf("append, durability %-11s: median %8.1f us, p99 %8.1f us per entry\n", name,
              micros[micros.size() / 2], micros[micros.size() * 99 / 100]);
}

// One message encoded kEncodeRounds times each way: the tree codec and json::dump (what the
// log wrote before), and the direct text encoder the log writes with now.
constexpr int kEncodeRounds = 20'000;

double process_cpu_seconds() {
  rusage r{};
  ::getrusage(RUSAGE_SELF, &r);
  return cpu_seconds(r.ru_utime) + cpu_seconds(r.ru_stime);
}

void bench_encode() {
  std::size_t bytes = 0;
  double tree_ns = 0, direct_ns = 0;
  for (int kind = 0; kind < kEntriesPerTurn; ++kind) {
    const Message m = nth_message(kind + kEntriesPerTurn);
    double t0 = process_cpu_seconds();
    for (int i = 0; i < kEncodeRounds; ++i) bytes += json::dump(to_json(m)).size();
    double t1 = process_cpu_seconds();
    std::string out;
    for (int i = 0; i < kEncodeRounds; ++i) {
      out.clear();
      append_json_text(out, m);
      bytes += out.size();
    }
    double t2 = process_cpu_seconds();
    tree_ns += (t1 - t0) * 1e9 / kEncodeRounds;
    direct_ns += (t2 - t1) * 1e9 / kEncodeRounds;
  }
  std::printf(
      "encode one message (mean of the three kinds, CPU time): tree + dump %.0f ns, "
      "direct %.0f ns (%zu bytes written)\n",
      tree_ns / kEntriesPerTurn, direct_ns / kEntriesPerTurn, bytes);
}

constexpr int kLoopTurns = 50;
constexpr int kLoopRuns = 41;

struct PerTurn {
  double wall_us = 0;
  double cpu_us = 0;  // process CPU time (user + kernel, every thread)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// An agent over an instant faux provider whose every turn but the last calls a no-op tool.
class LoopBench {
 public:
  LoopBench() {
    providers::FauxOptions faux_options;
    faux_options.record_requests = false;
    auto provider = std::make_shared<providers::FauxProvider>(
        std::function<providers::FauxResponse(const Request&)>([this](const Request&) {
          auto r = ++turn_ % kLoopTurns == 0
                       ? providers::text_response("done")
                       : providers::tool_call_response({providers::tool_call("", "noop", "{}")});
          r.stream_chunks = false;
          return r;
        }),
        faux_options);
    ToolDefinition noop;
    noop.name = "noop";
    noop.description = "does nothing";
    noop.handler = [](const json::Value&, const ToolContext&) {
      return ToolResult::text_result("ok");
    };
    AgentDefinition def;
    def.tools.direct.push_back(noop);
    RuntimeConfig rt;
    rt.model.spec = "faux/bench";
    rt.providers.add("faux", provider);
    agent_ = std::make_unique<Agent>(make_agent(def, rt).value());
  }

  // Microseconds per turn of one run of kLoopTurns turns, with a new log at `log_path` if set.
  PerTurn run(const std::filesystem::path* log_path) {
    StartOptions start;
    if (log_path != nullptr) {
      session::CreateOptions options;
      options.durability = session::Durability::none;
      start.log = std::make_shared<session::Log>(
          session::Log::create(session::file_store(*log_path), options).value());
    }
    auto s = agent_->start(std::move(start)).value();
    double cpu0 = process_cpu_seconds();
    auto t0 = SteadyClock::now();
    auto r = s.run("go");
    double took = seconds_since(t0);
    double cpu = process_cpu_seconds() - cpu0;
    if (!r || r->turn_count != kLoopTurns) std::abort();
    return {took * 1e6 / kLoopTurns, cpu * 1e6 / kLoopTurns};
  }

 private:
  int turn_ = 0;
  std::unique_ptr<Agent> agent_;
};

// Runs with and without a log alternate, so that both see the same moment of a shared machine;
// the figure is the median of the per-pair differences.
void bench_loop(const std::filesystem::path& dir) {
  LoopBench bench;
  (void)bench.run(nullptr);  // warm-up
  std::vector<double> wall_without, wall_with, wall_added, cpu_without, cpu_with, cpu_added;
  for (int i = 0; i < kLoopRuns; ++i) {
    auto path = dir / ("loop-" + std::to_string(i) + ".jsonl");
    PerTurn without = bench.run(nullptr);
    PerTurn with = bench.run(&path);
    wall_without.push_back(without.wall_us);
    wall_with.push_back(with.wall_us);
    wall_added.push_back(with.wall_us - without.wall_us);
    cpu_without.push_back(without.cpu_us);
    cpu_with.push_back(with.cpu_us);
    cpu_added.push_back(with.cpu_us - without.cpu_us);
  }
  std::printf(
      "loop per turn, wall: %.2f us without a log, %.2f us with one (durability none): "
      "%.2f us added (bar 5)\n",
      median(wall_without), median(wall_with), median(wall_added));
  std::printf("loop per turn, CPU:  %.2f us without a log, %.2f us with one: %.2f us added\n",
              median(cpu_without), median(cpu_with), median(cpu_added));
}

// `bench_session profile N`: writes N entries and loads them once, in this process, for
// callgrind (--toggle-collect on session::load or Log::append_message).
void profile(const std::filesystem::path& dir, int entries) {
  auto path = dir / "profile.jsonl";
  {
    session::CreateOptions options;
    options.durability = session::Durability::none;
    auto log = session::Log::create(session::file_store(path), options).value();
    for (int i = 0; i < entries; ++i) (void)log.append_message(nth_message(i));
  }
  auto loaded = session::load(*session::file_store(path));
  if (!loaded || !loaded->repairs.empty()) std::abort();
  std::printf("profiled %zu entries\n", loaded->entries.size());
}

}  // namespace

int main(int argc, char** argv) {
  // `bench_session loop` runs the loop figure alone (for a profiler); `bench_session profile N`
  // writes and loads N entries once; `bench_session encode` compares the two message encoders.
  const std::string_view mode = argc > 1 ? std::string_view(argv[1]) : std::string_view();
  if (mode == "encode") {
    bench_encode();
    return 0;
  }
  bool loop_only = mode == "loop";
  bool profile_only = mode == "profile";
  int entries = profile_only             ? (argc > 2 ? std::atoi(argv[2]) : 10'000)
                : argc > 1 && !loop_only ? std::atoi(argv[1])
                                         : kDefaultEntries;
  // mkdtemp under the system's temporary directory (TMPDIR is honoured), not a fixed directory.
  std::string pattern =
      (std::filesystem::temp_directory_path() / "agentkit-session-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return 1;
  std::filesystem::path dir(pattern);
  if (profile_only) {
    profile(dir, entries);
    std::filesystem::remove_all(dir);
    return 0;
  }
  if (!loop_only) {
    bench_encode();
    bench_load(dir, entries);
    bench_append(dir, session::Durability::none, "none");
    bench_append(dir, session::Durability::every_turn, "every_turn");
    bench_append(dir, session::Durability::every_entry, "every_entry");
  }
  bench_loop(dir);
  std::filesystem::remove_all(dir);
  return 0;
}
