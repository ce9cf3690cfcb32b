// The zlib stream format (RFC 1950) around deflate (RFC 1951), and the two checksums PNG needs.
// Private to agentkit_images: PNG is the only reader and writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::images::detail {

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);
std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler = 1);

// Inflates a whole zlib stream. Output beyond max_output bytes is Errc::limit_exceeded (a zlib
// bomb stops there, not when memory runs out); a stream that ends early is Errc::parse_error.
Result<std::vector<std::uint8_t>> zlib_inflate(std::span<const std::uint8_t> in,
                                               std::size_t max_output);

// Compresses with LZ77 matching and Huffman-coded blocks (never stored blocks), wrapped as zlib.
std::vector<std::uint8_t> zlib_deflate(std::span<const std::uint8_t> in);

}  // namespace agentkit::images::detail
