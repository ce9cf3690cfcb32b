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

struct Code {
  std::uint16_t bits = 0;
  std::uint8_t length = 0;
};

struct HuffmanCodes {
  std::array<Code, 256> by_symbol{};
};

HuffmanCodes build_codes(const HuffmanSpec& spec) {
  HuffmanCodes out;
  std::uint16_t code = 0;
  int k = 0;
  for (int len = 1; len <= 16; ++len) {
    for (int i = 0; i < spec.counts[static_cast<std::size_t>(len - 1)]; ++i) {
      out.by_symbol[spec.symbols[k++]] = Code{code++, static_cast<std::uint8_t>(len)};
    }
    code = static_cast<std::uint16_t>(code << 1);
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

// Entropy-coded bits, with a zero byte stuffed after every 0xFF as the format requires.
class BitSink {
 public:
  explicit BitSink(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint32_t bits, int length) {
    buffer_ = (buffer_ << length) | (bits & ((1u << length) - 1));
    count_ += length;
    while (count_ >= 8) {
      const auto byte = static_cast<std::uint8_t>(buffer_ >> (count_ - 8));
      out_.push_back(byte);
      if (byte == 0xff) out_.push_back(0);
      count_ -= 8;
    }
  }
  void put(const Code& c) { put(c.bits, c.length); }
  void flush() {
    if (count_ > 0) put(0x7f, 8 - count_);  // pad with one bits
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t buffer_ = 0;
  int count_ = 0;
};

// The image as JPEG samples: a full-resolution Y plane and 2x2-averaged Cb and Cr planes, each
// padded to whole 16x16 MCUs by repeating the last column and row. Fixed-point BT.601 (JFIF)
// conversion, rounded as libjpeg rounds it.
struct Planes {
  std::size_t y_stride = 0, c_stride = 0;
  std::vector<std::uint8_t> y, cb, cr;
};

Planes to_ycc(const Raster& image) {
  constexpr int kBits = 16;
  constexpr std::int32_t kHalf = 1 << (kBits - 1);
  constexpr std::int32_t kOffset = 128 << kBits;
  auto fix = [](double v) { return static_cast<std::int32_t>(v * (1 << kBits) + 0.5); };
  const std::int32_t yr = fix(0.29900), yg = fix(0.58700), yb = fix(0.11400);
  const std::int32_t br = fix(0.16874), bg = fix(0.33126), half = fix(0.5);
  const std::int32_t rg = fix(0.41869), rb = fix(0.08131);
  Planes p;
  const std::size_t w = image.width, h = image.height;
  const std::size_t pw = (w + 15) / 16 * 16, ph = (h + 15) / 16 * 16;
  p.y_stride = pw;
  p.c_stride = pw / 2;
  p.y.resize(pw * ph);
  std::vector<std::uint8_t> cb(pw * ph), cr(pw * ph);  // full resolution, then averaged
  for (std::size_t y = 0; y < ph; ++y) {
    const std::uint8_t* row = image.rgba.data() + std::min(y, h - 1) * w * 4;
    const std::size_t o = y * pw;
    for (std::size_t x = 0; x < w; ++x) {
      const std::int32_t r = row[x * 4], g = row[x * 4 + 1], b = row[x * 4 + 2];
      p.y[o + x] = static_cast<std::uint8_t>((yr * r + yg * g + yb * b + kHalf) >> kBits);
      cb[o + x] =
          static_cast<std::uint8_t>((-br * r - bg * g + half * b + kOffset + kHalf - 1) >> kBits);
      cr[o + x] =
          static_cast<std::uint8_t>((half * r - rg * g - rb * b + kOffset + kHalf - 1) >> kBits);
    }
    for (std::size_t x = w; x < pw; ++x) {
      p.y[o + x] = p.y[o + w - 1];
      cb[o + x] = cb[o + w - 1];
      cr[o + x] = cr[o + w - 1];
    }
  }
  const std::size_t cw = pw / 2, chh = ph / 2;
  p.cb.resize(cw * chh);
  p.cr.resize(cw * chh);
  for (std::size_t y = 0; y < chh; ++y) {
    const std::size_t top = 2 * y * pw, bottom = top + pw;
    for (std::size_t x = 0; x < cw; ++x) {
      const int bias = 1 + static_cast<int>(x & 1);  // alternate, so no rounding drift
      const std::size_t i = 2 * x;
      p.cb[y * cw + x] = static_cast<std::uint8_t>(
          (cb[top + i] + cb[top + i + 1] + cb[bottom + i] + cb[bottom + i + 1] + bias) >> 2);
      p.cr[y * cw + x] = static_cast<std::uint8_t>(
          (cr[top + i] + cr[top + i + 1] + cr[bottom + i] + cr[bottom + i + 1] + bias) >> 2);
    }
  }
  return p;
}

class Encoder {
 public:
  Encoder(const Raster& image, int quality, std::vector<std::uint8_t>& out)
      : image_(image), sink_(out) {
    quant_[0] = scaled_table(detail::kLumaQuant, quality);
    quant_[1] = scaled_table(detail::kChromaQuant, quality);
    for (std::size_t t = 0; t < 2; ++t) {
      // The forward transform's outputs are 8x the coefficients; fold that into the divisor.
      for (std::size_t k = 0; k < 64; ++k) {
        reciprocal_[t][k] = 1.0f / static_cast<float>(8 * quant_[t][k]);
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
    const Planes p = to_ycc(image_);
    for (std::size_t my = 0; my < image_.height; my += 16) {
      for (std::size_t mx = 0; mx < image_.width; mx += 16) {
        for (std::size_t b = 0; b < 4; ++b) {
          code_block(p.y.data() + (my + (b / 2) * 8) * p.y_stride + mx + (b % 2) * 8, p.y_stride, 0,
                     0);
        }
        const std::size_t c = (my / 2) * p.c_stride + mx / 2;
        code_block(p.cb.data() + c, p.c_stride, 1, 1);
        code_block(p.cr.data() + c, p.c_stride, 1, 2);
      }
    }
    sink_.flush();
  }

 private:
  static int magnitude_bits(int v) {
    return static_cast<int>(std::bit_width(static_cast<unsigned>(v < 0 ? -v : v)));
  }
  void put_value(int v, int n) {
    // Negative values are sent as v - 1 in n bits (one's complement), T.81 F.1.2.1.
    sink_.put(static_cast<std::uint32_t>(v < 0 ? v - 1 : v), n);
  }

  // Transforms, quantises and entropy-codes the 8x8 samples at `src` (rows `stride` apart).
  void code_block(const std::uint8_t* src, std::size_t stride, int table, int component) {
    std::array<std::int32_t, 64> block;
    for (std::size_t y = 0; y < 8; ++y) {
      for (std::size_t x = 0; x < 8; ++x) block[y * 8 + x] = src[y * stride + x] - 128;
    }
    detail::fdct_islow(block);
    std::array<int, 64> q;
    const auto& r = reciprocal_[static_cast<std::size_t>(table)];
    for (std::size_t k = 0; k < 64; ++k) {
      const float v = static_cast<float>(block[kZigZag[k]]) * r[k];
      q[k] = static_cast<int>(v + (v < 0 ? -0.5f : 0.5f));
    }
    const int diff = q[0] - last_dc_[static_cast<std::size_t>(component)];
    last_dc_[static_cast<std::size_t>(component)] = q[0];
    const int dn = magnitude_bits(diff);
    sink_.put(dc_[static_cast<std::size_t>(table)].by_symbol[static_cast<std::size_t>(dn)]);
    if (dn > 0) put_value(diff, dn);
    const HuffmanCodes& ac = ac_[static_cast<std::size_t>(table)];
    int run = 0;
    for (std::size_t k = 1; k < 64; ++k) {
      if (q[k] == 0) {
        ++run;
        continue;
      }
      while (run > 15) {
        sink_.put(ac.by_symbol[0xf0]);  // sixteen zeros
        run -= 16;
      }
      const int n = magnitude_bits(q[k]);
      sink_.put(ac.by_symbol[static_cast<std::size_t>((run << 4) | n)]);
      put_value(q[k], n);
      run = 0;
    }
    if (run > 0) sink_.put(ac.by_symbol[0x00]);  // end of block
  }

  const Raster& image_;
  BitSink sink_;
  std::array<std::array<std::uint8_t, 64>, 2> quant_{};
  std::array<std::array<float, 64>, 2> reciprocal_{};
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
