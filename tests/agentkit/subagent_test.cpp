// Subagents (REQ-MULTI-01..05): an agent as a tool, through the public entry points over the
// faux provider. One faux provider serves the parent and every child; a responder routes each
// request by the system prompt (the child's instructions).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>

#include "agentkit/audit.hpp"
#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"
#include "agentkit/plugins.hpp"
#include "agentkit/session/log.hpp"
#include "agentkit/session/store.hpp"
#include "agentkit/subagent.hpp"

#include "harness.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

using Responder = std::function<faux::FauxResponse(const Request&)>;

bool system_has(const Request& r, std::string_view needle) {
  return r.system.find(needle) != std::string::npos;
}

// Requests so far in this conversation that came from the model (assistant messages).
int assistant_turns(const Request& r) {
  int n = 0;
  for (const auto& m : r.messages) n += std::holds_alternative<AssistantMessage>(m) ? 1 : 0;
  return n;
}

std::string first_user_text(const Request& r) {
  for (const auto& m : r.messages) {
    if (const auto* u = std::get_if<UserMessage>(&m)) return text_of_message(Message(*u));
  }
  return {};
}

std::string text_of_result(const ToolResultMessage& m) { return text_of_message(Message(m)); }

std::vector<ToolResultMessage> results_of(const std::vector<Message>& messages) {
  std::vector<ToolResultMessage> out;
  for (const auto& m : messages) {
    if (const auto* r = std::get_if<ToolResultMessage>(&m)) out.push_back(*r);
  }
  return out;
}

Usage costing(double usd, std::int64_t tokens = 10) {
  Usage u;
  u.input_tokens = tokens;
  u.cost.total = usd;
  return u;
}

faux::FauxResponse with_usage(faux::FauxResponse r, Usage u) {
  r.message.usage = u;
  return r;
}

// A parent whose model calls `calls` (in one batch) on its first turn and answers "parent done"
// once the results are in.
Responder parent_calls(std::vector<ToolUseBlock> calls) {
  return [calls](const Request&) { return faux::tool_call_response(calls); };
}

struct Tree {
  std::shared_ptr<faux::FauxProvider> faux;
  Agent agent;
};

// The parent answers with `parent` while its instructions are in the system prompt, each child
// with `child`.
Tree tree(std::vector<ToolDefinition> parent_tools, Responder parent, Responder child,
          RuntimeConfig rt = {}) {
  auto provider = std::make_shared<faux::FauxProvider>([parent, child](const Request& r) {
    if (system_has(r, "PARENT")) {
      if (assistant_turns(r) == 0) return parent(r);
      return faux::text_response("parent done");
    }
    return child(r);
  });
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  AgentDefinition def;
  def.instructions = "PARENT: delegate.";
  def.tools.direct = std::move(parent_tools);
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  return Tree{provider, std::move(*agent)};
}

SubagentDefinition helper(std::string name = "helper") {
  SubagentDefinition d;
  d.name = std::move(name);
  d.description = "Does one task.";
  d.instructions = "CHILD: do the task.";
  return d;
}

std::string prompt_args(std::string_view prompt) {
  return std::string(R"({"prompt":")") + std::string(prompt) + "\"}";
}

}  // namespace

TEST_CASE("the parent's tool result is the child's final text, not its transcript") {
  auto t = tree({subagent_tool(helper())},
                parent_calls({faux::tool_call("c1", "helper", prompt_args("task A"))}),
                [](const Request& r) {
                  if (assistant_turns(r) == 0)
                    return faux::tool_call_response({faux::tool_call("k1", "noop", "{}")});
                  return faux::text_response("done");
                });
  // The child has no tool named noop: its first turn gets an error result, its second says done.
  auto r = t.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].is_error);
  CHECK(text_of_result(results[0]) == "done");
  CHECK(r->final_text == "parent done");
}

