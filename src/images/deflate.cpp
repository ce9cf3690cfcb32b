// Deflate (RFC 1951) with LZ77 matching over hash chains, coded with the fixed Huffman code of
// RFC 1951 3.2.6. Fixed codes cost a few percent against dynamic ones on photos but need no code
// construction; the PNG filters do most of the work for the images this library writes.
#include <array>

#include "zlib.hpp"

namespace agentkit::images::detail {
namespace {

constexpr std::size_t kWindow = 32768;
constexpr int kHashBits = 15;
constexpr int kMinMatch = 3;
constexpr int kMaxMatch = 258;
// How many earlier positions with the same hash are tried; more compresses better, slower.
constexpr int kMaxChain = 48;
constexpr std::size_t kBlockSymbols = 1 << 16;  // end a block now and then; any size is legal

class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint32_t value, int bits) {
    buffer_ |= static_cast<std::uint64_t>(value) << count_;
    count_ += bits;
    while (count_ >= 8) {
      out_.push_back(static_cast<std::uint8_t>(buffer_));
      buffer_ >>= 8;
      count_ -= 8;
    }
  }
  // Huffman codes are sent most significant bit first, so they go in reversed.
  void put_code(std::uint32_t code, int bits) {
    std::uint32_t r = 0;
    for (int i = 0; i < bits; ++i) r |= ((code >> i) & 1u) << (bits - 1 - i);
    put(r, bits);
  }
  void flush() {
    if (count_ > 0) put(0, 8 - count_);
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t buffer_ = 0;
  int count_ = 0;
};

void put_literal_length(BitWriter& w, int sym) {
  if (sym < 144) {
    w.put_code(0x30 + static_cast<std::uint32_t>(sym), 8);
  } else if (sym < 256) {
    w.put_code(0x190 + static_cast<std::uint32_t>(sym - 144), 9);
  } else if (sym < 280) {
    w.put_code(static_cast<std::uint32_t>(sym - 256), 7);
  } else {
    w.put_code(0xc0 + static_cast<std::uint32_t>(sym - 280), 8);
  }
}

void put_match(BitWriter& w, int length, int distance) {
  int li = 28;
  while (kLengthBase[li] > length) --li;
  put_literal_length(w, 257 + li);
  w.put(static_cast<std::uint32_t>(length - kLengthBase[li]), kLengthExtra[li]);
  int di = 29;
  while (kDistBase[di] > distance) --di;
  w.put_code(static_cast<std::uint32_t>(di), 5);
  w.put(static_cast<std::uint32_t>(distance - kDistBase[di]), kDistExtra[di]);
}

std::uint32_t hash3(const std::uint8_t* p) {
  const std::uint32_t v = p[0] | (p[1] << 8) | (p[2] << 16);
  return (v * 2654435761u) >> (32 - kHashBits);
}

}  // namespace

std::vector<std::uint8_t> zlib_deflate(std::span<const std::uint8_t> in) {
  std::vector<std::uint8_t> out = {0x78, 0x9c};  // deflate, 32K window, default level
  out.reserve(in.size() / 2 + 64);
  BitWriter w(out);
  std::vector<std::int32_t> head(std::size_t{1} << kHashBits, -1);
  std::vector<std::int32_t> prev(kWindow, -1);
  const std::uint8_t* data = in.data();
  const std::size_t n = in.size();
  std::size_t symbols = 0;
  w.put(n == 0 ? 1 : 0, 1);
  w.put(1, 2);
  std::size_t i = 0;
  auto insert = [&](std::size_t at) {
    if (at + kMinMatch > n) return;
    const std::uint32_t h = hash3(data + at);
    prev[at % kWindow] = head[h];
    head[h] = static_cast<std::int32_t>(at);
  };
  while (i < n) {
    int best_len = 0;
    int best_dist = 0;
    if (i + kMinMatch <= n) {
      std::int32_t cand = head[hash3(data + i)];
      const int max_len = static_cast<int>(std::min<std::size_t>(kMaxMatch, n - i));
      for (int chain = 0; cand >= 0 && chain < kMaxChain; ++chain) {
        const std::size_t c = static_cast<std::size_t>(cand);
        if (i - c > kWindow - 1) break;
        if (data[c + static_cast<std::size_t>(best_len)] ==
            data[i + static_cast<std::size_t>(best_len)]) {
          int len = 0;
          while (len < max_len &&
                 data[c + static_cast<std::size_t>(len)] == data[i + static_cast<std::size_t>(len)])
            ++len;
          if (len > best_len) {
            best_len = len;
            best_dist = static_cast<int>(i - c);
            if (len == max_len) break;
          }
        }
        const std::int32_t next = prev[c % kWindow];
        if (next >= cand) break;  // the slot was reused by a newer position
        cand = next;
      }
    }
    if (best_len >= kMinMatch) {
      put_match(w, best_len, best_dist);
      for (int k = 0; k < best_len; ++k) insert(i + static_cast<std::size_t>(k));
      i += static_cast<std::size_t>(best_len);
    } else {
      put_literal_length(w, data[i]);
      insert(i);
      ++i;
    }
    if (++symbols == kBlockSymbols && i < n) {
      put_literal_length(w, 256);
      symbols = 0;
      w.put(0, 1);
      w.put(1, 2);
    }
  }
  if (n > 0) {
    put_literal_length(w, 256);
    // The last block flag was written as 0 for a non-empty input; close with an empty final block.
    w.put(1, 1);
    w.put(1, 2);
  }
  put_literal_length(w, 256);
  w.flush();
  const std::uint32_t a = adler32(in);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(a >> shift));
  return out;
}

}  // namespace agentkit::images::detail
