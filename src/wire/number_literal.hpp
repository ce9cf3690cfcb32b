// Private: exact reasoning about a JSON number literal's value without converting it to a
// floating type, so "9007199254740992.0" and "9007199254740993" are told apart from the safe
// range exactly (a double would round them onto 2^53).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit::wire::detail {

// REQ-SEC-12 (2): the IEEE-754 safe-integer bound, 2^53 - 1.
inline constexpr std::uint64_t kMaxSafeInteger = (std::uint64_t(1) << 53) - 1;

// A literal's value as sign × digits × 10^exponent, with `digits` stripped of leading and
// trailing zeros (empty for zero).
class NumberLiteral {
 public:
  // Precondition: `text` is an RFC 8259 number (the parser checked it).
  static NumberLiteral read(std::string_view text);

  // True when the value is a whole number (1e2, 3.0, -0, 120e-1).
  bool integral() const noexcept { return digits_.empty() || exponent_ >= 0; }
  // The value, when it is integral and |value| <= 2^53 - 1.
  std::optional<std::int64_t> safe_integer() const noexcept;

 private:
  bool negative_ = false;
  std::string digits_;
  std::int64_t exponent_ = 0;
};

}  // namespace agentkit::wire::detail
