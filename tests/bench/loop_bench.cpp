// Loop overhead per turn with an instant faux provider (no model latency, a no-op tool), at
// history depth 0 and 500, plus heap allocations per turn.
//
// Each run makes kTurnsPerRun model calls: the model calls the no-op tool on every turn but the
// last. Time per turn = run time / turns, median over several runs. The Go original reports about
// 48 us per turn; the bar here is under 20 us at depth 0 and depth 500 under 2x depth 0.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "new_counter.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;

namespace {

constexpr int kTurnsPerRun = 50;
constexpr int kRuns = 41;

// Answers with a tool call until the run's last turn, then with text.
faux::FauxResponse respond(const Request& req, int& turn) {
  (void)req;
  ++turn;
  if (turn % kTurnsPerRun == 0) {
    auto r = faux::text_response("done");
    r.stream_chunks = false;
    return r;
  }
  auto r = faux::tool_call_response({faux::tool_call("", "noop", "{}")});
  r.stream_chunks = false;
  return r;
}

std::string history_of_depth(int depth) {
  // A serialised handle whose transcript holds `depth` messages (user/assistant pairs).
  std::string messages;
  for (int i = 0; i < depth; ++i) {
    if (!messages.empty()) messages += ',';
    if (i % 2 == 0) {
      messages += R"({"role":"user","content":[{"type":"text","text":"question number )" + std::to_string(i) + R"("}]})";
    } else {
      messages += R"({"role":"assistant","content":[{"type":"text","text":"an answer of moderate length, number )" +
                  std::to_string(i) + R"("}],"stop_reason":"stop"})";
    }
  }
  return R"({"version":1,"session_id":"bench","messages":[)" + messages + "]}";
}

struct Figures {
  double us_per_turn;
  double allocations_per_turn;
};

Figures measure(int depth) {
  int turn = 0;
  faux::FauxOptions options;
  options.record_requests = false;
  auto provider = std::make_shared<faux::FauxProvider>(
      std::function<faux::FauxResponse(const Request&)>([&turn](const Request& r) { return respond(r, turn); }),
      options);
  ToolDefinition noop;
  noop.name = "noop";
  noop.description = "does nothing";
  noop.handler = [](const json::Value&, const ToolContext&) { return ToolResult::text_result("ok"); };
  AgentDefinition def;
  def.instructions = "bench";
  def.tools.direct.push_back(noop);
  RuntimeConfig rt;
  rt.model.spec = "faux/bench";
  rt.providers.add("faux", provider);
  auto agent = make_agent(def, rt);
  if (!agent) {
    std::fprintf(stderr, "%s\n", agent.error().to_string().c_str());
    std::exit(1);
  }
  std::vector<double> per_turn;
  std::vector<double> allocs;
  for (int i = 0; i < kRuns; ++i) {
    StartOptions start;
    if (depth > 0) start.resume = SessionHandle::parse(history_of_depth(depth)).value();
    auto session = agent->start(start);
    auto a0 = bench_support::allocations();
    auto t0 = std::chrono::steady_clock::now();
    auto r = session->run("go");
    auto t1 = std::chrono::steady_clock::now();
    auto a1 = bench_support::allocations();
    if (!r || r->turn_count != kTurnsPerRun) {
      std::fprintf(stderr, "unexpected run result\n");
      std::exit(1);
    }
    per_turn.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kTurnsPerRun);
    allocs.push_back(static_cast<double>(a1 - a0) / kTurnsPerRun);
  }
  std::sort(per_turn.begin(), per_turn.end());
  std::sort(allocs.begin(), allocs.end());
  return {per_turn[per_turn.size() / 2], allocs[allocs.size() / 2]};
}

}  // namespace

int main() {
  Figures d0 = measure(0);
  Figures d500 = measure(500);
  std::printf("loop overhead per turn (instant faux provider, one no-op tool call per turn, median of %d runs x %d turns)\n",
              kRuns, kTurnsPerRun);
  std::printf("  depth   0: %7.2f us/turn  %7.1f allocations/turn\n", d0.us_per_turn, d0.allocations_per_turn);
  std::printf("  depth 500: %7.2f us/turn  %7.1f allocations/turn\n", d500.us_per_turn, d500.allocations_per_turn);
  std::printf("  depth 500 / depth 0 = %.2fx   (bar: < 2x)\n", d500.us_per_turn / d0.us_per_turn);
  std::printf("  Go original (reported): ~48 us/turn; ours / Go = %.2f   (bar: depth 0 < 20 us)\n", d0.us_per_turn / 48.0);
  return 0;
}
