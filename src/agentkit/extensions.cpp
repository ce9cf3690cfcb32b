// Stop policies and the retry middleware.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <mutex>
#include <random>

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

bool sleep_for(std::chrono::milliseconds d, agentkit::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  return !cv.wait_for(lock, stop, d, [] { return false; }) && !stop.stop_requested();
}

std::chrono::milliseconds backoff(const RetryOptions& o, int attempt, std::mt19937& rng) {
  auto base = o.base_delay.count();
  long long delay = base;
  for (int i = 1; i < attempt && delay < o.max_delay.count(); ++i) delay *= 2;
  delay = std::min<long long>(delay, o.max_delay.count());
  // Up to 25 % downward jitter, never upward: the cap stays a cap.
  std::uniform_int_distribution<long long> jitter(0, delay / 4);
  return std::chrono::milliseconds(delay - jitter(rng));
}

}  // namespace

// One classifier for the whole library: the REQ-PROV-14 deny-then-allow lists of the provider
// machinery, so the retry middleware and the providers never disagree on what is transient.
bool is_retryable_error(const AssistantMessage& message) { return providers::is_retryable_error(message); }

Middleware retry_middleware(RetryOptions options) {
  if (!options.retryable) options.retryable = is_retryable_error;
  if (options.max_attempts < 1) options.max_attempts = 1;
  return [options](ModelCall next) -> ModelCall {
    return [options, next](const Request& req, const StreamOptions& opts, const EventCallback& emit,
                           agentkit::stop_token stop) -> AssistantMessage {
      std::mt19937 rng(std::random_device{}());
      for (int attempt = 1;; ++attempt) {
        AssistantMessage reply = next(req, opts, emit, stop);
        if (reply.stop_reason == StopReason::aborted || attempt >= options.max_attempts ||
            !options.retryable(reply)) {
          return reply;
        }
        if (!sleep_for(backoff(options, attempt, rng), stop)) {
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
