// The GIF decoder on arbitrary bytes (the GIF signature is prepended so every input reaches the
// block and LZW parsers): no crash, bounded memory, a decoded frame the size of the screen.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "agentkit/images/image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> gif = {'G', 'I', 'F', '8', '9', 'a'};
  gif.insert(gif.end(), data, data + size);
  agentkit::images::DecodeLimits limits;
  limits.max_pixels = 1 << 20;
  agentkit::Result<agentkit::images::Raster> r = agentkit::images::decode(gif, limits);
  (void)agentkit::images::probe(gif);
  if (r && r->rgba.size() != std::size_t{r->width} * r->height * 4) std::abort();
  return 0;
}
