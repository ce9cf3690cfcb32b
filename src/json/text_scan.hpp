// Private: byte-level scanning shared by the parser and the printer — the SWAR search for the
// next byte a JSON string cannot carry verbatim, strict UTF-8 sequence checks, and the RFC 8259
// number grammar.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace agentkit::json::detail {

// Bytes a string body cannot hold literally or that need a closer look: the quote, the
// backslash, C0 controls (RFC 8259 §7) and any non-ASCII byte (UTF-8 validation, U+2028/U+2029).
inline bool is_special_string_byte(unsigned char c) noexcept {
  return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

namespace swar {
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// High bit set in each byte of `x` that is zero. Borrows can flag bytes *above* a true zero
// byte, never below it, so the lowest flag (the first byte on little-endian) is exact.
constexpr std::uint64_t zero_bytes(std::uint64_t x) noexcept { return (x - kOnes) & ~x & kHighs; }
constexpr std::uint64_t bytes_equal(std::uint64_t x, unsigned char c) noexcept {
  return zero_bytes(x ^ (kOnes * c));
}
// High bit set in each byte below 0x20; exact for ASCII bytes, and non-ASCII bytes are
// flagged anyway by the high-bit term of special_bytes.
constexpr std::uint64_t bytes_below_space(std::uint64_t x) noexcept {
  return (x - kOnes * 0x20) & ~x & kHighs;
}
constexpr std::uint64_t special_bytes(std::uint64_t x) noexcept {
  return bytes_equal(x, '"') | bytes_equal(x, '\\') | bytes_below_space(x) | (x & kHighs);
}
}  // namespace swar

// The first byte in [p, end) for which is_special_string_byte holds, or end. Eight bytes per
// step on little-endian machines (the common case); byte by byte elsewhere.
inline const char* find_special_string_byte(const char* p, const char* end) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, sizeof word);
      if (std::uint64_t hits = swar::special_bytes(word)) {
        return p + (std::countr_zero(hits) / 8);
      }
      p += 8;
    }
  }
  while (p != end && !is_special_string_byte(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// Length (2..4) of the well-formed UTF-8 sequence starting at p (whose first byte is >= 0x80),
// or 0 when it is ill-formed: overlong forms, surrogates (U+D800..U+DFFF), code points above
// U+10FFFF, stray continuation bytes and truncation are all rejected (Unicode Table 3-7).
inline std::size_t utf8_sequence_length(const char* p, const char* end) noexcept {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(p[i]); };
  auto in = [](unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; };
  const std::size_t avail = static_cast<std::size_t>(end - p);
  const unsigned char b0 = byte(0);
  if (in(b0, 0xC2, 0xDF)) {
    return (avail >= 2 && in(byte(1), 0x80, 0xBF)) ? 2 : 0;
  }
  if (in(b0, 0xE0, 0xEF)) {
    if (avail < 3) return 0;
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;  // E0: no overlongs
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;  // ED: no surrogates
    return (in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF)) ? 3 : 0;
  }
  if (in(b0, 0xF0, 0xF4)) {
    if (avail < 4) return 0;
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;  // F0: no overlongs
    const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;  // F4: nothing above U+10FFFF
    return (in(byte(1), lo, hi) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF)) ? 4 : 0;
  }
  return 0;
}

// The code point of a sequence utf8_sequence_length accepted (n = its length).
inline char32_t utf8_decode(const char* p, std::size_t n) noexcept {
  auto byte = [&](std::size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(p[i])); };
  switch (n) {
    case 2: return ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
    case 3: return ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
    default:
      return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) |
             (byte(3) & 0x3F);
  }
}

inline bool is_digit(char c) noexcept { return static_cast<unsigned char>(c - '0') < 10; }

// Outcome of matching the RFC 8259 number grammar
//   number = [ "-" ] int [ frac ] [ exp ];  int = "0" / ( digit1-9 *DIGIT )
struct NumberScan {
  const char* end = nullptr;      // one past the literal; valid when reason == nullptr
  const char* reason = nullptr;   // why the text is not a number, for error messages
  const char* where = nullptr;    // the offending byte
};

inline NumberScan scan_number(const char* p, const char* end) noexcept {
  auto fail = [](const char* at, const char* why) { return NumberScan{nullptr, why, at}; };
  if (p != end && *p == '-') ++p;
  if (p == end || !is_digit(*p)) return fail(p, "expected a digit");
  if (*p == '0') {
    ++p;
    if (p != end && is_digit(*p)) return fail(p, "a number may not have leading zeros");
  } else {
    while (p != end && is_digit(*p)) ++p;
  }
  if (p != end && *p == '.') {
    ++p;
    if (p == end || !is_digit(*p)) return fail(p, "expected a digit after the decimal point");
    while (p != end && is_digit(*p)) ++p;
  }
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p != end && (*p == '+' || *p == '-')) ++p;
    if (p == end || !is_digit(*p)) return fail(p, "expected a digit in the exponent");
    while (p != end && is_digit(*p)) ++p;
  }
  return NumberScan{p, nullptr, nullptr};
}

}  // namespace agentkit::json::detail
