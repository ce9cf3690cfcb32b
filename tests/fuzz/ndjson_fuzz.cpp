// NDJSON reader on arbitrary bytes: no crash, no line above the cap or holding an LF, no empty
// line, and the same lines and error however the stream is cut into chunks. The first byte picks
// the cap, the second the unterminated-last-line policy.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agentkit/wire/ndjson_reader.hpp"
#include "wire/fuzz_chunking.hpp"

namespace {
constexpr std::size_t kCapHeaderBytes = 2;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kCapHeaderBytes) return 0;
  agentkit::wire::NdjsonReaderOptions options;
  options.max_line_bytes = data[0];
  options.accept_unterminated_last_line = (data[1] & 1) != 0;
  const std::string_view stream(reinterpret_cast<const char*>(data) + kCapHeaderBytes,
                                size - kCapHeaderBytes);
  const auto seed = static_cast<std::uint32_t>(data[0] << 8 | data[1]);
  const auto transcript = wire_test::require_chunking_invariant<std::string>(
      stream, seed, [&] { return agentkit::wire::NdjsonReader(options); });
  for (const std::string& line : transcript.items) {
    wire_test::require(!line.empty() && line.size() <= options.max_line_bytes);
    wire_test::require(line.find('\n') == std::string::npos);
  }
  return 0;
}
