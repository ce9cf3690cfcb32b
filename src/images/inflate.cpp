// Inflate (RFC 1951) inside a zlib wrapper (RFC 1950). Huffman codes decode through one lookup
// table per code indexed by the next max-length bits, so each symbol costs one load.
#include <algorithm>
#include <array>
#include <string>

#include "zlib.hpp"

namespace agentkit::images::detail {
namespace {

constexpr int kMaxCodeBits = 15;
constexpr int kLenSymbols = 288;
constexpr int kDistSymbols = 32;
constexpr int kSymbolBits = 9;  // a table entry is symbol | length << kSymbolBits

// The order in which code-length code lengths are sent (RFC 1951 3.2.7).
constexpr std::array<std::uint8_t, 19> kCodeLengthOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                           11, 4,  12, 3, 13, 2, 14, 1, 15};

Error corrupt(const std::string& why) {
  return make_error(Errc::parse_error, "zlib stream is corrupt: " + why);
}

class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> in) : p_(in.data()), end_(p_ + in.size()) {}

  // Keeps at least 56 bits buffered; past the end it feeds zero bytes and counts them, so a
  // truncated stream is detected by overrun() rather than read out of bounds.
  void refill() {
    while (count_ <= 56) {
      std::uint64_t byte = 0;
      if (p_ < end_) {
        byte = *p_++;
      } else {
        ++padding_;
      }
      buffer_ |= byte << count_;
      count_ += 8;
    }
  }
  std::uint32_t peek(int bits) const {
    return static_cast<std::uint32_t>(buffer_ & ((1ull << bits) - 1));
  }
  void skip(int bits) {
    buffer_ >>= bits;
    count_ -= bits;
  }
  std::uint32_t take(int bits) {
    if (count_ < bits) refill();
    const std::uint32_t v = peek(bits);
    skip(bits);
    return v;
  }
  bool overrun() const { return padding_ * 8 > count_; }
  void align_to_byte() { skip(count_ % 8); }
  // Bytes not yet consumed, after align_to_byte(): the buffered whole bytes go back first.
  std::size_t unread_bytes() const {
    return static_cast<std::size_t>(end_ - p_) + static_cast<std::size_t>(count_ / 8) -
           static_cast<std::size_t>(padding_);
  }
  // Drops the bit buffer and returns the position of the next unread byte (after align_to_byte()).
  const std::uint8_t* rewind_to_bytes() {
    const std::uint8_t* at = p_ - (count_ / 8 - padding_);
    buffer_ = 0;
    count_ = 0;
    padding_ = 0;
    return at;
  }
  void reset_at(const std::uint8_t* at) { p_ = at; }
  const std::uint8_t* end() const { return end_; }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  std::uint64_t buffer_ = 0;
  int count_ = 0;
  int padding_ = 0;
};

struct Huffman {
  std::vector<std::uint16_t> table;
  int bits = 0;
};

std::uint32_t reverse_bits(std::uint32_t code, int length) {
  std::uint32_t r = 0;
  for (int i = 0; i < length; ++i) {
    r = (r << 1) | (code & 1);
    code >>= 1;
  }
  return r;
}

// Builds the lookup table of a canonical code. Over-subscribed lengths are corrupt; incomplete
// codes are allowed (a single distance code is legal) and their unused entries decode as errors.
Result<Huffman> build_huffman(const std::uint8_t* lengths, int n) {
  std::array<int, kMaxCodeBits + 1> count{};
  for (int i = 0; i < n; ++i) ++count[lengths[i]];
  count[0] = 0;
  int left = 1;
  int max_len = 0;
  for (int len = 1; len <= kMaxCodeBits; ++len) {
    left = left * 2 - count[len];
    if (left < 0) return corrupt("over-subscribed Huffman code");
    if (count[len] != 0) max_len = len;
  }
  Huffman h;
  h.bits = std::max(max_len, 1);
  h.table.assign(std::size_t{1} << h.bits, 0);
  std::array<std::uint32_t, kMaxCodeBits + 2> next{};
  for (int len = 1; len <= kMaxCodeBits; ++len) {
    next[len + 1] = (next[len] + static_cast<std::uint32_t>(count[len])) << 1;
  }
  for (int sym = 0; sym < n; ++sym) {
    const int len = lengths[sym];
    if (len == 0) continue;
    const std::uint32_t rev = reverse_bits(next[len]++, len);
    const auto entry = static_cast<std::uint16_t>(sym | (len << kSymbolBits));
    for (std::size_t i = rev; i < h.table.size(); i += std::size_t{1} << len) h.table[i] = entry;
  }
  return h;
}