TEST_CASE("every delegation starts a fresh child: the second child sees only the second prompt") {
  // REQ-MULTI-02: one subagent tool called on two parent turns.
  struct Seen {
    std::size_t messages;
    std::string prompt;
    bool saw_parent;
  };
  std::vector<Seen> child_requests;  // a Request's spans die with the call: copy what matters
  std::mutex mu;
  auto provider = std::make_shared<faux::FauxProvider>([&](const Request& r) {
    if (system_has(r, "PARENT")) {
      int n = assistant_turns(r);
      if (n < 2) {
        std::string prompt = n == 0 ? "first task" : "second task";
        return faux::tool_call_response(
            {faux::tool_call("c" + std::to_string(n), "helper", prompt_args(prompt))});
      }
      return faux::text_response("parent done");
    }
    std::lock_guard lock(mu);
    child_requests.push_back({r.messages.size(), first_user_text(r), system_has(r, "PARENT")});
    return faux::text_response("ok " + first_user_text(r));
  });
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  AgentDefinition def;
  def.instructions = "PARENT";
  def.tools.direct = {subagent_tool(helper())};
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  auto r = agent->run("go");
  REQUIRE(r);
  REQUIRE(child_requests.size() == 2);
  for (const Seen& seen : child_requests) {
    CHECK(seen.messages == 1);
    CHECK_FALSE(seen.saw_parent);
  }
  CHECK(child_requests[0].prompt == "first task");
  CHECK(child_requests[1].prompt == "second task");
}

TEST_CASE("a failing child is an error result and the parent's loop goes on") {
  auto t = tree({subagent_tool(helper())},
                parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
                [](const Request&) { return faux::error_response("child provider exploded"); });
  auto r = t.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  CHECK(r->final_text == "parent done");
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  CHECK(text_of_result(results[0]).find("child provider exploded") != std::string::npos);
}

TEST_CASE(
    "a child's slice is share x the parent's remaining USD and the child stops itself there") {
  // REQ-MULTI-03: the parent has $1 left, the share is 0.3: the child stops after $0.30 even
  // though it would go on calling its tool forever.
  SubagentOptions opts;
  opts.budget.share = 0.3;
  opts.budget.turns = 10;  // a backstop: without the budget check the child would stop here
  SubagentDefinition d = helper();
  d.tools.direct = {counting_tool("work").definition};
  RuntimeConfig rt;
  rt.loop.budget.usd = 1.0;
  auto t = tree(
      {subagent_tool(d, opts)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
      [](const Request& r) {
        return with_usage(faux::tool_call_response({faux::tool_call(
                              "w" + std::to_string(assistant_turns(r)), "work", "{}")}),
                          costing(0.1));
      },
      rt);
  auto r = t.agent.run("go");
  REQUIRE(r);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0].budget.usd);
  CHECK(*runs[0].budget.usd == Approx(0.3));
  CHECK(runs[0].exhausted);
  CHECK(runs[0].stop_reason == RunStopReason::budget_exhausted);
  CHECK(runs[0].turns == 3);  // $0.10 a turn: the third reaches $0.30
  CHECK(runs[0].usage.cost.total == Approx(0.3));
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].is_error);  // what it has, marked
  CHECK(text_of_result(results[0]).find("ran out of budget") != std::string::npos);
}

TEST_CASE("the child's spend is charged to the parent live and the unspent slice comes back") {
  // Two delegations one after the other: the first spends $0.10 of a $0.30 slice; the second's
  // slice is 0.3 x ($1 - $0.10), which it is only if the unspent $0.20 came back.
  SubagentOptions opts;
  opts.budget.share = 0.3;
  RuntimeConfig rt;
  rt.loop.budget.usd = 1.0;
  auto provider = std::make_shared<faux::FauxProvider>([&](const Request& r) {
    if (system_has(r, "PARENT")) {
      int n = assistant_turns(r);
      if (n < 2)
        return faux::tool_call_response(
            {faux::tool_call("c" + std::to_string(n), "helper", prompt_args("x"))});
      return faux::text_response("parent done");
    }
    return with_usage(faux::text_response("child done"), costing(0.1));
  });
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  AgentDefinition def;
  def.instructions = "PARENT";
  def.tools.direct = {subagent_tool(helper(), opts)};
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  auto r = agent->run("go");
  REQUIRE(r);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 2);
  CHECK(*runs[0].budget.usd == Approx(0.3));
  CHECK(*runs[1].budget.usd == Approx(0.27));
}

