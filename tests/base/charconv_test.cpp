// agentkit::from_chars for double. Runs in test_base and, against the strtod-based replacement
// that libc++ 14 gets, in test_base_fallback; there, on libstdc++, it is also compared with
// std::from_chars over random inputs.
#include "agentkit/base/charconv.hpp"

#include <clocale>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <version>

#include "support/catch.hpp"

namespace {

struct Parsed {
  double value;
  std::errc ec;
  std::size_t used;  // characters consumed
};

Parsed parse(std::string_view text, std::chars_format format = std::chars_format::general,
             double initial = -123.0) {
  double value = initial;
  const auto [ptr, ec] =
      agentkit::from_chars(text.data(), text.data() + text.size(), value, format);
  return {value, ec, static_cast<std::size_t>(ptr - text.data())};
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("decimal text becomes the correctly rounded double") {
  CHECK(same_bits(parse("0.1").value, 0x1.999999999999ap-4));
  CHECK(same_bits(parse("1e23").value, 0x1.52d02c7e14af6p+76));
  CHECK(same_bits(parse("1.7976931348623157e308").value, std::numeric_limits<double>::max()));
  CHECK(same_bits(parse("2.2250738585072014e-308").value, std::numeric_limits<double>::min()));
  CHECK(same_bits(parse("2.2250738585072011e-308").value, 0x0.fffffffffffffp-1022));
  CHECK(
      same_bits(parse("4.9406564584124654e-324").value, std::numeric_limits<double>::denorm_min()));
  // Ties round to even; one digit far past the 17th decides a near-tie.
  CHECK(parse("9007199254740993").value == 9007199254740992.0);
  CHECK(parse("9007199254740995").value == 9007199254740996.0);
  CHECK(parse("9007199254740993.00000000000000000000000000001").value == 9007199254740994.0);
  CHECK(same_bits(parse("-0").value, -0.0));
  CHECK(parse(".5").value == 0.5);
  CHECK(parse("5.").value == 5.0);
  CHECK(parse("1E+2").value == 100.0);
}

TEST_CASE("the match is the longest number and nothing before it is skipped") {
  CHECK(parse("12.5abc").used == 4);
  CHECK(parse("1e").used == 1);
  CHECK(parse("1e+").used == 1);
  CHECK(parse("2e-3x").used == 4);
  for (const char* bad : {"", "+1", " 1", "-", ".", "e5", "abc", "-.e1"}) {
    const Parsed p = parse(bad);
    CAPTURE(bad);
    CHECK(p.ec == std::errc::invalid_argument);
    CHECK(p.used == 0);
    CHECK(p.value == -123.0);  // untouched
  }
}

TEST_CASE("fixed stops before an exponent and scientific requires one") {
  const Parsed fixed = parse("1.5e3", std::chars_format::fixed);
  CHECK(fixed.value == 1.5);
  CHECK(fixed.used == 3);
  const Parsed scientific = parse("1.5e3", std::chars_format::scientific);
  CHECK(scientific.value == 1500.0);
  CHECK(scientific.used == 5);
  CHECK(parse("15", std::chars_format::scientific).ec == std::errc::invalid_argument);
}

TEST_CASE("infinity and nan are read in any case, with an optional nan payload") {
  CHECK(parse("inf").value == std::numeric_limits<double>::infinity());
  CHECK(parse("-Infinity").value == -std::numeric_limits<double>::infinity());
  CHECK(parse("INFINITE").used == 3);
  CHECK(std::isnan(parse("NaN").value));
  CHECK(parse("nan(x_1)z").used == 8);
  CHECK(parse("nan(x").used == 3);
}

TEST_CASE("overflow and underflow to zero are out of range and leave the value unchanged") {
  for (const char* far : {"1e309", "-1e309", "1e-400", "-1e-400"}) {
    const Parsed p = parse(far);
    CAPTURE(far);
    CHECK(p.ec == std::errc::result_out_of_range);
    CHECK(p.used == std::strlen(far));
    CHECK(p.value == -123.0);
  }
  const Parsed subnormal = parse("4e-320");  // inexact but representable: not an error
  CHECK(subnormal.ec == std::errc());
  CHECK(same_bits(subnormal.value, 0x0.0000000001fa0p-1022));
}

TEST_CASE("the decimal point is '.' whatever the process locale") {
  const char* comma_locale = nullptr;
  for (const char* name :
       {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8"}) {
    if (std::setlocale(LC_NUMERIC, name) != nullptr) {
      comma_locale = name;
      break;
    }
  }
  if (comma_locale == nullptr) {
    WARN("skipped: no locale with a decimal comma is installed here (tried de_DE, fr_FR, ru_RU)");
    return;
  }
  const Parsed p = parse("1.5");
  std::setlocale(LC_NUMERIC, "C");
  CHECK(p.value == 1.5);
  CHECK(p.used == 3);
}

#if defined(__cpp_lib_to_chars)
TEST_CASE("the result matches std::from_chars bit for bit on random decimal text") {
  std::mt19937_64 rng(20261201);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 20000; ++i) {
    std::string text = pick(0, 3) == 0 ? "-" : "";
    const int digits = pick(1, 40);
    const int dot = pick(-1, digits);
    for (int d = 0; d < digits; ++d) {
      if (d == dot) text += '.';
      text += static_cast<char>('0' + pick(0, 9));
    }
    if (pick(0, 1) == 1) text += "e" + std::to_string(pick(-340, 320));
    if (pick(0, 4) == 0) text += "e";
    for (auto format : {std::chars_format::general, std::chars_format::fixed}) {
      double ours = -1;
      double theirs = -1;
      const auto a = agentkit::from_chars(text.data(), text.data() + text.size(), ours, format);
      const auto b = std::from_chars(text.data(), text.data() + text.size(), theirs, format);
      CAPTURE(text);
      REQUIRE(a.ec == b.ec);
      REQUIRE(a.ptr == b.ptr);
      REQUIRE(same_bits(ours, theirs));
    }
  }
}
#endif
