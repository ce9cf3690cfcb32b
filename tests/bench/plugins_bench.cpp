// The per-tool-call cost of an in-process event hook (bar: under 5 us per call), measured through
// the public entry points: one model turn asking for a batch of kCallsPerBatch no-op calls (run
// one after another, so no thread start is in the figure), then a text turn. The same run is
// timed with no hook, with the runtime's own before_tool_call (the peer: the authorization
// boundary every embedder already pays for), with one plugin hook (before_tool_call and
// after_tool_call overridden; review_tool_result keeps its no-op), and with four. Cost per call =
// (run time - bare run time) / calls. The four agents run in turn, kRuns rounds, so a change in
// the machine's load falls on all of them alike; process CPU time (the figure to read on a shared
// machine) and wall time, best and median of each. `bench_plugins bare|peer|one|four` runs one
// agent only, untimed, so that callgrind can count the instructions of each.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/plugins.hpp"
#include "agentkit/providers/faux.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;

namespace {

constexpr int kCallsPerBatch = 200;
constexpr int kRuns = 41;

class NoopHook final : public EventHookPlugin {
 public:
  explicit NoopHook(int n) : name_("noop-" + std::to_string(n)) {}
  std::string name() const override { return name_; }
  HookDecision before_tool_call(const HookToolCall& call) override {
    seen_ += call.tool_name.size();
    return HookDecision::allow();
  }
  void after_tool_call(const HookToolResult& result) override { seen_ += result.message.is_error; }

 private:
  std::string name_;
  std::size_t seen_ = 0;
};

faux::FauxResponse batch() {
  std::vector<ToolUseBlock> calls;
  for (int i = 0; i < kCallsPerBatch; ++i)
    calls.push_back(faux::tool_call("c" + std::to_string(i), "noop", "{}"));
  auto r = faux::tool_call_response(std::move(calls));
  r.stream_chunks = false;
  return r;
}

double cpu_us() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

struct Samples {
  std::vector<double> cpu, wall;  // microseconds per run
  double best(const std::vector<double>& v) const { return *std::min_element(v.begin(), v.end()); }
  double median(std::vector<double> v) const {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

std::unique_ptr<Agent> make_bench_agent(bool interceptor, int hooks) {
  faux::FauxOptions options;
  options.record_requests = false;
  auto provider = std::make_shared<faux::FauxProvider>(
      std::function<faux::FauxResponse(const Request&)>([calls = batch()](const Request& req) {
        bool answered =
            !req.messages.empty() && std::holds_alternative<ToolResultMessage>(req.messages.back());
        if (!answered) return calls;
        auto r = faux::text_response("done");
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
  def.tools.direct.push_back(noop);
  RuntimeConfig rt;
  rt.model.spec = "faux/bench";
  rt.providers.add("faux", provider);
  rt.loop.parallel_tools = false;
  if (interceptor)
    rt.extensions.before_tool_call = [](const ToolCallRequest&) {
      return ToolCallDecision::allow();
    };
  for (int i = 0; i < hooks; ++i)
    rt.extensions.plugins.builtins.push_back(std::make_shared<NoopHook>(i));
  auto agent = make_agent(def, rt);
  if (!agent) {
    std::fprintf(stderr, "%s\n", agent.error().to_string().c_str());
    std::exit(1);
  }
  return std::make_unique<Agent>(std::move(*agent));
}

void run_once(Agent& agent, Samples& out) {
  auto w0 = std::chrono::steady_clock::now();
  double c0 = cpu_us();
  auto r = agent.run("go");
  double c1 = cpu_us();
  auto w1 = std::chrono::steady_clock::now();
  if (!r || r->turn_count != 2) {
    std::fprintf(stderr, "unexpected run result\n");
    std::exit(1);
  }
  out.cpu.push_back(c1 - c0);
  out.wall.push_back(std::chrono::duration<double, std::micro>(w1 - w0).count());
}

}  // namespace

int main(int argc, char** argv) {
  struct Mode {
    const char* name;
    bool interceptor;
    int hooks;
    std::unique_ptr<Agent> agent;
    Samples s;
  };
  Mode modes[] = {{"no hook", false, 0, nullptr, {}},
                  {"before_tool_call (peer)", true, 0, nullptr, {}},
                  {"one plugin hook", false, 1, nullptr, {}},
                  {"four plugin hooks", false, 4, nullptr, {}}};
  if (argc > 1) {
    const char* keys[] = {"bare", "peer", "one", "four"};
    for (std::size_t k = 0; k < std::size(modes); ++k) {
      if (std::strcmp(argv[1], keys[k]) != 0) continue;
      auto agent = make_bench_agent(modes[k].interceptor, modes[k].hooks);
      Samples ignored;
      for (int i = 0; i < kRuns; ++i) run_once(*agent, ignored);
      return 0;
    }
    std::fprintf(stderr, "usage: bench_plugins [bare|peer|one|four]\n");
    return 2;
  }
  for (auto& m : modes) {
    m.agent = make_bench_agent(m.interceptor, m.hooks);
    Samples warm;
    run_once(*m.agent, warm);
  }
  for (int i = 0; i < kRuns; ++i)
    for (auto& m : modes) run_once(*m.agent, m.s);

  const Samples& bare = modes[0].s;
  std::printf("in-process hook cost per tool call (%d sequential no-op calls per run, %d rounds)\n",
              kCallsPerBatch, kRuns);
  std::printf(
      "  bare run: CPU best %.1f / median %.1f us (%.2f us/call in all); wall best %.1f "
      "/ median %.1f us\n",
      bare.best(bare.cpu), bare.median(bare.cpu), bare.median(bare.cpu) / kCallsPerBatch,
      bare.best(bare.wall), bare.median(bare.wall));
  std::printf("  added per call       CPU best  CPU median   wall best  wall median\n");
  double peer_cpu = 0.0, one_cpu = 0.0;
  for (std::size_t k = 1; k < std::size(modes); ++k) {
    const Samples& s = modes[k].s;
    double cb = (s.best(s.cpu) - bare.best(bare.cpu)) / kCallsPerBatch;
    double cm = (s.median(s.cpu) - bare.median(bare.cpu)) / kCallsPerBatch;
    double wb = (s.best(s.wall) - bare.best(bare.wall)) / kCallsPerBatch;
    double wm = (s.median(s.wall) - bare.median(bare.wall)) / kCallsPerBatch;
    std::printf("  %-24s %+8.3f  %+8.3f    %+8.3f  %+8.3f us%s\n", modes[k].name, cb, cm, wb, wm,
                k == 2 ? "   (bar: < 5 us)" : "");
    if (k == 1) peer_cpu = cm;
    if (k == 2) one_cpu = cm;
  }
  if (peer_cpu > 0.0)
    std::printf("  one hook / before_tool_call (CPU medians) = %.2fx\n", one_cpu / peer_cpu);
  return 0;
}
