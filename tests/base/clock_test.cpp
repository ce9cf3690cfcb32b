#include "agentkit/base/clock.hpp"

#include <atomic>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "support/catch.hpp"

using namespace std::chrono_literals;

TEST_CASE("a manual clock moves only when advanced, and wakes a sleeper at its deadline") {
  agentkit::ManualClock clock;
  const auto start = clock.now();
  std::atomic<int> result{-1};
  agentkit::jthread sleeper([&](agentkit::stop_token st) { result = clock.sleep_for(8s, st) ? 1 : 0; });
  clock.wait_for_sleepers(1);
  clock.advance(7s);
  CHECK(clock.sleepers() == 1);  // 7 s < 8 s: still asleep (checked after advance took the lock)
  clock.advance(1s);
  sleeper.join();
  CHECK(result == 1);
  CHECK(clock.now() - start == 8s);
}

TEST_CASE("a sleep wakes at once when its stop token fires") {
  agentkit::ManualClock manual;
  agentkit::SystemClock real;
  for (const agentkit::Clock* clock : {static_cast<const agentkit::Clock*>(&manual),
                                       static_cast<const agentkit::Clock*>(&real)}) {
    std::atomic<int> result{-1};
    std::atomic<bool> entered{false};
    agentkit::jthread sleeper([&](agentkit::stop_token st) {
      entered = true;
      result = clock->sleep_for(std::chrono::hours(1), st) ? 1 : 0;
    });
    while (!entered) std::this_thread::yield();
    sleeper.request_stop();
    sleeper.join();  // would hang for an hour if the stop token were ignored
    CHECK(result == 0);
  }
}

TEST_CASE("a zero sleep returns at once and reports a pending stop") {
  agentkit::SystemClock clock;
  agentkit::stop_source src;
  CHECK(clock.sleep_for(0s, src.get_token()));
  src.request_stop();
  CHECK_FALSE(clock.sleep_for(0s, src.get_token()));
  CHECK_FALSE(clock.sleep_for(1s, src.get_token()));
}

TEST_CASE("wall time of a manual clock starts where it is told") {
  const auto start = std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365);
  agentkit::ManualClock clock(start);
  clock.advance(90s);
  CHECK(clock.wall_now() - start == 90s);
}
