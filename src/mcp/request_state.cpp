#include "request_state.hpp"

#include <random>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/sha256.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr std::uint8_t kInnerPad = 0x36;  // RFC 2104 ipad
constexpr std::uint8_t kOuterPad = 0x5c;  // RFC 2104 opad

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::array<std::uint8_t, 32> hmac_sha256(const std::array<std::uint8_t, 32>& key, std::string_view message) {
  std::array<std::uint8_t, Sha256::block_size> inner{};
  std::array<std::uint8_t, Sha256::block_size> outer{};
  for (std::size_t i = 0; i < Sha256::block_size; ++i) {
    const std::uint8_t k = i < key.size() ? key[i] : 0;
    inner[i] = static_cast<std::uint8_t>(k ^ kInnerPad);
    outer[i] = static_cast<std::uint8_t>(k ^ kOuterPad);
  }
  Sha256 h;
  h.update(inner.data(), inner.size());
  h.update(message);
  const Sha256::Digest inner_digest = h.finish();
  h.update(outer.data(), outer.size());
  h.update(inner_digest.data(), inner_digest.size());
  return h.finish();
}

SealKey::SealKey() {
  std::random_device device;
  for (auto& b : key_) b = static_cast<std::uint8_t>(device());
}

std::string SealKey::seal(std::string_view payload) const {
  const auto tag = hmac_sha256(key_, payload);
  return base64::encode(payload, base64::Alphabet::url) + "." +
         base64::encode(std::string_view(reinterpret_cast<const char*>(tag.data()), tag.size()), base64::Alphabet::url);
}

Result<std::string> SealKey::open(std::string_view token) const {
  const std::size_t dot = token.find('.');
  if (dot == std::string_view::npos) return fail(Errc::invalid_argument, "not a token this server issued");
  auto payload = base64::decode(token.substr(0, dot), base64::Alphabet::url);
  auto tag = base64::decode(token.substr(dot + 1), base64::Alphabet::url);
  if (!payload || !tag) return fail(Errc::invalid_argument, "not a token this server issued");
  const auto expected = hmac_sha256(key_, *payload);
  if (!constant_time_equal(*tag, std::string_view(reinterpret_cast<const char*>(expected.data()), expected.size()))) {
    return fail(Errc::invalid_argument, "not a token this server issued");
  }
  return std::move(*payload);
}

}  // namespace agentkit::mcp::detail
