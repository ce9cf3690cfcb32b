// The loop's decisions, through the public API over the faux provider.
#include <algorithm>
#include <atomic>
#include <latch>
#include <thread>

#include "agentkit/base/clock.hpp"
#include "agentkit/base/thread.hpp"

#include "harness.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

RetryOptions quick_retry(std::chrono::milliseconds base) {
  RetryOptions o;
  o.max_attempts = 3;
  o.base_delay = base;
  return o;
}

Usage usage_costing(double usd) {
  Usage u;
  u.input_tokens = 10;
  u.output_tokens = 5;
  u.cost.total = usd;
  return u;
}

int count_tool_results(const std::vector<Message>& messages) {
  int n = 0;
  for (const auto& m : messages) n += std::holds_alternative<ToolResultMessage>(m) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("a stop reason of stop with tool calls still runs them") {
  auto tool = counting_tool("lookup");
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")}, StopReason::stop),
                        faux::text_response("done")},
                       {tool.definition});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(tool.calls->load() == 1);
  CHECK(fx.faux->request_count() == 2);
  CHECK(r->final_text == "done");
  CHECK(r->stop_reason == RunStopReason::stop);
}

TEST_CASE("a tool_use stop reason without tool blocks does not loop") {
  auto fx = faux_agent({faux::text_response("nothing to call", StopReason::tool_use)});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 1);
  CHECK(r->final_text == "nothing to call");
}

TEST_CASE("length with tool calls executes none of them and asks for a re-issue") {
  auto tool = counting_tool("edit_file");
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "edit_file", R"({"path":"a"})"),
                                                   faux::tool_call("c2", "edit_file", R"({"path":"b"})")},
                                                  StopReason::length),
                        faux::text_response("re-issued later")},
                       {tool.definition});
  auto r = fx.agent.run("edit");
  REQUIRE(r);
  CHECK(tool.calls->load() == 0);
  CHECK(fx.faux->request_count() == 2);
  int results = 0;
  for (const auto& m : r->messages) {
    if (const auto* tr = std::get_if<ToolResultMessage>(&m)) {
      ++results;
      CHECK(tr->is_error);
      std::string text = text_of(tr->content);
      CHECK(text.find("'edit_file' was not executed") != std::string::npos);
      CHECK(text.find("output token limit") != std::string::npos);
      CHECK(text.find("Re-issue") != std::string::npos);
    }
  }
  CHECK(results == 2);
}

TEST_CASE("length without tool calls ends the run normally with reason length") {
  auto fx = faux_agent({faux::text_response("cut", StopReason::length)});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 1);
  CHECK(r->stop_reason == RunStopReason::length);
}

TEST_CASE("an error message ends the run with reason error and the message kept") {
  auto fx = faux_agent({faux::error_response("HTTP 401: invalid api key")});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::error);
  CHECK(r->error_message == "HTTP 401: invalid api key");
  REQUIRE(r->messages.size() == 2);
  CHECK(std::get<AssistantMessage>(r->messages[1]).stop_reason == StopReason::error);
}

TEST_CASE("a mid-stream error keeps the partial content and ends the run") {
  faux::FauxResponse resp = faux::text_response("hello there, this is long");
  resp.chunk_bytes = 4;
  resp.fail_after_chunks = 2;
  auto fx = faux_agent({resp});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::error);
  CHECK(r->final_text == "hello th");
}

TEST_CASE("stop checks run after tool results are appended so the transcript stays resumable") {
  auto tool = counting_tool("lookup");
  RuntimeConfig rt;
  rt.extensions.stop_policy = stop_after_turns(1);
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")}),
                        faux::text_response("never")},
                       {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 1);
  CHECK(r->stop_reason == RunStopReason::max_turns);
  REQUIRE_FALSE(r->messages.empty());
  const auto* last = std::get_if<ToolResultMessage>(&r->messages.back());
  REQUIRE(last != nullptr);
  CHECK(last->tool_use_id == "c1");
}

