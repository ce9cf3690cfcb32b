// The zlib stream format (RFC 1950) around deflate (RFC 1951), and the two checksums PNG needs.
// Private to agentkit_images: PNG is the only reader and writer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::images::detail {

// RFC 1951 3.2.5: the base value and extra bits of each length code (257-285) and distance code.
inline constexpr std::array<std::uint16_t, 29> kLengthBase = {
    3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
inline constexpr std::array<std::uint8_t, 29> kLengthExtra = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
inline constexpr std::array<std::uint16_t, 30> kDistBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
inline constexpr std::array<std::uint8_t, 30> kDistExtra = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                                            4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                                            9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);
std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler = 1);

// Inflates a whole zlib stream. Output beyond max_output bytes is Errc::limit_exceeded (a zlib
// bomb stops there, not when memory runs out); a stream that ends early is Errc::parse_error.
Result<std::vector<std::uint8_t>> zlib_inflate(std::span<const std::uint8_t> in,
                                               std::size_t max_output);

// Compresses with LZ77 matching and Huffman-coded blocks (never stored blocks), wrapped as zlib.
std::vector<std::uint8_t> zlib_deflate(std::span<const std::uint8_t> in);

}  // namespace agentkit::images::detail
