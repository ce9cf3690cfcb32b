// agentkit::condition_variable_any: its stop-token waits end on a stop as well as on the predicate.
// Runs in test_base and, against the library's own stop types, in test_base_fallback.
#include "agentkit/base/condition_variable.hpp"

#include <chrono>
#include <future>
#include <mutex>

#include "agentkit/base/thread.hpp"
#include "support/catch.hpp"

using namespace std::chrono_literals;

namespace {
constexpr auto kHang = 20s;  // only a broken wait reaches this bound
}  // namespace

TEST_CASE("a stop-token wait returns false as soon as a stop arrives before the predicate holds") {
  // Repeated so a stop landing between the waiter's check and its sleep would show as a hang.
  for (int round = 0; round < 200; ++round) {
    std::mutex m;
    agentkit::condition_variable_any cv;
    agentkit::stop_source source;
    std::promise<bool> result;
    agentkit::jthread waiter([&] {
      std::unique_lock lock(m);
      // Bounded so that a wait the stop never wakes fails the REQUIRE below instead of hanging.
      result.set_value(cv.wait_for(lock, source.get_token(), kHang, [] { return false; }));
    });
    if (round % 2 == 0) std::this_thread::yield();
    source.request_stop();
    auto done = result.get_future();
    REQUIRE(done.wait_for(kHang / 2) == std::future_status::ready);
    CHECK_FALSE(done.get());
  }
}

TEST_CASE("a stop-token wait returns true once a notified predicate holds, and holds the lock") {
  std::mutex m;
  agentkit::condition_variable_any cv;
  agentkit::stop_source source;
  bool ready = false;
  std::promise<bool> owned;
  agentkit::jthread waiter([&] {
    std::unique_lock lock(m);
    const bool ok = cv.wait(lock, source.get_token(), [&] { return ready; });
    owned.set_value(ok && lock.owns_lock() && ready);
  });
  {
    std::lock_guard guard(m);
    ready = true;
  }
  cv.notify_all();
  auto done = owned.get_future();
  REQUIRE(done.wait_for(kHang) == std::future_status::ready);
  CHECK(done.get());
}

TEST_CASE("a stop-token wait on a stopped token does not sleep and reports the predicate") {
  std::mutex m;
  agentkit::condition_variable_any cv;
  agentkit::stop_source source;
  source.request_stop();
  std::unique_lock lock(m);
  CHECK_FALSE(cv.wait(lock, source.get_token(), [] { return false; }));
  CHECK(cv.wait(lock, source.get_token(), [] { return true; }));
  CHECK_FALSE(cv.wait_for(lock, source.get_token(), 1h, [] { return false; }));
  CHECK(lock.owns_lock());
}

TEST_CASE("timed waits end at their deadline with the predicate's value") {
  std::mutex m;
  agentkit::condition_variable_any cv;
  std::unique_lock lock(m);
  agentkit::stop_source source;
  CHECK_FALSE(cv.wait_for(lock, source.get_token(), 1ms, [] { return false; }));
  CHECK_FALSE(cv.wait_for(lock, 1ms, [] { return false; }));
  CHECK(cv.wait_until(lock, std::chrono::steady_clock::now() + 1ms, [] { return true; }));
  CHECK(cv.wait_until(lock, std::chrono::system_clock::now() - 1s) == std::cv_status::timeout);
  CHECK(lock.owns_lock());
}

TEST_CASE("a stop requested while holding the waiter's mutex wakes the waiter without deadlock") {
  std::mutex m;
  agentkit::condition_variable_any cv;
  agentkit::stop_source source;
  std::promise<void> waiting;
  std::promise<bool> result;
  bool flagged = false;
  agentkit::jthread waiter([&] {
    std::unique_lock lock(m);
    flagged = true;
    waiting.set_value();
    result.set_value(cv.wait_for(lock, source.get_token(), kHang, [] { return false; }));
  });
  waiting.get_future().wait();
  {
    std::lock_guard guard(m);  // the waiter sleeps with m released, so this lock is ours
    CHECK(flagged);
    source.request_stop();  // its callback takes only the internal mutex
  }
  auto done = result.get_future();
  REQUIRE(done.wait_for(kHang / 2) == std::future_status::ready);
  CHECK_FALSE(done.get());
}
