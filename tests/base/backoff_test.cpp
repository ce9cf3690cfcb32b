#include "agentkit/base/backoff.hpp"

#include <set>

#include "support/catch.hpp"

using agentkit::backoff_delay;
using agentkit::BackoffPolicy;
using std::chrono::milliseconds;

namespace {
const BackoffPolicy kDefault{};  // 500 ms doubling to 8 s
}  // namespace

TEST_CASE("the backoff doubles from the initial delay until the cap and then stays there") {
  const long long expected[] = {500, 1000, 2000, 4000, 8000, 8000, 8000};
  for (int retry = 0; retry < 7; ++retry) {
    INFO("retry " << retry);
    CHECK(backoff_delay(kDefault, retry, 0.0).count() == expected[retry]);
  }
  CHECK(backoff_delay(kDefault, 1'000'000, 0.0).count() == 8000);  // no overflow, still the cap
  // A cap that is no power-of-two multiple of the start: the doubling overshoots it and is cut.
  const BackoffPolicy odd{milliseconds(500), milliseconds(7000)};
  CHECK(backoff_delay(odd, 3, 0.0).count() == 4000);
  CHECK(backoff_delay(odd, 4, 0.0).count() == 7000);
}

TEST_CASE("jitter only shortens the backoff, by at most a quarter") {
  CHECK(backoff_delay(kDefault, 2, 0.5).count() == 2000 - 250);
  CHECK(backoff_delay(kDefault, 2, 0.999999).count() == 1501);
  CHECK(backoff_delay(kDefault, 4, 0.999999).count() >= 6000);
  // Draws outside [0, 1] are clamped: never longer than the cap, never shorter than 75 %.
  CHECK(backoff_delay(kDefault, 4, -3.0).count() == 8000);
  CHECK(backoff_delay(kDefault, 4, 7.0).count() == 6000);
}

TEST_CASE("negative policy durations count as zero") {
  CHECK(backoff_delay({milliseconds(-5), milliseconds(100)}, 3, 0.0).count() == 0);
  CHECK(backoff_delay({milliseconds(50), milliseconds(-1)}, 0, 0.0).count() == 0);
  CHECK(backoff_delay({milliseconds(300), milliseconds(100)}, 0, 0.0).count() == 100);
}

TEST_CASE("jitter draws lie in [0, 1) and vary") {
  agentkit::BackoffJitter jitter;
  std::set<double> seen;
  for (int i = 0; i < 1000; ++i) {
    const double unit = jitter.next();
    REQUIRE(unit >= 0.0);
    REQUIRE(unit < 1.0);
    seen.insert(unit);
  }
  CHECK(seen.size() > 900);
}
