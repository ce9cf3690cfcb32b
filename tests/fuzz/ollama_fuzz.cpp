// The ollama-chat reply decoder on arbitrary bytes (an NDJSON body, and the same bytes as a whole
// reply): no crash, chunking-invariant, every block bracketed, synthesised call ids
// the same however the body was cut (wire_reply_harness.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "providers/ollama/ollama_reply.hpp"
#include "fuzz/wire_reply_harness.hpp"

namespace {
// The request bytes the decoder derives its synthesised call ids from.
constexpr std::string_view kRequestBody = R"({"model":"fuzz","messages":[]})";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto seed = static_cast<std::uint32_t>(size);
  wire_test::require_consistent_decoding(
      body, seed,
      [](agentkit::providers::detail::MessageAssembler& out) {
        return std::make_unique<agentkit::providers::detail::ollama::OllamaReplyDecoder>(out, kRequestBody);
      },
      wire_test::Framing::ndjson);
  return 0;
}
