// Session log figures: loading 100,000 entries (throughput and peak memory, against Python's
// json module reading the same file line by line), append latency per durability mode, and what
// a log (file store, fsync off) adds to each turn of the loop over an instant faux provider.
//   ./build/bench/tests/bench/bench_session [entries | loop]
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
  std::printf("  CPU: %.1f ms user + %.1f ms kernel = %.0f MB/s of CPU time\n", median.user * 1e3,
              median.sys * 1e3, mb / (median.user + median.sys));
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


constexpr int kLoopTurns = 50;
constexpr int kLoopRuns = 21;

// Median microseconds per turn of a run of kLoopTurns turns (a no-op tool call on each but the
// last), with a fresh log per run when `dir` is set.
double loop_us_per_turn(const std::filesystem::path* dir) {
  int turn = 0;
  providers::FauxOptions faux_options;
  faux_options.record_requests = false;
  auto provider = std::make_shared<providers::FauxProvider>(
      std::function<providers::FauxResponse(const Request&)>([&turn](const Request&) {
        auto r = ++turn % kLoopTurns == 0
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
  auto agent = make_agent(def, rt).value();
  std::vector<double> per_turn;
  for (int i = 0; i < kLoopRuns; ++i) {
    StartOptions start;
    if (dir != nullptr) {
      session::CreateOptions options;
      options.durability = session::Durability::none;
      auto path = *dir / ("loop-" + std::to_string(i) + ".jsonl");
      start.log = std::make_shared<session::Log>(
          session::Log::create(session::file_store(path), options).value());
    }
    auto s = agent.start(std::move(start)).value();
    auto t0 = SteadyClock::now();
    auto r = s.run("go");
    double took = seconds_since(t0);
    if (!r || r->turn_count != kLoopTurns) std::abort();
    per_turn.push_back(took * 1e6 / kLoopTurns);
  }
  std::sort(per_turn.begin(), per_turn.end());
  return per_turn[per_turn.size() / 2];
}

void bench_loop(const std::filesystem::path& dir) {
  double without = loop_us_per_turn(nullptr);
  double with = loop_us_per_turn(&dir);
  std::printf("loop per turn: %.2f us without a log, %.2f us with one (durability none): "
              "%.2f us added (bar 5)\n",
              without, with, with - without);
}

}  // namespace

int main(int argc, char** argv) {
  // `bench_session loop` runs the loop figure alone (for a profiler).
  bool loop_only = argc > 1 && std::string_view(argv[1]) == "loop";
  int entries = argc > 1 && !loop_only ? std::atoi(argv[1]) : kDefaultEntries;
  // mkdtemp under the system's temporary directory (TMPDIR is honoured), not a fixed directory.
  std::string pattern =
      (std::filesystem::temp_directory_path() / "agentkit-session-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return 1;
  std::filesystem::path dir(pattern);
  if (!loop_only) {
    bench_load(dir, entries);
    bench_append(dir, session::Durability::none, "none");
    bench_append(dir, session::Durability::every_turn, "every_turn");
    bench_append(dir, session::Durability::every_entry, "every_entry");
  }
  bench_loop(dir);
  std::filesystem::remove_all(dir);
  return 0;
}
