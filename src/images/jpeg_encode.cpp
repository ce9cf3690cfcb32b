// Baseline JPEG writer (T.81 sequential DCT, Huffman): JFIF, YCbCr (BT.601 full range as JFIF
// defines it), 4:2:0 chroma averaged over each 2x2 block, the Annex K tables, quality scaled the
// way libjpeg scales it so "quality 85" means what users expect.
#include <algorithm>
#include <array>
#include <cmath>

#include "agentkit/images/encode.hpp"
#include "agentkit/images/transform.hpp"
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

class Encoder {
 public:
  Encoder(const Raster& image, int quality, std::vector<std::uint8_t>& out)
      : image_(image), sink_(out) {
    quant_[0] = scaled_table(detail::kLumaQuant, quality);
    quant_[1] = scaled_table(detail::kChromaQuant, quality);
    dc_[0] = build_codes(detail::kLumaDc);
    dc_[1] = build_codes(detail::kChromaDc);
    ac_[0] = build_codes(detail::kLumaAc);
    ac_[1] = build_codes(detail::kChromaAc);
  }
  const std::array<std::uint8_t, 64>& quant(int table) const {
    return quant_[static_cast<std::size_t>(table)];
  }

  void scan() {
    for (std::uint32_t my = 0; my < image_.height; my += 16) {
      for (std::uint32_t mx = 0; mx < image_.width; mx += 16) mcu(mx, my);
    }
    sink_.flush();
  }

 private:
  // Y, Cb and Cr of the pixel at (x, y), the edge replicated past the border.
  void ycc(std::uint32_t x, std::uint32_t y, float out[3]) const {
    x = std::min(x, image_.width - 1);
    y = std::min(y, image_.height - 1);
    const std::uint8_t* p = image_.rgba.data() + (std::size_t{y} * image_.width + x) * 4;
    const float r = p[0], g = p[1], b = p[2];
    out[0] = 0.299f * r + 0.587f * g + 0.114f * b - 128.0f;
    out[1] = -0.168736f * r - 0.331264f * g + 0.5f * b;
    out[2] = 0.5f * r - 0.418688f * g - 0.081312f * b;
  }

  void mcu(std::uint32_t mx, std::uint32_t my) {
    std::array<float, 256> y{};
    std::array<float, 64> cb{}, cr{};
    for (std::uint32_t j = 0; j < 16; ++j) {
      for (std::uint32_t i = 0; i < 16; ++i) {
        float v[3];
        ycc(mx + i, my + j, v);
        y[j * 16 + i] = v[0];
        cb[(j / 2) * 8 + i / 2] += v[1] * 0.25f;
        cr[(j / 2) * 8 + i / 2] += v[2] * 0.25f;
      }
    }
    for (int b = 0; b < 4; ++b) {
      std::array<float, 64> block{};
      const int ox = (b % 2) * 8, oy = (b / 2) * 8;
      for (int j = 0; j < 8; ++j) {
        for (int i = 0; i < 8; ++i)
          block[static_cast<std::size_t>(j * 8 + i)] =
              y[static_cast<std::size_t>((oy + j) * 16 + ox + i)];
      }
      code_block(block, 0, 0);
    }
    code_block(cb, 1, 1);
    code_block(cr, 1, 2);
  }

  static void dct(std::array<float, 64>& block) {
    const auto& basis = detail::dct_basis();
    std::array<float, 64> tmp{};
    for (int r = 0; r < 8; ++r) {
      for (int u = 0; u < 8; ++u) {
        float s = 0;
        for (int x = 0; x < 8; ++x) s += basis[u][x] * block[r * 8 + x];
        tmp[r * 8 + u] = s;
      }
    }
    for (int c = 0; c < 8; ++c) {
      for (int v = 0; v < 8; ++v) {
        float s = 0;
        for (int y = 0; y < 8; ++y) s += basis[v][y] * tmp[y * 8 + c];
        block[v * 8 + c] = s;
      }
    }
  }

  static int magnitude_bits(int v) {
    int a = v < 0 ? -v : v;
    int n = 0;
    while (a != 0) {
      ++n;
      a >>= 1;
    }
    return n;
  }
  void put_value(int v, int n) {
    // Negative values are sent as v - 1 in n bits (one's complement), T.81 F.1.2.1.
    sink_.put(static_cast<std::uint32_t>(v < 0 ? v - 1 : v), n);
  }

  void code_block(std::array<float, 64>& block, int table, int component) {
    dct(block);
    std::array<int, 64> q{};
    const auto& qt = quant_[static_cast<std::size_t>(table)];
    for (std::size_t k = 0; k < 64; ++k) {
      q[k] = static_cast<int>(std::lround(block[kZigZag[k]] / qt[k]));
    }
    const int diff = q[0] - last_dc_[component];
    last_dc_[component] = q[0];
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
