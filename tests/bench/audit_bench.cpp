// The per-tool-call cost of the audit trail (agentkit/audit.hpp), hashing included. Bar: under
// 5 us per tool call (issue 12).
//
// 1. A tool_call-shaped record through Trail::append into a file (the SHA-256 of the arguments,
//    the chain hash, one write()), against its floor printed side by side: the same bytes written
//    with one plain write() per record, no hashing.
// 2. The loop: one no-op tool call per turn over the instant faux provider, with and without a
//    file trail; the difference per turn is the trail's cost as the loop pays it (a tool_call
//    and a model_call record per turn).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

const std::string kArguments =
    R"({"path":"src/agentkit/loop.cpp","old_string":"return x;","new_string":"return y;"})";

std::string tool_call_members() {
  std::string m = "\"session_id\":\"ses_0123456789abcdef0123456789abcdef\",\"tool\":\"edit_file\"";
  m += ",\"arguments_sha256\":\"" + sha256_hex(kArguments) + "\"";
  m += ",\"outcome\":\"ok\",\"duration_ms\":3,\"approval\":\"allowed\"";
  return m;
}

double trail_us_per_record() {
  std::vector<double> runs;
  for (int r = 0; r < kRepeats; ++r) {
    auto path = bench_file("trail.jsonl");
    auto trail = audit::open_file(path).value();
    auto t0 = Clock::now();
    for (int i = 0; i < kRecords; ++i) {
      std::string m = tool_call_members();  // hashes the arguments, as the loop does per call
      if (!trail->append("tool_call", m, 1764650000000 + i)) std::exit(1);
    }
    auto t1 = Clock::now();
    runs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kRecords);
    trail.reset();
    std::filesystem::remove(path);
  }
  return median(runs);
}

double plain_write_us_per_record() {
  std::string line = "{\"seq\":1,\"type\":\"tool_call\",\"t\":1764650000000," +
                     tool_call_members() + ",\"prev\":\"" + std::string(64, '0') +
                     "\",\"hash\":\"" + std::string(64, '0') + "\"}\n";
  std::vector<double> runs;
  for (int r = 0; r < kRepeats; ++r) {
    auto path = bench_file("plain.jsonl");
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    auto t0 = Clock::now();
    for (int i = 0; i < kRecords; ++i) {
      if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) std::exit(1);
    }
    auto t1 = Clock::now();
    ::close(fd);
    runs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kRecords);
    std::filesystem::remove(path);
  }
  return median(runs);
}

constexpr int kTurnsPerRun = 50;
constexpr int kRuns = 41;

double loop_us_per_turn(bool audited) {
  int turn = 0;
  faux::FauxOptions options;
  options.record_requests = false;
  auto provider = std::make_shared<faux::FauxProvider>(
      std::function<faux::FauxResponse(const Request&)>([&turn](const Request&) {
        ++turn;
        auto r = turn % kTurnsPerRun == 0
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
  auto path = bench_file("loop.jsonl");
  if (audited) rt.observability.audit = audit::open_file(path).value();
  auto agent = make_agent(def, rt);
  if (!agent) std::exit(1);
  std::vector<double> per_turn;
  for (int i = 0; i < kRuns; ++i) {
    auto session = agent->start();
    auto t0 = Clock::now();
    auto r = session->run("go");
    auto t1 = Clock::now();
    if (!r || r->turn_count != kTurnsPerRun) std::exit(1);
    per_turn.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kTurnsPerRun);
  }
  std::filesystem::remove(path);
  return median(per_turn);
}

}  // namespace

int main() {
  double trail = trail_us_per_record();
  double plain = plain_write_us_per_record();
  std::printf("audit trail, one tool_call record into a file (median of %d x %d records)\n",
              kRepeats, kRecords);
  std::printf("  Trail::append, hashing included: %6.2f us/record   (bar: < 5 us)\n", trail);
  std::printf("  plain write() of the same bytes: %6.2f us/record   trail / plain = %.2fx\n", plain,
              trail / plain);
  double off = loop_us_per_turn(false);
  double on = loop_us_per_turn(true);
  std::printf("loop, one no-op tool call per turn (median of %d runs x %d turns)\n", kRuns,
              kTurnsPerRun);
  std::printf("  without audit: %6.2f us/turn   with a file trail: %6.2f us/turn\n", off, on);
  std::printf("  difference: %6.2f us/turn (one tool_call + one model_call record)\n", on - off);
  return 0;
}
