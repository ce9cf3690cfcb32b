// SSE decoder on arbitrary bytes: no crash, events within the caps, and the same events and
// error however the stream is cut into chunks (CR/LF split across chunks, a BOM split across
// chunks), read with next() or lent by feed_each(). The first two bytes pick the line and event
// caps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agentkit/wire/sse_decoder.hpp"
#include "wire/fuzz_chunking.hpp"

namespace {
constexpr std::size_t kCapHeaderBytes = 2;
constexpr std::size_t kCapBase = 1;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kCapHeaderBytes) return 0;
  agentkit::wire::SseDecoderOptions options;
  options.max_line_bytes = kCapBase + data[0];
  options.max_event_bytes = kCapBase + data[1];
  const std::string_view stream(reinterpret_cast<const char*>(data) + kCapHeaderBytes,
                                size - kCapHeaderBytes);
  const auto seed = static_cast<std::uint32_t>(data[0] << 8 | data[1]);
  const auto transcript = wire_test::require_chunking_invariant<agentkit::wire::SseEvent>(
      stream, seed, [&] { return agentkit::wire::SseDecoder(options); });
  // feed_each lends the same events, in the same order, and ends with the same error.
  wire_test::Transcript<agentkit::wire::SseEvent> lent;
  agentkit::wire::SseDecoder each(options);
  const agentkit::wire::SseDecoder::EventVisitor keep =
      [&](const agentkit::wire::SseEvent& e) -> agentkit::Result<void> {
    lent.items.push_back(e);
    return {};
  };
  for (std::string_view chunk : wire_test::pseudo_random_chunks(stream, seed + 1)) {
    if (auto fed = each.feed_each(chunk, keep); !fed && !lent.error) lent.error = fed.error();
  }
  if (auto end = each.finish(); !end && !lent.error) lent.error = end.error();
  wire_test::require(wire_test::same_transcript(transcript, lent));
  for (const auto& event : transcript.items) {
    wire_test::require(!event.type.empty());
    wire_test::require(event.data.size() < options.max_event_bytes);
    wire_test::require(event.id.find('\0') == std::string::npos);
  }
  return 0;
}