TEST_CASE(
    "a parent whose run budget is spent stops with budget_exhausted and refuses new delegations") {
  RuntimeConfig rt;
  rt.loop.budget.tokens = 100;
  auto t = tree(
      {subagent_tool(helper())},
      [](const Request&) {
        return with_usage(
            faux::tool_call_response({faux::tool_call("c1", "helper", prompt_args("x"))}),
            costing(0, 60));
      },
      [](const Request&) { return with_usage(faux::text_response("child done"), costing(0, 50)); },
      rt);
  auto r = t.agent.run("go");
  REQUIRE(r);
  // 60 (parent) + 40 (the child's slice of the 40 left, it spent 50) >= 100 after turn 1.
  CHECK(r->stop_reason == RunStopReason::budget_exhausted);
  CHECK(r->error_message.find("token budget") != std::string::npos);
  CHECK(t.faux->request_count() == 2);  // no parent call after the budget ran out
}

TEST_CASE("a delegation past the depth limit is refused with an error the model reads") {
  // The child may delegate to itself; with max_depth 1 its own delegation is refused.
  SubagentOptions opts;
  opts.max_depth = 1;
  std::shared_ptr<ToolDefinition> self = std::make_shared<ToolDefinition>();
  // Weak: the tool holds the factory, so a strong capture would be a cycle that never frees.
  std::weak_ptr<ToolDefinition> weak = self;
  SubagentFactory factory = [weak]() -> Result<AgentDefinition> {
    AgentDefinition d;
    d.instructions = "CHILD";
    d.tools.direct = {*weak.lock()};
    return d;
  };
  *self = subagent_tool("recurse", "Delegates to itself.", factory, opts);
  auto t = tree({*self}, parent_calls({faux::tool_call("c1", "recurse", prompt_args("x"))}),
                [](const Request& r) {
                  if (assistant_turns(r) == 0)
                    return faux::tool_call_response(
                        {faux::tool_call("g1", "recurse", prompt_args("deeper"))});
                  return faux::text_response("child done");
                });
  auto r = t.agent.run("go");
  REQUIRE(r);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  auto child_results = results_of(runs[0].transcript);
  REQUIRE(child_results.size() == 1);
  CHECK(child_results[0].is_error);
  CHECK(text_of_result(child_results[0]).find("exceed the limit of 1") != std::string::npos);
  CHECK(subagent_runs(runs[0].transcript).empty());  // no grandchild ran
}

TEST_CASE("three delegations in one batch run concurrently") {
  // Each child's model call waits until all three are in flight: a sequential executor would
  // never see more than one (and would fall through the bounded wait).
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;
  int most = 0;
  auto child = [&](const Request&) {
    faux::FauxResponse resp = faux::text_response("ok");
    resp.on_request = [&](const Request&) {
      std::unique_lock lock(mu);
      ++in_flight;
      most = std::max(most, in_flight);
      cv.notify_all();
      cv.wait_for(lock, std::chrono::seconds(10), [&] { return most >= 3; });
      --in_flight;
    };
    return resp;
  };
  auto t = tree({subagent_tool(helper())},
                parent_calls({faux::tool_call("c1", "helper", prompt_args("a")),
                              faux::tool_call("c2", "helper", prompt_args("b")),
                              faux::tool_call("c3", "helper", prompt_args("c"))}),
                child);
  auto r = t.agent.run("go");
  REQUIRE(r);
  CHECK(most == 3);
  CHECK(subagent_runs(r->messages).size() == 3);
}

