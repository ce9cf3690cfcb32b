// HTTP dates (RFC 9110 §5.6.7): the three forms a Retry-After (or Date) header may carry.
//
// Decisions left here: a two-digit RFC 850 year below 50 is 20xx, else 19xx (the RFC's "more than
// 50 years in the future" rule, pivoted on 2000, right until 2050); a leap second (":60") is read;
// a calendar date that does not exist (30 Feb) is not a date.
#include <array>
#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "agentkit/base/strings.hpp"
#include "agentkit/http/message.hpp"

namespace agentkit::http {
namespace {

// ---- HTTP dates (RFC 9110 §5.6.7) ---------------------------------------------------------------

constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::optional<int> month_index(std::string_view m) {
  for (std::size_t i = 0; i < kMonths.size(); ++i) {
    if (kMonths[i] == m) return static_cast<int>(i) + 1;
  }
  return std::nullopt;
}

std::optional<int> number(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

struct CivilTime {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

std::optional<CivilTime> parse_clock(std::string_view hms, CivilTime t) {
  if (hms.size() != 8 || hms[2] != ':' || hms[5] != ':') return std::nullopt;
  auto h = number(hms.substr(0, 2));
  auto m = number(hms.substr(3, 2));
  auto s = number(hms.substr(6, 2));
  if (!h || !m || !s || *h > 23 || *m > 59 || *s > 60) return std::nullopt;  // 60: leap second
  t.hour = *h;
  t.minute = *m;
  t.second = *s;
  return t;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  for (auto piece : split(s, ' ')) {
    if (!piece.empty()) out.push_back(piece);
  }
  return out;
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
std::optional<CivilTime> parse_imf_fixdate(const std::vector<std::string_view>& w) {
  if (w.size() != 6 || w[0].size() != 4 || w[0].back() != ',' || w[5] != "GMT" || w[1].size() != 2)
    return std::nullopt;
  auto day = number(w[1]);
  auto month = month_index(w[2]);
  auto year = w[3].size() == 4 ? number(w[3]) : std::nullopt;
  if (!day || !month || !year) return std::nullopt;
  return parse_clock(w[4], CivilTime{*year, *month, *day});
}

// "Sunday, 06-Nov-94 08:49:37 GMT" — a two-digit year more than 50 years ahead is in the past
// century (RFC 9110 §5.6.7); relative to 2000 here, which is right until 2050.
std::optional<CivilTime> parse_rfc850(const std::vector<std::string_view>& w) {
  if (w.size() != 4 || w[0].back() != ',' || w[3] != "GMT" || w[1].size() != 9 || w[1][2] != '-' ||
      w[1][6] != '-') {
    return std::nullopt;
  }
  auto day = number(w[1].substr(0, 2));
  auto month = month_index(w[1].substr(3, 3));
  auto yy = number(w[1].substr(7, 2));
  if (!day || !month || !yy) return std::nullopt;
  constexpr int kPivot = 50;
  int year = *yy + (*yy < kPivot ? 2000 : 1900);
  return parse_clock(w[2], CivilTime{year, *month, *day});
}

// "Sun Nov  6 08:49:37 1994"
std::optional<CivilTime> parse_asctime(const std::vector<std::string_view>& w) {
  if (w.size() != 5 || w[0].size() != 3) return std::nullopt;
  auto month = month_index(w[1]);
  auto day = w[2].size() <= 2 ? number(w[2]) : std::nullopt;
  auto year = w[4].size() == 4 ? number(w[4]) : std::nullopt;
  if (!month || !day || !year) return std::nullopt;
  return parse_clock(w[3], CivilTime{*year, *month, *day});
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  auto w = words(trim_ows(text));
  std::optional<CivilTime> t = parse_imf_fixdate(w);
  if (!t) t = parse_rfc850(w);
  if (!t) t = parse_asctime(w);
  if (!t) return std::nullopt;
  std::chrono::year_month_day ymd{std::chrono::year(t->year),
                                  std::chrono::month(static_cast<unsigned>(t->month)),
                                  std::chrono::day(static_cast<unsigned>(t->day))};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days(ymd) + std::chrono::hours(t->hour) +
         std::chrono::minutes(t->minute) + std::chrono::seconds(t->second);
}

}  // namespace agentkit::http
