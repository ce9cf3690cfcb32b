// agentkit::stop_token, stop_source, stop_callback and jthread. The same cases run twice: in
// test_base against whatever base/stop_token.hpp names on this standard library, and in
// test_base_fallback against the library's own implementation (AGENTKIT_FORCE_STD_FALLBACKS).
#include "agentkit/base/stop_token.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "agentkit/base/thread.hpp"
#include "support/catch.hpp"

using namespace std::chrono_literals;

namespace {
// A bound for waits that only a broken implementation reaches; never a timing assertion.
constexpr auto kHang = 20s;
}  // namespace

TEST_CASE("request_stop is true exactly once and every token of the source sees the stop") {
  agentkit::stop_source source;
  agentkit::stop_token a = source.get_token();
  agentkit::stop_token b = a;
  CHECK_FALSE(b.stop_requested());
  CHECK(source.request_stop());
  CHECK_FALSE(source.request_stop());
  CHECK_FALSE(agentkit::stop_source(source).request_stop());
  CHECK(a.stop_requested());
  CHECK(b.stop_requested());
  CHECK(source.stop_requested());
  CHECK(a == b);
  CHECK_FALSE(a == agentkit::stop_source().get_token());
}

TEST_CASE("a token can be stopped only while a source lives or after a stop") {
  CHECK_FALSE(agentkit::stop_token().stop_possible());
  CHECK_FALSE(agentkit::stop_source(agentkit::nostopstate).stop_possible());
  CHECK_FALSE(agentkit::stop_source(agentkit::nostopstate).request_stop());
  agentkit::stop_token orphan;
  agentkit::stop_token stopped;
  {
    agentkit::stop_source first;
    agentkit::stop_source second;
    orphan = first.get_token();
    stopped = second.get_token();
    CHECK(orphan.stop_possible());
    second.request_stop();
  }
  CHECK_FALSE(orphan.stop_possible());
  CHECK(stopped.stop_possible());
  CHECK(stopped.stop_requested());
}

TEST_CASE("a moved-from source has no state and its token keeps the stop state alive") {
  agentkit::stop_source source;
  agentkit::stop_token token = source.get_token();
  agentkit::stop_source moved = std::move(source);
  CHECK_FALSE(source.stop_possible());  // NOLINT(bugprone-use-after-move): the state moved
  CHECK(moved.request_stop());
  CHECK(token.stop_requested());
}

TEST_CASE("a callback registered on a stopped token runs at once on the registering thread") {
  agentkit::stop_source source;
  source.request_stop();
  std::thread::id ran_on;
  agentkit::stop_callback cb(source.get_token(), [&] { ran_on = std::this_thread::get_id(); });
  CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("request_stop runs every registered callback before it returns, on its own thread") {
  agentkit::stop_source source;
  std::vector<std::thread::id> ran_on;
  agentkit::stop_callback one(source.get_token(),
                              [&] { ran_on.push_back(std::this_thread::get_id()); });
  agentkit::stop_callback two(source.get_token(),
                              [&] { ran_on.push_back(std::this_thread::get_id()); });
  std::thread::id stopper;
  std::thread([&] {
    stopper = std::this_thread::get_id();
    source.request_stop();
    CHECK(ran_on.size() == 2);
  }).join();
  REQUIRE(ran_on.size() == 2);
  CHECK(ran_on[0] == stopper);
  CHECK(ran_on[1] == stopper);
}

TEST_CASE("a callback destroyed before the stop never runs, and a token without state runs none") {
  agentkit::stop_source source;
  int runs = 0;
  {
    agentkit::stop_callback cb(source.get_token(), [&] { ++runs; });
  }
  agentkit::stop_callback stateless(agentkit::stop_token(), [&] { ++runs; });
  source.request_stop();
  CHECK(runs == 0);
}

TEST_CASE("a callback registered by a running callback runs at once, and one may destroy itself") {
  agentkit::stop_source source;
  std::optional<agentkit::stop_callback<std::function<void()>>> inner;
  std::optional<agentkit::stop_callback<std::function<void()>>> self;
  int inner_runs = 0;
  agentkit::stop_callback outer(source.get_token(),
                                [&] { inner.emplace(source.get_token(), [&] { ++inner_runs; }); });
  bool self_ran = false;
  self.emplace(source.get_token(), [&] {
    self_ran = true;
    self.reset();  // destroying itself from inside its own run must not wait for itself
  });
  CHECK(source.request_stop());
  CHECK(inner_runs == 1);
  CHECK(self_ran);
  CHECK_FALSE(self.has_value());
}

TEST_CASE("destroying a callback that another thread is running waits until it has finished") {
  agentkit::stop_source source;
  std::promise<void> started;
  std::promise<void> release;
  std::atomic<bool> finished{false};
  using Callback = agentkit::stop_callback<std::function<void()>>;
  auto cb = std::make_unique<Callback>(source.get_token(), [&] {
    started.set_value();
    release.get_future().wait();
    finished = true;
  });
  std::thread stopper([&] { source.request_stop(); });
  REQUIRE(started.get_future().wait_for(kHang) == std::future_status::ready);
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    cb.reset();
    destroyed = true;
    CHECK(finished);  // the destructor returned only after the callback completed
  });
  std::this_thread::sleep_for(50ms);  // give a broken destructor the chance to return early
  CHECK_FALSE(destroyed);
  release.set_value();
  destroyer.join();
  stopper.join();
  CHECK(destroyed);
}

TEST_CASE("a jthread passes its stop token first when the callable takes one") {
  std::promise<bool> possible;
  std::promise<int> sum;
  agentkit::jthread with_token(
      [&](agentkit::stop_token st, int x) {
        possible.set_value(st.stop_possible());
        sum.set_value(x);
      },
      41);
  CHECK(possible.get_future().get());
  CHECK(sum.get_future().get() == 41);
  std::promise<int> plain;
  agentkit::jthread without_token([&](int x) { plain.set_value(x); }, 7);
  CHECK(plain.get_future().get() == 7);
}

TEST_CASE("destroying or assigning over a running jthread requests a stop and joins it") {
  std::atomic<int> stopped_workers{0};
  auto worker = [&](agentkit::stop_token st) {
    std::promise<void> stop_seen;  // park until the stop arrives
    agentkit::stop_callback cb(st, [&] { stop_seen.set_value(); });
    stop_seen.get_future().wait();
    ++stopped_workers;
  };
  {
    agentkit::jthread t(worker);
    CHECK(t.joinable());
    CHECK(t.get_stop_token().stop_possible());
  }
  CHECK(stopped_workers == 1);  // the destructor joined after stopping it
  agentkit::jthread t(worker);
  t = agentkit::jthread(worker);
  CHECK(stopped_workers == 2);
  CHECK(t.get_stop_source().request_stop());
  t.join();
  CHECK(stopped_workers == 3);
  CHECK_FALSE(t.joinable());
  CHECK_FALSE(agentkit::jthread().joinable());
  CHECK_FALSE(agentkit::jthread().get_stop_token().stop_possible());
}
