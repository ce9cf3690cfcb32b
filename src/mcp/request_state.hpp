// Sealed tokens: the server's requestState and pagination cursors are opaque to clients, and a
// client is an attacker for what comes back (2026-07-28 MRTR: integrity-protect the state, bind it
// to the request, give it an expiry). HMAC-SHA256 under a per-server random key.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::mcp::detail {

class SealKey {
 public:
  // A fresh random key.
  SealKey();
  // "<base64url(payload)>.<base64url(tag)>"
  std::string seal(std::string_view payload) const;
  // The payload of a token this key sealed; Errc::invalid_argument for anything else.
  Result<std::string> open(std::string_view token) const;

 private:
  std::array<std::uint8_t, 32> key_{};
};

// HMAC-SHA256 (RFC 2104).
std::array<std::uint8_t, 32> hmac_sha256(const std::array<std::uint8_t, 32>& key, std::string_view message);

}  // namespace agentkit::mcp::detail
