// The per-tool-call cost of the audit trail (agentkit/audit.hpp), hashing included. Bar: under
// 5 us per tool call (issue 12).
//
// 1. A tool_call-shaped record through Trail::append into a file (the SHA-256 of the arguments,
//    the chain hash, one write()), against its floor printed side by side: the same bytes written
//    with one plain write() per record, no hashing.
// 2. The loop: one no-op tool call per turn over the instant faux provider, with and without a
//    file trail; the difference per turn is the trail's cost as the loop pays it (a tool_call
//    and a model_call record per turn).
// Process CPU time (user + kernel, so the write() is in it) beside wall time, best and median:
// on a shared machine the wall clock measures the scheduler. `bench_audit trail` or
// `bench_audit loop` runs one part; `bench_audit loop off|on` runs one loop agent only, so that
// callgrind can count the instructions of each.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/audit.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/providers/faux.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRecords = 20000;
constexpr int kRepeats = 7;

std::filesystem::path bench_file(const char* name) {
  auto p = std::filesystem::temp_directory_path() /
           (std::string("agentkit_audit_bench_") + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove(p);
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

double cpu_us() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// Microseconds per unit of work, CPU and wall, one sample per repeat.
struct Samples {
  std::vector<double> cpu, wall;
  template <class F>
  void time(double units, F&& work) {
    auto w0 = Clock::now();
    double c0 = cpu_us();
    work();
    double c1 = cpu_us();
    auto w1 = Clock::now();
    cpu.push_back((c1 - c0) / units);
    wall.push_back(std::chrono::duration<double, std::micro>(w1 - w0).count() / units);
  }
  void print(const char* what, const char* bar) const {
    std::printf("  %-34s CPU best %6.2f median %6.2f   wall best %6.2f median %6.2f us%s\n", what,
                best(cpu), median(cpu), best(wall), median(wall), bar);
  }
};

const std::string kArguments =
    R"({"path":"src/agentkit/loop.cpp","old_string":"return x;","new_string":"return y;"})";

std::string tool_call_members() {
  std::string m = "\"session_id\":\"ses_0123456789abcdef0123456789abcdef\",\"tool\":\"edit_file\"";
  m += ",\"arguments_sha256\":\"" + sha256_hex(kArguments) + "\"";
  m += ",\"outcome\":\"ok\",\"duration_ms\":3,\"approval\":\"allowed\"";
  return m;
}

Samples trail_per_record() {
  Samples out;
  for (int r = 0; r < kRepeats; ++r) {
    auto path = bench_file("trail.jsonl");
    auto trail = audit::open_file(path).value();
    out.time(kRecords, [&] {
      for (int i = 0; i < kRecords; ++i) {
        std::string m = tool_call_members();  // hashes the arguments, as the loop does per call
        if (!trail->append("tool_call", m, 1764650000000 + i)) std::exit(1);
      }
    });
    trail.reset();
    std::filesystem::remove(path);
  }
  return out;
}

Samples plain_write_per_record() {
  std::string line = "{\"seq\":1,\"type\":\"tool_call\",\"t\":1764650000000," +
                     tool_call_members() + ",\"prev\":\"" + std::string(64, '0') +
                     "\",\"hash\":\"" + std::string(64, '0') + "\"}\n";
  Samples out;
  for (int r = 0; r < kRepeats; ++r) {
    auto path = bench_file("plain.jsonl");
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    out.time(kRecords, [&] {
      for (int i = 0; i < kRecords; ++i) {
        if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
          std::exit(1);
      }
    });
    ::close(fd);
    std::filesystem::remove(path);
  }
  return out;
}

constexpr int kTurnsPerRun = 50;
constexpr int kRuns = 41;

std::unique_ptr<Agent> loop_agent(bool audited, const std::filesystem::path& path) {
  faux::FauxOptions options;
  options.record_requests = false;
  auto provider = std::make_shared<faux::FauxProvider>(
      // The provider copies its responder per call: the count lives outside it.
      std::function<faux::FauxResponse(const Request&)>(
          [turn = std::make_shared<int>(0)](const Request&) {
            ++*turn;
            auto r = *turn % kTurnsPerRun == 0
                         ? faux::text_response("done")
                         : faux::tool_call_response({faux::tool_call("", "noop", kArguments)});
            r.stream_chunks = false;
            return r;
          }),
      options);
  ToolDefinition noop;
  noop.name = "noop";
  noop.description = "does nothing";
  noop.handler = [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result("ok");
  };
  AgentDefinition def;
  def.instructions = "bench";
  def.tools.direct.push_back(noop);
  RuntimeConfig rt;
  rt.model.spec = "faux/bench";
  rt.providers.add("faux", provider);
  if (audited) rt.observability.audit = audit::open_file(path).value();
  auto agent = make_agent(def, rt);
  if (!agent) std::exit(1);
  return std::make_unique<Agent>(std::move(*agent));
}

void loop_run(Agent& agent, Samples* out) {
  auto session = agent.start();
  auto run = [&] {
    auto r = session->run("go");
    if (!r || r->turn_count != kTurnsPerRun) std::exit(1);
  };
  if (out != nullptr) {
    out->time(kTurnsPerRun, run);
  } else {
    run();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool trail_part = argc < 2 || std::strcmp(argv[1], "trail") == 0;
  const bool loop_part = argc < 2 || std::strcmp(argv[1], "loop") == 0;
  if (trail_part) {
    Samples trail = trail_per_record();
    Samples plain = plain_write_per_record();
    std::printf("audit trail, one tool_call record into a file (%d x %d records)\n", kRepeats,
                kRecords);
    trail.print("Trail::append, hashing included", "   (bar: < 5 us)");
    plain.print("plain write() of the same bytes", "");
    std::printf("  trail / plain (CPU medians) = %.2fx\n", median(trail.cpu) / median(plain.cpu));
  }
  if (loop_part) {
    // The two agents run in turn, so a change of load falls on both alike.
    auto path = bench_file("loop.jsonl");
    if (argc > 2) {  // one agent only (callgrind): no timing printed
      auto agent = loop_agent(std::strcmp(argv[2], "on") == 0, path);
      for (int i = 0; i < kRuns; ++i) loop_run(*agent, nullptr);
      std::filesystem::remove(path);
      return 0;
    }
    auto off_agent = loop_agent(false, path);
    auto on_agent = loop_agent(true, path);
    loop_run(*off_agent, nullptr);
    loop_run(*on_agent, nullptr);
    Samples off, on;
    for (int i = 0; i < kRuns; ++i) {
      loop_run(*off_agent, &off);
      loop_run(*on_agent, &on);
    }
    std::filesystem::remove(path);
    std::printf("loop, one no-op tool call per turn (%d runs x %d turns each)\n", kRuns,
                kTurnsPerRun);
    off.print("without audit, per turn", "");
    on.print("with a file trail, per turn", "");
    std::printf(
        "  difference (one tool_call + one model_call record): CPU best %+.2f median %+.2f, "
        "wall median %+.2f us/turn\n",
        best(on.cpu) - best(off.cpu), median(on.cpu) - median(off.cpu),
        median(on.wall) - median(off.wall));
  }
  return 0;
}
