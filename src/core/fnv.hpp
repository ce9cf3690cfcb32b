// Private: FNV-1a, 64 bit, the content hash behind the tool and answer-format fingerprints (cache
// keys, not a security boundary). Offset basis and prime are the FNV specification's.
//
//   std::uint64_t h = detail::kFnvOffset;
//   detail::fnv_mix(h, name);
//   detail::fnv_mix(h, description);
#pragma once

#include <cstdint>
#include <string_view>

namespace agentkit::detail {

inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
inline constexpr std::uint64_t kFnvPrime = 1099511628211ull;

// Mixes the bytes, then a separator, so ("ab", "c") and ("a", "bc") hash differently.
inline void fnv_mix(std::uint64_t& h, std::string_view bytes) noexcept {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= kFnvPrime;
  }
  h ^= 0xFF;
  h *= kFnvPrime;
}

}  // namespace agentkit::detail
