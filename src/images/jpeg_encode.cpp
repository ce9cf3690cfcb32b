// Baseline JPEG writer (T.81 sequential DCT, Huffman): JFIF, YCbCr (BT.601 full range as JFIF
// defines it, in fixed point), 4:2:0 chroma averaged over each 2x2 block, the integer LLM
// forward DCT (jpeg_dct.hpp), the Annex K tables, quality scaled the way libjpeg scales it so
// "quality 85" means what users expect.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "agentkit/images/encode.hpp"
#include "agentkit/images/transform.hpp"
#include "codecs.hpp"
#include "jpeg_dct.hpp"
#include "jpeg_tables.hpp"

namespace agentkit::images {
namespace {

using detail::HuffmanSpec;
using detail::kZigZag;

constexpr int kMinQuality = 1;
constexpr int kMaxQuality = 100;

// A Huffman code, right-aligned in `bits`. In HuffmanCodes the code of a symbol whose low four
// bits are a magnitude category n comes shifted left by n with n added to its length, making room
// for the n value bits that always follow it: one OR then puts both.
struct Code {
  std::uint32_t bits = 0;
  std::uint32_t length = 0;
};

struct HuffmanCodes {
  std::array<Code, 256> by_symbol{};
  // For an AC table: the code of (zero run, value) with the value bits already appended, for
  // values within +-kSmall (most of them), indexed by small_index(); one load per coefficient
  // instead of a category lookup, a code lookup and the value bits.
  static constexpr int kSmall = 15;
  static constexpr std::size_t small_index(std::size_t run, int v) {
    return run * (2 * kSmall + 1) + static_cast<std::size_t>(v + kSmall);
  }
  std::array<Code, 16 * (2 * kSmall + 1)> small{};
};

HuffmanCodes build_codes(const HuffmanSpec& spec) {
  HuffmanCodes out;
  std::uint32_t code = 0;
  int k = 0;
  for (std::uint32_t len = 1; len <= 16; ++len) {
    for (int i = 0; i < spec.counts[len - 1]; ++i) {
      const std::uint8_t symbol = spec.symbols[k++];
      const std::uint32_t n = symbol & 15u;
      out.by_symbol[symbol] = {code++ << n, len + n};
    }
    code <<= 1;
  }
  for (std::size_t run = 0; run < 16; ++run) {
    for (int v = -HuffmanCodes::kSmall; v <= HuffmanCodes::kSmall; ++v) {
      if (v == 0) continue;
      const auto n =
          static_cast<std::uint32_t>(std::bit_width(static_cast<unsigned>(v < 0 ? -v : v)));
      const Code& c = out.by_symbol[(run << 4) | n];
      const std::uint32_t value = static_cast<std::uint32_t>(v < 0 ? v - 1 : v) & ((1u << n) - 1);
      out.small[HuffmanCodes::small_index(run, v)] = {c.bits | value, c.length};
    }
  }
  return out;
}

std::array<std::uint8_t, 64> scaled_table(const std::array<std::uint8_t, 64>& base, int quality) {
  const int scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
  std::array<std::uint8_t, 64> out{};
  for (std::size_t i = 0; i < 64; ++i) {
    out[i] = static_cast<std::uint8_t>(std::clamp((base[i] * scale + 50) / 100, 1, 255));
  }
  return out;
}

// Entropy-coded bits: a 64-bit accumulator emptied 32 bits at a time, with a zero byte stuffed
// after every 0xFF as T.81 F.1.2.3 requires. A word without an 0xFF byte (nearly all of them) is
// stored in one go. The writer is a value the block coder holds in registers for one block:
// room() first guarantees the bytes a block can take, so put() checks no bounds.
class BitWriter {
 public:
  // The most one 8x8 block can emit: 64 codes of at most 26 bits, each byte possibly stuffed,
  // and the 4 bytes put() stores ahead of the pointer.
  static constexpr std::size_t kBlockBytes = 64 * 4 * 2 + 8 + 4;

