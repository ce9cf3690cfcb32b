// Stop policies and the retry middleware.
#include <algorithm>
#include <array>

#include "agentkit/base/backoff.hpp"
#include "agentkit/extensions.hpp"
#include "agentkit/providers/retry.hpp"

namespace agentkit {

// ---- Stop policies -------------------------------------------------------------------------------

StopPolicy stop_after_turns(int turns) {
  return [turns](const StopContext& ctx) {
    return StopDecision{ctx.turn_count >= turns, RunStopReason::max_turns};  // >=, not >
  };
}

StopPolicy stop_over_budget(double usd) {
  return [usd](const StopContext& ctx) {
    return StopDecision{ctx.run_usage.cost.total > usd, RunStopReason::stop_policy};  // strictly
  };
}

StopPolicy stop_when(std::function<bool(const StopContext&)> predicate) {
  return [predicate = std::move(predicate)](const StopContext& ctx) {
    return StopDecision{predicate(ctx), RunStopReason::stop_policy};
  };
}

StopPolicy stop_any(std::vector<StopPolicy> policies) {
  return [policies = std::move(policies)](const StopContext& ctx) {
    for (const auto& p : policies) {
      if (!p) continue;
      StopDecision d = p(ctx);
      if (d.stop) return d;
    }
    return StopDecision{};
  };
}

// ---- Retry -----------------------------------------------------------------------------------------

namespace {

// The clock the backoff sleeps on: the caller's, else the system's.
std::shared_ptr<const Clock> clock_of(const RetryOptions& o) {
  if (o.clock) return o.clock;
  return std::make_shared<const SystemClock>();
}

}  // namespace

// One classifier for the whole library: the REQ-PROV-14 deny-then-allow lists of the provider
// machinery, so the retry middleware and the providers never disagree on what is transient.
bool is_retryable_error(const AssistantMessage& message) { return providers::is_retryable_error(message); }

Middleware retry_middleware(RetryOptions options) {
  if (!options.retryable) options.retryable = is_retryable_error;
  if (options.max_attempts < 1) options.max_attempts = 1;
  const BackoffPolicy policy{options.base_delay, options.max_delay};
  return [options, policy, clock = clock_of(options)](ModelCall next) -> ModelCall {
    return [options, policy, clock, next](const Request& req, const StreamOptions& opts,
                                          const EventCallback& emit,
                                          agentkit::stop_token stop) -> AssistantMessage {
      BackoffJitter jitter;
      for (int attempt = 1;; ++attempt) {
        AssistantMessage reply = next(req, opts, emit, stop);
        if (reply.stop_reason == StopReason::aborted || attempt >= options.max_attempts ||
            !options.retryable(reply)) {
          return reply;
        }
        // Attempt n (1-based) just failed: that is retry n-1 of the formula.
        if (!clock->sleep_for(backoff_delay(policy, attempt - 1, jitter.next()), stop)) {
          // Cancelled during the backoff: aborted, and error_message cleared (REQ-LOOP-09a).
          reply.stop_reason = StopReason::aborted;
          reply.error_message.clear();
          reply.content.clear();
          return reply;
        }
      }
    };
  };
}

}  // namespace agentkit
