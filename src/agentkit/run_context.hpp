// State of one run, shared by the loop (loop.cpp) and the batch executor (batch.cpp).
#pragma once

#include <set>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <vector>

#include "internal.hpp"

namespace agentkit::detail {

struct RunContext {
  SessionCore& session;
  AgentCore& agent;
  agentkit::stop_token stop;  // fires on the caller's token, on close(), never on a tool timeout
  std::set<std::string, std::less<>> offered;  // tool names offered this run (policy applied)
  int turn_index = 0;

  void emit(Event e) {
    if (session.has_listeners()) session.emit(std::move(e));
  }
};

struct BatchOutcome {
  std::vector<ToolResultMessage> results;  // one per call, in call order
  bool all_voted_terminate = false;
};

// Runs one batch in three phases (prepare sequentially, execute, finalize under a batch mutex).
// Every call gets exactly one start event, one end event and one result, on every path.
BatchOutcome run_tool_batch(RunContext& rc, const AssistantMessage& message);

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

}  // namespace agentkit::detail
