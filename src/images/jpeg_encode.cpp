// Baseline JPEG writer (T.81 sequential DCT, Huffman): JFIF, YCbCr (BT.601 full range as JFIF
// defines it, in fixed point), 4:2:0 chroma averaged over each 2x2 block, the integer LLM
// forward DCT (jpeg_dct.hpp), the Annex K tables, quality scaled the way libjpeg scales it so
// "quality 85" means what users expect.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "agentkit/images/encode.hpp"
#include "agentkit/images/transform.hpp"
#include "jpeg_dct.hpp"
#include "jpeg_tables.hpp"

namespace agentkit::images {
namespace {

using detail::HuffmanSpec;
using detail::kZigZag;

constexpr int kMinQuality = 1;
constexpr int kMaxQuality = 100;

// A Huffman code, right-aligned in `bits`.
struct Code {
  std::uint32_t bits = 0;
  std::uint32_t length = 0;
};

struct HuffmanCodes {
  std::array<Code, 256> by_symbol{};
};

HuffmanCodes build_codes(const HuffmanSpec& spec) {
  HuffmanCodes out;
  std::uint32_t code = 0;
  int k = 0;
  for (std::uint32_t len = 1; len <= 16; ++len) {
    for (int i = 0; i < spec.counts[len - 1]; ++i) out.by_symbol[spec.symbols[k++]] = {code++, len};
    code <<= 1;
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
  // The most one 8x8 block can emit: 64 codes of at most 26 bits, each byte possibly stuffed.
  static constexpr std::size_t kBlockBytes = 64 * 4 * 2 + 8;

  // `length` <= 32 bits of `bits` (the bits above `length` must be zero).
  void put(std::uint32_t bits, std::uint32_t length) {
    acc_ = (acc_ << length) | bits;
    count_ += length;
    if (count_ < 32) return;
    count_ -= 32;
    const auto word = static_cast<std::uint32_t>(acc_ >> count_);
    const std::uint32_t inv = ~word;  // a zero byte in ~word is an 0xFF byte in word
    if (((inv - 0x01010101u) & ~inv & 0x80808080u) == 0) {
      p_[0] = static_cast<std::uint8_t>(word >> 24);
      p_[1] = static_cast<std::uint8_t>(word >> 16);
      p_[2] = static_cast<std::uint8_t>(word >> 8);
      p_[3] = static_cast<std::uint8_t>(word);
      p_ += 4;
      return;
    }
    for (int shift = 24; shift >= 0; shift -= 8) byte(static_cast<std::uint8_t>(word >> shift));
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

// One band of 16 image rows as JPEG samples: full-resolution Y and 2x2-averaged Cb and Cr, each
// padded to whole 16x16 MCUs by repeating the last column and row. Fixed-point BT.601 (JFIF)
// conversion, rounded as libjpeg rounds it. A band at a time keeps the planes in cache.
class Bands {
 public:
  explicit Bands(const Raster& image)
      : image_(image),
        stride_((std::size_t{image.width} + 15) / 16 * 16),
        y_(stride_ * 16),
        cb_(stride_ / 2 * 8),
        cr_(stride_ / 2 * 8),
        full_cb_(stride_ * 2),
        full_cr_(stride_ * 2) {}

  std::size_t y_stride() const { return stride_; }
  std::size_t c_stride() const { return stride_ / 2; }
  const std::uint8_t* y() const { return y_.data(); }
  const std::uint8_t* cb() const { return cb_.data(); }
  const std::uint8_t* cr() const { return cr_.data(); }

  // Converts image rows [top, top + 16).
  void load(std::size_t top) {
    for (std::size_t pair = 0; pair < 8; ++pair) {
      for (std::size_t k = 0; k < 2; ++k) convert_row(top + 2 * pair + k, 2 * pair + k, k);
      average_pair(pair);
    }
  }

 private:
  static constexpr int kBits = 16;
  static constexpr std::int32_t kHalf = 1 << (kBits - 1);
  static constexpr std::int32_t kOffset = 128 << kBits;
  static constexpr std::int32_t fix(double v) {
    return static_cast<std::int32_t>(v * (1 << kBits) + 0.5);
  }

  // Per-channel products, libjpeg's rgb_ycc_tab: each sample is the sum of three lookups, the
  // rounding and the +128 offset folded into the blue (Y, Cb) and red (Cr) entries. The same
  // sums as the multiplications, without 32-bit vector multiplies (SSE2 has none).
  struct Tables {
    std::array<std::int32_t, 256> yr, yg, yb, br, bg, bb, rr, rg, rb;
    Tables() {
      constexpr std::int32_t y_r = fix(0.29900), y_g = fix(0.58700), y_b = fix(0.11400);
      constexpr std::int32_t b_r = fix(0.16874), b_g = fix(0.33126), half = fix(0.5);
      constexpr std::int32_t r_g = fix(0.41869), r_b = fix(0.08131);
      for (std::int32_t v = 0; v < 256; ++v) {
        const auto i = static_cast<std::size_t>(v);
        yr[i] = y_r * v;
        yg[i] = y_g * v;
        yb[i] = y_b * v + kHalf;
        br[i] = -b_r * v;
        bg[i] = -b_g * v;
        bb[i] = half * v + kOffset + kHalf - 1;
        rr[i] = half * v + kOffset + kHalf - 1;
        rg[i] = -r_g * v;
        rb[i] = -r_b * v;
      }
    }
  };

  void convert_row(std::size_t image_row, std::size_t band_row, std::size_t k) {
    static const Tables t;
    const std::size_t w = image_.width;
    const std::uint8_t* row =
        image_.rgba.data() + std::min<std::size_t>(image_row, image_.height - 1) * w * 4;
    std::uint8_t* y = y_.data() + band_row * stride_;
    std::uint8_t* cb = full_cb_.data() + k * stride_;
    std::uint8_t* cr = full_cr_.data() + k * stride_;
    for (std::size_t x = 0; x < w; ++x) {
      const std::uint8_t r = row[x * 4], g = row[x * 4 + 1], b = row[x * 4 + 2];
      y[x] = static_cast<std::uint8_t>((t.yr[r] + t.yg[g] + t.yb[b]) >> kBits);
      cb[x] = static_cast<std::uint8_t>((t.br[r] + t.bg[g] + t.bb[b]) >> kBits);
      cr[x] = static_cast<std::uint8_t>((t.rr[r] + t.rg[g] + t.rb[b]) >> kBits);
    }
    std::fill(y + w, y + stride_, y[w - 1]);
    std::fill(cb + w, cb + stride_, cb[w - 1]);
    std::fill(cr + w, cr + stride_, cr[w - 1]);
  }

  void average_pair(std::size_t pair) {
    const std::size_t cw = stride_ / 2;
    average(full_cb_.data(), cb_.data() + pair * cw, cw);
    average(full_cr_.data(), cr_.data() + pair * cw, cw);
  }
  void average(const std::uint8_t* top, std::uint8_t* out, std::size_t cw) const {
    const std::uint8_t* bottom = top + stride_;
    for (std::size_t x = 0; x < cw; ++x) {
      const int bias = 1 + static_cast<int>(x & 1);  // alternate, so no rounding drift
      const std::size_t i = 2 * x;
      out[x] =
          static_cast<std::uint8_t>((top[i] + top[i + 1] + bottom[i] + bottom[i + 1] + bias) >> 2);
    }
  }

  const Raster& image_;
  std::size_t stride_;
  std::vector<std::uint8_t> y_, cb_, cr_, full_cb_, full_cr_;
};

// Quantisation by reciprocal multiply: round(|x| / d) is ((|x| + d/2) * r) >> 32 with
// r = floor(2^32 / d) + 1, exact for |x| < 2^18 and d <= 2040 (the error term |x| / 2^32 stays
// under 1/d), so no division runs per coefficient.
struct Divisor {
  std::uint32_t half = 0;
  std::uint32_t reciprocal = 0;
};
Divisor make_divisor(std::uint32_t d) {
  return {d / 2, static_cast<std::uint32_t>((std::uint64_t{1} << 32) / d + 1)};
}

class Encoder {
 public:
  Encoder(const Raster& image, int quality, std::vector<std::uint8_t>& out)
      : image_(image), out_(out) {
    quant_[0] = scaled_table(detail::kLumaQuant, quality);
    quant_[1] = scaled_table(detail::kChromaQuant, quality);
    for (std::size_t t = 0; t < 2; ++t) {
      // quant_ is in zig-zag order; the divisors are in natural order, where the transform
      // leaves its outputs, which are 8x the coefficients (folded into the divisor).
      for (std::size_t k = 0; k < 64; ++k) {
        divisors_[t][kZigZag[k]] = make_divisor(8u * quant_[t][k]);
      }
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
  // (one's complement) when negative, T.81 F.1.2.1.
  static std::uint32_t value_bits(int v, std::uint32_t n) {
    return static_cast<std::uint32_t>(v < 0 ? v - 1 : v) & ((1u << n) - 1);
  }
  static std::uint32_t category(int v) {
    return static_cast<std::uint32_t>(std::bit_width(static_cast<unsigned>(v < 0 ? -v : v)));
  }

  // Transforms, quantises and entropy-codes the 8x8 samples at `src` (rows `stride` apart).
  void code_block(const std::uint8_t* src, std::size_t stride, int table, int component) {
    bits_.room(out_);
    BitWriter bits = bits_;  // a local copy stays in registers; stores through bytes would not
    std::array<std::int32_t, 64> block;
    for (std::size_t y = 0; y < 8; ++y) {
      for (std::size_t x = 0; x < 8; ++x) block[y * 8 + x] = src[y * stride + x] - 128;
    }
    detail::fdct_islow(block);
    const auto& div = divisors_[static_cast<std::size_t>(table)];
    std::array<std::int32_t, 64> q;
    for (std::size_t k = 0; k < 64; ++k) {  // natural order: vectorises
      const std::int32_t v = block[k];
      const auto mag = static_cast<std::uint32_t>(v < 0 ? -v : v);
      const auto m =
          static_cast<std::int32_t>((std::uint64_t{mag + div[k].half} * div[k].reciprocal) >> 32);
      q[k] = v < 0 ? -m : m;
    }
    // Zig-zag order, with a mask of the non-zero AC terms so runs of zeros are skipped.
    std::array<std::int32_t, 64> zz;
    std::uint64_t nonzero = 0;
    for (std::size_t k = 0; k < 64; ++k) {
      zz[k] = q[kZigZag[k]];
      nonzero |= std::uint64_t{zz[k] != 0} << k;
    }
    const auto c = static_cast<std::size_t>(component);
    const auto t = static_cast<std::size_t>(table);
    const int diff = zz[0] - last_dc_[c];
    last_dc_[c] = zz[0];
    const std::uint32_t dn = category(diff);
    const Code& dc = dc_[t].by_symbol[dn];
    bits.put((dc.bits << dn) | value_bits(diff, dn), dc.length + dn);
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
      const std::uint32_t n = category(zz[k]);
      const Code& code = ac.by_symbol[(run << 4) | n];
      bits.put((code.bits << n) | value_bits(zz[k], n), code.length + n);
    }
    if (previous != 63) bits.put(ac.by_symbol[0x00].bits, ac.by_symbol[0x00].length);  // EOB
    bits_ = bits;
  }

  const Raster& image_;
  std::vector<std::uint8_t>& out_;
  BitWriter bits_;
  std::array<std::array<std::uint8_t, 64>, 2> quant_{};
  std::array<std::array<Divisor, 64>, 2> divisors_{};
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
  Raster flat;
  const Raster* image = &input;
  if (!is_opaque(input)) {
    flat = input;
    flatten_onto_white(flat);
    image = &flat;
  }
  std::vector<std::uint8_t> out;
  out.reserve(std::size_t{image->width} * image->height / 4 + 1024);
  Encoder enc(*image, quality, out);
  put_headers(out, *image, enc);
  enc.scan();
  out.insert(out.end(), {0xff, 0xd9});  // EOI
  return out;
}

}  // namespace agentkit::images
