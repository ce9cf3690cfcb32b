#include "agentkit/base/backoff.hpp"

#include <algorithm>
#include <cstdint>

namespace agentkit {

std::chrono::milliseconds backoff_delay(const BackoffPolicy& policy, int retry,
                                        double jitter_unit) noexcept {
  const std::int64_t cap = std::max<std::int64_t>(0, policy.max.count());
  std::int64_t delay = std::max<std::int64_t>(0, policy.initial.count());
  for (int i = 0; i < retry && delay < cap; ++i) delay *= 2;  // stops doubling once capped
  delay = std::min(delay, cap);
  jitter_unit = std::clamp(jitter_unit, 0.0, 1.0);
  const auto jitter =
      static_cast<std::int64_t>(static_cast<double>(delay) * kMaxBackoffJitter * jitter_unit);
  return std::chrono::milliseconds(delay - jitter);
}

double BackoffJitter::next() {
  if (!rng_) rng_ = std::make_unique<std::mt19937>(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(*rng_);
}

}  // namespace agentkit