TEST_CASE("max_turns stops a model that always calls tools after exactly that many calls") {
  auto tool = counting_tool("lookup");
  RuntimeConfig rt;
  rt.loop.max_turns = 2;
  std::vector<faux::FauxResponse> script;
  for (int i = 0; i < 5; ++i) script.push_back(faux::tool_call_response({faux::tool_call("", "lookup", "{}")}));
  auto fx = faux_agent(script, {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 2);
  CHECK(r->stop_reason == RunStopReason::max_turns);
  CHECK(r->turn_count == 2);
}

TEST_CASE("a final answer on the last allowed turn is reported as a normal stop") {
  RuntimeConfig rt;
  rt.loop.max_turns = 1;
  auto fx = faux_agent({faux::text_response("done")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
}

TEST_CASE("the budget stop fires only when spend strictly exceeds the limit") {
  auto tool = counting_tool("lookup");
  auto run_with_limit = [&](double limit) {
    RuntimeConfig rt;
    rt.extensions.stop_policy = stop_over_budget(limit);
    std::vector<faux::FauxResponse> script;
    for (int i = 0; i < 6; ++i) {
      auto resp = faux::tool_call_response({faux::tool_call("", "lookup", "{}")});
      resp.message.usage = usage_costing(0.40);
      script.push_back(resp);
    }
    auto fx = faux_agent(script, {tool.definition}, rt);
    auto r = fx.agent.run("go");
    REQUIRE(r);
    CHECK(r->stop_reason == RunStopReason::stop_policy);
    return fx.faux->request_count();
  };
  CHECK(run_with_limit(0.80) == 3);  // 0.80 is not > 0.80
  CHECK(run_with_limit(0.79) == 2);
}

TEST_CASE("run usage counts this run only while session usage accumulates") {
  auto fx = faux_agent({});
  fx.faux->push([] {
    auto r = faux::text_response("one");
    r.message.usage = usage_costing(1.0);
    return r;
  }());
  fx.faux->push([] {
    auto r = faux::text_response("two");
    r.message.usage = usage_costing(2.0);
    return r;
  }());
  auto s = fx.agent.start();
  REQUIRE(s);
  auto r1 = s->run(Turn{"first"});
  auto r2 = s->run(Turn{"second"});
  REQUIRE(r1);
  REQUIRE(r2);
  CHECK(r2->run_usage.cost.total == Approx(2.0));
  CHECK(r2->session_usage.cost.total == Approx(3.0));
}

TEST_CASE("all calls voting terminate end the run after the batch, one dissent keeps it going") {
  auto voter = [](bool vote) {
    return [vote](const json::Value&, const ToolContext&) {
      ToolResult r = ToolResult::text_result("voted");
      r.terminate = vote;
      return r;
    };
  };
  SECTION("unanimous") {
    auto fx = faux_agent({faux::tool_call_response({faux::tool_call("a", "yes", "{}"), faux::tool_call("b", "yes", "{}")}),
                          faux::text_response("unreached")},
                         {tool_with("yes", voter(true))});
    auto r = fx.agent.run("go");
    REQUIRE(r);
    CHECK(r->stop_reason == RunStopReason::tool_terminate);
    CHECK(fx.faux->request_count() == 1);
    CHECK(count_tool_results(r->messages) == 2);
  }
  SECTION("one dissent") {
    auto fx = faux_agent({faux::tool_call_response({faux::tool_call("a", "yes", "{}"), faux::tool_call("b", "no", "{}")}),
                          faux::text_response("continued")},
                         {tool_with("yes", voter(true)), tool_with("no", voter(false))});
    auto r = fx.agent.run("go");
    REQUIRE(r);
    CHECK(r->final_text == "continued");
    CHECK(fx.faux->request_count() == 2);
  }
}

TEST_CASE("a steering message sent during a text-only turn makes one more request ending with it") {
  auto fx = faux_agent({});
  auto s = fx.agent.start();
  REQUIRE(s);
  Session* session = &*s;
  faux::FauxResponse first = faux::text_response("first answer");
  first.on_request = [session](const Request&) { REQUIRE(session->send("steer me")); };
  fx.faux->push(first);
  fx.faux->push(faux::text_response("second answer"));
  auto r = s->run(Turn{"hello"});
  REQUIRE(r);
  REQUIRE(fx.faux->request_count() == 2);
  auto reqs = fx.faux->requests();
  CHECK(text_of_message(last_message(reqs[1])) == "steer me");
  CHECK(r->final_text == "second answer");
}

TEST_CASE("steering is never placed between a tool call and its result") {
  auto tool = counting_tool("lookup");
  auto fx = faux_agent({}, {tool.definition});
  auto s = fx.agent.start();
  REQUIRE(s);
  Session* session = &*s;
  faux::FauxResponse first = faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")});
  first.on_request = [session](const Request&) { REQUIRE(session->send("steer")); };
  fx.faux->push(first);
  fx.faux->push(faux::text_response("done"));
  REQUIRE(s->run(Turn{"go"}));
  auto reqs = fx.faux->requests();
  REQUIRE(reqs.size() == 2);
  const auto& msgs = reqs[1].messages;
  REQUIRE(msgs.size() == 4);  // user, assistant(tool_use), tool_result, user(steer)
  CHECK(std::holds_alternative<AssistantMessage>(msgs[1]));
  CHECK(std::holds_alternative<ToolResultMessage>(msgs[2]));
  CHECK(text_of_message(msgs[3]) == "steer");
}

TEST_CASE("one-at-a-time steering delivers one queued message per request") {
  auto fx = faux_agent({});
  auto s = fx.agent.start();
  REQUIRE(s);
  Session* session = &*s;
  faux::FauxResponse first = faux::text_response("a");
  first.on_request = [session](const Request&) {
    REQUIRE(session->send("s1"));
    REQUIRE(session->send("s2"));
  };
  fx.faux->push(first);
  fx.faux->push(faux::text_response("b"));
  fx.faux->push(faux::text_response("c"));
  REQUIRE(s->run(Turn{"go"}));
  auto reqs = fx.faux->requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[1].messages.size() == reqs[0].messages.size() + 2);  // assistant + s1
  CHECK(text_of_message(last_message(reqs[1])) == "s1");
  CHECK(text_of_message(last_message(reqs[2])) == "s2");
}

TEST_CASE("a follow-up is delivered only when the inner loop is exhausted, inside the same run") {
  auto tool = counting_tool("lookup");
  EventLog log;
  RuntimeConfig rt;
  rt.observability.observers.push_back(log.observer());
  auto fx = faux_agent({}, {tool.definition}, rt);
  auto s = fx.agent.start();
  REQUIRE(s);
  Session* session = &*s;
  faux::FauxResponse first = faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")});
  first.on_request = [session](const Request&) { REQUIRE(session->send(Input::follow_up("and then?"))); };
  fx.faux->push(first);
  fx.faux->push(faux::text_response("final for the first question"));
  fx.faux->push(faux::text_response("answer to the follow-up"));
  auto r = s->run(Turn{"go"});
  REQUIRE(r);
  auto reqs = fx.faux->requests();
  REQUIRE(reqs.size() == 3);
  CHECK(text_of_message(last_message(reqs[1])) != "and then?");  // not delivered mid inner loop
  CHECK(text_of_message(last_message(reqs[2])) == "and then?");
  CHECK(r->final_text == "answer to the follow-up");
  CHECK(log.count("agent_start") == 1);
  CHECK(log.count("agent_end") == 1);
}

TEST_CASE("a stop policy that fires leaves queued steering in the queue") {
  RuntimeConfig rt;
  rt.extensions.stop_policy = stop_when([](const StopContext&) { return true; });
  auto fx = faux_agent({}, {}, rt);
  auto s = fx.agent.start();
  REQUIRE(s);
  Session* session = &*s;
  faux::FauxResponse first = faux::text_response("a");
  first.on_request = [session](const Request&) { REQUIRE(session->send("later")); };
  fx.faux->push(first);
  fx.faux->push(faux::text_response("delivered on the next run"));
  auto r = s->run(Turn{"go"});
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 1);
  CHECK(r->stop_reason == RunStopReason::stop_policy);
  // The queued message is not lost: an empty-input run continues with it.
  auto r2 = s->run(Turn{});
  REQUIRE(r2);
  CHECK(text_of_message(last_message(fx.faux->requests()[1])) == "later");
}

TEST_CASE("a throwing stop policy stops the run instead of failing open") {
  auto tool = counting_tool("lookup");
  RuntimeConfig rt;
  rt.extensions.stop_policy = [](const StopContext&) -> StopDecision { throw std::runtime_error("bug"); };
  std::vector<faux::FauxResponse> script(3, faux::tool_call_response({faux::tool_call("", "lookup", "{}")}));
  auto fx = faux_agent(script, {tool.definition}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop_policy);
  CHECK(fx.faux->request_count() == 1);
}

TEST_CASE("a second concurrent run on one session fails at once with busy") {
  std::latch in_provider(1), release(1);
  faux::FauxResponse slow = faux::text_response("slow");
  slow.on_request = [&](const Request&) {
    in_provider.count_down();
    release.wait();
  };
  auto fx = faux_agent({slow});
  auto s = fx.agent.start();
  REQUIRE(s);
  agentkit::jthread first([&] { REQUIRE(s->run(Turn{"one"})); });
  in_provider.wait();
  auto second = s->run(Turn{"two"});
  REQUIRE_FALSE(second);
  CHECK(second.error().code == Errc::busy);
  release.count_down();
}

TEST_CASE("send with no run in flight fails clearly and starts nothing") {
  auto fx = faux_agent({faux::text_response("x")});
  auto s = fx.agent.start();
  REQUIRE(s);
  auto d = s->send("hello?");
  REQUIRE_FALSE(d);
  CHECK(d.error().code == Errc::invalid_argument);
  CHECK(d.error().message.find("no run is in flight") != std::string::npos);
  CHECK(fx.faux->request_count() == 0);
}

TEST_CASE("close cancels the run in flight, which returns aborted with the partial turn") {
  faux::FauxResponse hang = faux::text_response("partial");
  hang.hang_until_cancelled = true;
  auto fx = faux_agent({hang});
  auto s = fx.agent.start();
  REQUIRE(s);
  EventStream events = s->events();
  Result<RunResult> result = fail(Errc::internal, "not run");
  agentkit::jthread runner([&] { result = s->run("go"); });
  REQUIRE(wait_for_event(events, "block_end"));  // the text is out; the provider now hangs
  REQUIRE(s->close());
  runner.join();
  REQUIRE(result);
  CHECK(result->stop_reason == RunStopReason::aborted);
  CHECK(result->final_text == "partial");
}

TEST_CASE("cancelling the caller's stop token aborts the run and keeps the partial answer") {
  faux::FauxResponse hang = faux::text_response("Hel");
  hang.hang_until_cancelled = true;
  auto fx = faux_agent({hang});
  auto s = fx.agent.start();
  REQUIRE(s);
  EventStream events = s->events();
  agentkit::stop_source stop;
  agentkit::jthread canceller([&] {
    if (wait_for_event(events, "block_end")) stop.request_stop();
  });
  auto r = s->run("go", stop.get_token());
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::aborted);
  CHECK(r->final_text == "Hel");
  CHECK_FALSE(r->error_message.empty());
}

