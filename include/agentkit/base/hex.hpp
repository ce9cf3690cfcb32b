// agentkit/base/hex.hpp — hexadecimal encoding of bytes (RFC 4648 §8 "base16"), strict decoding.
//
//   std::string h = agentkit::hex::encode("\x01\xab");     // "01ab"
//   auto b = agentkit::hex::decode("01AB");               // Result<std::string>{"\x01\xab"}
//   auto e = agentkit::hex::decode("1ab");                // error: odd length
//
// encode() writes lowercase. decode() accepts either case, and nothing else: an odd length, a
// space, a "0x" prefix or any non-hex character is Errc::parse_error with the offset in detail.
//
// Thread safety: free functions on caller-owned data; no shared state.
#pragma once

#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::hex {

std::string encode(std::string_view bytes);
Result<std::string> decode(std::string_view text);

}  // namespace agentkit::hex
