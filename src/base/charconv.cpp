#include "agentkit/base/charconv.hpp"

#include <version>

#if defined(__cpp_lib_to_chars) && !defined(AGENTKIT_FORCE_STD_FALLBACKS)

namespace agentkit {

std::from_chars_result from_chars(const char* first, const char* last, double& value,
                                  std::chars_format format) {
  return std::from_chars(first, last, value, format);
}

}  // namespace agentkit

#else

#include <locale.h>

#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

namespace agentkit {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

char lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether [p, last) starts with `word` ignoring ASCII case.
bool starts_with_word(const char* p, const char* last, const char* word) {
  for (; *word != '\0'; ++p, ++word) {
    if (p == last || lower_ascii(*p) != *word) return false;
  }
  return true;
}

const char* skip_digits(const char* p, const char* last) {
  while (p != last && is_digit(*p)) ++p;
  return p;
}

// "inf", "infinity", "nan" and "nan(chars)" after the optional sign; nullptr when not one of them.
const char* match_special(const char* p, const char* last, bool negative, double& out) {
  if (starts_with_word(p, last, "inf")) {
    out = negative ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return starts_with_word(p, last, "infinity") ? p + 8 : p + 3;
  }
  if (!starts_with_word(p, last, "nan")) return nullptr;
  out = negative ? -std::numeric_limits<double>::quiet_NaN()
                 : std::numeric_limits<double>::quiet_NaN();
  const char* q = p + 3;
  if (q == last || *q != '(') return q;
  const char* r = q + 1;
  while (r != last &&
         (is_digit(*r) || *r == '_' || (lower_ascii(*r) >= 'a' && lower_ascii(*r) <= 'z')))
    ++r;
  return (r != last && *r == ')') ? r + 1 : q;
}

// The end of the longest decimal number in `format` starting at p (after the sign), or nullptr.
const char* match_decimal(const char* p, const char* last, std::chars_format format) {
  const char* q = skip_digits(p, last);
  bool digits = q != p;
  if (q != last && *q == '.') {
    const char* fraction = q + 1;
    q = skip_digits(fraction, last);
    digits = digits || q != fraction;
  }
  if (!digits) return nullptr;
  const bool exponent_allowed =
      (format & std::chars_format::scientific) == std::chars_format::scientific;
  const bool exponent_required =
      exponent_allowed && (format & std::chars_format::fixed) != std::chars_format::fixed;
  if (exponent_allowed && q != last && (*q == 'e' || *q == 'E')) {
    const char* e = q + 1;
    if (e != last && (*e == '+' || *e == '-')) ++e;
    const char* end = skip_digits(e, last);
    if (end != e) return end;
  }
  return exponent_required ? nullptr : q;
}

// strtod correctly rounds every digit; the C locale keeps '.' the decimal point whatever the
// process locale (a German locale would otherwise stop at the '.').
double strtod_c_locale(const std::string& text) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  const locale_t previous = uselocale(c_locale);
  const double value = std::strtod(text.c_str(), nullptr);
  uselocale(previous);
  return value;
}

}  // namespace

std::from_chars_result from_chars(const char* first, const char* last, double& value,
                                  std::chars_format format) {
  const std::from_chars_result no_match{first, std::errc::invalid_argument};
  if (format == std::chars_format::hex) return no_match;
  const bool negative = first != last && *first == '-';
  const char* start = negative ? first + 1 : first;
  double special = 0;
  if (const char* end = match_special(start, last, negative, special)) {
    value = special;
    return {end, std::errc()};
  }
  const char* end = match_decimal(start, last, format);
  if (end == nullptr) return no_match;
  errno = 0;
  const double parsed = strtod_c_locale(std::string(first, end));
  // strtod flags subnormal results too; from_chars reports only a result that left the range.
  const bool out_of_range = errno == ERANGE && (std::isinf(parsed) || parsed == 0.0);
  if (out_of_range) return {end, std::errc::result_out_of_range};
  value = parsed;
  return {end, std::errc()};
}

}  // namespace agentkit

#endif
