// The run budget ledger (LoopConfig::budget) and the delegation link between a subagent's run
// and its parent's (ARCHITECTURE §7.4: the slice reserved under a lock, the spend charged live).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agentkit/base/result.hpp"
#include "agentkit/base/stop_token.hpp"
#include "agentkit/core/event.hpp"
#include "agentkit/runtime.hpp"

namespace agentkit::tracing {
class Span;
}

namespace agentkit::detail {

struct AgentCore;
struct SessionCore;
class DeadlineTimer;

// What one run may still spend, shared by the run and the children it delegates to. A child's
// ledger holds a reservation on its parent's: reserved when the child starts, drawn down by
// each charge, the rest returned by release(). Locks are never nested: a charge updates this
// ledger, lets go of its lock, then charges the parent.
class BudgetLedger {
 public:
  using Clock = std::chrono::steady_clock;

  // `limit`: this run's limits (for a child, the slice reserve() answered). `parent`: the ledger
  // the slice was reserved from; null for a top-level run.
  BudgetLedger(const RunBudget& limit, Clock::time_point start,
               std::shared_ptr<BudgetLedger> parent = nullptr);

  // Charges one model call's usage here and up the chain.
  void charge(const Usage& usage);
  // True once a limit is reached: tokens or USD spent up to the limit, or the deadline passed.
  bool exhausted() const;
  // Which limit ran out ("tokens", "usd", "wall_time"), empty when none did.
  std::string exhausted_by() const;

  // Reserves a child's slice under the lock: each dimension the lesser of the cap, `share` of
  // what is left, and what is left. Fails (with the reason) when a limited dimension has
  // nothing left.
  Result<RunBudget> reserve(const RunBudget& caps, std::optional<double> share);
  // Gives back what a child with `slice` did not spend (it spent child.spent()).
  void release(const RunBudget& slice, const BudgetLedger& child);

  std::int64_t spent_tokens() const;
  double spent_usd() const;
  // When the wall-time limit runs out; nullopt without one. Fixed at construction.
  std::optional<Clock::time_point> deadline() const noexcept { return deadline_; }

 private:
  void absorb(std::int64_t tokens, double usd, std::int64_t held_tokens, double held_usd);

  mutable std::mutex mu_;
  RunBudget limit_;
  std::optional<Clock::time_point> deadline_;
  std::int64_t spent_tokens_ = 0;
  double spent_usd_ = 0;
  std::int64_t held_tokens_ = 0;  // reserved by children and not yet spent by them
  double held_usd_ = 0;
  std::shared_ptr<BudgetLedger> parent_;
};

// A run's wall-time limit as a stop: at the deadline the run's stop source fires, so a model call
// or tool in flight is cancelled where it is, not at the next turn end (a subagent's slice would
// otherwise last as long as its slowest call).
class WallClockStop {
 public:
  WallClockStop() = default;
  WallClockStop(const WallClockStop&) = delete;
  WallClockStop& operator=(const WallClockStop&) = delete;
  ~WallClockStop();

  // Fires `run` at `deadline` from `timer`'s thread. Called at most once.
  void arm(DeadlineTimer& timer, BudgetLedger::Clock::time_point deadline,
           agentkit::stop_source run);
  // True when the deadline stopped the run, nothing having asked it to stop before.
  bool fired() const noexcept { return fired_.load(std::memory_order_acquire); }

 private:
  DeadlineTimer* timer_ = nullptr;
  std::uint64_t ticket_ = 0;
  agentkit::stop_source deadline_;
  std::optional<agentkit::stop_callback<std::function<void()>>> forward_;
  std::atomic<bool> fired_{false};
};

// Shared by every run of one delegation tree (the top-level run and all its subagents'): the
// parent's callbacks a child runs (before_tool_call, after_tool_call) are called under
// `callbacks`, and every event delivered to the top-level session under `events`, so parallel
// delegations never call the embedder's code concurrently.
struct TreeLocks {
  std::recursive_mutex callbacks;  // a grandchild calls through its parent's wrapper too
  std::mutex events;
};

// A subagent's run, as its parent's delegation built it. Set on the child's AgentCore before its
// session starts.
struct Delegation {
  std::string agent;  // the subagent's name
  std::string path;   // "name:call_id", prefixed with the parent's path when nested
  int depth = 1;
  // The child run's ledger, built from the slice with the parent's ledger as its parent.
  std::shared_ptr<BudgetLedger> budget;
  std::shared_ptr<TreeLocks> locks;
  // The parent call's execute_tool span (null when tracing is off); valid while the child runs.
  tracing::Span* parent_span = nullptr;
  // Delivers an event of the child's session to the parent's session (observers, subscribers).
  std::function<void(Event)> forward;
};

// What a tool call sees of the run it belongs to (ToolContext::run).
struct RunScope {
  SessionCore* session = nullptr;
  AgentCore* agent = nullptr;
  std::shared_ptr<BudgetLedger> budget;
  int depth = 0;     // 0: a top-level run
  std::string path;  // empty for a top-level run
  std::shared_ptr<TreeLocks> locks;
};

struct RunContext;
// Builds the run's ledger (LoopConfig::budget, linked to the parent's for a subagent's child) and
// the scope its tool calls see.
void open_run_budget(RunContext& rc);
// The parent call's execute_tool span of a subagent's child (null otherwise).
tracing::Span* delegation_parent_span(const AgentCore& agent);
// "the run's token budget ran out (1200 of 1000 tokens)", for RunResult::error_message.
std::string describe_exhaustion(const RunContext& rc);

}  // namespace agentkit::detail
