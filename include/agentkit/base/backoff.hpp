// agentkit/base/backoff.hpp — the one retry backoff formula: doubling, capped, jittered downward.
//
//   agentkit::BackoffPolicy policy{.initial = std::chrono::milliseconds(500),
//                                  .max = std::chrono::seconds(8)};
//   agentkit::BackoffJitter jitter;
//   auto wait = agentkit::backoff_delay(policy, 2, jitter.next());  // 2 s, shortened by < 25 %
//   if (!clock.sleep_for(wait, stop)) return;                     // sleep through the Clock seam
//
// Retry n (0-based) waits min(initial * 2^n, max), shortened by up to a quarter: jitter spreads
// out clients that failed together, and only ever shortens, so the cap stays a cap.
//
// Thread safety: backoff_delay is a pure function. A BackoffJitter belongs to one thread.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <random>

namespace agentkit {

// The largest share of the computed backoff the jitter may remove.
inline constexpr double kMaxBackoffJitter = 0.25;

// The two numbers of the formula. Safe to copy.
struct BackoffPolicy {
  // The wait before the first retry, before jitter. Negative counts as zero.
  std::chrono::milliseconds initial{500};
  // No wait is longer than this, whatever the retry number. Negative counts as zero.
  std::chrono::milliseconds max{8'000};
};

// The wait before retry `retry` (0-based) for a jitter draw `jitter_unit` in [0, 1) (clamped to
// [0, 1]): 0 gives the full delay, values towards 1 remove up to kMaxBackoffJitter of it. A huge
// `retry` stops doubling at the cap, so it never overflows.
std::chrono::milliseconds backoff_delay(const BackoffPolicy& policy, int retry,
                                        double jitter_unit) noexcept;

// Jitter draws in [0, 1). Seeded from std::random_device on the first draw only: that is a system
// call, and most operations never retry. The generator (5 KB) lives on the heap, made at that
// first draw: a jitter on every request's stack would cost each session's thread 5 KB it keeps.
// Thread safety: none; one jitter per operation.
class BackoffJitter {
 public:
  double next();

 private:
  std::unique_ptr<std::mt19937> rng_;
};

}  // namespace agentkit
