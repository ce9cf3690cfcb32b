// Content-Length frame reader on arbitrary bytes: no crash, no frame above the cap, and the same
// frames and error however the stream is cut into chunks. The first two bytes pick the caps, so
// the limits themselves get exercised at small sizes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agentkit/wire/frame_reader.hpp"
#include "wire/fuzz_chunking.hpp"

namespace {
constexpr std::size_t kCapHeaderBytes = 2;
constexpr std::size_t kMessageCapStep = 4;   // caps 0..1020 bytes
constexpr std::size_t kHeaderCapBase = 8;    // header caps 8..263 bytes
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kCapHeaderBytes) return 0;
  agentkit::wire::FrameReaderOptions options;
  options.max_message_bytes = data[0] * kMessageCapStep;
  options.max_header_bytes = kHeaderCapBase + data[1];
  const std::string_view stream(reinterpret_cast<const char*>(data) + kCapHeaderBytes,
                                size - kCapHeaderBytes);
  const auto seed = static_cast<std::uint32_t>(data[0] << 8 | data[1]);
  const auto transcript = wire_test::require_chunking_invariant<std::string>(
      stream, seed, [&] { return agentkit::wire::FrameReader(options); });
  for (const std::string& body : transcript.items) {
    wire_test::require(body.size() <= options.max_message_bytes);
  }
  return 0;
}