// Decodes one symbol, or -1 for a bit pattern the code does not assign.
int decode_symbol(BitReader& in, const Huffman& h) {
  in.refill();
  const std::uint16_t entry = h.table[in.peek(h.bits)];
  const int len = entry >> kSymbolBits;
  if (len == 0) return -1;
  in.skip(len);
  return entry & ((1 << kSymbolBits) - 1);
}

class Inflater {
 public:
  Inflater(std::span<const std::uint8_t> deflate, std::size_t max_output)
      : in_(deflate), max_output_(max_output) {}

  Result<std::vector<std::uint8_t>> run() {
    bool last = false;
    while (!last) {
      last = in_.take(1) != 0;
      const std::uint32_t type = in_.take(2);
      Result<void> r = type == 0   ? stored_block()
                       : type == 1 ? fixed_block()
                       : type == 2 ? dynamic_block()
                                   : Result<void>(corrupt("reserved block type 3"));
      if (!r) return r.error();
      if (in_.overrun()) return truncated();
    }
    out_.resize(pos_);
    return std::move(out_);
  }

  // Where the deflate data ended (the zlib trailer starts there).
  const std::uint8_t* end_of_data() {
    in_.align_to_byte();
    return in_.rewind_to_bytes();
  }

 private:
  static Error truncated() { return make_error(Errc::parse_error, "zlib stream is truncated"); }

  Result<void> reserve(std::size_t n) {
    if (pos_ + n > max_output_) {
      return make_error(Errc::limit_exceeded,
                        "zlib stream inflates past " + std::to_string(max_output_) +
                            " bytes, more than the image can hold (a decompression bomb?)");
    }
    if (pos_ + n > out_.size()) {
      out_.resize(std::min(max_output_, std::max(out_.size() * 2, pos_ + n + 4096)));
    }
    return {};
  }

