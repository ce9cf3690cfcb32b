// agentkit/base/sha256.hpp — SHA-256 (FIPS 180-4), streaming and one-shot.
//
//   agentkit::Sha256 h;
//   h.update("ab");
//   h.update("c");
//   agentkit::Sha256::Digest d = h.finish();      // 32 bytes
//   std::string hex = agentkit::sha256_hex("abc"); // "ba7816bf8f01cfea..."
//
// Used for content hashes (cache keys, argument fingerprints in audit records), not for passwords.
//
// Thread safety: a Sha256 object is a plain value and must not be shared between threads while
// updated; the free functions have no shared state.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentkit {

class Sha256 {
 public:
  static constexpr std::size_t digest_size = 32;   // bytes (FIPS 180-4 §1)
  static constexpr std::size_t block_size = 64;    // bytes
  using Digest = std::array<std::uint8_t, digest_size>;

  Sha256() noexcept;

  // Feeds more message bytes; may be called any number of times before finish().
  void update(std::string_view bytes) noexcept;
  void update(const void* data, std::size_t size) noexcept;

  // Pads, returns the digest, and resets the object so it can hash a new message.
  Digest finish() noexcept;

 private:
  void compress(const std::uint8_t* block) noexcept;
  void reset() noexcept;

  std::array<std::uint32_t, 8> state_{};
  std::array<std::uint8_t, block_size> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// One-shot digest of `bytes`.
Sha256::Digest sha256(std::string_view bytes) noexcept;
// One-shot digest as 64 lowercase hex characters.
std::string sha256_hex(std::string_view bytes);

}  // namespace agentkit
