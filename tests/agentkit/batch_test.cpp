// The batch executor through the public API: concurrency, ordering, abort granularity, the
// argument pipeline and the interceptors.
#include <atomic>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "harness.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;
using namespace std::chrono_literals;

namespace {

// A rendezvous that answers false instead of hanging when not everyone arrives in time, so a
// sequential executor fails the test rather than deadlocking it.
class Rendezvous {
 public:
  explicit Rendezvous(int parties) : parties_(parties) {}
  bool arrive_and_wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    ++arrived_;
    cv_.notify_all();
    return cv_.wait_for(lock, timeout, [&] { return arrived_ >= parties_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int parties_;
  int arrived_ = 0;
};

// Tracks how many handlers run at once.
struct ConcurrencyProbe {
  std::atomic<int> now{0};
  std::atomic<int> peak{0};
  void enter() {
    int n = ++now;
    int p = peak.load();
    while (n > p && !peak.compare_exchange_weak(p, n)) {
    }
  }
  void leave() { --now; }
};

std::vector<ToolResultMessage> results_of(const RunResult& r) {
  std::vector<ToolResultMessage> out;
  for (const auto& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) out.push_back(*t);
  }
  return out;
}

faux::FauxResponse calls(std::vector<std::pair<std::string, std::string>> id_and_name) {
  std::vector<ToolUseBlock> blocks;
  for (auto& [id, name] : id_and_name) blocks.push_back(faux::tool_call(id, name, "{}"));
  return faux::tool_call_response(std::move(blocks));
}

}  // namespace

TEST_CASE("three parallel tool calls overlap in time and come back in call order") {
  Rendezvous all_three(3);
  std::atomic<int> overlapped{0};
  auto meet = [&](const json::Value&, const ToolContext& ctx) {
    if (all_three.arrive_and_wait(5s)) ++overlapped;  // a sequential executor never gets here in time
    // Finish in reverse order of the calls: c3 first, c1 last.
    std::this_thread::sleep_for(std::chrono::milliseconds(ctx.tool_use_id == "c1" ? 60 : ctx.tool_use_id == "c2" ? 30 : 0));
    return ToolResult::text_result("from " + ctx.tool_use_id);
  };
  auto fx = faux_agent({calls({{"c1", "meet"}, {"c2", "meet"}, {"c3", "meet"}}), faux::text_response("done")},
                       {tool_with("meet", meet)});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(overlapped.load() == 3);
  auto results = results_of(*r);
  REQUIRE(results.size() == 3);
  CHECK(results[0].tool_use_id == "c1");
  CHECK(results[1].tool_use_id == "c2");
  CHECK(results[2].tool_use_id == "c3");
  CHECK(text_of(results[0].content) == "from c1");
}

TEST_CASE("one sequential tool anywhere in a batch makes the whole batch sequential") {
  ConcurrencyProbe probe;
  auto body = [&](const json::Value&, const ToolContext&) {
    probe.enter();
    std::this_thread::sleep_for(20ms);
    probe.leave();
    return ToolResult::text_result("ok");
  };
  auto fx = faux_agent({calls({{"a", "read"}, {"b", "exec"}, {"c", "read"}}), faux::text_response("done")},
                       {tool_with("read", body), tool_with("exec", body, ExecutionMode::sequential)});
  REQUIRE(fx.agent.run("go"));
  CHECK(probe.peak.load() == 1);
}

TEST_CASE("parallel_tools off runs a batch one call at a time") {
  ConcurrencyProbe probe;
  auto body = [&](const json::Value&, const ToolContext&) {
    probe.enter();
    std::this_thread::sleep_for(10ms);
    probe.leave();
    return ToolResult::text_result("ok");
  };
  RuntimeConfig rt;
  rt.loop.parallel_tools = false;
  auto fx = faux_agent({calls({{"a", "t"}, {"b", "t"}, {"c", "t"}}), faux::text_response("done")},
                       {tool_with("t", body)}, rt);
  REQUIRE(fx.agent.run("go"));
  CHECK(probe.peak.load() == 1);
}

TEST_CASE("a failing call never cancels its siblings and every call gets a result") {
  std::atomic<bool> slow_finished{false};
  auto slow = [&](const json::Value&, const ToolContext&) {
    std::this_thread::sleep_for(50ms);
    slow_finished = true;
    return ToolResult::text_result("slow ok");
  };
  auto thrower = [](const json::Value&, const ToolContext&) -> ToolResult { throw std::runtime_error("boom"); };
  RuntimeConfig rt;
  rt.extensions.before_tool_call = [](const ToolCallRequest& call) {
    return call.tool_name == "blocked" ? ToolCallDecision::deny("not allowed here") : ToolCallDecision::allow();
  };
  auto fx = faux_agent({calls({{"c1", "slow"}, {"c2", "thrower"}, {"c3", "blocked"}}), faux::text_response("done")},
                       {tool_with("slow", slow), tool_with("thrower", thrower), tool_with("blocked", slow)}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  auto results = results_of(*r);
  REQUIRE(results.size() == 3);
  CHECK(slow_finished.load());
  CHECK_FALSE(results[0].is_error);
  CHECK(results[1].is_error);
  CHECK(text_of(results[1].content).find("boom") != std::string::npos);
  CHECK(results[2].is_error);
  CHECK(text_of(results[2].content) == "not allowed here");
}

TEST_CASE("a handler that throws a non-exception value becomes an error result the model sees") {
  auto thrower = [](const json::Value&, const ToolContext&) -> ToolResult { throw 42; };
  auto fx = faux_agent({calls({{"c1", "bad"}}), faux::text_response("recovered")}, {tool_with("bad", thrower)});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->final_text == "recovered");
  auto second = fx.faux->requests().at(1);
  const auto& sent = std::get<ToolResultMessage>(second.messages.back());
  CHECK(sent.is_error);
  CHECK(sent.tool_use_id == "c1");
}

TEST_CASE("a cancel during before_tool_call runs no handler at all and still closes every call") {
  std::atomic<int> handlers{0};
  std::atomic<int> after_calls{0};
  auto body = [&](const json::Value&, const ToolContext&) {
    ++handlers;
    return ToolResult::text_result("ran");
  };
  agentkit::stop_source stop;
  EventLog log;
  RuntimeConfig rt;
  rt.observability.observers.push_back(log.observer());
  rt.extensions.before_tool_call = [&](const ToolCallRequest& call) {
    if (call.index_in_batch == 0) stop.request_stop();  // Ctrl-C while preparing the batch
    return ToolCallDecision::allow();
  };
  rt.extensions.after_tool_call = [&](ToolCallOutcome&) -> std::optional<bool> {
    ++after_calls;
    return std::nullopt;
  };
  auto fx = faux_agent({calls({{"c1", "t"}, {"c2", "t"}, {"c3", "t"}}), faux::text_response("never")},
                       {tool_with("t", body)}, rt);
  auto r = fx.agent.run("go", stop.get_token());
  REQUIRE(r);
  CHECK(handlers.load() == 0);
  CHECK(after_calls.load() == 0);
  CHECK(r->stop_reason == RunStopReason::aborted);
  auto results = results_of(*r);
  REQUIRE(results.size() == 3);
  for (const auto& res : results) {
    CHECK(res.is_error);
    CHECK(text_of(res.content) == "Operation aborted");
  }
  CHECK(log.count("tool_execution_start") == 3);
  CHECK(log.count("tool_execution_end") == 3);
  CHECK(log.check_balanced() == "");
  CHECK(fx.faux->request_count() == 1);
}

TEST_CASE("a cancel after the batch started never splits it into ran and not-ran") {
  std::atomic<int> handlers{0};
  agentkit::stop_source stop;
  auto body = [&](const json::Value&, const ToolContext& ctx) {
    if (ctx.tool_use_id == "c1") stop.request_stop();  // the first handler triggers Ctrl-C
    ++handlers;
    return ToolResult::text_result("ran");
  };
  SECTION("sequential batch") {
    RuntimeConfig rt;
    rt.loop.parallel_tools = false;
    auto fx = faux_agent({calls({{"c1", "t"}, {"c2", "t"}, {"c3", "t"}}), faux::text_response("never")},
                         {tool_with("t", body)}, rt);
    auto r = fx.agent.run("go", stop.get_token());
    REQUIRE(r);
    CHECK(handlers.load() == 3);
    CHECK(results_of(*r).size() == 3);
    CHECK(r->stop_reason == RunStopReason::aborted);  // the run ends at the turn boundary
    CHECK(fx.faux->request_count() == 1);
  }
  SECTION("parallel batch") {
    auto fx = faux_agent({calls({{"c1", "t"}, {"c2", "t"}, {"c3", "t"}}), faux::text_response("never")},
                         {tool_with("t", body)});
    auto r = fx.agent.run("go", stop.get_token());
    REQUIRE(r);
    CHECK(handlers.load() == 3);
    CHECK(results_of(*r).size() == 3);
    CHECK(r->stop_reason == RunStopReason::aborted);
  }
}

TEST_CASE("before_tool_call can rewrite the arguments the handler receives") {
  std::string seen;
  auto body = [&](const json::Value& args, const ToolContext&) {
    seen = json::dump(args);
    return ToolResult::text_result("ok");
  };
  RuntimeConfig rt;
  rt.extensions.before_tool_call = [](const ToolCallRequest&) {
    return ToolCallDecision::rewrite(json::Object{{"path", "safe.txt"}});
  };
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "t", R"({"path":"/etc/passwd"})")}),
                        faux::text_response("done")},
                       {tool_with("t", body)}, rt);
  REQUIRE(fx.agent.run("go"));
  CHECK(seen == R"({"path":"safe.txt"})");
}

