// Private: byte-level scanning shared by the parser and the printer — the SWAR search for the
// next byte a JSON string cannot carry verbatim, strict UTF-8 sequence checks, and the RFC 8259
// number grammar.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace agentkit::json::detail {

// The UTF-16 surrogate ranges a JSON \u escape may name: high D800-DBFF, low DC00-DFFF.
inline constexpr char32_t kHighSurrogateFirst = 0xD800, kLowSurrogateFirst = 0xDC00;
inline constexpr char32_t kSurrogateEnd = 0xE000;

// The per-word helpers run once per eight bytes of every string; an out-of-line call there costs
// more than the work (measured: a quarter of the parse time on prose).
#if defined(__GNUC__) || defined(__clang__)
#define AGENTKIT_JSON_HOT_INLINE inline __attribute__((always_inline))
#else
#define AGENTKIT_JSON_HOT_INLINE inline
#endif

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

// ---- Eight bytes at a time, exactly -----------------------------------------------------------
// The helpers above may flag bytes past the first hit; these are exact for every byte, which
// the UTF-8 checks below need. Each answers a mask with bit 7 of every selected byte set.
namespace swar {
constexpr std::uint64_t kLows = 0x7F7F7F7F7F7F7F7FULL;

constexpr std::uint64_t exact_equal(std::uint64_t x, unsigned char c) noexcept {
  const std::uint64_t t = x ^ (kOnes * c);
  return ~(((t & kLows) + kLows) | t) & kHighs;
}
constexpr std::uint64_t exact_below_space(std::uint64_t x) noexcept {
  return ~(((x & kLows) + kOnes * (0x80 - 0x20)) | x) & kHighs;
}
// Quote, backslash and C0 controls: where a string body stops being plain text.
constexpr std::uint64_t string_stops(std::uint64_t x) noexcept {
  return exact_equal(x, '"') | exact_equal(x, '\\') | exact_below_space(x);
}
// The bytes below byte `n` (n < 8) of a little-endian word.
constexpr std::uint64_t low_bytes(unsigned n) noexcept { return (std::uint64_t{1} << (8 * n)) - 1; }
constexpr std::uint64_t kSpaces = kOnes * ' ';
}  // namespace swar

// Eight bytes from p as a little-endian word (byte p[0] in the low bits) on any machine.
AGENTKIT_JSON_HOT_INLINE std::uint64_t load_le(const char* p) noexcept {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    std::uint64_t swapped = 0;
    for (int i = 0; i < 8; ++i) swapped |= ((x >> (8 * i)) & 0xFF) << (8 * (7 - i));
    x = swapped;
  }
  return x;
}

