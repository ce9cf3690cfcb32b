// Alpha flattening and the area-averaging resampler. The resampler precomputes, per output column
// and row, the span of source pixels it averages; then, an output row at a time, it sums that
// row's source rows into 16-bit column sums (whole rows of additions, vectorised, each source row
// read once) and lets every output pixel add its columns' sums and divide once by its area.
#include "agentkit/images/transform.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <string>
#include <vector>

#include "codecs.hpp"

namespace agentkit::images {
namespace {

constexpr int kChannels = 4;

// The source pixels one output pixel averages: [first, first + count), all weighted equally.
struct Span {
  std::uint32_t first = 0;
  std::uint32_t count = 1;
};

// Output pixel x covers the source span [x * scale, (x + 1) * scale); a source pixel belongs to
// the output pixel whose span holds its centre (an edge centre goes to the left one). This is
// the box filter as Pillow defines it, so the two agree to rounding; a coverage-weighted box
// differs from it by up to a quarter of the contrast at ratios near 1.
std::vector<Span> spans(std::uint32_t src, std::uint32_t dst) {
  const double scale = static_cast<double>(src) / dst;
  std::vector<Span> out(dst);
  for (std::uint32_t x = 0; x < dst; ++x) {
    const double center = (x + 0.5) * scale;
    const double lo = std::max(0.0, std::floor(center - scale / 2));
    const double hi = std::min<double>(src, std::ceil(center + scale / 2) + 1);
    std::uint32_t count = 0;
    for (auto j = static_cast<std::uint32_t>(lo); j < static_cast<std::uint32_t>(hi); ++j) {
      const double offset = j + 0.5 - center;
      if (offset <= -scale / 2 || offset > scale / 2) continue;
      if (count++ == 0) out[x].first = j;
    }
    if (count == 0) {  // cannot happen when downscaling; keeps every output defined
      out[x].first = std::min(static_cast<std::uint32_t>(center), src - 1);
      count = 1;
    }
    out[x].count = count;
  }
  return out;
}

std::uint32_t widest(const std::vector<Span>& spans) {
  std::uint32_t n = 1;
  for (const Span& s : spans) n = std::max(n, s.count);
  return n;
}

// round(s / n), halves up, for sums s of at most 255 * n: one multiply instead of a division.
// floor(t / d) equals (t * m) >> 32 with m = floor(2^32 / d) + 1 whenever t * d < 2^32; here
// t = 2s + n < 511n and d = 2n, so areas up to kMaxFastArea pixels qualify; larger ones divide.
constexpr std::uint32_t kMaxFastArea = 2048;
class Average {
 public:
  explicit Average(std::uint32_t area)
      : n_(area), m_(area <= kMaxFastArea ? (std::uint64_t{1} << 32) / (2 * area) + 1 : 0) {}
  std::uint8_t operator()(std::uint32_t s) const {
    const std::uint64_t t = 2 * std::uint64_t{s} + n_;
    return static_cast<std::uint8_t>(m_ != 0 ? (t * m_) >> 32 : t / (2 * n_));
  }

 private:
  std::uint64_t n_;
  std::uint64_t m_;
};

// Sums rows [first, first + count) of the image into `acc`, channel by channel: whole rows of
// plain additions, which the compiler turns into vector code.
template <class Acc>
void sum_rows(const Raster& image, Span rows, std::vector<Acc>& acc) {
  const std::size_t n = acc.size();
  const std::uint8_t* src = image.rgba.data() + std::size_t{rows.first} * n;
  Acc* out = acc.data();
  if (rows.count == 1) {
    for (std::size_t i = 0; i < n; ++i) out[i] = src[i];
    return;
  }
  const std::uint8_t* next = src + n;
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Acc>(src[i] + next[i]);
  for (std::uint32_t r = 2; r < rows.count; ++r) {
    const std::uint8_t* row = src + r * n;
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Acc>(out[i] + row[i]);
  }
}

// One output row from the column sums of its source rows: each output pixel adds the sums of
// the columns it covers and divides by its area once, so a pixel is rounded once, not per axis.
// by_width[k] divides by the area of a span k columns wide.
template <class Acc>
void average_columns(const std::vector<Acc>& acc, const std::vector<Span>& xs,
                     const std::vector<Average>& by_width, std::uint8_t* out) {
  for (const Span& span : xs) {
    const Acc* p = acc.data() + std::size_t{span.first} * kChannels;
    std::uint32_t s[kChannels] = {0, 0, 0, 0};
    for (std::uint32_t j = 0; j < span.count; ++j, p += kChannels) {
      for (int c = 0; c < kChannels; ++c) s[c] += p[c];
    }
    const Average& average = by_width[span.count];
    for (int c = 0; c < kChannels; ++c) out[c] = average(s[c]);
    out += kChannels;
  }
}

template <class Acc>
void area_average(const Raster& image, const std::vector<Span>& xs, const std::vector<Span>& ys,
                  Raster& out) {
  std::vector<Acc> acc(std::size_t{image.width} * kChannels);
  const std::uint32_t widest_span = widest(xs);
  std::vector<Average> by_width;
  std::uint32_t rows = 0;  // the height by_width was made for
  const std::size_t out_row = std::size_t{out.width} * kChannels;
  for (std::size_t y = 0; y < ys.size(); ++y) {
    if (ys[y].count != rows) {
      rows = ys[y].count;
      by_width.clear();
      for (std::uint32_t k = 0; k <= widest_span; ++k) {
        by_width.emplace_back(std::max(k, 1u) * rows);
      }
    }
    sum_rows(image, ys[y], acc);
    average_columns(acc, xs, by_width, out.rgba.data() + y * out_row);
  }
}

}  // namespace

void flatten_onto_white(Raster& image) {
  for (std::size_t i = 0; i + 3 < image.rgba.size(); i += kChannels) {
    const unsigned a = image.rgba[i + 3];
    if (a == 255) continue;
    for (int c = 0; c < 3; ++c) image.rgba[i + c] = detail::over_white(image.rgba[i + c], a);
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
  const std::vector<Span> xs = spans(image.width, to.width);
  const std::vector<Span> ys = spans(image.height, to.height);
  Raster out;
  out.width = to.width;
  out.height = to.height;
  out.rgba.resize(std::size_t{to.width} * to.height * kChannels);
  // Column sums in 16 bits while they fit (up to 257 rows an output row), else in 32.
  if (std::uint64_t{widest(ys)} * 255 <= 0xffff) {
    area_average<std::uint16_t>(image, xs, ys, out);
  } else {
    area_average<std::uint32_t>(image, xs, ys, out);
  }
  return out;
}

}  // namespace agentkit::images