TEST_CASE("a child's events reach the parent's observers tagged with the child's path") {
  EventLog log;
  RuntimeConfig rt;
  rt.observability.observers.push_back(log.observer());
  SubagentDefinition d = helper();
  d.tools.direct = {counting_tool("work").definition};
  auto t = tree(
      {subagent_tool(d)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
      [](const Request& r) {
        if (assistant_turns(r) == 0)
          return faux::tool_call_response({faux::tool_call("k1", "work", "{}")});
        return faux::text_response("done");
      },
      rt);
  REQUIRE(t.agent.run("go"));
  std::vector<std::string> inner;
  for (const Event& e : log.events()) {
    if (const auto* sub = std::get_if<SubagentEvent>(&e)) {
      CHECK(sub->path == "helper:c1");
      CHECK(sub->agent == "helper");
      REQUIRE(sub->event);
      inner.emplace_back(event_name(*sub->event));
    }
  }
  CHECK(std::count(inner.begin(), inner.end(), "tool_execution_start") == 1);
  CHECK(std::count(inner.begin(), inner.end(), "agent_end") == 1);
  // The parent's own events are not wrapped: one agent_start of its own.
  CHECK(log.count("agent_start") == 1);
  CHECK(log.count("subagent") == static_cast<int>(inner.size()));
}

TEST_CASE("a child's tool call denied by the parent's before_tool_call never runs") {
  auto danger = counting_tool("danger");
  RuntimeConfig rt;
  std::vector<std::string> seen;
  std::mutex mu;
  rt.extensions.before_tool_call = [&](const ToolCallRequest& req) {
    std::lock_guard lock(mu);
    seen.push_back(req.tool_name);
    if (req.tool_name == "danger") return ToolCallDecision::deny("danger is not allowed here");
    return ToolCallDecision::allow();
  };
  SubagentDefinition d = helper();
  d.tools.direct = {danger.definition};
  auto t = tree(
      {subagent_tool(d)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
      [](const Request& r) {
        if (assistant_turns(r) == 0)
          return faux::tool_call_response({faux::tool_call("k1", "danger", "{}")});
        return faux::text_response("gave up");
      },
      rt);
  auto r = t.agent.run("go");
  REQUIRE(r);
  CHECK(*danger.calls == 0);
  CHECK(std::count(seen.begin(), seen.end(), "danger") == 1);
  CHECK(std::count(seen.begin(), seen.end(), "helper") == 1);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  auto child_results = results_of(runs[0].transcript);
  REQUIRE(child_results.size() == 1);
  CHECK(child_results[0].is_error);
  CHECK(text_of_result(child_results[0]).find("danger is not allowed here") != std::string::npos);
}

TEST_CASE("a named definition's tool policy is exactly the tools its child is offered") {
  // REQ-MULTI-05: reviewer with [read_file, search_files] out of three tools.
  SubagentDefinition reviewer = helper("reviewer");
  reviewer.instructions = "CHILD reviewer";
  reviewer.tools.direct = {counting_tool("read_file").definition,
                           counting_tool("search_files").definition,
                           counting_tool("write_file").definition};
  reviewer.tool_policy = ToolPolicy::only({"read_file", "search_files"});
  std::vector<std::string> offered;
  auto t = tree({subagent_tool(reviewer)},
                parent_calls({faux::tool_call("c1", "reviewer", prompt_args("x"))}),
                [&](const Request& r) {
                  for (const auto& spec : r.tools) offered.push_back(spec.name);
                  return faux::text_response("reviewed");
                });
  auto r = t.agent.run("go");
  REQUIRE(r);
  std::sort(offered.begin(), offered.end());
  CHECK(offered == std::vector<std::string>{"read_file", "search_files"});
  CHECK(t.faux->requests().front().tool_names == std::vector<std::string>{"reviewer"});
}

TEST_CASE("a factory is called once per delegation") {
  std::atomic<int> built{0};
  SubagentFactory factory = [&]() -> Result<AgentDefinition> {
    ++built;
    AgentDefinition d;
    d.instructions = "CHILD";
    return d;
  };
  auto t = tree({subagent_tool("fresh", "A fresh helper.", factory)},
                parent_calls({faux::tool_call("c1", "fresh", prompt_args("a")),
                              faux::tool_call("c2", "fresh", prompt_args("b"))}),
                [](const Request&) { return faux::text_response("ok"); });
  REQUIRE(t.agent.run("go"));
  CHECK(built == 2);
}

TEST_CASE("an Agent becomes a tool: each call runs a fresh child from its definition and model") {
  auto child_faux = std::make_shared<faux::FauxProvider>([](const Request& r) {
    return faux::text_response("from the agent: " + first_user_text(r));
  });
  RuntimeConfig child_rt;
  child_rt.model.spec = "faux/child-model";
  child_rt.providers.add("faux", child_faux);
  AgentDefinition child_def;
  child_def.instructions = "CHILD agent";
  auto child = make_agent(std::move(child_def), std::move(child_rt));
  REQUIRE(child);
  auto t = tree({subagent_tool(*child, "expert", "Asks the expert.")},
                parent_calls({faux::tool_call("c1", "expert", prompt_args("q1"))}),
                [](const Request&) { return faux::text_response("wrong provider"); });
  auto r = t.agent.run("go");
  REQUIRE(r);
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 1);
  CHECK(text_of_result(results[0]) == "from the agent: q1");
  REQUIRE(child_faux->request_count() == 1);
  CHECK(child_faux->requests()[0].messages.size() == 1);
}

TEST_CASE("a resumed parent lists what its children did from the snapshot") {
  SubagentDefinition d = helper();
  d.tools.direct = {counting_tool("work").definition};
  auto t =
      tree({subagent_tool(d)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
           [](const Request& r) {
             if (assistant_turns(r) == 0)
               return faux::tool_call_response({faux::tool_call("k1", "work", "{}")});
             return faux::text_response("done");
           });
  Result<Session> s = t.agent.start();
  REQUIRE(s);
  REQUIRE(s->run("go"));
  std::string saved = s->snapshot().serialize();
  auto handle = SessionHandle::parse(saved);
  REQUIRE(handle);
  auto runs = subagent_runs(*handle);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].tool_use_id == "c1");
  CHECK(runs[0].agent == "helper");
  CHECK(runs[0].path == "helper:c1");
  CHECK_FALSE(runs[0].session_id.empty());
  CHECK(runs[0].session_id != s->snapshot().session_id());
  CHECK(runs[0].turns == 2);
  // user prompt, tool call, tool result, final answer
  REQUIRE(runs[0].transcript.size() == 4);
  CHECK(text_of_message(runs[0].transcript.back()) == "done");
}

