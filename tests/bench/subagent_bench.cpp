// Delegation overhead per child run (issue 12), against the instant faux provider.
//
// Three parents, each making kCallsPerRun tool calls (one per turn) then answering:
//   noop:      the tool does nothing                 (the parent's own per-turn cost)
//   by hand:   the tool builds a child Agent with make_agent and runs it once on the prompt, the
//              way an embedder would delegate without this library's subagent tools
//   subagent:  the tool is subagent_tool(...): a fresh child per call, budget reserved and
//              charged, events forwarded (one observer on the parent), transcript recorded
// Each child makes one model call and answers. Per child run = (run time - noop run time) /
// calls; the ratio is subagent / by hand. The three parents run in turn, kRuns rounds, so a
// change in the machine's load falls on all of them alike; process CPU time (the figure to read
// on a shared machine; children run on the batch's threads, which it includes) beside wall time,
// best and median. `bench_subagent noop|hand|subagent` runs one parent only (for callgrind).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/subagent.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;

namespace {

constexpr int kCallsPerRun = 40;
constexpr int kRuns = 21;

faux::FauxResponse instant(faux::FauxResponse r) {
  r.stream_chunks = false;
  return r;
}

std::shared_ptr<faux::FauxProvider> provider(const std::string& tool) {
  faux::FauxOptions options;
  options.record_requests = false;
  return std::make_shared<faux::FauxProvider>(
      std::function<faux::FauxResponse(const Request&)>([tool](const Request& r) {
        if (r.system.find("CHILD") != std::string::npos)
          return instant(faux::text_response("child answer"));
        int assistants = 0;
        for (const auto& m : r.messages)
          assistants += std::holds_alternative<AssistantMessage>(m) ? 1 : 0;
        if (assistants >= kCallsPerRun) return instant(faux::text_response("done"));
        return instant(
            faux::tool_call_response({faux::tool_call("", tool, R"({"prompt":"do it"})")}));
      }),
      options);
}

RuntimeConfig runtime(std::shared_ptr<faux::FauxProvider> p) {
  RuntimeConfig rt;
  rt.model.spec = "faux/bench";
  rt.providers.add("faux", std::move(p));
  rt.loop.budget.usd = 100.0;  // a budget to reserve from
  rt.observability.observers.push_back([](const Event&) {});
  return rt;
}

double cpu_us() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

struct Samples {
  std::vector<double> cpu, wall;  // microseconds per parent run
};

double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::unique_ptr<Agent> parent(
    const std::function<ToolDefinition(std::shared_ptr<faux::FauxProvider>)>& make_tool) {
  auto p = provider("work");
  AgentDefinition def;
  def.instructions = "PARENT";
  def.tools.direct = {make_tool(p)};
  auto agent = make_agent(std::move(def), runtime(p));
  if (!agent) {
    std::fprintf(stderr, "make_agent: %s\n", agent.error().message.c_str());
    std::exit(1);
  }
  return std::make_unique<Agent>(std::move(*agent));
}

void run_once(Agent& agent, Samples* out) {
  auto w0 = std::chrono::steady_clock::now();
  double c0 = cpu_us();
  auto r = agent.run("go");
  double c1 = cpu_us();
  auto w1 = std::chrono::steady_clock::now();
  if (!r || r->turn_count != kCallsPerRun + 1) {
    std::fprintf(stderr, "unexpected run\n");
    std::exit(1);
  }
  if (out == nullptr) return;
  out->cpu.push_back(c1 - c0);
  out->wall.push_back(std::chrono::duration<double, std::micro>(w1 - w0).count());
}

ToolDefinition noop_tool(std::shared_ptr<faux::FauxProvider>) {
  ToolDefinition t;
  t.name = "work";
  t.description = "noop";
  t.handler = [](const json::Value&, const ToolContext&) { return ToolResult::text_result("ok"); };
  return t;
}

ToolDefinition by_hand_tool(std::shared_ptr<faux::FauxProvider> p) {
  ToolDefinition t;
  t.name = "work";
  t.description = "delegates by hand";
  t.handler = [p](const json::Value& args, const ToolContext& ctx) {
    RuntimeConfig rt;
    rt.model.spec = "faux/bench";
    rt.providers.add("faux", p);
    AgentDefinition d;
    d.instructions = "CHILD";
    auto child = make_agent(std::move(d), std::move(rt));
    if (!child) return ToolResult::failure(child.error());
    auto r = child->run(Input(std::string(args.find("prompt")->as_string())), ctx.stop);
    if (!r) return ToolResult::failure(r.error());
    return ToolResult::text_result(r->final_text);
  };
  return t;
}

ToolDefinition subagent(std::shared_ptr<faux::FauxProvider>) {
  SubagentDefinition d;
  d.name = "work";
  d.description = "delegates";
  d.instructions = "CHILD";
  SubagentOptions o;
  o.budget.usd = 1.0;
  return subagent_tool(std::move(d), o);
}

}  // namespace

int main(int argc, char** argv) {
  struct Mode {
    const char* name;
    ToolDefinition (*tool)(std::shared_ptr<faux::FauxProvider>);
    std::unique_ptr<Agent> agent;
    Samples s;
  };
  Mode modes[] = {{"noop", noop_tool, nullptr, {}},
                  {"hand", by_hand_tool, nullptr, {}},
                  {"subagent", subagent, nullptr, {}}};
  if (argc > 1) {  // one parent only (callgrind): no timing printed
    for (auto& m : modes) {
      if (std::strcmp(argv[1], m.name) != 0) continue;
      auto agent = parent(m.tool);
      for (int i = 0; i < kRuns; ++i) run_once(*agent, nullptr);
      return 0;
    }
    std::fprintf(stderr, "usage: bench_subagent [noop|hand|subagent]\n");
    return 2;
  }
  for (auto& m : modes) {
    m.agent = parent(m.tool);
    run_once(*m.agent, nullptr);  // warm-up
  }
  for (int i = 0; i < kRuns; ++i)
    for (auto& m : modes) run_once(*m.agent, &m.s);
  const Samples& noop = modes[0].s;
  const Samples& hand = modes[1].s;
  const Samples& sub = modes[2].s;
  auto per_child = [](double run, double base) { return (run - base) / kCallsPerRun; };
  std::printf("delegation, %d child runs per parent run, %d rounds\n", kCallsPerRun, kRuns);
  std::printf(
      "  parent turn with a no-op tool:      CPU best %7.2f median %7.2f   wall median %7.2f us\n",
      best(noop.cpu) / (kCallsPerRun + 1), median(noop.cpu) / (kCallsPerRun + 1),
      median(noop.wall) / (kCallsPerRun + 1));
  const double hand_best = per_child(best(hand.cpu), best(noop.cpu));
  const double hand_med = per_child(median(hand.cpu), median(noop.cpu));
  const double sub_best = per_child(best(sub.cpu), best(noop.cpu));
  const double sub_med = per_child(median(sub.cpu), median(noop.cpu));
  std::printf(
      "  per child run, by hand (make_agent + run): CPU best %7.2f median %7.2f   wall median "
      "%7.2f us\n",
      hand_best, hand_med, per_child(median(hand.wall), median(noop.wall)));
  std::printf(
      "  per child run, subagent_tool:              CPU best %7.2f median %7.2f   wall median "
      "%7.2f us\n",
      sub_best, sub_med, per_child(median(sub.wall), median(noop.wall)));
  std::printf("  ratio subagent / by hand: CPU best %.2fx, CPU median %.2fx\n",
              sub_best / hand_best, sub_med / hand_med);
  return 0;
}