  // `length` <= 32 bits of `bits` (the bits above `length` must be zero). Whether 32 bits are
  // complete depends on the data and would be a badly predicted branch, so the word is stored
  // every time and the pointer advanced by 4 or 0; only a complete word holding an 0xFF byte
  // (rare) branches, to write it again with the stuffing.
  void put(std::uint32_t bits, std::uint32_t length) {
    acc_ = (acc_ << length) | bits;
    count_ += length;                        // at most 31 + 27
    const std::uint32_t full = count_ >> 5;  // 1 when 32 bits are complete
    const auto word = static_cast<std::uint32_t>(acc_ >> ((count_ - 32) & 63));
    p_[0] = static_cast<std::uint8_t>(word >> 24);
    p_[1] = static_cast<std::uint8_t>(word >> 16);
    p_[2] = static_cast<std::uint8_t>(word >> 8);
    p_[3] = static_cast<std::uint8_t>(word);
    const std::uint32_t inv = ~word;  // a zero byte in ~word is an 0xFF byte in word
    const std::uint32_t has_ff = ((inv - 0x01010101u) & ~inv & 0x80808080u) != 0 ? 1 : 0;
    count_ -= 32 * full;
    if ((full & has_ff) != 0) {
      for (int shift = 24; shift >= 0; shift -= 8) byte(static_cast<std::uint8_t>(word >> shift));
      return;
    }
    p_ += 4 * full;
  }

  // Makes room for one block in `out`. The first call starts writing at the end of `out`.
  void room(std::vector<std::uint8_t>& out) {
    const std::size_t at = p_ == nullptr ? out.size() : static_cast<std::size_t>(p_ - out.data());
    if (p_ != nullptr && out.size() - at >= kBlockBytes) return;
    out.resize(std::max({at + 64 * kBlockBytes, out.size() * 2, out.capacity()}));
    p_ = out.data() + at;
  }

  // Pads the last byte with one bits, writes what is pending and trims `out` to the data.
  void finish(std::vector<std::uint8_t>& out) {
    room(out);
    if (const std::uint32_t pad = (8 - count_ % 8) % 8; pad > 0) put((1u << pad) - 1, pad);
    while (count_ >= 8) {
      count_ -= 8;
      byte(static_cast<std::uint8_t>(acc_ >> count_));
    }
    out.resize(static_cast<std::size_t>(p_ - out.data()));
  }

 private:
  void byte(std::uint8_t b) {
    *p_++ = b;
    if (b == 0xff) *p_++ = 0;
  }

