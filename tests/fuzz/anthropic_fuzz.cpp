// The anthropic-messages reply decoder on arbitrary bytes (an SSE body, and the same bytes as a
// whole JSON message): no crash, chunking-invariant, every block bracketed (wire_reply_harness.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "providers/anthropic/anthropic_wire.hpp"
#include "fuzz/wire_reply_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto seed = static_cast<std::uint32_t>(size);
  wire_test::require_consistent_decoding(body, seed, [](agentkit::providers::detail::MessageAssembler& out) {
    return std::make_unique<agentkit::providers::detail::AnthropicDecoder>(out);
  });
  return 0;
}
