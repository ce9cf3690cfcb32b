// The openai-completions and openai-responses reply decoders on arbitrary bytes (the first byte
// picks the wire; the rest is an SSE body, and the same bytes as a whole JSON reply): no crash,
// chunking-invariant, every block bracketed (wire_reply_harness.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "providers/openai_completions/completions_wire.hpp"
#include "providers/openai_responses/responses_wire.hpp"
#include "fuzz/wire_reply_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using agentkit::providers::detail::MessageAssembler;
  const bool responses = (data[0] & 1) != 0;
  const bool finish_reason_ends = (data[0] & 2) != 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto seed = static_cast<std::uint32_t>(size);
  if (responses) {
    wire_test::require_consistent_decoding(body, seed, [](MessageAssembler& out) {
      return std::make_unique<agentkit::providers::detail::ResponsesDecoder>(out, true);
    });
  } else {
    wire_test::require_consistent_decoding(body, seed, [finish_reason_ends](MessageAssembler& out) {
      return std::make_unique<agentkit::providers::detail::CompletionsDecoder>(out, finish_reason_ends);
    });
  }
  return 0;
}
