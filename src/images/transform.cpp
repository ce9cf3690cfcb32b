// Alpha flattening and the area-averaging resampler. The resampler is separable: a horizontal
// pass into an 8-bit intermediate, then a vertical pass; each pass precomputes, per output
// position, the span of source pixels it averages.
#include "agentkit/images/transform.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <string>
#include <vector>

namespace agentkit::images {
namespace {

constexpr int kChannels = 4;

// The source pixels one output pixel averages: [first, first + weights.size()).
struct Footprint {
  std::uint32_t first = 0;
  std::vector<float> weights;  // equal, summing to 1
};

// Output pixel x covers the source span [x * scale, (x + 1) * scale); a source pixel belongs to
// the output pixel whose span holds its centre (an edge centre goes to the left one). This is
// the box filter as Pillow defines it, so the two agree to rounding; a coverage-weighted box
// differs from it by up to a quarter of the contrast at ratios near 1.
std::vector<Footprint> footprints(std::uint32_t src, std::uint32_t dst) {
  const double scale = static_cast<double>(src) / dst;
  std::vector<Footprint> out(dst);
  for (std::uint32_t x = 0; x < dst; ++x) {
    const double center = (x + 0.5) * scale;
    const double lo = std::max(0.0, std::floor(center - scale / 2));
    const double hi = std::min<double>(src, std::ceil(center + scale / 2) + 1);
    bool any = false;
    for (auto j = static_cast<std::uint32_t>(lo); j < static_cast<std::uint32_t>(hi); ++j) {
      const double offset = j + 0.5 - center;
      if (offset <= -scale / 2 || offset > scale / 2) continue;
      if (!any) out[x].first = j;
      any = true;
      out[x].weights.push_back(1.0f);
    }
    if (!any) {  // cannot happen when downscaling; keeps every output defined
      out[x].first = std::min(static_cast<std::uint32_t>(center), src - 1);
      out[x].weights.push_back(1.0f);
    }
    for (float& w : out[x].weights) w = 1.0f / static_cast<float>(out[x].weights.size());
  }
  return out;
}

std::uint8_t to_byte(float v) {
  return static_cast<std::uint8_t>(std::clamp(v + 0.5f, 0.0f, 255.0f));
}

// Averages along one axis: `lines` lines (src_line and dst_line bytes apart) whose pixels are
// pixel_stride bytes apart, each into fp.size() pixels.
void pass(const std::uint8_t* src, std::uint8_t* dst, std::size_t lines, std::size_t src_line,
          std::size_t dst_line, std::size_t pixel_stride, const std::vector<Footprint>& fp) {
  for (std::size_t line = 0; line < lines; ++line) {
    const std::uint8_t* in = src + line * src_line;
    for (std::size_t x = 0; x < fp.size(); ++x) {
      float acc[kChannels] = {0, 0, 0, 0};
      const std::uint8_t* p = in + fp[x].first * pixel_stride;
      for (float w : fp[x].weights) {
        for (int c = 0; c < kChannels; ++c) acc[c] += w * p[c];
        p += pixel_stride;
      }
      std::uint8_t* o = dst + line * dst_line + x * pixel_stride;
      for (int c = 0; c < kChannels; ++c) o[c] = to_byte(acc[c]);
    }
  }
}

}  // namespace

void flatten_onto_white(Raster& image) {
  for (std::size_t i = 0; i + 3 < image.rgba.size(); i += kChannels) {
    const unsigned a = image.rgba[i + 3];
    if (a == 255) continue;
    for (int c = 0; c < 3; ++c) {
      // c*a + 255*(255-a), divided by 255 with rounding.
      const unsigned v = image.rgba[i + c] * a + 255 * (255 - a);
      image.rgba[i + c] = static_cast<std::uint8_t>((v + 127) / 255);
    }
    image.rgba[i + 3] = 255;
  }
}

bool is_opaque(const Raster& image) {
  // Two pixels per 64-bit word, AND-ed over 64-byte runs so the loop vectorises and branches
  // once a run: the encoder asks this of every image, and most are opaque.
  constexpr std::uint64_t kAlpha = 0xff000000ff000000ull;  // alpha bytes, little-endian words
  const std::uint8_t* p = image.rgba.data();
  const std::size_t n = image.rgba.size();
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 64 <= n; i += 64) {
      std::uint64_t all = kAlpha;
      for (std::size_t k = 0; k < 64; k += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i + k, 8);
        all &= w;
      }
      if ((all & kAlpha) != kAlpha) return false;
    }
  }
  for (i += 3; i < n; i += kChannels) {
    if (p[i] != 255) return false;
  }
  return true;
}

Size fit_within(Size size, std::uint32_t max_side) {
  const std::uint32_t longest = std::max(size.width, size.height);
  if (longest <= max_side || longest == 0) return size;
  const double scale = static_cast<double>(max_side) / longest;
  auto side = [&](std::uint32_t s) {
    return std::clamp<std::uint32_t>(static_cast<std::uint32_t>(std::lround(s * scale)), 1,
                                     max_side);
  };
  return {side(size.width), side(size.height)};
}

Result<Raster> downscale(const Raster& image, Size to) {
  if (to.width == 0 || to.height == 0 || to.width > image.width || to.height > image.height) {
    return make_error(Errc::invalid_argument, "downscale to " + std::to_string(to.width) + "x" +
                                                  std::to_string(to.height) + " from " +
                                                  std::to_string(image.width) + "x" +
                                                  std::to_string(image.height) +
                                                  ": the target must be non-empty and "
                                                  "no larger than the source");
  }
  if (to.width == image.width && to.height == image.height) return image;
  const std::size_t row = std::size_t{image.width} * kChannels;
  const std::size_t out_row = std::size_t{to.width} * kChannels;
  // Horizontal: each source row shrinks to to.width pixels.
  std::vector<std::uint8_t> mid(out_row * image.height);
  pass(image.rgba.data(), mid.data(), image.height, row, out_row, kChannels,
       footprints(image.width, to.width));
  // Vertical: each column (kChannels bytes apart) shrinks to to.height pixels.
  Raster out;
  out.width = to.width;
  out.height = to.height;
  out.rgba.resize(out_row * to.height);
  pass(mid.data(), out.rgba.data(), to.width, kChannels, kChannels, out_row,
       footprints(image.height, to.height));
  return out;
}

}  // namespace agentkit::images
