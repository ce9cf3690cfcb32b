// State of one run, shared by the loop (loop.cpp) and the batch executor (batch.cpp).
#pragma once

#include <set>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <variant>
#include <vector>

#include "internal.hpp"
#include "trace_sites.hpp"

namespace agentkit::detail {

struct RunContext {
  SessionCore& session;
  AgentCore& agent;
  // Fires on the caller's token, on close() and at the run's wall-time deadline; never on a tool
  // timeout.
  agentkit::stop_token stop;
  std::set<std::string, std::less<>> offered;  // tool names offered this run (policy applied)
  int turn_index = 0;
  trace::SpanPtr run_span = tracing::noop_span();  // invoke_agent: the parent of this run's spans
  // The run's budget (LoopConfig::budget; a subagent's slice) and what its tool calls see of the
  // run (ToolContext::run). Set by the loop before the first turn.
  std::shared_ptr<BudgetLedger> budget;
  RunScope scope;

  // Every error the run emits also reaches TurnHooks::on_error, on the emitting thread.
  void emit(Event e) {
    if (const auto* error = std::get_if<ErrorEvent>(&e)) report_error(error->error);
    if (!session.has_listeners()) return;
    if (scope.locks && scope.depth == 0) {
      // A top-level run: its own events and its subagents' (delivered from their threads) reach
      // observers one at a time.
      std::lock_guard lock(scope.locks->events);
      session.emit(std::move(e));
      return;
    }
    session.emit(std::move(e));
  }

 private:
  // A throwing on_error is reported to listeners only: handing its own failure back to it could
  // loop.
  void report_error(const Error& error);
};

struct BatchOutcome {
  std::vector<ToolResultMessage> results;  // one per call, in call order
  bool all_voted_terminate = false;
  // Not empty: the batch is held for a person. No handler ran, no event was emitted, `results`
  // is empty.
  std::vector<PendingApproval> pending;
};

// Runs one batch in three phases (prepare sequentially, execute, finalize under a batch mutex).
// Every call gets exactly one start event, one end event and one result, on every path, unless
// a call needs approval: then nothing of the batch happens and `pending` lists the asks.
// `held`: the approval book of a batch held earlier and now run (decisions, started calls);
// `answered`: calls of `message` whose results are already in the history (skipped).
BatchOutcome run_tool_batch(RunContext& rc, const AssistantMessage& message,
                            const ApprovalBook* held = nullptr,
                            const std::set<std::string, std::less<>>* answered = nullptr);

// Calls `f` and turns any exception into an error text. Answers true when `f` returned normally.
template <class F>
bool call_guarded(F&& f, std::string& failure) noexcept {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  return false;
}

inline void RunContext::report_error(const Error& error) {
  const auto& hook = agent.runtime.extensions.hooks.on_error;
  if (!hook) return;
  std::string failure;
  if (!call_guarded([&] { hook(error); }, failure) && session.has_listeners()) {
    session.emit(
        ErrorEvent{make_error(Errc::internal, "the on_error hook threw: " + failure), false});
  }
}

}  // namespace agentkit::detail
