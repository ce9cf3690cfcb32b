// Private: small text helpers shared by read_file and search.
#pragma once

#include <string>
#include <string_view>

#include "agentkit/base/utf8.hpp"

namespace agentkit::tools::detail {

// git's binary heuristic looks for a NUL in the first 8000 bytes (FIRST_FEW_BYTES in xdiff);
// read_file and fetch sniff the same prefix.
inline constexpr std::size_t kBinarySniffBytes = 8000;

// Replaces every invalid UTF-8 sequence with U+FFFD, so the text is safe in a JSON string.
inline void append_sanitized(std::string& out, std::string_view bytes) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  while (!bytes.empty()) {
    auto bad = agentkit::utf8::find_invalid(bytes);
    if (!bad) {
      out.append(bytes);
      return;
    }
    out.append(bytes.substr(0, *bad));
    out.append(kReplacement);
    bytes.remove_prefix(*bad);
    // Skip the one byte that starts the invalid sequence; what follows is examined afresh.
    bytes.remove_prefix(1);
  }
}

// "'text'", built by appending: `"'" + std::string(x)` trips GCC 12's -Wrestrict false positive
// in Release builds (GCC bug 105329, the literal-first operator+ that inserts at the front).
inline std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out.append(text);
  out += '\'';
  return out;
}

inline std::string sanitized(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  append_sanitized(out, bytes);
  return out;
}

}  // namespace agentkit::tools::detail
