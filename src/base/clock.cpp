#include "agentkit/base/clock.hpp"

#include <condition_variable>
#include <mutex>

#include "agentkit/base/condition_variable.hpp"

namespace agentkit {

std::chrono::steady_clock::time_point SystemClock::now() const { return std::chrono::steady_clock::now(); }

std::chrono::system_clock::time_point SystemClock::wall_now() const {
  return std::chrono::system_clock::now();
}

bool SystemClock::sleep_for(std::chrono::nanoseconds duration, agentkit::stop_token stop) const {
  if (duration <= std::chrono::nanoseconds::zero()) return !stop.stop_requested();
  // condition_variable_any::wait_for with a stop_token returns as soon as the token fires, so a
  // cancelled backoff does not hold the caller for the rest of the delay.
  std::mutex m;
  agentkit::condition_variable_any cv;
  std::unique_lock lock(m);
  const bool stopped = cv.wait_for(lock, stop, duration, [] { return false; });
  return !stopped && !stop.stop_requested();
}

struct ManualClock::State {
  mutable std::mutex mutex;
  mutable agentkit::condition_variable_any changed;
  std::chrono::nanoseconds elapsed{0};
  std::chrono::system_clock::time_point wall_start;
  mutable int sleepers = 0;
};

ManualClock::ManualClock(std::chrono::system_clock::time_point wall_start)
    : state_(std::make_unique<State>()) {
  state_->wall_start = wall_start;
}

ManualClock::~ManualClock() = default;

std::chrono::steady_clock::time_point ManualClock::now() const {
  std::lock_guard lock(state_->mutex);
  return std::chrono::steady_clock::time_point{} + state_->elapsed;
}

std::chrono::system_clock::time_point ManualClock::wall_now() const {
  std::lock_guard lock(state_->mutex);
  return state_->wall_start + std::chrono::duration_cast<std::chrono::system_clock::duration>(state_->elapsed);
}

bool ManualClock::sleep_for(std::chrono::nanoseconds duration, agentkit::stop_token stop) const {
  std::unique_lock lock(state_->mutex);
  const auto deadline = state_->elapsed + duration;
  ++state_->sleepers;
  state_->changed.notify_all();  // lets sleepers() observers see the new sleeper
  const bool reached = state_->changed.wait(lock, stop, [&] { return state_->elapsed >= deadline; });
  --state_->sleepers;
  state_->changed.notify_all();
  return reached;
}

void ManualClock::advance(std::chrono::nanoseconds by) {
  std::lock_guard lock(state_->mutex);
  state_->elapsed += by;
  state_->changed.notify_all();
}

int ManualClock::sleepers() const {
  std::lock_guard lock(state_->mutex);
  return state_->sleepers;
}

void ManualClock::wait_for_sleepers(int count) const {
  std::unique_lock lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->sleepers >= count; });
}

}  // namespace agentkit