TEST_CASE("a child's tool call blocked by the parent's hook never runs, and the child reads why") {
  struct NoDanger final : EventHookPlugin {
    std::string name() const override { return "no-danger"; }
    HookDecision before_tool_call(const HookToolCall& call) override {
      if (call.tool_name == "danger") return HookDecision::block("the lead's hook says no");
      return HookDecision::no_opinion();
    }
  };
  auto danger = counting_tool("danger");
  RuntimeConfig rt;
  rt.extensions.plugins.builtins.push_back(std::make_shared<NoDanger>());
  SubagentDefinition d = helper();
  d.tools.direct = {danger.definition};
  auto t = tree(
      {subagent_tool(d)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
      [](const Request& r) {
        if (assistant_turns(r) == 0)
          return faux::tool_call_response({faux::tool_call("k1", "danger", "{}")});
        return faux::text_response("gave up");
      },
      rt);
  auto r = t.agent.run("go");
  REQUIRE(r);
  CHECK(*danger.calls == 0);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  auto child_results = results_of(runs[0].transcript);
  REQUIRE(child_results.size() == 1);
  CHECK(child_results[0].is_error);
  CHECK(text_of_result(child_results[0]).find("the lead's hook says no") != std::string::npos);
}

TEST_CASE("a child's tool calls and model calls reach the parent's audit trail") {
  struct Lines final : audit::Sink {
    Result<void> append(std::string_view line) override {
      std::lock_guard lock(mu);
      text += line;
      return {};
    }
    std::mutex mu;
    std::string text;
  };
  auto lines = std::make_shared<Lines>();
  auto probe = counting_tool("probe");
  RuntimeConfig rt;
  rt.observability.audit = audit::make_trail(lines);
  SubagentDefinition d = helper();
  d.tools.direct = {probe.definition};
  auto t = tree(
      {subagent_tool(d)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
      [](const Request& r) {
        if (assistant_turns(r) == 0)
          return faux::tool_call_response({faux::tool_call("k1", "probe", "{}")});
        return faux::text_response("probed");
      },
      rt);
  REQUIRE(t.agent.run("go"));
  CHECK(*probe.calls == 1);
  std::lock_guard lock(lines->mu);
  CHECK(lines->text.find(R"("tool":"probe")") != std::string::npos);
  CHECK(lines->text.find(R"("tool":"helper")") != std::string::npos);
  CHECK(audit::verify(lines->text).problems.empty());
}

namespace {

// A tool that waits until its call is cancelled, for at most `bound` (so that a run whose
// wall-time limit does not stop it still ends, and the test fails on `cancelled`).
struct BlockingTool {
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  ToolDefinition definition;
};
BlockingTool blocking_tool(std::string name,
                           std::chrono::milliseconds bound = std::chrono::seconds(20)) {
  BlockingTool t;
  t.definition = tool_with(std::move(name),
                           [flag = t.cancelled, bound](const json::Value&, const ToolContext& ctx) {
                             std::mutex mu;
                             std::condition_variable cv;
                             agentkit::stop_callback wake(ctx.stop, [&] {
                               std::lock_guard lock(mu);
                               cv.notify_all();
                             });
                             std::unique_lock lock(mu);
                             cv.wait_for(lock, bound, [&] { return ctx.stop.stop_requested(); });
                             *flag = ctx.stop.stop_requested();
                             return ToolResult::text_result(*flag ? "stopped early" : "finished");
                           });
  return t;
}

// Fires a stop after `after` unless destroyed first: bounds a test whose rule, broken, would
// make the run wait for ever.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::milliseconds after)
      : thread_([this, after](agentkit::stop_token stop) {
          std::unique_lock lock(mu_);
          cv_.wait_for(lock, stop, after, [] { return false; });
          if (!stop.stop_requested()) source_.request_stop();
        }) {}
  agentkit::stop_token token() const { return source_.get_token(); }

 private:
  std::mutex mu_;
  agentkit::condition_variable_any cv_;
  agentkit::stop_source source_;
  agentkit::jthread thread_;
};

}  // namespace

TEST_CASE("a child's wall-time slice stops its tool in flight: the parent gets it back exhausted") {
  SubagentOptions opts;
  opts.budget.wall_time = std::chrono::milliseconds(200);
  auto wait = blocking_tool("wait");
  SubagentDefinition d = helper();
  d.tools.direct = {wait.definition};
  auto t =
      tree({subagent_tool(d, opts)},
           parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}), [](const Request& r) {
             if (assistant_turns(r) == 0)
               return faux::tool_call_response({faux::tool_call("w1", "wait", "{}")},
                                               StopReason::tool_use, "looking into it");
             return faux::text_response("child done");
           });
  auto r = t.agent.run("go");
  REQUIRE(r);
  CHECK(*wait.cancelled);  // cut off at the deadline, not left to finish
  CHECK(r->stop_reason == RunStopReason::stop);
  CHECK(r->final_text == "parent done");
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].exhausted);
  CHECK(runs[0].stop_reason == RunStopReason::budget_exhausted);
  CHECK(runs[0].turns == 1);  // no second model call after the deadline
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].is_error);
  const std::string text = text_of_result(results[0]);
  CHECK(text.find("ran out of budget") != std::string::npos);
  CHECK(text.find("wall time") != std::string::npos);
  CHECK(text.find("looking into it") != std::string::npos);  // what it had
}

