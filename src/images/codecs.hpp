// The per-format decoders and header readers behind probe() and decode(). Private to
// agentkit_images; each takes the whole file and the caller's limits.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "agentkit/images/image.hpp"

namespace agentkit::images::detail {

Result<ImageInfo> probe_png(std::span<const std::uint8_t> bytes);
Result<Raster> decode_png(std::span<const std::uint8_t> bytes, const DecodeLimits& limits);

Result<ImageInfo> probe_jpeg(std::span<const std::uint8_t> bytes);
Result<Raster> decode_jpeg(std::span<const std::uint8_t> bytes, const DecodeLimits& limits);

Result<ImageInfo> probe_gif(std::span<const std::uint8_t> bytes);
Result<Raster> decode_gif(std::span<const std::uint8_t> bytes, const DecodeLimits& limits);

// Refuses a declared size over the limits, before anything is allocated for it.
Result<void> check_dimensions(std::string_view format, std::uint64_t width, std::uint64_t height,
                              const DecodeLimits& limits);

// One channel of a pixel with alpha a composited over white: (c * a + 255 * (255 - a)) / 255,
// rounded. flatten_onto_white() and the JPEG encoder's own flattening both write this.
constexpr std::uint8_t over_white(unsigned c, unsigned a) {
  return static_cast<std::uint8_t>((c * a + 255 * (255 - a) + 127) / 255);
}

// Big-endian reads; the caller has checked the bounds.
inline std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}
inline std::uint16_t be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

}  // namespace agentkit::images::detail