  std::uint8_t* p_ = nullptr;  // next byte to write
  std::uint64_t acc_ = 0;
  std::uint32_t count_ = 0;  // pending bits in the low end of acc_
};

// Colour conversion works on chunks of one row held in local arrays: the compiler vectorises a
// loop over arrays it can see do not overlap (over raw pointers into several buffers it would
// have to prove they are apart, and gcc gives up).
constexpr std::size_t kChunk = 64;  // pixels; a multiple of 16, like the band's stride
using Plane = std::array<std::uint8_t, kChunk>;
struct RgbChunk {
  Plane r, g, b;
};
struct YccChunk {
  Plane y, cb, cr;
};

// Pixels [x, x + kChunk) of an RGBA row `w` pixels wide as three planes; columns past the row
// repeat its last pixel (the padding to whole MCUs), and pixels that are not opaque are
// composited onto white first (as flatten_onto_white() would, without a pass over the whole
// image to find out or a copy of it). One 32-bit word per pixel, split by shifts: a
// byte-strided loop would not vectorise.
RgbChunk split(const std::uint8_t* row, std::size_t x, std::size_t w) {
  std::array<std::uint8_t, 4 * kChunk> bytes;
  const std::size_t n = x < w ? std::min(kChunk, w - x) : 0;
  std::memcpy(bytes.data(), row + 4 * x, 4 * n);
  for (std::size_t i = n; i < kChunk; ++i) std::memcpy(bytes.data() + 4 * i, row + 4 * (w - 1), 4);
  std::array<std::uint32_t, kChunk> px;
  std::memcpy(px.data(), bytes.data(), bytes.size());
  std::uint32_t all = ~0u;  // the AND of every pixel: its alpha byte is 255 when all are opaque
  for (std::size_t i = 0; i < kChunk; ++i) all &= px[i];
  const auto alpha =
      static_cast<std::uint8_t>(std::endian::native == std::endian::little ? all >> 24 : all);
  if (alpha != 255) {
    for (std::size_t i = 0; i < 4 * kChunk; i += 4) {
      for (std::size_t c = 0; c < 3; ++c) {
        bytes[i + c] = detail::over_white(bytes[i + c], bytes[i + 3]);
      }
    }
    std::memcpy(px.data(), bytes.data(), bytes.size());
  }
  RgbChunk out;
  if constexpr (std::endian::native == std::endian::little) {
    for (std::size_t i = 0; i < kChunk; ++i) {
      out.r[i] = static_cast<std::uint8_t>(px[i]);
      out.g[i] = static_cast<std::uint8_t>(px[i] >> 8);
      out.b[i] = static_cast<std::uint8_t>(px[i] >> 16);
    }
  } else {
    for (std::size_t i = 0; i < kChunk; ++i) {
      out.r[i] = bytes[4 * i];
      out.g[i] = bytes[4 * i + 1];
      out.b[i] = bytes[4 * i + 2];
    }
  }
  return out;
}

// RGB -> YCbCr, exactly libjpeg's arithmetic (jccolor.c: 16 fraction bits, rounded, Cb and Cr
// offset by 128) in 16-bit lanes, so the compiler needs only 16-bit multiplies (SSE2 has no
// 32-bit one). Each constant c = 256 * hi + lo is applied as two products that fit 16 bits, and
// the sum is shifted down in two steps:
//   (256 * A + B + k) >> 16 == (A + ((B + k) >> 8)) >> 8   for integer A,
// with A the sum of the hi products (within +-2^15) and B that of the lo ones (under 2^16).
// Checked against the 32-bit formula for all 2^24 colours.
YccChunk to_ycc(const RgbChunk& in) {
  using std::int16_t;
  using std::uint16_t;
  YccChunk out;
  for (std::size_t i = 0; i < kChunk; ++i) {
    const uint16_t r = in.r[i], g = in.g[i], b = in.b[i];
    // Y = (19595 r + 38470 g + 7471 b + 2^15) >> 16
    const auto y_hi = static_cast<uint16_t>(76 * r + 150 * g + 29 * b);
    const auto y_lo = static_cast<uint16_t>(139 * r + 70 * g + 47 * b);
    out.y[i] = static_cast<std::uint8_t>(static_cast<uint16_t>(y_hi + (y_lo >> 8) + 128) >> 8);
    // Cb = (32768 b - 11059 r - 21709 g + 2^15 - 1 + (128 << 16)) >> 16
    const auto cb_hi = static_cast<int16_t>(128 * b - 43 * r - 84 * g);
    const auto cb_lo = static_cast<int16_t>(32767 - static_cast<uint16_t>(51 * r + 205 * g));
    out.cb[i] = static_cast<std::uint8_t>((static_cast<int16_t>(cb_hi + (cb_lo >> 8)) >> 8) + 128);
    // Cr = (32768 r - 27439 g - 5329 b + 2^15 - 1 + (128 << 16)) >> 16
    const auto cr_hi = static_cast<int16_t>(128 * r - 107 * g - 20 * b);
    const auto cr_lo = static_cast<int16_t>(32767 - static_cast<uint16_t>(47 * g + 209 * b));
    out.cr[i] = static_cast<std::uint8_t>((static_cast<int16_t>(cr_hi + (cr_lo >> 8)) >> 8) + 128);
  }
  return out;
}

// 2x2 averages of a chunk of two rows, as libjpeg's h2v2_downsample rounds them: the bias
// alternates 1, 2 along the row so the rounding does not drift one way.
std::array<std::uint8_t, kChunk / 2> downsample(const Plane& top, const Plane& bottom) {
  std::array<std::uint8_t, kChunk / 2> out;
  for (std::size_t i = 0; i < kChunk / 2; ++i) {
    const unsigned bias = 1 + static_cast<unsigned>(i & 1);
    const std::size_t j = 2 * i;
    out[i] = static_cast<std::uint8_t>(
        (unsigned{top[j]} + top[j + 1] + bottom[j] + bottom[j + 1] + bias) >> 2);
  }
  return out;
}

// One band of 16 image rows as JPEG samples: full-resolution Y and 2x2-averaged Cb and Cr, each
// padded to whole 16x16 MCUs by repeating the last column and row. A band at a time keeps the
// planes in cache.
class Bands {
 public:
  explicit Bands(const Raster& image)
      : image_(image),
        stride_((std::size_t{image.width} + 15) / 16 * 16),
        y_(stride_ * 16),
        cb_(stride_ / 2 * 8),
        cr_(stride_ / 2 * 8),
        upper_cb_(stride_ + kChunk),
        upper_cr_(stride_ + kChunk) {}