TEST_CASE("a child's wall-time slice stops its model call in flight, keeping the partial reply") {
  SubagentOptions opts;
  opts.budget.wall_time = std::chrono::milliseconds(200);
  Watchdog watchdog(std::chrono::seconds(20));
  auto t =
      tree({subagent_tool(helper(), opts)},
           parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}), [](const Request&) {
             faux::FauxResponse resp = faux::text_response("half an answer");
             resp.hang_until_cancelled = true;
             return resp;
           });
  auto r = t.agent.run("go", watchdog.token());
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].exhausted);
  CHECK(runs[0].stop_reason == RunStopReason::budget_exhausted);
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].is_error);
  CHECK(text_of_result(results[0]).find("half an answer") != std::string::npos);
}

TEST_CASE("a run's wall-time budget cancels the tool in flight and ends budget_exhausted") {
  auto wait = blocking_tool("wait");
  RuntimeConfig rt;
  rt.loop.budget.wall_time = std::chrono::milliseconds(200);
  auto fa = faux_agent({faux::tool_call_response({faux::tool_call("w1", "wait", "{}")}),
                        faux::text_response("never asked")},
                       {wait.definition}, rt);
  auto r = fa.agent.run("go");
  REQUIRE(r);
  CHECK(*wait.cancelled);
  CHECK(r->stop_reason == RunStopReason::budget_exhausted);
  CHECK(r->error_message.find("wall time") != std::string::npos);
  CHECK(fa.faux->request_count() == 1);
  CHECK(results_of(r->messages).size() == 1);  // the cancelled call still has its result
}

