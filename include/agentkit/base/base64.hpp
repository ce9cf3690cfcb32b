// agentkit/base/base64.hpp — base64 (RFC 4648 §4) and base64url (RFC 4648 §5), strict decoding.
//
//   std::string b = agentkit::base64::encode("hi");                     // "aGk="
//   std::string u = agentkit::base64::encode("\xfb\xff", agentkit::base64::Alphabet::url);  // "-_8"
//   auto bytes = agentkit::base64::decode("aGk=");                      // Result<std::string>{"hi"}
//   auto bad = agentkit::base64::decode("aGk");                         // error: padding required
//
// Decoding is strict, so one byte string has exactly one accepted encoding per alphabet:
// - a character outside the chosen alphabet is an error (this includes whitespace and line
//   breaks, and '-'/'_' in standard input or '+'/'/' in URL-safe input);
// - the standard alphabet REQUIRES '=' padding to a multiple of four characters;
// - the URL-safe alphabet ACCEPTS unpadded input (the JWT / PKCE convention, RFC 7515 §2) and also
//   correctly padded input; wrong padding (misplaced '=', too many, a length of 4k+1) is an error;
// - the unused low bits of the last character must be zero (RFC 4648 §3.5), so "aGl=" is refused.
// Errors are Errc::parse_error with the offending offset in detail "offset".
// encode() pads the standard alphabet and leaves the URL-safe one unpadded.
//
// Thread safety: free functions on caller-owned data; no shared state.
#pragma once

#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::base64 {

enum class Alphabet {
  standard,  // A-Z a-z 0-9 + /, padded with '='
  url,       // A-Z a-z 0-9 - _, unpadded on encode, padding optional on decode
};

// Encodes any bytes.
std::string encode(std::string_view bytes, Alphabet alphabet = Alphabet::standard);

// Decodes under the rules above.
Result<std::string> decode(std::string_view text, Alphabet alphabet = Alphabet::standard);

// Length of encode(bytes, alphabet) for `byte_count` input bytes.
std::size_t encoded_size(std::size_t byte_count, Alphabet alphabet = Alphabet::standard) noexcept;

}  // namespace agentkit::base64
