// Fuzz support for the incremental readers: cut one input into chunks in several ways and
// require the same transcript (items, then the same error) from each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "wire/chunking.hpp"

namespace wire_test {

inline void require(bool condition) {
  if (!condition) std::abort();
}

// Chunk lengths drawn from a small generator seeded by the input, so a crash reproduces.
inline std::vector<std::string_view> pseudo_random_chunks(std::string_view stream, std::uint32_t seed) {
  constexpr std::uint32_t kMultiplier = 1664525;   // Numerical Recipes LCG constants
  constexpr std::uint32_t kIncrement = 1013904223;
  constexpr std::uint32_t kMaxChunk = 17;          // small, so boundaries land everywhere
  std::vector<std::string_view> chunks;
  std::uint32_t state = seed;
  while (!stream.empty()) {
    state = state * kMultiplier + kIncrement;
    const std::size_t n = std::min<std::size_t>(stream.size(), (state >> 16) % kMaxChunk);
    chunks.push_back(stream.substr(0, n));  // an empty chunk now and then is a valid feed too
    stream.remove_prefix(n);
  }
  return chunks;
}

inline std::vector<std::string_view> byte_chunks(std::string_view stream) {
  std::vector<std::string_view> chunks;
  for (std::size_t i = 0; i < stream.size(); ++i) chunks.push_back(stream.substr(i, 1));
  return chunks;
}

template <class Item>
bool same_transcript(const Transcript<Item>& a, const Transcript<Item>& b) {
  if (a.items != b.items || a.error.has_value() != b.error.has_value()) return false;
  return !a.error || (a.error->code == b.error->code && a.error->message == b.error->message);
}

// Reads `stream` whole, byte by byte and in pseudo-random chunks; all three must agree.
template <class Item, class MakeReader>
Transcript<Item> require_chunking_invariant(std::string_view stream, std::uint32_t seed,
                                            MakeReader make_reader) {
  const Transcript<Item> whole = read_whole<Item>(make_reader(), stream);
  require(same_transcript(whole, read_chunks<Item>(make_reader(), byte_chunks(stream))));
  require(same_transcript(whole, read_chunks<Item>(make_reader(), pseudo_random_chunks(stream, seed))));
  return whole;
}

}  // namespace wire_test