  std::size_t y_stride() const { return stride_; }
  std::size_t c_stride() const { return stride_ / 2; }
  const std::uint8_t* y() const { return y_.data(); }
  const std::uint8_t* cb() const { return cb_.data(); }
  const std::uint8_t* cr() const { return cr_.data(); }

  // Converts image rows [top, top + 16).
  void load(std::size_t top) {
    for (std::size_t row = 0; row < 16; ++row) convert_row(top + row, row);
  }

 private:
  // Band row `row` from image row `image_row` (the last row repeats past the image). An even row
  // keeps its full-resolution chroma for the odd row below, which averages the pair.
  void convert_row(std::size_t image_row, std::size_t row) {
    const std::size_t w = image_.width;
    const std::uint8_t* src =
        image_.rgba.data() + std::min<std::size_t>(image_row, image_.height - 1) * w * 4;
    std::uint8_t* y = y_.data() + row * stride_;
    const std::size_t c_row = row / 2 * c_stride();
    for (std::size_t x = 0; x < stride_; x += kChunk) {
      const std::size_t n = std::min(kChunk, stride_ - x);  // a multiple of 16
      const YccChunk c = to_ycc(split(src, x, w));
      std::memcpy(y + x, c.y.data(), n);
      if (row % 2 == 0) {
        std::memcpy(upper_cb_.data() + x, c.cb.data(), kChunk);
        std::memcpy(upper_cr_.data() + x, c.cr.data(), kChunk);
        continue;
      }
      Plane upper;
      std::memcpy(upper.data(), upper_cb_.data() + x, kChunk);
      std::memcpy(cb_.data() + c_row + x / 2, downsample(upper, c.cb).data(), n / 2);
      std::memcpy(upper.data(), upper_cr_.data() + x, kChunk);
      std::memcpy(cr_.data() + c_row + x / 2, downsample(upper, c.cr).data(), n / 2);
    }
  }

