// The PNG decoder (and the inflate under it) on arbitrary bytes: no crash, no unbounded memory
// (the pixel cap is small here), and whatever decodes survives our PNG encoder exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "agentkit/images/encode.hpp"
#include "agentkit/images/image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  agentkit::images::DecodeLimits limits;
  limits.max_pixels = 1 << 20;
  agentkit::Result<agentkit::images::Raster> r = agentkit::images::decode({data, size}, limits);
  (void)agentkit::images::probe({data, size});
  if (r && r->width * r->height <= 4096) {
    const auto png = agentkit::images::encode_png(*r);
    auto back = agentkit::images::decode(png, limits);
    if (!back || back->rgba != r->rgba) std::abort();
  }
  return 0;
}