TEST_CASE("an empty-input run continues a transcript that ends aborted") {
  faux::FauxResponse hang = faux::text_response("Hel");
  hang.hang_until_cancelled = true;
  std::latch streaming(1);
  hang.on_request = [&](const Request&) { streaming.count_down(); };
  auto fx = faux_agent({hang, faux::text_response("Hello!")});
  auto s = fx.agent.start();
  REQUIRE(s);
  agentkit::stop_source stop;
  agentkit::jthread canceller([&] {
    streaming.wait();
    stop.request_stop();
  });
  auto aborted = s->run(Turn{"go"}, stop.get_token());
  REQUIRE(aborted);
  CHECK(aborted->stop_reason == RunStopReason::aborted);
  auto resumed = s->run(Turn{});
  REQUIRE(resumed);
  CHECK(resumed->final_text == "Hello!");
}

TEST_CASE("an empty-input run after a completed answer with nothing queued is refused") {
  auto fx = faux_agent({faux::text_response("done")});
  auto s = fx.agent.start();
  REQUIRE(s);
  REQUIRE(s->run(Turn{"go"}));
  auto again = s->run(Turn{});
  REQUIRE_FALSE(again);
  CHECK(again.error().code == Errc::invalid_argument);
}

TEST_CASE("middleware registered last runs first, and a pass-through changes nothing") {
  std::vector<std::string> order;
  auto named = [&order](std::string name) -> Middleware {
    return [&order, name](ModelCall next) -> ModelCall {
      return [&order, name, next](const Request& r, const StreamOptions& o, const EventCallback& e,
                                  agentkit::stop_token st) {
        order.push_back(name);
        return next(r, o, e, st);
      };
    };
  };
  RuntimeConfig rt;
  rt.extensions.middleware = {named("first registered"), named("second registered")};
  auto fx = faux_agent({faux::text_response("ok")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->final_text == "ok");
  CHECK(order == std::vector<std::string>{"second registered", "first registered"});
}

TEST_CASE("a throwing middleware ends the turn with an error message, not a crash") {
  RuntimeConfig rt;
  rt.extensions.middleware.push_back([](ModelCall) -> ModelCall {
    return [](const Request&, const StreamOptions&, const EventCallback&, agentkit::stop_token) -> AssistantMessage {
      throw 42;
    };
  });
  auto fx = faux_agent({faux::text_response("unreached")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::error);
  CHECK(r->error_message.find("threw") != std::string::npos);
}

TEST_CASE("the retry middleware retries a transient error and the final attempt's answer wins") {
  RuntimeConfig rt;
  rt.extensions.middleware.push_back(retry_middleware(quick_retry(std::chrono::milliseconds(1))));
  auto fx = faux_agent({faux::error_response("HTTP 529: overloaded"), faux::text_response("recovered")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 2);
  CHECK(r->final_text == "recovered");
  CHECK(r->stop_reason == RunStopReason::stop);
}

TEST_CASE("the retry middleware never retries a permanent error") {
  RuntimeConfig rt;
  rt.extensions.middleware.push_back(retry_middleware(quick_retry(std::chrono::milliseconds(1))));
  auto fx = faux_agent({faux::error_response("HTTP 401: invalid api key"), faux::text_response("no")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(fx.faux->request_count() == 1);
  CHECK(r->stop_reason == RunStopReason::error);
}

TEST_CASE("an abort during the retry backoff ends aborted with an empty error message") {
  RuntimeConfig rt;
  rt.extensions.middleware.push_back(retry_middleware(quick_retry(std::chrono::seconds(30))));
  faux::FauxResponse failing = faux::error_response("HTTP 503 service unavailable");
  std::latch failed(1);
  failing.on_request = [&](const Request&) { failed.count_down(); };
  auto fx = faux_agent({failing, faux::text_response("never")}, {}, rt);
  agentkit::stop_source stop;
  agentkit::jthread canceller([&] {
    failed.wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.request_stop();
  });
  auto started = std::chrono::steady_clock::now();
  auto r = fx.agent.run("go", stop.get_token());
  REQUIRE(r);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  CHECK(fx.faux->request_count() == 1);
  CHECK(r->stop_reason == RunStopReason::aborted);
  const auto& last = std::get<AssistantMessage>(r->messages.back());
  CHECK(last.stop_reason == StopReason::aborted);
  CHECK(last.error_message.empty());
}

// The backoff sleeps on RetryOptions::clock: with a manual clock and an hour's delay the retry
// happens only when the test moves that clock, never by waiting in real time.
TEST_CASE("the retry middleware sleeps its backoff on the clock it is given") {
  auto clock = std::make_shared<agentkit::ManualClock>();
  RetryOptions retry = quick_retry(std::chrono::hours(1));
  retry.max_delay = std::chrono::hours(1);
  retry.clock = clock;
  RuntimeConfig rt;
  rt.extensions.middleware.push_back(retry_middleware(retry));
  auto fx = faux_agent(
      {faux::error_response("HTTP 503 service unavailable"), faux::text_response("recovered")}, {},
      rt);
  agentkit::stop_source stop;
  std::atomic<bool> done{false};
  Result<RunResult> r = make_error(Errc::internal, "not run");
  agentkit::jthread runner([&] {
    r = fx.agent.run("go", stop.get_token());
    done = true;
  });
  // A structural wait, bounded so that a backoff slept elsewhere fails instead of hanging.
  for (int i = 0; i < 5000 && clock->sleepers() == 0 && !done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool slept_on_clock = clock->sleepers() == 1;
  CHECK(slept_on_clock);
  CHECK(fx.faux->request_count() == 1);
  if (!slept_on_clock) stop.request_stop();
  clock->advance(std::chrono::hours(1));
  runner.join();
  REQUIRE(r);
  if (slept_on_clock) {
    CHECK(fx.faux->request_count() == 2);
    CHECK(r->final_text == "recovered");
  }
}

TEST_CASE("the retry classifier matches status codes as whole tokens") {
  AssistantMessage m;
  m.stop_reason = StopReason::error;
  m.error_message = "HTTP 429 too many requests";
  CHECK(is_retryable_error(m));
  m.error_message = "request id 14290 failed validation";
  CHECK_FALSE(is_retryable_error(m));
  m.error_message = "HTTP 400: prompt is too long; rate limit not involved";
  CHECK_FALSE(is_retryable_error(m));  // the deny list wins over the allow list
}

TEST_CASE("the context transform sees a copy and cannot rewrite stored history") {
  RuntimeConfig rt;
  rt.extensions.context_transform = [](std::vector<Message> history) {
    for (auto& m : history) {
      if (auto* u = std::get_if<UserMessage>(&m)) u->content = {TextBlock{"rewritten"}};
    }
    return history;
  };
  auto fx = faux_agent({faux::text_response("ok")}, {}, rt);
  auto r = fx.agent.run("original");
  REQUIRE(r);
  CHECK(text_of_message(fx.faux->requests()[0].messages[0]) == "rewritten");
  CHECK(text_of_message(r->messages[0]) == "original");
  CHECK(fx.faux->requests()[0].history_serial == 0);  // the transform's messages: no promise
}

TEST_CASE(
    "the loop promises a session's requests only grow: one serial across its runs, another for "
    "another session or a resumed one") {
  auto fx = faux_agent({faux::text_response("a"), faux::text_response("b"),
                        faux::text_response("c"), faux::text_response("d")});
  auto s = fx.agent.start().value();
  REQUIRE(s.run("one"));
  auto second = s.run("two");
  REQUIRE(second);
  auto other = fx.agent.start().value();
  REQUIRE(other.run("three"));
  StartOptions resume;
  resume.resume = second->handle;
  auto resumed = fx.agent.start(resume).value();
  REQUIRE(resumed.run("four"));
  const auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 4);
  CHECK(requests[0].history_serial != 0);
  CHECK(requests[1].history_serial == requests[0].history_serial);
  CHECK(requests[2].history_serial != requests[0].history_serial);
  CHECK(requests[3].history_serial != requests[0].history_serial);
  CHECK(requests[3].history_serial != requests[2].history_serial);
  CHECK(requests[3].history_serial != 0);
}

TEST_CASE("hooks and observers that throw never end the run") {
  RuntimeConfig rt;
  rt.extensions.hooks.on_turn_start = [](const TurnStartEvent&) { throw std::runtime_error("hook"); };
  rt.extensions.hooks.on_turn_end = [](const TurnEndEvent&) { throw 7; };
  rt.observability.observers.push_back([](const Event&) { throw std::runtime_error("observer"); });
  auto fx = faux_agent({faux::text_response("fine")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->final_text == "fine");
}

TEST_CASE("on_error receives every error the run emits, and a throwing on_error ends nothing") {
  RuntimeConfig rt;
  auto seen = std::make_shared<std::vector<std::string>>();
  rt.extensions.hooks.on_turn_start = [](const TurnStartEvent&) {
    throw std::runtime_error("boom");
  };
  rt.extensions.hooks.on_error = [seen](const Error& e) {
    seen->push_back(e.message);
    throw std::runtime_error("on_error too");
  };
  EventLog log;
  rt.observability.observers.push_back(log.observer());
  auto fx = faux_agent({faux::text_response("fine")}, {}, rt);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(r->final_text == "fine");
  REQUIRE(seen->size() == 1);
  CHECK(seen->front().find("a turn hook threw: boom") != std::string::npos);
  CHECK(log.count("error") == 2);  // the hook's failure, then on_error's own (not re-reported)
}

TEST_CASE("every message, block, turn and tool opens and closes exactly once on every path") {
  auto tool = counting_tool("lookup");
  SECTION("success with tools") {
    EventLog log;
    RuntimeConfig rt;
    rt.observability.observers.push_back(log.observer());
    auto fx = faux_agent({faux::tool_call_response({faux::tool_call("a", "lookup", "{}"), faux::tool_call("b", "nope", "{}")}, StopReason::stop, "calling"),
                          faux::text_response("done")},
                         {tool.definition}, rt);
    REQUIRE(fx.agent.run("go"));
    CHECK(log.check_balanced() == "");
    CHECK(log.count("tool_execution_start") == 2);
  }
  SECTION("mid-stream error") {
    EventLog log;
    RuntimeConfig rt;
    rt.observability.observers.push_back(log.observer());
    faux::FauxResponse resp = faux::text_response("abcdefghij");
    resp.chunk_bytes = 2;
    resp.fail_after_chunks = 2;
    auto fx = faux_agent({resp}, {}, rt);
    REQUIRE(fx.agent.run("go"));
    CHECK(log.check_balanced() == "");
  }
  SECTION("abort mid-stream") {
    EventLog log;
    RuntimeConfig rt;
    rt.observability.observers.push_back(log.observer());
    faux::FauxResponse hang = faux::tool_call_response({faux::tool_call("a", "lookup", "{}")}, StopReason::tool_use, "text");
    hang.hang_until_cancelled = true;
    std::latch streaming(1);
    hang.on_request = [&](const Request&) { streaming.count_down(); };
    auto fx = faux_agent({hang}, {tool.definition}, rt);
    agentkit::stop_source stop;
    agentkit::jthread canceller([&] {
      streaming.wait();
      stop.request_stop();
    });
    auto r = fx.agent.run("go", stop.get_token());
    REQUIRE(r);
    CHECK(r->stop_reason == RunStopReason::aborted);
    CHECK(log.check_balanced() == "");
  }
}

TEST_CASE("a session subscription receives streamed deltas before the turn ends") {
  auto fx = faux_agent({faux::text_response("streamed text")});
  auto s = fx.agent.start();
  REQUIRE(s);
  EventStream events = s->events();
  REQUIRE(s->run(Turn{"go"}));
  std::string deltas;
  std::vector<std::string> order;
  while (auto ev = events.try_next()) {
    order.emplace_back(event_name(*ev));
    if (auto* d = std::get_if<TextDeltaEvent>(&*ev)) deltas += d->delta;
  }
  CHECK(deltas == "streamed text");
  auto first_delta = std::find(order.begin(), order.end(), "text_delta");
  auto turn_end = std::find(order.begin(), order.end(), "turn_end");
  CHECK(first_delta < turn_end);
  CHECK(order.back() == "agent_end");
}