TEST_CASE("a throwing before_tool_call fails closed: the call is blocked, not run") {
  std::atomic<int> handlers{0};
  auto body = [&](const json::Value&, const ToolContext&) {
    ++handlers;
    return ToolResult::text_result("ran");
  };
  RuntimeConfig rt;
  rt.extensions.before_tool_call = [](const ToolCallRequest&) -> ToolCallDecision { throw std::runtime_error("policy bug"); };
  auto fx = faux_agent({calls({{"c1", "t"}}), faux::text_response("done")}, {tool_with("t", body)}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(handlers.load() == 0);
  auto results = results_of(*r);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  CHECK(text_of(results[0].content).find("policy bug") != std::string::npos);
}

TEST_CASE("a throwing after_tool_call for one call still finalizes its siblings and joins") {
  auto body = [](const json::Value&, const ToolContext&) { return ToolResult::text_result("ok"); };
  RuntimeConfig rt;
  rt.extensions.after_tool_call = [](ToolCallOutcome& o) -> std::optional<bool> {
    if (o.tool_use_id == "c1") throw std::runtime_error("after bug");
    o.message.content = {TextBlock{"redacted " + o.tool_use_id}};
    return std::nullopt;
  };
  auto fx = faux_agent({calls({{"c1", "t"}, {"c2", "t"}, {"c3", "t"}}), faux::text_response("done")},
                       {tool_with("t", body)}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  auto results = results_of(*r);
  REQUIRE(results.size() == 3);
  CHECK(text_of(results[1].content) == "redacted c2");
  CHECK(text_of(results[2].content) == "redacted c3");
}

TEST_CASE("the argument pipeline drops optional nulls and coerces before it validates") {
  std::string seen;
  ToolDefinition t = tool_with("read", [&](const json::Value& args, const ToolContext&) {
    seen = json::dump(args);
    return ToolResult::text_result("ok");
  });
  t.input_schema = schema::object({schema::required("path", schema::string()),
                                   schema::optional("limit", schema::integer()),
                                   schema::optional("offset", schema::integer())});
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "read", R"({"path":"a","limit":"20","offset":null})")}),
                        faux::text_response("done")},
                       {t});
  REQUIRE(fx.agent.run("go"));
  CHECK(seen == R"({"path":"a","limit":20})");
}

