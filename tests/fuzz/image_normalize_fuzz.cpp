// The normaliser on arbitrary text (as a tool or MCP server might send it): no crash, and a
// refusal always hands back the original text. renormalize() of the same text must reach the
// same outcome: libFuzzer reuses its input buffer, so the checked-text memo sees one address
// holding many texts, which is what its fingerprint must tell apart.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agentkit/images/normalize.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const agentkit::images::ImageNormalizer normalizer([] {
    agentkit::images::ImageBudget b;
    b.max_side = 64;
    b.decode.max_pixels = 1 << 20;
    return b;
  }());
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto out = normalizer.normalize("image/png", text);
  if (out.outcome == agentkit::images::Outcome::refused && out.data_base64 != text) std::abort();
  if (normalizer.renormalize("image/png", text).outcome != out.outcome) std::abort();
  return 0;
}
