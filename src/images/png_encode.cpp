// The PNG writer: the smallest exact colour type, the row filter with the least absolute sum per
// row (the libpng heuristic), one IDAT.
#include <array>
#include <cstdlib>

#include "agentkit/images/encode.hpp"
#include "agentkit/images/transform.hpp"
#include "codecs.hpp"
#include "zlib.hpp"

namespace agentkit::images {
namespace {

constexpr int kFilters = 5;

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

void put_chunk(std::vector<std::uint8_t>& out, const char* type,
               const std::vector<std::uint8_t>& data) {
  put_be32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put_be32(out, detail::crc32(std::span(out.data() + start, out.size() - start)));
}

bool is_grey(const Raster& image) {
  for (std::size_t i = 0; i + 3 < image.rgba.size(); i += 4) {
    if (image.rgba[i] != image.rgba[i + 1] || image.rgba[i] != image.rgba[i + 2]) return false;
  }
  return true;
}

std::uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
  return static_cast<std::uint8_t>(pb <= pc ? b : c);
}

// Filters one row with filter `type` into out (without the type byte).
void filter_row(int type, const std::uint8_t* row, const std::uint8_t* prior, std::size_t n,
                std::size_t bpp, std::uint8_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const int a = i >= bpp ? row[i - bpp] : 0;
    const int b = prior[i];
    const int c = i >= bpp ? prior[i - bpp] : 0;
    int predicted = 0;
    switch (type) {
      case 1: predicted = a; break;
      case 2: predicted = b; break;
      case 3: predicted = (a + b) >> 1; break;
      case 4: predicted = paeth(a, b, c); break;
      default: break;
    }
    out[i] = static_cast<std::uint8_t>(row[i] - predicted);
  }
}

std::vector<std::uint8_t> filtered_scanlines(const std::vector<std::uint8_t>& pixels,
                                             std::uint32_t height, std::size_t row_bytes,
                                             std::size_t bpp) {
  std::vector<std::uint8_t> out;
  out.reserve((row_bytes + 1) * height);
  std::vector<std::uint8_t> zeros(row_bytes, 0);
  std::array<std::vector<std::uint8_t>, kFilters> trial;
  for (auto& t : trial) t.resize(row_bytes);
  for (std::uint32_t y = 0; y < height; ++y) {
    const std::uint8_t* row = pixels.data() + y * row_bytes;
    const std::uint8_t* prior = y == 0 ? zeros.data() : row - row_bytes;
    int best = 0;
    std::uint64_t best_cost = UINT64_MAX;
    for (int f = 0; f < kFilters; ++f) {
      filter_row(f, row, prior, row_bytes, bpp, trial[f].data());
      std::uint64_t cost = 0;
      for (std::uint8_t v : trial[f]) cost += v < 128 ? v : 256 - v;
      if (cost < best_cost) {
        best_cost = cost;
        best = f;
      }
    }
    out.push_back(static_cast<std::uint8_t>(best));
    out.insert(out.end(), trial[best].begin(), trial[best].end());
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> encode_png(const Raster& image) {
  const bool opaque = is_opaque(image);
  const bool grey = is_grey(image);
  const int channels = grey ? (opaque ? 1 : 2) : (opaque ? 3 : 4);
  const std::uint8_t colour_type = grey ? (opaque ? 0 : 4) : (opaque ? 2 : 6);
  std::vector<std::uint8_t> pixels;
  pixels.reserve(std::size_t{image.width} * image.height * static_cast<std::size_t>(channels));
  static constexpr int kPick[5][4] = {{}, {0}, {0, 3}, {0, 1, 2}, {0, 1, 2, 3}};
  for (std::size_t i = 0; i + 3 < image.rgba.size(); i += 4) {
    for (int c = 0; c < channels; ++c)
      pixels.push_back(image.rgba[i + static_cast<std::size_t>(kPick[channels][c])]);
  }
  const std::size_t row_bytes = std::size_t{image.width} * static_cast<std::size_t>(channels);
  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> ihdr;
  put_be32(ihdr, image.width);
  put_be32(ihdr, image.height);
  ihdr.insert(ihdr.end(), {8, colour_type, 0, 0, 0});
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT",
            detail::zlib_deflate(filtered_scanlines(pixels, image.height, row_bytes,
                                                    static_cast<std::size_t>(channels))));
  put_chunk(png, "IEND", {});
  return png;
}

}  // namespace agentkit::images