  const Raster& image_;
  std::size_t stride_;
  std::vector<std::uint8_t> y_, cb_, cr_;
  std::vector<std::uint8_t> upper_cb_, upper_cr_;  // the even row's chroma, a chunk of slack
};

// Quantisation in 16-bit lanes: round(|x| / d) = floor(t / d) with t = |x| + d/2, computed as
// ((t * m) >> 16) * s >> 16 with m = floor(2^k / d) + 1 and s = 2^(32 - k), k = 15 + ceil(log2 d).
// Then 2^k / d lies in [2^15, 2^16), so m fits 16 bits (no integer d puts it at 2^16), and the
// result is exact for every t < 2^k / d, which holds as |x| <= 8192 and d <= 2040 keep t < 2^15.
// Two high-half multiplies per coefficient and no division or 64-bit product. (libjpeg-turbo's
// reciprocals, jcdctmgr.c, give the same quotients for every 8-bit table and |x| <= 2^14.)
struct Quantiser {
  std::array<std::uint16_t, 64> half{}, m{}, s{};  // natural order
  void set(std::size_t k, std::uint32_t d) {
    const int bits = 15 + std::bit_width(d - 1);  // 15 + ceil(log2 d), d >= 2
    half[k] = static_cast<std::uint16_t>(d / 2);
    m[k] = static_cast<std::uint16_t>((std::uint64_t{1} << bits) / d + 1);
    s[k] = static_cast<std::uint16_t>(std::uint32_t{1} << (32 - bits));
  }
};

inline std::uint16_t mul_high(std::uint16_t a, std::uint16_t b) {
  return static_cast<std::uint16_t>((std::uint32_t{a} * b) >> 16);
}

using Coefficients = std::array<std::int16_t, 64>;

// Three loops rather than one: with the two multiplies in one loop gcc widens the second to
// 32-bit lanes (pmuludq); apart, each is a single 16-bit high-half multiply.
Coefficients quantise(const Coefficients& in, const Quantiser& q) {
  std::array<std::uint16_t, 64> level;
  for (std::size_t k = 0; k < 64; ++k) {
    const std::int16_t v = in[k];
    const auto sign = static_cast<std::int16_t>(v >> 15);  // 0 or -1
    const auto magnitude = static_cast<std::uint16_t>((v ^ sign) - sign);
    level[k] = mul_high(static_cast<std::uint16_t>(magnitude + q.half[k]), q.m[k]);
  }
  for (std::size_t k = 0; k < 64; ++k) level[k] = mul_high(level[k], q.s[k]);
  Coefficients out;
  for (std::size_t k = 0; k < 64; ++k) {
    const auto sign = static_cast<std::int16_t>(in[k] >> 15);
    out[k] = static_cast<std::int16_t>((static_cast<std::int16_t>(level[k]) ^ sign) - sign);
  }
  return out;
}

// Which zig-zag positions hold a non-zero coefficient, as bit k for position k. A row of the block
// (eight coefficients) becomes a byte of flags, the byte a mask by one multiply, and the mask is
// spread to zig-zag positions by two table lookups per row.
class ZigZagMask {
 public:
  ZigZagMask() {
    for (std::size_t row = 0; row < 8; ++row) {
      for (std::size_t half = 0; half < 2; ++half) {
        for (std::size_t nibble = 0; nibble < 16; ++nibble) {
          std::uint64_t m = 0;
          for (std::size_t bit = 0; bit < 4; ++bit) {
            if ((nibble >> bit & 1) != 0)
              m |= std::uint64_t{1} << position(row * 8 + half * 4 + bit);
          }
          spread_[row][half][nibble] = m;
        }
      }
    }
  }

  std::uint64_t operator()(const Coefficients& q) const {
    std::array<std::uint8_t, 64> flags;
    for (std::size_t k = 0; k < 64; ++k) flags[k] = q[k] != 0 ? 1 : 0;
    std::uint64_t mask = 0;
    for (std::size_t row = 0; row < 8; ++row) {
      std::uint64_t word;
      std::memcpy(&word, flags.data() + row * 8, 8);
      // Byte j's low bit to bit j (the bytes are 0 or 1, so the partial products never carry).
      constexpr std::uint64_t kGather = std::endian::native == std::endian::little
                                            ? 0x0102040810204080ull
                                            : 0x8040201008040201ull;
      const auto bits = static_cast<std::size_t>((word * kGather) >> 56);
      mask |= spread_[row][0][bits & 15] | spread_[row][1][bits >> 4];
    }
    return mask;
  }

