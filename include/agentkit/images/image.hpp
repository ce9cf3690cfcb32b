// agentkit/images/image.hpp — what an image file is, and its pixels.
//
//   std::vector<std::uint8_t> bytes = read_whole_file("shot.png");
//   agentkit::Result<agentkit::images::ImageInfo> info = agentkit::images::probe(bytes);
//   if (info && info->width > 2000) {
//     agentkit::Result<agentkit::images::Raster> px = agentkit::images::decode(bytes);
//     if (!px) log(px.error().to_string());   // "PNG: truncated IDAT data ..."
//   }
//
// probe() reads headers only (cheap enough to run on every image that enters a history); decode()
// produces 8-bit RGBA whatever the source depth or colour type. The format is sniffed from the
// bytes, never from a file name. Declared sizes are checked against DecodeLimits before anything is
// allocated, so a file claiming 100000x100000 pixels fails fast instead of exhausting memory.
//
// Thread safety: free functions on caller-owned bytes; safe to call from any number of threads.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::images {

enum class Format { unknown, png, jpeg, gif, webp };

// The MIME type of a format ("image/png"); empty for unknown.
std::string_view mime_type(Format format) noexcept;

// What the headers say, without decoding pixels.
struct ImageInfo {
  Format format = Format::unknown;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  // More than one frame is shown (APNG with num_frames > 1, GIF with a second image, animated
  // WebP).
  bool animated = false;
};

// Decoded pixels: 8 bits per channel, RGBA, rows top to bottom with no padding.
struct Raster {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes
};

// Bounds applied before any allocation. Safe to copy.
struct DecodeLimits {
  // Largest width * height accepted; 64 Mpx is 256 MB of RGBA. A larger declared size is refused
  // with Errc::limit_exceeded before the pixel buffer exists.
  std::uint64_t max_pixels = 64ull * 1000 * 1000;
  // Largest side accepted, in pixels.
  std::uint32_t max_side = 30'000;
};

// Sniffs the format from magic bytes and reads the dimensions. Errc::unsupported for bytes that
// are no known image format, Errc::parse_error for a known format whose header is broken.
Result<ImageInfo> probe(std::span<const std::uint8_t> bytes);

// Decodes the first (and only) frame to RGBA. Animated images, formats this build cannot decode
// and malformed or truncated data are errors that say why.
Result<Raster> decode(std::span<const std::uint8_t> bytes, const DecodeLimits& limits = {});

}  // namespace agentkit::images
