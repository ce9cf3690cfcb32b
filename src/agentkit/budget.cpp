// The run budget ledger: see budget.hpp.
#include "budget.hpp"

#include "deadline_timer.hpp"
#include "run_context.hpp"

#include <algorithm>
#include <cstdio>

namespace agentkit::detail {
namespace {

std::int64_t tokens_of(const Usage& u) { return u.total_tokens(); }

std::string format_usd(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "$%.4f", v);
  return buf;
}

}  // namespace

BudgetLedger::BudgetLedger(const RunBudget& limit, Clock::time_point start,
                           std::shared_ptr<BudgetLedger> parent)
    : limit_(limit), parent_(std::move(parent)) {
  if (limit.wall_time) deadline_ = start + *limit.wall_time;
}

void BudgetLedger::charge(const Usage& usage) {
  const std::int64_t tokens = tokens_of(usage);
  const double usd = usage.cost.total;
  if (tokens == 0 && usd == 0) return;
  // The part of this charge the parent had reserved for us: it moves from held to spent there.
  std::int64_t from_held_tokens = 0;
  double from_held_usd = 0;
  {
    std::lock_guard lock(mu_);
    if (limit_.tokens)
      from_held_tokens = std::clamp<std::int64_t>(*limit_.tokens - spent_tokens_, 0, tokens);
    if (limit_.usd) from_held_usd = std::clamp(*limit_.usd - spent_usd_, 0.0, usd);
    spent_tokens_ += tokens;
    spent_usd_ += usd;
  }
  if (parent_) parent_->absorb(tokens, usd, from_held_tokens, from_held_usd);
}

void BudgetLedger::absorb(std::int64_t tokens, double usd, std::int64_t held_tokens,
                          double held_usd) {
  {
    std::lock_guard lock(mu_);
    held_tokens_ = std::max<std::int64_t>(0, held_tokens_ - held_tokens);
    held_usd_ = std::max(0.0, held_usd_ - held_usd);
  }
  Usage spent;
  spent.input_tokens = tokens;
  spent.cost.total = usd;
  charge(spent);  // our own reservation with our parent, if any, is drawn down the same way
}

bool BudgetLedger::exhausted() const { return !exhausted_by().empty(); }

std::string BudgetLedger::exhausted_by() const {
  std::lock_guard lock(mu_);
  if (limit_.tokens && spent_tokens_ >= *limit_.tokens) return "tokens";
  if (limit_.usd && spent_usd_ >= *limit_.usd) return "usd";
  if (deadline_ && Clock::now() >= *deadline_) return "wall_time";
  return {};
}

Result<RunBudget> BudgetLedger::reserve(const RunBudget& caps, std::optional<double> share) {
  const double fraction = share ? std::clamp(*share, 0.0, 1.0) : 1.0;
  std::lock_guard lock(mu_);
  RunBudget slice = caps;
  if (limit_.tokens) {
    const std::int64_t left = *limit_.tokens - spent_tokens_ - held_tokens_;
    if (left <= 0)
      return fail(Errc::limit_exceeded, "the run's token budget is spent (" +
                                            std::to_string(spent_tokens_) + " of " +
                                            std::to_string(*limit_.tokens) + " tokens used)");
    auto offer = static_cast<std::int64_t>(static_cast<double>(left) * fraction);
    offer = std::max<std::int64_t>(offer, 1);
    slice.tokens = caps.tokens ? std::min(*caps.tokens, offer) : offer;
  }
  if (limit_.usd) {
    const double left = *limit_.usd - spent_usd_ - held_usd_;
    if (left <= 0)
      return fail(Errc::limit_exceeded, "the run's USD budget is spent (" + format_usd(spent_usd_) +
                                            " of " + format_usd(*limit_.usd) + " used)");
    const double offer = left * fraction;
    slice.usd = caps.usd ? std::min(*caps.usd, offer) : offer;
  }
  if (deadline_) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - Clock::now());
    if (left.count() <= 0) return fail(Errc::limit_exceeded, "the run's wall time is spent");
    slice.wall_time = caps.wall_time ? std::min(*caps.wall_time, left) : left;
  }
  if (slice.tokens && limit_.tokens) held_tokens_ += *slice.tokens;
  if (slice.usd && limit_.usd) held_usd_ += *slice.usd;
  return slice;
}

void BudgetLedger::release(const RunBudget& slice, const BudgetLedger& child) {
  const std::int64_t child_tokens = child.spent_tokens();
  const double child_usd = child.spent_usd();
  std::lock_guard lock(mu_);
  if (slice.tokens && limit_.tokens)
    held_tokens_ = std::max<std::int64_t>(
        0, held_tokens_ - std::max<std::int64_t>(0, *slice.tokens - child_tokens));
  if (slice.usd && limit_.usd)
    held_usd_ = std::max(0.0, held_usd_ - std::max(0.0, *slice.usd - child_usd));
}

std::int64_t BudgetLedger::spent_tokens() const {
  std::lock_guard lock(mu_);
  return spent_tokens_;
}

double BudgetLedger::spent_usd() const {
  std::lock_guard lock(mu_);
  return spent_usd_;
}

WallClockStop::~WallClockStop() {
  forward_.reset();  // waits for a forward the timer's thread is running now
  if (timer_ != nullptr && ticket_ != 0) timer_->cancel(ticket_);
}

void WallClockStop::arm(DeadlineTimer& timer, BudgetLedger::Clock::time_point deadline,
                        agentkit::stop_source run) {
  // Through a source of our own, so that fired() tells the deadline from a caller's stop or
  // close(). The flag is set before the stop: the run thread wakes on the stop and may read it
  // at once. (A caller's stop landing in between is then taken for the deadline, which has
  // passed all the same.)
  forward_.emplace(deadline_.get_token(), [this, run]() mutable {
    if (run.stop_requested()) return;
    fired_.store(true, std::memory_order_release);
    run.request_stop();
  });
  timer_ = &timer;
  ticket_ = timer.schedule(deadline, deadline_);
}

void open_run_budget(RunContext& rc) {
  const Delegation* d = rc.agent.delegation.get();
  if (d != nullptr && d->budget) {
    rc.budget = d->budget;  // built from the slice, linked to the parent's ledger
  } else {
    rc.budget =
        std::make_shared<BudgetLedger>(rc.agent.runtime.loop.budget, BudgetLedger::Clock::now());
  }
  rc.scope = RunScope{&rc.session,      &rc.agent,
                      rc.budget,        d ? d->depth : 0,
                      d ? d->path : "", d && d->locks ? d->locks : std::make_shared<TreeLocks>()};
}

tracing::Span* delegation_parent_span(const AgentCore& agent) {
  return agent.delegation ? agent.delegation->parent_span : nullptr;
}

std::string describe_exhaustion(const RunContext& rc) {
  const RunBudget& limit = rc.agent.runtime.loop.budget;
  const std::string by = rc.budget->exhausted_by();
  if (by == "tokens" && limit.tokens) {
    return "the run's token budget ran out (" + std::to_string(rc.budget->spent_tokens()) + " of " +
           std::to_string(*limit.tokens) + " tokens used)";
  }
  if (by == "usd" && limit.usd) {
    return "the run's USD budget ran out (" + format_usd(rc.budget->spent_usd()) + " of " +
           format_usd(*limit.usd) + " spent)";
  }
  if (by == "wall_time" && limit.wall_time) {
    return "the run's wall time ran out (" + std::to_string(limit.wall_time->count()) + " ms)";
  }
  return "the run's budget ran out";
}

}  // namespace agentkit::detail