TEST_CASE("arguments that fail the schema never reach the handler") {
  std::atomic<int> handlers{0};
  ToolDefinition t = tool_with("read", [&](const json::Value&, const ToolContext&) {
    ++handlers;
    return ToolResult::text_result("ok");
  });
  t.input_schema = schema::object({schema::required("path", schema::string())});
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "read", R"({"paht":"a"})")}),
                        faux::text_response("done")},
                       {t});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(handlers.load() == 0);
  auto results = results_of(*r);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  CHECK(results[0].metadata.find("error_code")->as_string() == "invalid_arguments");
  CHECK(text_of(results[0].content).find(R"(Arguments received: {"paht":"a"})") != std::string::npos);
}

TEST_CASE("a call to an unknown tool gets an error naming the tools that exist") {
  auto fx = faux_agent({calls({{"c1", "grep"}}), faux::text_response("done")}, {counting_tool("search").definition});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  auto results = results_of(*r);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  std::string text = text_of(results[0].content);
  CHECK(text.find("no tool named 'grep'") != std::string::npos);
  CHECK(text.find("search") != std::string::npos);
}

TEST_CASE("a tool that outlives its timeout sees its stop token fire and reports a timeout") {
  ToolDefinition t = tool_with("wait", [](const json::Value&, const ToolContext& ctx) {
    std::mutex mu;
    agentkit::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait_for(lock, ctx.stop, 30s, [] { return false; });
    return ToolResult::text_result(ctx.stop.stop_requested() ? "stopped" : "slept");
  });
  t.timeout = ToolTimeout::after(50ms);
  auto fx = faux_agent({calls({{"c1", "wait"}}), faux::text_response("done")}, {t});
  auto started = std::chrono::steady_clock::now();
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(std::chrono::steady_clock::now() - started < 10s);
  auto results = results_of(*r);
  REQUIRE(results.size() == 1);
  CHECK(results[0].is_error);
  CHECK(results[0].metadata.find("error_code")->as_string() == "timeout");
}

