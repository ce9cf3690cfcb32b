// agentdemo — the real agent loop, offline, against the scripted faux provider.
//
// Each scenario builds an Agent, subscribes to its session's events and prints them as they
// happen (a printer thread reads the EventStream while the loop runs), then states what the
// scenario proves. Ctrl-C during a run aborts it the way a user would.
//
//   agentdemo            run every scenario
//   agentdemo --check    same, and exit non-zero when a scenario's claim does not hold (ctest)
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <latch>
#include <mutex>
#include <string>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "crash_scenario.hpp"
#include "approval_scenario.hpp"
#include "delegation_scenario.hpp"
#include "compaction_scenario.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;
using namespace std::chrono_literals;

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

std::mutex g_print_mu;
void say(const std::string& line) {
  std::lock_guard lock(g_print_mu);
  std::cout << line << std::flush;
}

int g_failures = 0;
void claim(bool holds, const std::string& what) {
  say(std::string(holds ? "  \u2714 " : "  \u2718 ") + what + "\n");
  if (!holds) ++g_failures;
}

std::string elapsed_since(std::chrono::steady_clock::time_point t0) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5lldms", static_cast<long long>(ms));
  return buf;
}

// Prints a session's events as they arrive, on its own thread.
class EventPrinter {
 public:
  explicit EventPrinter(Session& session)
      : events_(session.events()), t0_(std::chrono::steady_clock::now()),
        thread_([this] { print_all(); }) {}
  ~EventPrinter() { thread_.join(); }  // the stream ends when the session closes

 private:
  void print_all() {
    bool in_text = false;
    while (auto ev = events_.next()) {
      std::visit([&](const auto& e) { print(e, in_text); }, *ev);
    }
  }
  void line(const std::string& s) { say("  " + elapsed_since(t0_) + "  " + s + "\n"); }

  void print(const TextDeltaEvent& e, bool& in_text) {
    if (!in_text) say("  " + elapsed_since(t0_) + "  model: ");
    in_text = true;
    say(e.delta);
  }
  void print(const BlockEndEvent& e, bool& in_text) {
    if (in_text) say("\n");
    in_text = false;
    if (const auto* use = std::get_if<ToolUseBlock>(&e.block)) {
      line("model asks for " + use->name + " " + use->input.str() + "  [" + use->id + "]");
    }
  }
  void print(const MessageEndEvent& e, bool&) {
    line("message ends: stop_reason=" + std::string(to_string(e.message.stop_reason)) +
         (e.message.error_message.empty() ? "" : " (" + e.message.error_message + ")"));
  }
  void print(const ToolExecutionStartEvent& e, bool&) { line("  tool start  " + e.tool_name + " [" + e.tool_use_id + "]"); }
  void print(const ToolExecutionEndEvent& e, bool&) {
    line("  tool end    " + e.tool_name + " [" + e.tool_use_id + "] " + (e.result.is_error ? "ERROR: " : "-> ") +
         text_of(e.result.content));
  }
  void print(const UserMessageEvent& e, bool&) { line("user (queued): " + text_of(e.message.content)); }
  void print(const AgentEndEvent& e, bool&) { line("run ends: " + std::string(to_string(e.reason))); }
  template <class E>
  void print(const E&, bool&) {}

  EventStream events_;
  std::chrono::steady_clock::time_point t0_;
  std::thread thread_;
};

void heading(const std::string& title) { say("\n== " + title + " ==\n"); }

ToolDefinition tool(std::string name, std::string description, ToolHandler handler) {
  ToolDefinition t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.handler = std::move(handler);
  return t;
}

struct Demo {
  std::shared_ptr<faux::FauxProvider> model;
  Agent agent;
};

Result<Demo> build(std::vector<faux::FauxResponse> script, std::vector<ToolDefinition> tools,
                   RuntimeConfig rt = {}) {
  auto model = std::make_shared<faux::FauxProvider>(std::move(script));
  rt.model.spec = "faux/demo";
  rt.providers.add("faux", model);
  AgentDefinition def;
  def.instructions = "You are the agentdemo assistant.";
  def.tools.direct = std::move(tools);
  auto agent = make_agent(std::move(def), std::move(rt));
  if (!agent) return agent.error();
  return Demo{model, std::move(*agent)};
}

// Streams text a few bytes at a time so the printing is visibly live.
faux::FauxResponse slow(faux::FauxResponse r) {
  r.chunk_bytes = 6;
  r.chunk_delay = 15ms;
  return r;
}

