// agentkit/images/encode.hpp — writing PNG and baseline JPEG.
//
//   agentkit::images::Raster px = ...;
//   std::vector<std::uint8_t> png = agentkit::images::encode_png(px);
//   std::vector<std::uint8_t> jpg = agentkit::images::encode_jpeg(px, {.quality = 80});
//
// PNG keeps every pixel (grey, RGB or RGBA, whichever is the smallest that is exact) and is
// deflate-compressed with per-row filters. JPEG is baseline, YCbCr with 4:2:0 chroma, the
// standard tables scaled by quality; transparency is flattened onto white first.
//
// Thread safety: free functions on caller-owned values.
#pragma once

#include <cstdint>
#include <vector>

#include "agentkit/images/image.hpp"

namespace agentkit::images {

std::vector<std::uint8_t> encode_png(const Raster& image);

struct JpegOptions {
  // 1 (smallest, worst) to 100 (largest, best), on the scale libjpeg uses; clamped to that range.
  int quality = 85;
};

// An empty raster (no pixels) encodes to an empty vector.
std::vector<std::uint8_t> encode_jpeg(const Raster& image, const JpegOptions& options = {});

}  // namespace agentkit::images