TEST_CASE("a handler's progress reports reach subscribers as tool execution updates") {
  ToolDefinition t = tool_with("progress", [](const json::Value&, const ToolContext& ctx) {
    ctx.report("half");
    ctx.report("done");
    return ToolResult::text_result("ok");
  });
  auto fx = faux_agent({calls({{"c1", "progress"}}), faux::text_response("done")}, {t});
  auto s = fx.agent.start();
  REQUIRE(s);
  EventStream events = s->events();
  REQUIRE(s->run("go"));
  std::vector<std::string> chunks;
  while (auto ev = events.try_next()) {
    if (auto* u = std::get_if<ToolExecutionUpdateEvent>(&*ev)) chunks.push_back(u->chunk);
  }
  CHECK(chunks == std::vector<std::string>{"half", "done"});
}

TEST_CASE(
    "every way a call fails reaches the model in one shape: prose, is_error, a metadata code") {
  ToolDefinition refuses = tool_with("refuses", [](const json::Value&, const ToolContext&) {
    return ToolResult::failure("not_found", "There is no such record.");
  });
  ToolDefinition throws =
      tool_with("throws", [](const json::Value&, const ToolContext&) -> ToolResult {
        throw std::runtime_error("disk on fire");
      });
  ToolDefinition sleeps = tool_with("sleeps", [](const json::Value&, const ToolContext& ctx) {
    std::mutex mu;
    agentkit::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait_for(lock, ctx.stop, 30s, [] { return false; });
    return ToolResult::text_result("slept");
  });
  sleeps.timeout = ToolTimeout::after(20ms);
  ToolDefinition guarded = tool_with("guarded", [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result("ran");
  });
  ToolDefinition typed = tool_with("typed", [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result("ran");
  });
  typed.input_schema = schema::object({schema::required("n", schema::integer())});
  RuntimeConfig rt;
  rt.extensions.before_tool_call = [](const ToolCallRequest& req) {
    return req.tool_name == "guarded" ? ToolCallDecision::deny("Not on Sundays.")
                                      : ToolCallDecision::allow();
  };
  auto fx = faux_agent(
      {faux::tool_call_response(
           {faux::tool_call("c1", "refuses", "{}"), faux::tool_call("c2", "throws", "{}"),
            faux::tool_call("c3", "sleeps", "{}"), faux::tool_call("c4", "guarded", "{}"),
            faux::tool_call("c5", "missing", "{}"),
            faux::tool_call("c6", "typed", R"({"n":"x"})")}),
       faux::text_response("done")},
      {refuses, throws, sleeps, guarded, typed}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  auto results = results_of(*r);
  REQUIRE(results.size() == 6);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"not_found", "There is no such record."},
      {"tool_error", "Tool 'throws' failed: disk on fire"},
      {"timeout", "did not finish within 20 ms"},
      {"blocked_by_policy", "Not on Sundays."},
      {"unknown_tool", "no tool named 'missing'"},
      {"invalid_arguments", "Invalid arguments for 'typed'"},
  };
  for (std::size_t i = 0; i < results.size(); ++i) {
    INFO("call " << results[i].tool_use_id);
    CHECK(results[i].is_error);
    REQUIRE(results[i].content.size() == 1);
    const std::string text = text_of(results[i].content);
    CHECK(text.find(expected[i].second) != std::string::npos);
    CHECK(text.find("\"ok\"") == std::string::npos);           // never the JSON envelope
    CHECK(text.find(expected[i].first) == std::string::npos);  // the code is for the program
    REQUIRE(results[i].metadata.find("error_code"));
    CHECK(results[i].metadata.find("error_code")->as_string() == expected[i].first);
  }
}