// Runs one turn with the events printed, honouring Ctrl-C.
Result<RunResult> run_printed(Demo& demo, Turn turn, agentkit::stop_source* stop = nullptr) {
  auto session = demo.agent.start();
  if (!session) return session.error();
  agentkit::stop_source own;
  agentkit::stop_source& source = stop ? *stop : own;
  agentkit::jthread sigint_watch([&source](agentkit::stop_token done) {
    while (!done.stop_requested()) {
      if (g_interrupted.exchange(false)) {
        say("  ^C  aborting the run\n");
        source.request_stop();
      }
      std::this_thread::sleep_for(20ms);
    }
  });
  Result<RunResult> result = fail(Errc::internal, "not run");
  {
    EventPrinter printer(*session);
    result = session->run(std::move(turn), source.get_token());
    (void)session->close();
  }
  return result;
}

void stop_reason_stop_still_runs_tools() {
  heading("1. stop_reason \"stop\" next to a tool call: the tool still runs");
  std::atomic<int> ran{0};
  auto weather = tool("get_weather", "Weather for a city", [&](const json::Value&, const ToolContext&) {
    ++ran;
    return ToolResult::text_result("12\u00b0C, drizzle");
  });
  // Gemini and several OpenAI-compatible gateways report "stop" next to function calls.
  auto demo = build({slow(faux::tool_call_response({faux::tool_call("call_1", "get_weather", R"({"city":"Oslo"})")},
                                                   StopReason::stop, "Let me check. ")),
                     slow(faux::text_response("It is 12\u00b0C with drizzle in Oslo."))},
                    {weather});
  auto r = run_printed(*demo, "Weather in Oslo?");
  claim(r && ran == 1 && demo->model->request_count() == 2,
        "the loop iterated on the tool call, not on the stop reason (tool ran once, 2 model calls)");
}

