// Format sniffing and dispatch to the per-format decoders.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "codecs.hpp"

namespace agentkit::images {
namespace {

bool starts_with(std::span<const std::uint8_t> bytes, std::string_view magic) {
  return bytes.size() >= magic.size() && std::memcmp(bytes.data(), magic.data(), magic.size()) == 0;
}

Format sniff(std::span<const std::uint8_t> bytes) {
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n")) return Format::png;
  if (starts_with(bytes, "\xff\xd8\xff")) return Format::jpeg;
  if (starts_with(bytes, "GIF87a") || starts_with(bytes, "GIF89a")) return Format::gif;
  if (bytes.size() >= 12 && starts_with(bytes, "RIFF") &&
      std::memcmp(bytes.data() + 8, "WEBP", 4) == 0) {
    return Format::webp;
  }
  return Format::unknown;
}

std::uint32_t le24(const std::uint8_t* p) {
  return p[0] | (p[1] << 8) | (std::uint32_t{p[2]} << 16);
}

// WebP is never decoded here, but its size and animation flag are in the first chunk: VP8 (lossy
// key frame header), VP8L (lossless bit-packed header) or VP8X (extended canvas and flags).
Result<ImageInfo> probe_webp(std::span<const std::uint8_t> b) {
  constexpr std::size_t kChunk = 12;
  auto bad = [](const char* why) {
    return make_error(Errc::parse_error, std::string("WebP: ") + why);
  };
  if (b.size() < kChunk + 8 + 10) return bad("truncated header");
  const std::uint8_t* c = b.data() + kChunk;
  const std::uint8_t* d = c + 8;
  ImageInfo info{Format::webp, 0, 0, false};
  if (std::memcmp(c, "VP8 ", 4) == 0) {
    if (d[3] != 0x9d || d[4] != 0x01 || d[5] != 0x2a) return bad("no VP8 key frame start code");
    info.width = (d[6] | (d[7] << 8)) & 0x3fff;
    info.height = (d[8] | (d[9] << 8)) & 0x3fff;
  } else if (std::memcmp(c, "VP8L", 4) == 0) {
    if (d[0] != 0x2f) return bad("no VP8L signature");
    const std::uint32_t bits =
        d[1] | (d[2] << 8) | (std::uint32_t{d[3]} << 16) | (std::uint32_t{d[4]} << 24);
    info.width = (bits & 0x3fff) + 1;
    info.height = ((bits >> 14) & 0x3fff) + 1;
  } else if (std::memcmp(c, "VP8X", 4) == 0) {
    info.animated = (d[0] & 0x02) != 0;
    info.width = le24(d + 4) + 1;
    info.height = le24(d + 7) + 1;
  } else {
    return bad("unknown first chunk");
  }
  return info;
}

Error not_an_image() {
  return make_error(Errc::unsupported,
                    "not a PNG, JPEG, GIF or WebP image (the first bytes match none of them)");
}

}  // namespace

std::string_view mime_type(Format format) noexcept {
  switch (format) {
    case Format::png: return "image/png";
    case Format::jpeg: return "image/jpeg";
    case Format::gif: return "image/gif";
    case Format::webp: return "image/webp";
    case Format::unknown: break;
  }
  return {};
}

Result<ImageInfo> probe(std::span<const std::uint8_t> bytes) {
  switch (sniff(bytes)) {
    case Format::png: return detail::probe_png(bytes);
    case Format::jpeg: return detail::probe_jpeg(bytes);
    case Format::gif: return detail::probe_gif(bytes);
    case Format::webp: return probe_webp(bytes);
    case Format::unknown: break;
  }
  return not_an_image();
}

Result<Raster> decode(std::span<const std::uint8_t> bytes, const DecodeLimits& limits) {
  switch (sniff(bytes)) {
    case Format::png: return detail::decode_png(bytes, limits);
    case Format::jpeg: return detail::decode_jpeg(bytes, limits);
    case Format::gif: return detail::decode_gif(bytes, limits);
    case Format::webp:
      return make_error(Errc::unsupported,
                        "WebP cannot be decoded here; it can only be passed "
                        "through unchanged when it already fits");
    case Format::unknown: break;
  }
  return not_an_image();
}

namespace detail {

Result<void> check_dimensions(std::string_view format, std::uint64_t width, std::uint64_t height,
                              const DecodeLimits& limits) {
  if (width == 0 || height == 0) {
    return make_error(Errc::parse_error, std::string(format) + ": zero width or height");
  }
  if (width > limits.max_side || height > limits.max_side || width * height > limits.max_pixels) {
    return make_error(
        Errc::limit_exceeded,
        std::string(format) + ": " + std::to_string(width) + "x" + std::to_string(height) +
            " is over the decode limit of " + std::to_string(limits.max_pixels) + " pixels and " +
            std::to_string(limits.max_side) + " px per side; refusing to allocate it");
  }
  return {};
}

}  // namespace detail
}  // namespace agentkit::images