// ---- The child's own log ----------------------------------------------------------------------

namespace {

std::string link_member(const session::Header& header, std::string_view key) {
  Result<json::Value> doc = json::parse(header.verbatim);
  if (!doc) return {};
  const json::Value* link = doc->find("subagent_of");
  if (link == nullptr) return {};
  const json::Value* v = link->find(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<Message> messages_of(const session::LoadResult& log) {
  std::vector<Message> out;
  for (const auto& e : log.entries) {
    if (auto m = session::message_of(e)) out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace

TEST_CASE(
    "a child's own log is written as it runs and linked both ways by id; after the parent "
    "dies mid-delegation, subagent_runs reads what the child did from it") {
  TempDir dir;
  const auto lead = dir.path() / "lead.jsonl";
  const auto crash = dir.path() / "crash";
  std::filesystem::create_directories(crash);
  // The child's tool copies every log as it stands: what a kill at that moment leaves on disk.
  auto snapshot = tool_with("snapshot", [&](const json::Value&, const ToolContext&) {
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      if (f.path().extension() == ".jsonl")
        std::filesystem::copy_file(f.path(), crash / f.path().filename());
    }
    return ToolResult::text_result("copied");
  });
  SubagentDefinition d = helper();
  d.tools.direct = {snapshot};
  auto t =
      tree({subagent_tool(d)}, parent_calls({faux::tool_call("c1", "helper", prompt_args("x"))}),
           [](const Request& r) {
             if (assistant_turns(r) == 0)
               return faux::tool_call_response({faux::tool_call("k1", "snapshot", "{}")});
             return faux::text_response("child done");
           });
  auto log = session::Log::create(session::file_store(lead), {});
  REQUIRE(log);
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  start.subagent_logs = subagent_logs_beside(lead);
  auto s = t.agent.start(std::move(start));
  REQUIRE(s);
  auto r = s->run("go");
  REQUIRE(r);
  const std::string parent_id(s->snapshot().session_id());

  // Parent to child: the record names the child's session and log, beside the parent's.
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  REQUIRE_FALSE(runs[0].log.empty());
  CHECK(runs[0].log == runs[0].session_id);
  CHECK_FALSE(runs[0].interrupted);
  auto child = session::load(*session::file_store(dir.path() / (runs[0].log + ".jsonl")));
  REQUIRE(child);
  CHECK(child->repairs.empty());
  CHECK(child->header.id == runs[0].session_id);
  // Child to parent: its header names the parent's session and call.
  CHECK(link_member(child->header, "session_id") == parent_id);
  CHECK(link_member(child->header, "tool_use_id") == "c1");
  CHECK(link_member(child->header, "path") == "helper:c1");
  // The whole run: prompt, call, result, answer — the same messages as the record's.
  CHECK(messages_of(*child) == runs[0].transcript);
  CHECK(runs[0].transcript.size() == 4);

  // The crash image: the parent's log ends at its call, the child's after its own call.
  auto crashed = session::Log::open(session::file_store(crash / "lead.jsonl"), {});
  REQUIRE(crashed);
  StartOptions again;
  again.log = std::make_shared<session::Log>(std::move(*crashed));
  auto resumed = t.agent.start(std::move(again));
  REQUIRE(resumed);
  const SessionHandle handle = resumed->snapshot();
  CHECK(handle.session_id() == parent_id);
  CHECK(subagent_runs(handle).empty());  // no record: the call never got its result
  auto found = subagent_runs(handle, subagent_logs_beside(crash / "lead.jsonl"));
  REQUIRE(found.size() == 1);
  CHECK(found[0].interrupted);
  CHECK(found[0].tool_use_id == "c1");
  CHECK(found[0].agent == "helper");
  CHECK(found[0].path == "helper:c1");
  CHECK(found[0].session_id == runs[0].session_id);
  CHECK(found[0].log == runs[0].log);
  CHECK(found[0].turns == 1);
  REQUIRE(found[0].transcript.size() == 2);  // the prompt and the call in flight
  CHECK(found[0].transcript[1] == runs[0].transcript[1]);
}

TEST_CASE("with a log_name, the storage plugin keeps each child's log under its session id") {
  struct Storage final : StoragePlugin {
    std::string name() const override { return "memory"; }
    Result<std::unique_ptr<session::Store>> open(std::string_view log_name) override {
      std::lock_guard lock(mu);
      return std::unique_ptr<session::Store>(
          std::make_unique<session::MemoryStore>(stores[std::string(log_name)]));
    }
    std::mutex mu;
    std::map<std::string, session::MemoryStore> stores;
  };
  auto storage = std::make_shared<Storage>();
  RuntimeConfig rt;
  rt.extensions.plugins.builtins.push_back(storage);
  auto t = tree(
      {subagent_tool(helper())},
      parent_calls({faux::tool_call("c1", "helper", prompt_args("a")),
                    faux::tool_call("c2", "helper", prompt_args("b"))}),
      [](const Request& r) { return faux::text_response("did " + first_user_text(r)); }, rt);
  StartOptions start;
  start.log_name = "lead";
  auto s = t.agent.start(std::move(start));
  REQUIRE(s);
  auto r = s->run("go");
  REQUIRE(r);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 2);
  std::lock_guard lock(storage->mu);
  CHECK(storage->stores.size() == 3);  // the lead's and one per child
  for (const SubagentRun& run : runs) {
    REQUIRE(storage->stores.count(run.log) == 1);
    auto child = session::parse_log(storage->stores[run.log].bytes());
    CHECK(link_member(child.header, "tool_use_id") == run.tool_use_id);
    CHECK(messages_of(child) == run.transcript);
  }
  CHECK(runs[0].session_id != runs[1].session_id);
}

TEST_CASE(
    "a child passes the log setting on: a grandchild's log lands beside, linked to the child") {
  TempDir dir;
  const auto lead = dir.path() / "lead.jsonl";
  SubagentOptions opts;
  opts.max_depth = 2;
  std::shared_ptr<ToolDefinition> self = std::make_shared<ToolDefinition>();
  std::weak_ptr<ToolDefinition> weak = self;  // no cycle: the tool holds the factory
  SubagentFactory factory = [weak]() -> Result<AgentDefinition> {
    AgentDefinition d;
    d.instructions = "CHILD";
    d.tools.direct = {*weak.lock()};
    return d;
  };
  *self = subagent_tool("recurse", "Delegates to itself.", factory, opts);
  auto t = tree({*self}, parent_calls({faux::tool_call("c1", "recurse", prompt_args("x"))}),
                [](const Request& r) {
                  if (assistant_turns(r) == 0 && first_user_text(r) == "x")
                    return faux::tool_call_response(
                        {faux::tool_call("g1", "recurse", prompt_args("deeper"))});
                  return faux::text_response("done at " + first_user_text(r));
                });
  auto log = session::Log::create(session::file_store(lead), {});
  REQUIRE(log);
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  start.subagent_logs = subagent_logs_beside(lead);
  auto s = t.agent.start(std::move(start));
  REQUIRE(s);
  auto r = s->run("go");
  REQUIRE(r);
  auto runs = subagent_runs(r->messages);
  REQUIRE(runs.size() == 1);
  auto grand = subagent_runs(runs[0].transcript);
  REQUIRE(grand.size() == 1);
  REQUIRE_FALSE(grand[0].log.empty());
  auto loaded = session::load(*session::file_store(dir.path() / (grand[0].log + ".jsonl")));
  REQUIRE(loaded);
  CHECK(link_member(loaded->header, "session_id") == runs[0].session_id);
  CHECK(link_member(loaded->header, "tool_use_id") == "g1");
  CHECK(link_member(loaded->header, "path") == "recurse:c1/recurse:g1");
  CHECK(messages_of(*loaded) == grand[0].transcript);
}