void parallel_calls_overlap_in_call_order() {
  heading("2. three parallel tool calls overlap in time and come back in call order");
  std::latch all_started(3);
  std::atomic<bool> overlapped{true};
  auto fetch = tool("fetch_page", "Fetch a page", [&](const json::Value& args, const ToolContext&) {
    all_started.count_down();
    // Each waits for the other two to have started: impossible one at a time.
    if (!all_started.try_wait()) {
      auto deadline = std::chrono::steady_clock::now() + 3s;
      while (!all_started.try_wait() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
      if (!all_started.try_wait()) overlapped = false;
    }
    std::string page(args.find("page")->as_string());
    std::this_thread::sleep_for(page == "a" ? 120ms : page == "b" ? 60ms : 10ms);  // c finishes first
    return ToolResult::text_result("contents of " + page);
  });
  auto demo = build({faux::tool_call_response({faux::tool_call("c_a", "fetch_page", R"({"page":"a"})"),
                                               faux::tool_call("c_b", "fetch_page", R"({"page":"b"})"),
                                               faux::tool_call("c_c", "fetch_page", R"({"page":"c"})")}),
                     slow(faux::text_response("Read all three."))},
                    {fetch});
  auto r = run_printed(*demo, "Read pages a, b and c");
  std::vector<std::string> order;
  if (r) {
    for (const auto& m : r->messages) {
      if (const auto* t = std::get_if<ToolResultMessage>(&m)) order.push_back(t->tool_use_id);
    }
  }
  claim(overlapped.load(), "all three handlers were running at the same time");
  claim(order == std::vector<std::string>{"c_a", "c_b", "c_c"},
        "results entered the transcript in call order (a, b, c) though c finished first");
}

void truncated_call_not_executed() {
  heading("3. a tool call cut off by the output-token limit is not executed");
  std::atomic<int> ran{0};
  auto edit = tool("edit_file", "Edit a file", [&](const json::Value&, const ToolContext&) {
    ++ran;
    return ToolResult::text_result("edited");
  });
  // The arguments look complete and valid, but the response hit max_tokens: they may be cut.
  auto demo = build({faux::tool_call_response({faux::tool_call("call_e", "edit_file", R"({"path":"main.cpp","new":"int ma"})")},
                                              StopReason::length),
                     slow(faux::text_response("I will re-issue the edit in smaller pieces."))},
                    {edit});
  auto r = run_printed(*demo, "Rewrite main.cpp");
  claim(r && ran == 0, "edit_file never ran; the model got an error asking it to re-issue the call");
}

void abort_mid_batch_does_not_split_it() {
  heading("4. Ctrl-C in the middle of a batch does not split it into ran / not-ran");
  agentkit::stop_source ctrl_c;
  std::atomic<int> ran{0};
  auto step = tool("step", "One step", [&](const json::Value& args, const ToolContext& ctx) {
    if (args.find("n")->as_string() == "1") {
      say("  (the user presses Ctrl-C while step 1 runs)\n");
      ctrl_c.request_stop();
    }
    ++ran;
    return ToolResult::text_result(ctx.stop.stop_requested() ? "finished, saw the abort" : "finished");
  });
  auto demo = build({faux::tool_call_response({faux::tool_call("s1", "step", R"({"n":"1"})"),
                                               faux::tool_call("s2", "step", R"({"n":"2"})"),
                                               faux::tool_call("s3", "step", R"({"n":"3"})")}),
                     faux::text_response("never requested")},
                    {step});
  auto r = run_printed(*demo, "Run the three steps", &ctrl_c);
  int results = 0;
  if (r) {
    for (const auto& m : r->messages) results += std::holds_alternative<ToolResultMessage>(m) ? 1 : 0;
  }
  claim(r && ran == 3 && results == 3,
        "the abort was decided once, before the batch: all 3 handlers ran, all 3 have results");
  claim(r && r->stop_reason == RunStopReason::aborted && demo->model->request_count() == 1,
        "the run ended aborted at the turn boundary, with a resumable transcript");
}

void throwing_tool_becomes_error_result() {
  heading("5. a throwing tool becomes an error result the model sees");
  auto flaky = tool("parse_config", "Parse the config", [](const json::Value&, const ToolContext&) -> ToolResult {
    throw std::runtime_error("unexpected token at line 3");
  });
  auto demo = build({faux::tool_call_response({faux::tool_call("p1", "parse_config", "{}")}),
                     slow(faux::text_response("The config has a syntax error on line 3."))},
                    {flaky});
  auto r = run_printed(*demo, "Check the config");
  bool model_saw_it = false;
  auto requests = demo->model->requests();
  if (requests.size() == 2) {
    const auto& sent = requests[1].messages.back();
    if (const auto* t = std::get_if<ToolResultMessage>(&sent)) {
      model_saw_it = t->is_error && text_of(t->content).find("line 3") != std::string::npos;
    }
  }
  claim(r && model_saw_it, "the exception text reached the model as an is_error result; the run went on");
}

void per_turn_tool_policy() {
  heading("6. a per-turn tool policy narrows what the model is offered");
  auto noop = [](const json::Value&, const ToolContext&) { return ToolResult::text_result("ok"); };
  auto demo = build({slow(faux::text_response("Only reading this time.")), slow(faux::text_response("Everything again."))},
                    {tool("read_file", "Read", noop), tool("write_file", "Write", noop), tool("search", "Search", noop)});
  auto session = demo->agent.start();
  if (!session) return claim(false, session.error().message);
  (void)session->run(Turn("Look but do not touch", ToolPolicy::only({"read_file"})));
  (void)session->run("Now do anything");
  auto reqs = demo->model->requests();
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  say("  turn 1 offered: " + list(reqs[0].tool_names) + "\n");
  say("  turn 2 offered: " + list(reqs[1].tool_names) + "\n");
  claim(reqs[0].tool_names == std::vector<std::string>{"read_file"} && reqs[1].tool_names.size() == 3,
        "the policy applied to its turn only and was never stored");
  auto bad = session->run(Turn("x", ToolPolicy::only({"delete_everything"})));
  claim(!bad && bad.error().message.find("delete_everything") != std::string::npos,
        "a policy naming a tool the agent does not have is an error: " + (bad ? std::string() : bad.error().message));
}

void duplicate_tool_name_refused() {
  heading("7. a duplicate tool name is refused, naming both owners");
  auto noop = [](const json::Value&, const ToolContext&) { return ToolResult::text_result("ok"); };
  ToolDefinition builtin = tool("search", "Built-in search", noop);
  builtin.origin = "builtin coding tools";
  ToolDefinition mine = tool("search", "My search", noop);
  mine.origin = "my_plugin";
  auto demo = build({}, {builtin, mine});
  if (demo) return claim(false, "make_agent accepted a duplicate name");
  say("  make_agent: " + demo.error().message + "\n");
  claim(demo.error().message.find("builtin coding tools") != std::string::npos &&
            demo.error().message.find("my_plugin") != std::string::npos,
        "the error names both owners");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--crash-child") == 0) {
    return agentdemo::crash_child(argv[2], argv[3]);  // scenario 8's child process
  }
  if (int step = agentdemo::approval_child_step(argc, argv); step >= 0) return step;
  bool check = argc > 1 && std::strcmp(argv[1], "--check") == 0;
  std::signal(SIGINT, on_sigint);
  say("agentdemo: the AgentKit loop, offline, against a scripted model.\n");
  stop_reason_stop_still_runs_tools();
  parallel_calls_overlap_in_call_order();
  truncated_call_not_executed();
  abort_mid_batch_does_not_split_it();
  throwing_tool_becomes_error_result();
  per_turn_tool_policy();
  duplicate_tool_name_refused();
  g_failures += agentdemo::kill_and_resume(argv[0]);
  agentdemo::approval_across_processes({say, claim});
  agentdemo::delegations_under_a_shared_budget({say, claim});
  agentdemo::long_conversation_compacts_once({say, claim});
  say(g_failures == 0 ? "\nAll scenarios behaved as claimed.\n"
                      : "\n" + std::to_string(g_failures) + " claim(s) did not hold.\n");
  return check && g_failures != 0 ? 1 : 0;
}