  Result<void> stored_block() {
    in_.align_to_byte();
    const std::uint8_t* p = in_.rewind_to_bytes();
    const std::uint8_t* end = in_.end();
    if (end - p < 4) return truncated();
    const unsigned len = p[0] | (p[1] << 8);
    const unsigned nlen = p[2] | (p[3] << 8);
    if ((len ^ 0xffffu) != nlen) return corrupt("stored block length check failed");
    p += 4;
    if (static_cast<std::size_t>(end - p) < len) return truncated();
    if (auto r = reserve(len); !r) return r;
    std::copy(p, p + len, out_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ += len;
    in_.reset_at(p + len);
    return {};
  }

  Result<void> fixed_block() {
    if (fixed_len_.table.empty()) {
      std::array<std::uint8_t, kLenSymbols> lens{};
      std::fill(lens.begin(), lens.begin() + 144, 8);
      std::fill(lens.begin() + 144, lens.begin() + 256, 9);
      std::fill(lens.begin() + 256, lens.begin() + 280, 7);
      std::fill(lens.begin() + 280, lens.end(), 8);
      std::array<std::uint8_t, kDistSymbols> dl{};
      dl.fill(5);
      fixed_len_ = build_huffman(lens.data(), kLenSymbols).value();
      fixed_dist_ = build_huffman(dl.data(), kDistSymbols).value();
    }
    return codes(fixed_len_, fixed_dist_);
  }

  Result<void> dynamic_block() {
    const int hlit = static_cast<int>(in_.take(5)) + 257;
    const int hdist = static_cast<int>(in_.take(5)) + 1;
    const int hclen = static_cast<int>(in_.take(4)) + 4;
    if (hlit > 286 || hdist > 30) return corrupt("too many length or distance codes");
    std::array<std::uint8_t, 19> cl{};
    for (int i = 0; i < hclen; ++i)
      cl[kCodeLengthOrder[i]] = static_cast<std::uint8_t>(in_.take(3));
    Result<Huffman> clh = build_huffman(cl.data(), 19);
    if (!clh) return clh.error();
    std::array<std::uint8_t, 286 + 30> lens{};
    int n = 0;
    while (n < hlit + hdist) {
      const int sym = decode_symbol(in_, *clh);
      if (sym < 0 || in_.overrun()) return corrupt("bad code-length code");
      if (sym < 16) {
        lens[n++] = static_cast<std::uint8_t>(sym);
        continue;
      }
      int repeat = 0;
      std::uint8_t value = 0;
      if (sym == 16) {
        if (n == 0) return corrupt("length repeat with no previous length");
        value = lens[n - 1];
        repeat = 3 + static_cast<int>(in_.take(2));
      } else if (sym == 17) {
        repeat = 3 + static_cast<int>(in_.take(3));
      } else {
        repeat = 11 + static_cast<int>(in_.take(7));
      }
      if (n + repeat > hlit + hdist) return corrupt("code lengths overflow their table");
      std::fill(lens.begin() + n, lens.begin() + n + repeat, value);
      n += repeat;
    }
    if (lens[256] == 0) return corrupt("no end-of-block code");
    Result<Huffman> lh = build_huffman(lens.data(), hlit);
    if (!lh) return lh.error();
    Result<Huffman> dh = build_huffman(lens.data() + hlit, hdist);
    if (!dh) return dh.error();
    return codes(*lh, *dh);
  }

  Result<void> codes(const Huffman& lit, const Huffman& dist) {
    for (;;) {
      const int sym = decode_symbol(in_, lit);
      if (sym < 0) return corrupt("invalid literal/length code");
      if (in_.overrun()) return truncated();
      if (sym < 256) {
        if (pos_ >= out_.size()) {
          if (auto r = reserve(1); !r) return r;
        }
        out_[pos_++] = static_cast<std::uint8_t>(sym);
        continue;
      }
      if (sym == 256) return {};
      if (sym > 285) return corrupt("invalid length symbol");
      const int li = sym - 257;
      const std::size_t len = kLengthBase[li] + in_.take(kLengthExtra[li]);
      const int ds = decode_symbol(in_, dist);
      if (ds < 0 || ds >= 30) return corrupt("invalid distance code");
      const std::size_t d = kDistBase[ds] + in_.take(kDistExtra[ds]);
      if (d > pos_) return corrupt("distance reaches before the start of the output");
      if (auto r = reserve(len); !r) return r;
      std::uint8_t* o = out_.data() + pos_;
      const std::uint8_t* from = o - d;
      for (std::size_t i = 0; i < len; ++i) o[i] = from[i];  // overlapping copies repeat
      pos_ += len;
    }
  }

  BitReader in_;
  std::size_t max_output_;
  std::vector<std::uint8_t> out_;
  std::size_t pos_ = 0;
  Huffman fixed_len_;
  Huffman fixed_dist_;
};

}  // namespace

std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler) {
  constexpr std::uint32_t kMod = 65521;
  constexpr std::size_t kBlock = 5552;  // the largest run before the sums can overflow 32 bits
  std::uint32_t a = adler & 0xffff;
  std::uint32_t b = adler >> 16;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const std::size_t n = std::min(kBlock, bytes.size() - i);
    for (std::size_t k = 0; k < n; ++k) {
      a += bytes[i + k];
      b += a;
    }
    a %= kMod;
    b %= kMod;
    i += n;
  }
  return (b << 16) | a;
}

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
  static constexpr auto kTable = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::uint8_t byte : bytes) crc = kTable[(crc ^ byte) & 0xff] ^ (crc >> 8);
  return ~crc;
}

Result<std::vector<std::uint8_t>> zlib_inflate(std::span<const std::uint8_t> in,
                                               std::size_t max_output) {
  if (in.size() < 2) return make_error(Errc::parse_error, "zlib stream is truncated");
  const unsigned cmf = in[0];
  const unsigned flg = in[1];
  if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0) {
    return corrupt("bad zlib header");
  }
  if (flg & 0x20) return corrupt("a preset dictionary is not allowed here");
  Inflater inflater(in.subspan(2), max_output);
  Result<std::vector<std::uint8_t>> out = inflater.run();
  if (!out) return out;
  const std::uint8_t* trailer = inflater.end_of_data();
  if (in.data() + in.size() - trailer < 4) {
    return make_error(Errc::parse_error, "zlib stream is truncated (no checksum)");
  }
  const std::uint32_t want = (std::uint32_t{trailer[0]} << 24) | (std::uint32_t{trailer[1]} << 16) |
                             (std::uint32_t{trailer[2]} << 8) | trailer[3];
  if (adler32(*out) != want) return corrupt("Adler-32 checksum mismatch");
  return out;
}

}  // namespace agentkit::images::detail
