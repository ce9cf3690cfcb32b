// Delegation overhead per child run (issue 12), against the instant faux provider.
//
// Three parents, each making kCallsPerRun tool calls (one per turn) then answering:
//   noop:      the tool does nothing                 (the parent's own per-turn cost)
//   by hand:   the tool builds a child Agent with make_agent and runs it once on the prompt, the
//              way an embedder would delegate without this library's subagent tools
//   subagent:  the tool is subagent_tool(...): a fresh child per call, budget reserved and
//              charged, events forwarded (one observer on the parent), transcript recorded
// Each child makes one model call and answers. Per child run = (run time - noop run time) /
// calls, median over kRuns runs; the ratio is subagent / by hand.
#include <algorithm>
#include <chrono>
#include <cstdio>
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

double median_run_us(
    const std::function<ToolDefinition(std::shared_ptr<faux::FauxProvider>)>& make_tool,
    const std::string& tool_name) {
  auto p = provider(tool_name);
  AgentDefinition def;
  def.instructions = "PARENT";
  def.tools.direct = {make_tool(p)};
  auto agent = make_agent(std::move(def), runtime(p));
  if (!agent) {
    std::fprintf(stderr, "make_agent: %s\n", agent.error().message.c_str());
    std::exit(1);
  }
  std::vector<double> samples;
  for (int i = 0; i < kRuns; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = agent->run("go");
    auto t1 = std::chrono::steady_clock::now();
    if (!r || r->turn_count != kCallsPerRun + 1) {
      std::fprintf(stderr, "unexpected run\n");
      std::exit(1);
    }
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main() {
  double noop = median_run_us(
      [](std::shared_ptr<faux::FauxProvider>) {
        ToolDefinition t;
        t.name = "work";
        t.description = "noop";
        t.handler = [](const json::Value&, const ToolContext&) {
          return ToolResult::text_result("ok");
        };
        return t;
      },
      "work");
  double by_hand = median_run_us(
      [](std::shared_ptr<faux::FauxProvider> p) {
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
      },
      "work");
  double sub = median_run_us(
      [](std::shared_ptr<faux::FauxProvider>) {
        SubagentDefinition d;
        d.name = "work";
        d.description = "delegates";
        d.instructions = "CHILD";
        SubagentOptions o;
        o.budget.usd = 1.0;
        return subagent_tool(std::move(d), o);
      },
      "work");
  double hand_per = (by_hand - noop) / kCallsPerRun;
  double sub_per = (sub - noop) / kCallsPerRun;
  std::printf("parent turn with a no-op tool: %.2f us\n", noop / (kCallsPerRun + 1));
  std::printf("per child run, delegated by hand (make_agent + run): %.2f us\n", hand_per);
  std::printf("per child run, subagent_tool:                        %.2f us\n", sub_per);
  std::printf("ratio subagent / by hand: %.2fx\n", sub_per / hand_per);
  return 0;
}
