#include "number_literal.hpp"

namespace agentkit::wire::detail {
namespace {
// Exponents are clamped here while being read: a literal like 1e999999999999999999999 must not
// overflow the accumulator, and anything this far out is decided by its sign alone (the digit
// count of a JSON text is bounded by the message size, far below it).
constexpr std::int64_t kExponentClamp = std::int64_t(1) << 40;
// 2^53 - 1 = 9007199254740991 has 16 decimal digits.
constexpr std::int64_t kMaxSafeDigits = 16;
constexpr std::int64_t kRadix = 10;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

NumberLiteral NumberLiteral::read(std::string_view text) {
  NumberLiteral n;
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    n.negative_ = true;
    ++i;
  }
  std::int64_t fraction_digits = 0;
  bool in_fraction = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      in_fraction = true;
      continue;
    }
    if (!is_digit(c)) break;
    if (in_fraction) ++fraction_digits;
    if (c == '0' && n.digits_.empty()) continue;  // leading zeros carry no value
    n.digits_.push_back(c);
  }
  // The kept digits start at the first non-zero one; the trailing fraction digits still count.
  std::int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative_exponent = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative_exponent = text[i++] == '-';
    for (; i < text.size() && is_digit(text[i]); ++i) {
      if (exponent < kExponentClamp) exponent = exponent * kRadix + (text[i] - '0');
    }
    if (negative_exponent) exponent = -exponent;
  }
  n.exponent_ = exponent - fraction_digits;
  while (!n.digits_.empty() && n.digits_.back() == '0') {
    n.digits_.pop_back();
    ++n.exponent_;
  }
  if (n.digits_.empty()) n.exponent_ = 0;
  return n;
}

std::optional<std::int64_t> NumberLiteral::safe_integer() const noexcept {
  if (digits_.empty()) return 0;
  if (exponent_ < 0) return std::nullopt;
  if (static_cast<std::int64_t>(digits_.size()) + exponent_ > kMaxSafeDigits) return std::nullopt;
  std::uint64_t magnitude = 0;
  for (const char c : digits_) magnitude = magnitude * kRadix + static_cast<std::uint64_t>(c - '0');
  for (std::int64_t e = 0; e < exponent_; ++e) magnitude *= kRadix;
  if (magnitude > kMaxSafeInteger) return std::nullopt;
  const auto signed_magnitude = static_cast<std::int64_t>(magnitude);
  return negative_ ? -signed_magnitude : signed_magnitude;
}

}  // namespace agentkit::wire::detail