 private:
  static std::size_t position(std::size_t natural) {
    for (std::size_t k = 0; k < 64; ++k) {
      if (kZigZag[k] == natural) return k;
    }
    return 0;
  }
  std::array<std::array<std::array<std::uint64_t, 16>, 2>, 8> spread_{};
};

class Encoder {
 public:
  Encoder(const Raster& image, int quality, std::vector<std::uint8_t>& out)
      : image_(image), out_(out) {
    const std::array<std::array<std::uint8_t, 64>, 2> natural = {
        scaled_table(detail::kLumaQuant, quality), scaled_table(detail::kChromaQuant, quality)};
    for (std::size_t t = 0; t < 2; ++t) {
      // Annex K lists the tables row by row (natural order), which is where the transform
      // leaves its outputs, 8x the coefficients (folded into the divisor); DQT sends them in
      // zig-zag order.
      for (std::size_t n = 0; n < 64; ++n) quantisers_[t].set(n, 8u * natural[t][n]);
      for (std::size_t k = 0; k < 64; ++k) quant_[t][k] = natural[t][kZigZag[k]];
    }
    dc_[0] = build_codes(detail::kLumaDc);
    dc_[1] = build_codes(detail::kChromaDc);
    ac_[0] = build_codes(detail::kLumaAc);
    ac_[1] = build_codes(detail::kChromaAc);
  }
  const std::array<std::uint8_t, 64>& quant(int table) const {
    return quant_[static_cast<std::size_t>(table)];
  }

  void scan() {
    Bands bands(image_);
    for (std::size_t my = 0; my < image_.height; my += 16) {
      bands.load(my);
      const std::size_t ys = bands.y_stride(), cs = bands.c_stride();
      for (std::size_t mx = 0; mx < image_.width; mx += 16) {
        const std::uint8_t* y = bands.y() + mx;
        code_block(y, ys, 0, 0);
        code_block(y + 8, ys, 0, 0);
        code_block(y + 8 * ys, ys, 0, 0);
        code_block(y + 8 * ys + 8, ys, 0, 0);
        code_block(bands.cb() + mx / 2, cs, 1, 1);
        code_block(bands.cr() + mx / 2, cs, 1, 2);
      }
    }
    bits_.finish(out_);
  }

 private:
  // The bits that follow a Huffman symbol of magnitude category n: v itself, or v - 1 in n bits
  // (one's complement) when negative, T.81 F.1.2.1. Branch-free (v >> 31 is 0 or -1), and the
  // mask from a table: a variable shift costs more than a load.
  static std::uint32_t value_bits(int v, std::uint32_t n) {
    static constexpr auto kMasks = [] {
      std::array<std::uint32_t, 16> m{};
      for (std::size_t i = 0; i < m.size(); ++i) m[i] = (1u << i) - 1;
      return m;
    }();
    return static_cast<std::uint32_t>(v + (v >> 31)) & kMasks[n];
  }
  // The magnitude category (bit width of |v|) by table: coefficients and DC differences of
  // 8-bit samples stay under 2048 in magnitude (the transform's outputs are within +-8192 and
  // every quantiser divides by at least 8).
  static std::uint32_t category(int v) {
    static constexpr auto kCategories = [] {
      std::array<std::uint8_t, 2048> t{};
      for (std::size_t i = 1; i < t.size(); ++i)
        t[i] = static_cast<std::uint8_t>(std::bit_width(i));
      return t;
    }();
    const int sign = v >> 31;
    return kCategories[static_cast<std::size_t>((v ^ sign) - sign)];
  }

