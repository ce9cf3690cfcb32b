#include "agentkit/base/sha256.hpp"

#include <algorithm>
#include <cstring>

#include "agentkit/base/hex.hpp"

namespace agentkit {
namespace {

// FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the first
// eight primes.
constexpr std::array<std::uint32_t, 8> initial_state = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64
// primes.
constexpr std::array<std::uint32_t, 64> round_constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::size_t schedule_words = 64;
constexpr std::size_t length_field_bytes = 8;   // the message length in bits, big-endian (§5.1.1)
constexpr std::uint8_t first_pad_byte = 0x80;   // a single '1' bit then zeros (§5.1.1)
constexpr int bits_per_byte = 8;

constexpr std::uint32_t rotr(std::uint32_t x, int n) noexcept { return (x >> n) | (x << (32 - n)); }

std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

void store_be32(std::uint32_t v, std::uint8_t* p) noexcept {
  for (int i = 3; i >= 0; --i) {
    p[i] = static_cast<std::uint8_t>(v);
    v >>= bits_per_byte;
  }
}

}  // namespace

Sha256::Sha256() noexcept { reset(); }

void Sha256::reset() noexcept {
  state_ = initial_state;
  buffered_ = 0;
  total_bytes_ = 0;
}

// FIPS 180-4 §6.2.2, with Ch and Maj in their two-operation forms. Eight rounds per step, the
// working variables' roles rotated in the call arguments instead of moved every round: the
// audit trail hashes every record it writes, and the moves, a rolled loop and three copies per
// Sigma cost more than a quarter of the compression.
void Sha256::compress(const std::uint8_t* block) noexcept {
  std::uint32_t w[schedule_words];
  for (std::size_t t = 0; t < 16; ++t) w[t] = load_be32(block + 4 * t);
  for (std::size_t t = 16; t < schedule_words; ++t) {
    const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  // One round: d and h are the two variables it changes.
  auto round = [](std::uint32_t ra, std::uint32_t rb, std::uint32_t rc, std::uint32_t& rd,
                  std::uint32_t re, std::uint32_t rf, std::uint32_t rg, std::uint32_t& rh,
                  std::uint32_t k_plus_w) {
    // rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25) and rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22), nested
    // so that each needs one copy of its variable instead of three.
    const std::uint32_t big_s1 = rotr(rotr(rotr(re, 14) ^ re, 5) ^ re, 6);
    const std::uint32_t choose = rg ^ (re & (rf ^ rg));           // (e & f) ^ (~e & g)
    const std::uint32_t majority = (ra & rb) | (rc & (ra | rb));  // (a & b) ^ (a & c) ^ (b & c)
    const std::uint32_t big_s0 = rotr(rotr(rotr(ra, 9) ^ ra, 11) ^ ra, 2);
    const std::uint32_t t1 = rh + big_s1 + choose + k_plus_w;
    rd += t1;
    rh = t1 + big_s0 + majority;
  };
  for (std::size_t t = 0; t < schedule_words; t += 8) {
    round(a, b, c, d, e, f, g, h, round_constants[t] + w[t]);
    round(h, a, b, c, d, e, f, g, round_constants[t + 1] + w[t + 1]);
    round(g, h, a, b, c, d, e, f, round_constants[t + 2] + w[t + 2]);
    round(f, g, h, a, b, c, d, e, round_constants[t + 3] + w[t + 3]);
    round(e, f, g, h, a, b, c, d, round_constants[t + 4] + w[t + 4]);
    round(d, e, f, g, h, a, b, c, round_constants[t + 5] + w[t + 5]);
    round(c, d, e, f, g, h, a, b, round_constants[t + 6] + w[t + 6]);
    round(b, c, d, e, f, g, h, a, round_constants[t + 7] + w[t + 7]);
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const std::uint8_t*>(data);
  total_bytes_ += size;
  if (buffered_ > 0) {
    const std::size_t take = std::min(size, block_size - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < block_size) return;
    compress(buffer_.data());
    buffered_ = 0;
  }
  for (; size >= block_size; p += block_size, size -= block_size) compress(p);
  if (size > 0) std::memcpy(buffer_.data(), p, size);
  buffered_ = size;
}

void Sha256::update(std::string_view bytes) noexcept { update(bytes.data(), bytes.size()); }

Sha256::Digest Sha256::finish() noexcept {
  const std::uint64_t total_bits = total_bytes_ * bits_per_byte;
  buffer_[buffered_++] = first_pad_byte;
  if (buffered_ > block_size - length_field_bytes) {
    std::memset(buffer_.data() + buffered_, 0, block_size - buffered_);
    compress(buffer_.data());
    buffered_ = 0;
  }
  std::memset(buffer_.data() + buffered_, 0, block_size - length_field_bytes - buffered_);
  for (std::size_t i = 0; i < length_field_bytes; ++i) {
    buffer_[block_size - 1 - i] = static_cast<std::uint8_t>(total_bits >> (bits_per_byte * i));
  }
  compress(buffer_.data());
  Digest out{};
  for (std::size_t i = 0; i < state_.size(); ++i) store_be32(state_[i], out.data() + 4 * i);
  reset();
  return out;
}

Sha256::Digest sha256(std::string_view bytes) noexcept {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

std::string sha256_hex(std::string_view bytes) {
  const auto d = sha256(bytes);
  return hex::encode(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}

}  // namespace agentkit
