// Private to agentkit_session: the loader's fast path over one log line. It checks that the line
// is exactly one JSON object (RFC 8259, as strict as json::parse: escapes, surrogate pairs,
// control bytes, numbers, literals, nesting depth) without building a tree, and answers where
// each top-level member's key and value are. The loader then decodes the few envelope strings and
// keeps a message payload as its exact bytes, so loading a large log costs one pass over its
// bytes and about one copy of its messages.
//
// Not checked here: UTF-8 (the caller checks the whole line first; outside strings only ASCII is
// valid anyway) and duplicate keys below the top level (a payload with them fails when it is
// decoded, as json::parse refuses it).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace agentkit::session::detail {

// The nesting json::parse allows by default; a deeper line is not one this build could read.
inline constexpr std::size_t kMaxLineDepth = 512;

struct ScannedMember {
  std::string_view key;    // the key's bytes between its quotes (escapes not decoded)
  std::string_view value;  // the value's exact bytes
  bool key_escaped = false;
};

// Scans `line`. On success fills `members` (cleared first) in line order and answers true; a
// line that is not one JSON object answers false.
bool scan_object_line(std::string_view line, std::vector<ScannedMember>& members);

// True when a string value's bytes (quotes included) hold an escape.
bool has_escape(std::string_view quoted) noexcept;

}  // namespace agentkit::session::detail