// The n < 8 bytes at p, padded with spaces (plain text, never a stop) to a little-endian word.
inline std::uint64_t load_le_padded(const char* p, std::size_t n) noexcept {
  char bytes[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
  std::memcpy(bytes, p, n);
  return load_le(bytes);
}

// The first byte in [p, end) that does not begin a well-formed UTF-8 character (ASCII or a
// sequence accepted by utf8_sequence_length), or end. Used to place an error the word-wise
// validator found.
inline const char* first_invalid_utf8(const char* p, const char* end) noexcept;

// Validates UTF-8 a little-endian word at a time, carrying the expectations a sequence split
// across two words leaves for the next one. The rules are those of utf8_sequence_length (Unicode
// Table 3-7), written as bit masks: each lead byte announces how many continuation bytes follow,
// and those must be exactly the continuation bytes present; C0, C1 and F5..FF never appear; the
// byte after E0, ED, F0 and F4 is range-checked (no overlongs, surrogates, or code points above
// U+10FFFF). ASCII-only words with nothing pending cost one test.
class Utf8WordValidator {
 public:
  // Feeds the next eight bytes; false when they cannot continue valid UTF-8.
  AGENTKIT_JSON_HOT_INLINE bool feed(std::uint64_t x) noexcept {
    using namespace swar;
    if ((x & kHighs) == 0 && expect_ == 0) return true;
    return feed_non_ascii(x);
  }
  // Feeds the last bytes before a stop (the rest of the word zeroed, which is ASCII): valid only
  // if no sequence is left unfinished.
  AGENTKIT_JSON_HOT_INLINE bool feed_last(std::uint64_t x) noexcept { return feed(x) && expect_ == 0; }
  // True between characters: plain ASCII may follow without being fed.
  AGENTKIT_JSON_HOT_INLINE bool idle() const noexcept { return expect_ == 0; }

 private:
  AGENTKIT_JSON_HOT_INLINE bool feed_non_ascii(std::uint64_t x) noexcept {
    using namespace swar;
    const std::uint64_t b7 = x & kHighs, b6 = (x << 1) & kHighs, b5 = (x << 2) & kHighs;
    const std::uint64_t b4 = (x << 3) & kHighs, b3 = (x << 4) & kHighs;
    const std::uint64_t b2 = (x << 5) & kHighs, b1 = (x << 6) & kHighs, b0 = (x << 7) & kHighs;
    const std::uint64_t continuation = b7 & ~b6;
    const std::uint64_t lead = b7 & b6;
    const std::uint64_t lead2 = lead & ~b5;
    const std::uint64_t lead3 = lead & b5 & ~b4;
    const std::uint64_t lead4 = lead & b5 & b4 & ~b3;
    // C0 and C1 (overlong two-byte forms): a two-byte lead whose bits 4..1 are all zero.
    const std::uint64_t payload_1e = ((x & (kOnes * 0x1E)) + kLows) & kHighs;
    std::uint64_t bad = (lead & b5 & b4 & b3) | (lead2 & ~payload_1e) | (lead4 & b2 & (b1 | b0));
    // Where continuation bytes must be: one after every lead, two after three- and four-byte
    // leads, three after four-byte leads.
    const std::uint64_t one = lead2 | lead3 | lead4, two = lead3 | lead4, three = lead4;
    const std::uint64_t expected = (one << 8) | (two << 16) | (three << 24) | expect_;
    bad |= continuation ^ expected;
    // Second-byte ranges (continuation bytes are 80..BF: bit 5 set means >= A0, bits 5|4 >= 90).
    const std::uint64_t ge_a0 = b5, ge_90 = b5 | b4;
    const std::uint64_t e0 = exact_equal(x, 0xE0), ed = exact_equal(x, 0xED);
    const std::uint64_t f0 = exact_equal(x, 0xF0), f4 = exact_equal(x, 0xF4);
    bad |= (((e0 << 8) | need_ge_a0_) & ~ge_a0) | (((ed << 8) | need_lt_a0_) & ge_a0);
    bad |= (((f0 << 8) | need_ge_90_) & ~ge_90) | (((f4 << 8) | need_lt_90_) & ge_90);
    expect_ = (one >> 56) | (two >> 48) | (three >> 40);
    need_ge_a0_ = e0 >> 56;
    need_lt_a0_ = ed >> 56;
    need_ge_90_ = f0 >> 56;
    need_lt_90_ = f4 >> 56;
    return bad == 0;
  }

  // Continuation bytes due at the start of the next word; the second-byte range checks due there
  // (a lead byte E0, ED, F0 or F4 ended the previous word). All zero between characters.
  std::uint64_t expect_ = 0;
  std::uint64_t need_ge_a0_ = 0, need_lt_a0_ = 0, need_ge_90_ = 0, need_lt_90_ = 0;
};

// Sixteen bytes at a time where the target has SSE2 (every x86-64): a string's plain ASCII run
// costs a load, three compares and a mask test per block instead of two eight-byte words of
// SWAR. kBlockScan is 0 elsewhere, where callers keep to the word loop.
#if defined(__SSE2__)
inline constexpr std::size_t kBlockScan = 16;
// Bit i set when byte i of the sixteen at p is a quote, a backslash, a C0 control or non-ASCII
// (the signed compare puts 0x80..0xFF below the space).
AGENTKIT_JSON_HOT_INLINE unsigned string_stop_block(const char* p) noexcept {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
  const __m128i low = _mm_cmplt_epi8(x, _mm_set1_epi8(' '));
  return static_cast<unsigned>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), low)));
}
#else
inline constexpr std::size_t kBlockScan = 0;
AGENTKIT_JSON_HOT_INLINE unsigned string_stop_block(const char*) noexcept { return 0; }
#endif

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

// What a lead byte allows (Unicode Table 3-7): the sequence length (0: not a lead byte) and the
// range of the second byte, which is where overlongs (E0, F0), surrogates (ED) and code points
// above U+10FFFF (F4) are excluded.
struct Utf8Lead {
  unsigned char length;
  unsigned char second_lo;
  unsigned char second_hi;
};

constexpr Utf8Lead utf8_lead(unsigned char b) noexcept {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

struct Utf8LeadTable {
  Utf8Lead entries[256];
  constexpr Utf8LeadTable() : entries{} {
    for (int b = 0; b < 256; ++b) entries[b] = utf8_lead(static_cast<unsigned char>(b));
  }
};
inline constexpr Utf8LeadTable kUtf8Leads{};

// Length (2..4) of the well-formed UTF-8 sequence starting at p (whose first byte is >= 0x80),
// or 0 when it is ill-formed: overlong forms, surrogates (U+D800..U+DFFF), code points above
// U+10FFFF, stray continuation bytes and truncation are all rejected.
inline std::size_t utf8_sequence_length(const char* p, const char* end) noexcept {
  const Utf8Lead lead = kUtf8Leads.entries[static_cast<unsigned char>(p[0])];
  if (lead.length == 0 || end - p < lead.length) return 0;
  const unsigned char second = static_cast<unsigned char>(p[1]);
  if (second < lead.second_lo || second > lead.second_hi) return 0;
  auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  if (lead.length >= 3 && !continuation(p[2])) return 0;
  if (lead.length == 4 && !continuation(p[3])) return 0;
  return lead.length;
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

inline const char* first_invalid_utf8(const char* p, const char* end) noexcept {
  while (p != end) {
    if (static_cast<unsigned char>(*p) < 0x80) {
      ++p;
      continue;
    }
    const std::size_t n = utf8_sequence_length(p, end);
    if (n == 0) return p;
    p += n;
  }
  return end;
}

inline bool is_digit(char c) noexcept { return static_cast<unsigned char>(c - '0') < 10; }

// Outcome of matching the RFC 8259 number grammar
//   number = [ "-" ] int [ frac ] [ exp ];  int = "0" / ( digit1-9 *DIGIT )
struct NumberScan {
  const char* end = nullptr;      // one past the literal; valid when reason == nullptr
  const char* reason = nullptr;   // why the text is not a number, for error messages
  const char* where = nullptr;    // the offending byte
};

AGENTKIT_JSON_HOT_INLINE NumberScan scan_number(const char* p, const char* end) noexcept {
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
