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
    case Format::unknown: return not_an_image();
    default:
      return make_error(Errc::unsupported, "this build reads only PNG and JPEG headers so far");
  }
}

Result<Raster> decode(std::span<const std::uint8_t> bytes, const DecodeLimits& limits) {
  switch (sniff(bytes)) {
    case Format::png: return detail::decode_png(bytes, limits);
    case Format::jpeg: return detail::decode_jpeg(bytes, limits);
    case Format::webp:
      return make_error(Errc::unsupported, "WebP cannot be decoded here; it can only be passed "
                                           "through unchanged when it already fits");
    case Format::unknown: return not_an_image();
    default:
      return make_error(Errc::unsupported, "this build decodes only PNG and JPEG so far");
  }
}

namespace detail {

Result<void> check_dimensions(std::string_view format, std::uint64_t width, std::uint64_t height,
                              const DecodeLimits& limits) {
  if (width == 0 || height == 0) {
    return make_error(Errc::parse_error, std::string(format) + ": zero width or height");
  }
  if (width > limits.max_side || height > limits.max_side || width * height > limits.max_pixels) {
    return make_error(Errc::limit_exceeded,
                      std::string(format) + ": " + std::to_string(width) + "x" +
                          std::to_string(height) + " is over the decode limit of " +
                          std::to_string(limits.max_pixels) + " pixels and " +
                          std::to_string(limits.max_side) + " px per side; refusing to allocate it");
  }
  return {};
}

}  // namespace detail
}  // namespace agentkit::images
