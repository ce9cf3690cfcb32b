// The per-tool-call cost of an in-process event hook (bar: under 5 us per call), measured through
// the public entry points: one model turn asking for a batch of kCallsPerBatch no-op calls (run
// one after another, so no thread start is in the figure), then a text turn. The same run is
// timed with no hook, with the runtime's own before_tool_call (the peer: the authorization
// boundary every embedder already pays for), with one plugin hook (before_tool_call and
// after_tool_call overridden), and with four. Cost per call = (run time - bare run time) / calls,
// median of kRuns runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "agentkit/agent.hpp"
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

// Median microseconds of one run (a batch turn and a text turn).
double measure(bool interceptor, int hooks) {
  faux::FauxOptions options;
  options.record_requests = false;
  const faux::FauxResponse calls = batch();
  auto provider = std::make_shared<faux::FauxProvider>(
      std::function<faux::FauxResponse(const Request&)>([&calls](const Request& req) {
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
  std::vector<double> us;
  for (int i = 0; i < kRuns; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = agent->run("go");
    auto t1 = std::chrono::steady_clock::now();
    if (!r || r->turn_count != 2) {
      std::fprintf(stderr, "unexpected run result\n");
      std::exit(1);
    }
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main() {
  double bare = measure(false, 0);
  double peer = measure(true, 0);
  double one = measure(false, 1);
  double four = measure(false, 4);
  auto per_call = [&](double t) { return (t - bare) / kCallsPerBatch; };
  std::printf(
      "in-process hook cost per tool call (%d sequential no-op calls per run, median of %d runs)\n",
      kCallsPerBatch, kRuns);
  std::printf("  no hook:                     %8.1f us/run  (%.2f us/call in all)\n", bare,
              bare / kCallsPerBatch);
  std::printf("  before_tool_call (peer):     %+8.3f us/call\n", per_call(peer));
  std::printf("  one plugin hook:             %+8.3f us/call   (bar: < 5 us)\n", per_call(one));
  std::printf("  four plugin hooks:           %+8.3f us/call\n", per_call(four));
  if (per_call(peer) > 0.0)
    std::printf("  one hook / before_tool_call = %.2fx\n", per_call(one) / per_call(peer));
  return 0;
}
