// agentkit/images/transform.hpp — alpha flattening and area-averaging downscale.
//
//   agentkit::images::Raster px = agentkit::images::decode(bytes).value();
//   agentkit::images::flatten_onto_white(px);
//   agentkit::images::Size to = agentkit::images::fit_within({px.width, px.height}, 2000);
//   agentkit::Result<agentkit::images::Raster> small = agentkit::images::downscale(px, to);
//
// downscale() averages all the source pixels an output pixel covers (a box filter: a source pixel
// counts toward the output pixel whose footprint holds its centre, as in Pillow's BOX); it never
// picks one sample, so text and thin lines survive as grey instead of vanishing or aliasing.
//
// Thread safety: free functions on caller-owned values.
#pragma once

#include <cstdint>

#include "agentkit/base/result.hpp"
#include "agentkit/images/image.hpp"

namespace agentkit::images {

struct Size {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  friend bool operator==(const Size&, const Size&) = default;
};

// Composites every pixel over opaque white and sets alpha to 255 (what a viewer without alpha
// shows, and what JPEG can carry).
void flatten_onto_white(Raster& image);

// True when every pixel has alpha 255.
bool is_opaque(const Raster& image);

// The largest size with the same aspect ratio whose sides are both at most max_side (each side at
// least 1 px). A size that already fits is returned unchanged.
Size fit_within(Size size, std::uint32_t max_side);

// Area-averages the image down to `to`. Each channel is averaged on its own, so flatten first when
// the image has transparency. Errc::invalid_argument when `to` is empty or larger than the image
// on either side.
Result<Raster> downscale(const Raster& image, Size to);

}  // namespace agentkit::images
