#include <memory>
#include <set>
#include <string>
#include <system_error>

#include "agentkit/base/result.hpp"
#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::Error;
using agentkit::Result;

namespace {
Result<int> half(int n) {
  if (n % 2 != 0) return agentkit::fail(Errc::invalid_argument, "odd: " + std::to_string(n));
  return n / 2;
}
}  // namespace

TEST_CASE("a result holds either a value or an error") {
  Result<int> ok = half(8);
  REQUIRE(ok.has_value());
  REQUIRE(static_cast<bool>(ok));
  CHECK(*ok == 4);
  CHECK(ok.value() == 4);

  Result<int> bad = half(3);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code == Errc::invalid_argument);
  CHECK(bad.error().message == "odd: 3");
  CHECK(bad.value_or(-1) == -1);
}

TEST_CASE("value() on an error throws BadResultAccess carrying the error") {
  Result<int> bad = half(3);
  try {
    (void)bad.value();
    FAIL("value() did not throw");
  } catch (const agentkit::BadResultAccess& e) {
    CHECK(e.error().code == Errc::invalid_argument);
  }
  Result<void> v = agentkit::fail(Errc::busy, "a run is in flight");
  CHECK_THROWS_AS(v.value(), agentkit::BadResultAccess);
}

TEST_CASE("and_then chains only on success and passes the first error through") {
  auto r = half(16).and_then(half).and_then(half);
  CHECK(*r == 2);
  auto e = half(12).and_then(half).and_then(half);  // 12 -> 6 -> 3 -> odd
  REQUIRE_FALSE(e);
  CHECK(e.error().message == "odd: 3");
}

TEST_CASE("transform maps the value, including to void, and leaves errors alone") {
  auto s = half(10).transform([](int n) { return std::to_string(n); });
  STATIC_REQUIRE(std::is_same_v<decltype(s), Result<std::string>>);
  CHECK(*s == "5");
  int seen = 0;
  Result<void> v = half(4).transform([&](int n) { seen = n; });
  CHECK(v.has_value());
  CHECK(seen == 2);
  auto e = half(1).transform([](int n) { return n * 100; });
  CHECK_FALSE(e);
}

TEST_CASE("or_else recovers from an error and is skipped on success") {
  auto r = half(1).or_else([](const Error&) -> Result<int> { return 0; });
  CHECK(*r == 0);
  int calls = 0;
  auto s = half(2).or_else([&](const Error&) -> Result<int> {
    ++calls;
    return 0;
  });
  CHECK(*s == 1);
  CHECK(calls == 0);
}

TEST_CASE("Result works with move-only values and moves them out") {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  std::unique_ptr<int> p = std::move(r).value();
  CHECK(*p == 7);
  Result<std::unique_ptr<int>> u = agentkit::Unexpected(agentkit::make_error(Errc::not_found, "x"));
  CHECK(u.error().code == Errc::not_found);
}

TEST_CASE("operator-> reaches members of the value") {
  Result<std::string> r = std::string("abc");
  CHECK(r->size() == 3);
}

TEST_CASE("Result<void> carries success or an error") {
  Result<void> ok;
  CHECK(ok.has_value());
  Result<void> bad = agentkit::fail(Errc::closed, "session closed");
  CHECK_FALSE(bad);
  CHECK(bad.error().code == Errc::closed);
  auto chained = ok.and_then([]() -> Result<int> { return 5; });
  CHECK(*chained == 5);
  auto skipped = bad.and_then([]() -> Result<int> { return 5; });
  CHECK_FALSE(skipped);
}

TEST_CASE("Errc integrates with std::error_code") {
  std::error_code ec = Errc::timeout;
  CHECK(ec.category().name() == std::string("agentkit"));
  CHECK(ec.message() == "timeout");
  CHECK(ec == Errc::timeout);
  CHECK(ec != Errc::cancelled);
  CHECK(static_cast<bool>(ec));
  CHECK(agentkit::make_error_code(Errc::busy).value() == static_cast<int>(Errc::busy));
}

TEST_CASE("errors carry ordered details and print them") {
  Error e = agentkit::make_error(Errc::already_exists, "duplicate tool name 'grep'")
                .with_detail("first", "direct")
                .with_detail("second", "mcp:files");
  CHECK(e.find_detail("second") == std::optional<std::string_view>("mcp:files"));
  CHECK_FALSE(e.find_detail("third").has_value());
  CHECK(e.to_string() ==
        "already_exists: duplicate tool name 'grep' [first=direct, second=mcp:files]");
}

TEST_CASE("every Errc has a distinct name") {
  std::set<std::string_view> names;
  for (int i = 1; i <= static_cast<int>(Errc::internal); ++i) {
    auto name = agentkit::errc_name(static_cast<Errc>(i));
    CHECK(name != "unknown");
    names.insert(name);
  }
  CHECK(names.size() == static_cast<std::size_t>(Errc::internal));
}