  // Transforms, quantises and entropy-codes the 8x8 samples at `src` (rows `stride` apart).
  void code_block(const std::uint8_t* src, std::size_t stride, int table, int component) {
    const auto t = static_cast<std::size_t>(table);
    const Coefficients q = quantise(detail::fdct_islow(src, stride), quantisers_[t]);
    std::uint64_t nonzero = zigzag_mask_(q);
    bits_.room(out_);
    BitWriter bits = bits_;  // a local copy stays in registers; stores through bytes would not
    const auto c = static_cast<std::size_t>(component);
    const int diff = q[0] - last_dc_[c];
    last_dc_[c] = q[0];
    const std::uint32_t dn = category(diff);
    const Code& dc = dc_[t].by_symbol[dn];
    bits.put(dc.bits | value_bits(diff, dn), dc.length);
    const HuffmanCodes& ac = ac_[t];
    nonzero &= ~std::uint64_t{1};
    std::size_t previous = 0;
    while (nonzero != 0) {
      const auto k = static_cast<std::size_t>(std::countr_zero(nonzero));
      nonzero &= nonzero - 1;
      std::size_t run = k - previous - 1;
      previous = k;
      for (; run > 15; run -= 16)
        bits.put(ac.by_symbol[0xf0].bits, ac.by_symbol[0xf0].length);  // sixteen zeros
      const int v = q[kZigZag[k]];
      if (v >= -HuffmanCodes::kSmall && v <= HuffmanCodes::kSmall) {
        const Code& code = ac.small[HuffmanCodes::small_index(run, v)];
        bits.put(code.bits, code.length);
        continue;
      }
      const std::uint32_t n = category(v);
      const Code& code = ac.by_symbol[(run << 4) | n];
      bits.put(code.bits | value_bits(v, n), code.length);
    }
    if (previous != 63) bits.put(ac.by_symbol[0x00].bits, ac.by_symbol[0x00].length);  // EOB
    bits_ = bits;
  }

  const Raster& image_;
  std::vector<std::uint8_t>& out_;
  BitWriter bits_;
  std::array<std::array<std::uint8_t, 64>, 2> quant_{};  // zig-zag order, as DQT sends them
  std::array<Quantiser, 2> quantisers_{};
  ZigZagMask zigzag_mask_;
  std::array<HuffmanCodes, 2> dc_{}, ac_{};
  std::array<int, 3> last_dc_{};
};

void put16(std::vector<std::uint8_t>& out, unsigned v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

void put_headers(std::vector<std::uint8_t>& out, const Raster& image, const Encoder& enc) {
  out.insert(out.end(), {0xff, 0xd8});  // SOI
  out.insert(out.end(), {0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0});
  for (int t = 0; t < 2; ++t) {  // DQT, in zig-zag order
    out.insert(out.end(), {0xff, 0xdb, 0, 67, static_cast<std::uint8_t>(t)});
    for (std::size_t k = 0; k < 64; ++k) out.push_back(enc.quant(t)[k]);
  }
  out.insert(out.end(), {0xff, 0xc0, 0, 17, 8});  // SOF0
  put16(out, image.height);
  put16(out, image.width);
  out.insert(out.end(), {3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1});
  const std::pair<int, const HuffmanSpec*> tables[] = {{0x00, &detail::kLumaDc},
                                                       {0x10, &detail::kLumaAc},
                                                       {0x01, &detail::kChromaDc},
                                                       {0x11, &detail::kChromaAc}};
  for (const auto& [id, spec] : tables) {  // DHT
    out.insert(out.end(), {0xff, 0xc4});
    put16(out, static_cast<unsigned>(2 + 1 + 16 + spec->symbol_count));
    out.push_back(static_cast<std::uint8_t>(id));
    out.insert(out.end(), spec->counts.begin(), spec->counts.end());
    out.insert(out.end(), spec->symbols, spec->symbols + spec->symbol_count);
  }
  out.insert(out.end(), {0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0});  // SOS
}

}  // namespace

std::vector<std::uint8_t> encode_jpeg(const Raster& input, const JpegOptions& options) {
  if (input.width == 0 || input.height == 0) return {};
  const int quality = std::clamp(options.quality, kMinQuality, kMaxQuality);
  const Raster* image = &input;
  std::vector<std::uint8_t> out;
  out.reserve(std::size_t{image->width} * image->height / 4 + 1024);
  Encoder enc(*image, quality, out);
  put_headers(out, *image, enc);
  enc.scan();
  out.insert(out.end(), {0xff, 0xd9});  // EOI
  return out;
}

}  // namespace agentkit::images
