// agentkit/base/strings.hpp — small ASCII string utilities that protocols need.
//
//   agentkit::iequals("Content-Length", "content-length");     // true
//   agentkit::to_lower_ascii("Host");                           // "host"
//   agentkit::trim_ows("  chunked\t");                          // "chunked"
//   auto n = agentkit::parse_uint64("1f", 16);                  // Result<std::uint64_t>{31}
//   auto parts = agentkit::split("a,b,,c", ',');                // {"a", "b", "", "c"}
//   agentkit::is_token("Content-Type");                         // true: a valid header name
//
// Everything here is ASCII-only on purpose: protocol tokens (HTTP header names, schemes, host
// names) are compared without locale, so "İ" never folds into "i" (the Turkish-locale trap).
//
// Thread safety: free functions on caller-owned data; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit {

constexpr char to_lower_ascii(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
std::string to_lower_ascii(std::string_view s);

// Case-insensitive equality for ASCII letters; every other byte must match exactly.
bool iequals(std::string_view a, std::string_view b) noexcept;
// Case-insensitive ASCII suffix test.
bool iends_with(std::string_view s, std::string_view suffix) noexcept;

// Removes HTTP optional whitespace (space and horizontal tab, RFC 9110 §5.6.3) from both ends.
std::string_view trim_ows(std::string_view s) noexcept;

// True for an HTTP token character (RFC 9110 §5.6.2 tchar): a letter, a digit or one of
// !#$%&'*+-.^_`|~. Header names and methods are made of these and nothing else.
bool is_token_char(char c) noexcept;
// True for a non-empty run of token characters.
bool is_token(std::string_view s) noexcept;

// Splits on every `separator`; n separators give n+1 pieces (empty pieces kept).
std::vector<std::string_view> split(std::string_view s, char separator);

// The whole of `text` as an unsigned number in `base` (10 or 16): no sign, no prefix, no
// whitespace, at least one digit. Overflow of 64 bits is Errc::limit_exceeded; anything else
// malformed is Errc::parse_error.
Result<std::uint64_t> parse_uint64(std::string_view text, int base = 10);

}  // namespace agentkit
