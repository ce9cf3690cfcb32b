// agentkit/base/clock.hpp — the clock seam: monotonic time, wall time and a cancellable sleep.
//
//   agentkit::SystemClock clock;
//   auto deadline = clock.now() + std::chrono::seconds(5);
//   if (!clock.sleep_for(std::chrono::milliseconds(500), stop)) return;  // woke on cancellation
//
//   agentkit::ManualClock fake;                       // tests: time moves only when told
//   agentkit::jthread sleeper([&](agentkit::stop_token st) { fake.sleep_for(std::chrono::seconds(8), st); });
//   fake.advance(std::chrono::seconds(8));           // wakes the sleeper, no real waiting
//
// Components that wait (retry backoff, timeouts, token expiry) take a `const Clock&` so tests run
// deterministically. A sleep always wakes when its agentkit::stop_token fires: no wait in the library is
// uninterruptible.
//
// Thread safety: SystemClock is stateless. ManualClock is safe to use from many threads at once.
#pragma once

#include <chrono>
#include <memory>
#include "agentkit/base/stop_token.hpp"

namespace agentkit {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time, for deadlines and durations.
  virtual std::chrono::steady_clock::time_point now() const = 0;
  // Calendar time, for expiry stamps and HTTP dates.
  virtual std::chrono::system_clock::time_point wall_now() const = 0;
  // Waits `duration` or until `stop` fires, whichever is first. True when the whole duration
  // passed, false when it was cut short by the stop token (a zero or negative duration returns
  // !stop.stop_requested() at once).
  virtual bool sleep_for(std::chrono::nanoseconds duration, agentkit::stop_token stop) const = 0;
};

// The real clocks of the operating system.
class SystemClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override;
  std::chrono::system_clock::time_point wall_now() const override;
  bool sleep_for(std::chrono::nanoseconds duration, agentkit::stop_token stop) const override;
};

// A clock for tests: starts at the given instants and moves only through advance(). Sleepers wake
// when the manual time reaches their deadline or their stop token fires.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(
      std::chrono::system_clock::time_point wall_start = std::chrono::system_clock::time_point{});
  ~ManualClock() override;
  ManualClock(const ManualClock&) = delete;
  ManualClock& operator=(const ManualClock&) = delete;

  std::chrono::steady_clock::time_point now() const override;
  std::chrono::system_clock::time_point wall_now() const override;
  bool sleep_for(std::chrono::nanoseconds duration, agentkit::stop_token stop) const override;

  // Moves both clocks forward and wakes every sleeper whose deadline has come.
  void advance(std::chrono::nanoseconds by);
  // Number of threads currently inside sleep_for.
  int sleepers() const;
  // Blocks until at least `count` threads are inside sleep_for (a structural barrier for tests).
  void wait_for_sleepers(int count) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace agentkit
