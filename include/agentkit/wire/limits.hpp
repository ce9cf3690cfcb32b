// agentkit/wire/limits.hpp — the bounds every decoder of foreign bytes applies.
//
//   agentkit::wire::Limits limits;                  // 16 MiB, depth 64, 1,000,000 per container
//   limits.max_message_bytes = 1024 * 1024;         // a tighter bound for a small protocol
//   auto doc = agentkit::wire::decode(bytes, limits);
//
// The defaults are the library's untrusted-input bounds; the frame, NDJSON and SSE readers
// take their per-message caps from the same constants so one number governs one surface.
//
// Thread safety: plain values.
#pragma once

#include <cstddef>

namespace agentkit::wire {

// The largest message accepted from a peer (a JSON document, a Content-Length body,
// an NDJSON line, an SSE event).
inline constexpr std::size_t kDefaultMaxMessageBytes = std::size_t(16) * 1024 * 1024;
// The deepest nesting of arrays and objects accepted ("[[1]]" is depth 2).
inline constexpr std::size_t kDefaultMaxDepth = 64;
// The most elements in one array or members in one object.
inline constexpr std::size_t kDefaultMaxContainer = 1'000'000;

// Bounds for decoding one untrusted JSON message. Safe to copy.
struct Limits {
  // A larger message is refused before a single byte of it is parsed or copied.
  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  // Deeper nesting is refused; the parser never recurses past it.
  std::size_t max_depth = kDefaultMaxDepth;
  // An array with more elements, or an object with more members, is refused before it grows.
  std::size_t max_container = kDefaultMaxContainer;
};

}  // namespace agentkit::wire
