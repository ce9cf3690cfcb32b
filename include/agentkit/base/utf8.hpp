// agentkit/base/utf8.hpp — UTF-8 validation, decoding, encoding, counting and safe truncation.
//
//   if (auto ok = agentkit::utf8::validate(bytes); !ok)
//     log(ok.error().to_string());            // "... invalid UTF-8 at byte 17 ..." [offset=17]
//   auto points = agentkit::utf8::decode("h\xC3\xA9");   // Result<std::u32string>{U'h', U'\u00e9'}
//   std::string out;
//   agentkit::utf8::append(out, U'\u20ac');               // "\xE2\x82\xAC"
//   std::string_view head = agentkit::utf8::truncate_bytes(text, 100);  // never splits a character
//
// What "valid" means here is RFC 3629 exactly: no overlong forms, no surrogates (U+D800..U+DFFF),
// nothing above U+10FFFF, no truncated sequence. Every failure reports the byte offset where the
// offending sequence starts, so a caller can point at it.
//
// Thread safety: free functions on caller-owned data; no shared state.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::utf8 {

// Largest Unicode scalar value (RFC 3629 §3).
inline constexpr char32_t max_code_point = 0x10FFFF;

// Offset of the first byte of the first invalid sequence, or nullopt when `bytes` is valid UTF-8.
std::optional<std::size_t> find_invalid(std::string_view bytes) noexcept;

// True when `bytes` is valid UTF-8. ASCII runs are checked eight bytes at a time.
bool is_valid(std::string_view bytes) noexcept;

// Errc::parse_error naming the offset (detail "offset") when `bytes` is not valid UTF-8.
Result<void> validate(std::string_view bytes);

// One decoded character: its code point and how many bytes it took.
struct DecodedChar {
  char32_t code_point = 0;
  std::size_t length = 0;
  friend bool operator==(const DecodedChar&, const DecodedChar&) = default;
};

// Decodes the character at the front of `bytes`; nullopt when `bytes` is empty or does not start
// with a valid sequence.
std::optional<DecodedChar> decode_front(std::string_view bytes) noexcept;

// All code points of `bytes`, or Errc::parse_error with the offset of the first invalid sequence.
Result<std::u32string> decode(std::string_view bytes);

// True for a Unicode scalar value (not a surrogate, not above U+10FFFF).
bool is_scalar_value(char32_t code_point) noexcept;

// Appends the UTF-8 form of `code_point`; Errc::invalid_argument for a surrogate or a value above
// U+10FFFF (nothing is appended then).
Result<void> append(std::string& out, char32_t code_point);

// The UTF-8 form of one code point (same rules as append).
Result<std::string> encode(char32_t code_point);

// Longest UTF-8 form of one code point.
inline constexpr std::size_t max_encoded_length = 4;

// Bytes in the UTF-8 form of `code_point`: 1 to 4 (values above U+10FFFF count as 4).
std::size_t encoded_length(char32_t code_point) noexcept;

// Writes the UTF-8 bit pattern of `code_point` (at most U+10FFFF) at `out`, which has room for
// max_encoded_length bytes, and answers the end. Nothing is checked: a surrogate comes out as its
// 3-byte pattern, which a regex compiler splitting byte ranges needs. Prefer append for text.
char* encode_unchecked(char32_t code_point, char* out) noexcept;

// Number of code points in valid UTF-8, or Errc::parse_error with the offset.
Result<std::size_t> count_code_points(std::string_view bytes);

// The longest prefix of `bytes` holding at most `max_code_points` characters. Stops early, before
// the first invalid sequence, so the result is always valid UTF-8.
std::string_view truncate_code_points(std::string_view bytes, std::size_t max_code_points) noexcept;

// The longest prefix of `bytes` no longer than `max_bytes` that does not split a character. Stops
// early, before the first invalid sequence, so the result is always valid UTF-8.
std::string_view truncate_bytes(std::string_view bytes, std::size_t max_bytes) noexcept;

}  // namespace agentkit::utf8
