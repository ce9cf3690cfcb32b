// JPEG (ITU-T T.81) decoder: baseline and extended sequential (SOF0/SOF1) and progressive (SOF2)
// Huffman-coded 8-bit images with one (grey) or three components, any sampling factors up to 4,
// restart markers, Adam RGB (APP14 transform 0) and EXIF orientation. Every scan fills one
// coefficient array per component; dequantisation, IDCT, upsampling and colour conversion run
// once at the end, so sequential and progressive files share everything after entropy decoding.
// Refused with a reason: CMYK/YCCK (four components), 12-bit precision, lossless and
// arithmetic-coded files, and anything truncated (no EOI) or inconsistent.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "codecs.hpp"
#include "jpeg_dct.hpp"
#include "jpeg_tables.hpp"

namespace agentkit::images::detail {
namespace {

constexpr int kMaxComponents = 3;
constexpr int kFastBits = 10;

Error bad_jpeg(const std::string& why) { return make_error(Errc::parse_error, "JPEG: " + why); }
Error refused(const std::string& why) { return make_error(Errc::unsupported, "JPEG: " + why); }

struct HuffTable {
  bool defined = false;
  std::array<std::uint8_t, 256> symbols{};
  // Canonical decoding: for length l, codes in [min_code[l], max_code[l]] map to
  // symbols[offset[l] + code - min_code[l]].
  std::array<std::int32_t, 18> max_code{};
  std::array<std::int32_t, 17> offset{};
  std::array<std::int32_t, 17> min_code{};
  // Codes of up to kFastBits bits resolve in one lookup: (length << 8) | symbol, 0 when longer.
  std::array<std::uint16_t, 1 << kFastBits> fast{};
  // For AC tables: an AC coefficient whose code and magnitude bits together fit kFastBits, in one
  // lookup: (value << 8) | (zero run << 4) | bits used. Value 0 is end-of-block (run 0) or sixteen
  // zeros (run 15); the entry is 0 when the code does not fit.
  std::array<std::int16_t, 1 << kFastBits> fast_ac{};
};

// T.81 F.2.2.1 EXTEND: the n-bit magnitude v as a signed coefficient.
constexpr int extend(int v, int n) { return v < (1 << (n - 1)) ? v - (1 << n) + 1 : v; }

Result<void> build_table(HuffTable& t, const std::uint8_t* counts, const std::uint8_t* symbols,
                         int total) {
  t = HuffTable{};
  t.defined = true;
  std::copy(symbols, symbols + total, t.symbols.begin());
  std::int32_t code = 0;
  int k = 0;
  for (int len = 1; len <= 16; ++len) {
    t.offset[len] = k;
    t.min_code[len] = code;
    for (int i = 0; i < counts[len - 1]; ++i, ++k, ++code) {
      if (code >= (1 << len))
        return bad_jpeg("a Huffman table has more codes than its lengths allow");
      if (len <= kFastBits) {
        const int shift = kFastBits - len;
        for (int f = 0; f < (1 << shift); ++f) {
          t.fast[static_cast<std::size_t>((code << shift) | f)] =
              static_cast<std::uint16_t>((len << 8) | symbols[k]);
        }
      }
    }
    t.max_code[len] = counts[len - 1] ? code - 1 : -1;
    code <<= 1;
  }
  t.max_code[17] = 0x7fffffff;
  for (std::size_t look = 0; look < t.fast.size(); ++look) {
    const int len = t.fast[look] >> 8, rs = t.fast[look] & 0xff;
    const int run = rs >> 4, size = rs & 15;
    if (len != 0 && size == 0 && (run == 0 || run == 15)) {
      t.fast_ac[look] = static_cast<std::int16_t>((run << 4) + len);  // EOB or ZRL
      continue;
    }
    if (len == 0 || size == 0 || len + size > kFastBits) continue;
    const int magnitude = static_cast<int>(look >> (kFastBits - len - size)) & ((1 << size) - 1);
    const int value = extend(magnitude, size);
    if (value < -128 || value > 127) continue;
    t.fast_ac[look] = static_cast<std::int16_t>(value * 256 + (run << 4) + len + size);
  }
  return {};
}

// Entropy-coded data: skips stuffed zero bytes, stops at a marker (feeding zeros after it).
class EntropyReader {
 public:
  void reset(const std::uint8_t* p, const std::uint8_t* end) {
    p_ = p;
    end_ = end;
    buffer_ = 0;
    count_ = 0;
    marker_ = 0;
    fed_zeros_ = 0;
  }
  // Tops the buffer up to at least 57 bits. Eight bytes without an 0xFF among those taken (nearly
  // always) go in with one load; markers and stuffed bytes take the byte-by-byte path.
  void fill() {
    if (marker_ == 0 && end_ - p_ >= 8) {
      std::uint64_t word = 0;
      for (int i = 0; i < 8; ++i) word = (word << 8) | p_[i];
      const auto take = static_cast<std::size_t>((64 - count_) / 8);  // whole bytes that fit
      if (take == 0) return;
      const std::uint64_t taken = take == 8 ? word : word >> (64 - 8 * take) << (64 - 8 * take);
      const std::uint64_t inv = ~taken | (take == 8 ? 0 : ~std::uint64_t{0} >> (8 * take));
      // A zero byte of `inv` is an 0xFF byte among the bytes taken.
      if (((inv - 0x0101010101010101ull) & ~inv & 0x8080808080808080ull) == 0) {
        buffer_ |= taken >> count_;
        count_ += static_cast<int>(8 * take);
        p_ += take;
        return;
      }
    }
    while (count_ <= 56) {
      std::uint32_t byte = 0;
      if (marker_ == 0 && p_ < end_) {
        byte = *p_;
        if (byte == 0xff) {
          const std::uint8_t next = p_ + 1 < end_ ? p_[1] : 0xd9;
          if (next == 0) {
            p_ += 2;
          } else {
            marker_ = next;
            if (count_ > 24) return;  // zeros are fed as the old 32-bit reader fed them
            byte = 0;
            ++fed_zeros_;
          }
        } else {
          ++p_;
        }
      } else {
        // Past the data: zeros, but only up to 32 bits, so starved() counts what it always did.
        if (count_ > 24) return;
        ++fed_zeros_;
      }
      buffer_ |= std::uint64_t{byte} << (56 - count_);
      count_ += 8;
    }
  }
  std::uint32_t peek(int n) {
    if (count_ < n) fill();
    return static_cast<std::uint32_t>(buffer_ >> (64 - n));
  }
  void skip(int n) {
    buffer_ <<= n;
    count_ -= n;
  }
  int bit() {
    const int b = static_cast<int>(peek(1));
    skip(1);
    return b;
  }
  int bits(int n) {
    if (n == 0) return 0;
    const int v = static_cast<int>(peek(n));
    skip(n);
    return v;
  }
  // Reads n bits as a signed magnitude-coded value (T.81 F.2.2.1, EXTEND).
  int receive_extend(int n) {
    if (n == 0) return 0;
    return extend(bits(n), n);
  }
  // Tops the buffer up when it holds fewer than n bits (n <= 32): enough for a whole coefficient,
  // code and magnitude, so the fast path below checks nothing else.
  void ensure(int n) {
    if (count_ < n) fill();
  }
  // The next kFastBits bits; ensure() first (fill() always leaves more than 24).
  std::size_t look() const { return static_cast<std::size_t>(buffer_ >> (64 - kFastBits)); }
  int decode(const HuffTable& t) {
    const std::uint32_t look = peek(kFastBits);
    if (const std::uint16_t e = t.fast[look]; e != 0) {
      skip(e >> 8);
      return e & 0xff;
    }
    const std::uint32_t wide = peek(16);
    for (int len = kFastBits + 1; len <= 16; ++len) {
      const auto code = static_cast<std::int32_t>(wide >> (16 - len));
      if (code <= t.max_code[len]) {
        skip(len);
        const std::int32_t index = t.offset[len] + code - t.min_code[len];
        return index >= 0 && index < 256 ? t.symbols[static_cast<std::size_t>(index)] : -1;
      }
    }
    return -1;
  }
  // At the end of an interval or scan: what is left in the buffer is padding, and the next bytes
  // must be a marker (after optional 0xFF fill bytes).
  void sync_to_marker() {
    buffer_ = 0;
    count_ = 0;
    if (marker_ != 0) return;
    while (p_ + 2 < end_ && p_[0] == 0xff && p_[1] == 0xff) ++p_;
    if (p_ + 1 < end_ && p_[0] == 0xff && p_[1] != 0) marker_ = p_[1];
  }
  // Too many zeros fed past the data: the scan is truncated (or corrupt).
  bool starved() const { return fed_zeros_ > 4; }
  std::uint8_t marker() const { return marker_; }
  // Position of the marker the data stopped at, or end.
  const std::uint8_t* position() const { return p_; }
  void consume_marker() {
    if (marker_ != 0) p_ += 2;
    marker_ = 0;
    buffer_ = 0;
    count_ = 0;
    fed_zeros_ = 0;
  }

 private:
  const std::uint8_t* p_ = nullptr;
  const std::uint8_t* end_ = nullptr;
  std::uint64_t buffer_ = 0;  // left-aligned: the next bit is bit 63
  int count_ = 0;
  std::uint8_t marker_ = 0;
  int fed_zeros_ = 0;
};

struct Component {
  int id = 0;
  int h = 1, v = 1;
  int tq = 0;
  int td = 0, ta = 0;
  std::uint32_t blocks_w = 0, blocks_h = 0;  // in the coefficient array (padded to whole MCUs)
  // Progressive files keep every coefficient until the last scan; sequential ones transform each
  // block as it is decoded, straight into `samples` (blocks_w * 8 wide), and never hold `coef`.
  // `samples` holds rows_kept rows: the whole plane, or, when the image is rendered while the
  // scan is decoded, a ring of the last two block rows (row r at r % rows_kept).
  std::vector<std::int16_t> coef;
  std::vector<std::uint8_t> samples;
  std::size_t rows_kept = 0;
  std::size_t stride() const { return std::size_t{blocks_w} * 8; }
  std::uint8_t* row(std::size_t r) { return samples.data() + r % rows_kept * stride(); }
  const std::uint8_t* row(std::size_t r) const { return samples.data() + r % rows_kept * stride(); }
  int dc_pred = 0;
  std::int16_t* block(std::uint32_t bx, std::uint32_t by) {
    return coef.data() + (std::size_t{by} * blocks_w + bx) * 64;
  }
};

struct JpegFrame {
  bool progressive = false;
  std::uint32_t width = 0, height = 0;
  int hmax = 1, vmax = 1;
  std::uint32_t mcus_x = 0, mcus_y = 0;
  std::vector<Component> comps;
};

struct Scan {
  std::array<int, 4> comp{};  // indices into JpegFrame::comps
  int count = 0;
  int ss = 0, se = 63, ah = 0, al = 0;
};

// ---- upsampling and colour conversion, a chunk of a row at a time -----------------------------
//
// Each step is a loop over local arrays of one chunk, which the compiler turns into vector code
// (over raw pointers into several buffers it would have to prove they do not overlap first).
constexpr std::size_t kChunk = 64;  // pixels
using Plane = std::array<std::uint8_t, kChunk>;
using Pixels = std::array<std::uint32_t, kChunk>;  // RGBA, one word per pixel in memory order

// n <= kChunk samples from `p`; the rest of the chunk is zero.
Plane load_chunk(const std::uint8_t* p, std::size_t n) {
  Plane out{};
  std::memcpy(out.data(), p, n);
  return out;
}

// The word whose bytes in memory are r, g, b, 255.
Pixels pack_rgba(const Plane& r, const Plane& g, const Plane& b) {
  Pixels out;
  for (std::size_t i = 0; i < kChunk; ++i) {
    if constexpr (std::endian::native == std::endian::little) {
      out[i] = r[i] | std::uint32_t{g[i]} << 8 | std::uint32_t{b[i]} << 16 | 0xff000000u;
    } else {
      out[i] =
          std::uint32_t{r[i]} << 24 | std::uint32_t{g[i]} << 16 | std::uint32_t{b[i]} << 8 | 0xffu;
    }
  }
  return out;
}

Pixels grey_to_rgba(const Plane& v) { return pack_rgba(v, v, v); }
Pixels rgb_to_rgba(const Plane& r, const Plane& g, const Plane& b) { return pack_rgba(r, g, b); }

// YCbCr -> RGB exactly as libjpeg computes it (jdcolor.c: 16 fraction bits, rounded, clamped),
// in 16-bit lanes. With x = Cb - 128 or Cr - 128:
//   R = Y + round(1.40200 * x)             = Y + x  + (hi(2x * 26345) + 1) >> 1
//   B = Y + round(1.77200 * x)             = Y + 2x + (hi(2x * -14942) + 1) >> 1
//   G = Y + floor(-0.34414 xb - 0.71414 xr + 1/2)  (its two products summed in 32 bits)
// where hi(a) = a >> 16 and (hi(2p) + 1) >> 1 == (p + 2^15) >> 16; the 1.402 and 1.772 factors
// are 65536 + 26345 and 131072 - 14942 in 16 fraction bits, which puts the part beyond 16 bits
// into the x and 2x terms. Checked against the table-driven formula for every Cb and Cr.
inline std::int16_t mul_high(std::int16_t a, std::int16_t b) {
  return static_cast<std::int16_t>((std::int32_t{a} * b) >> 16);
}

Pixels ycc_to_rgba(const Plane& luma, const Plane& cb, const Plane& cr) {
  using std::int16_t;
  using std::int32_t;
  Plane r, g, b;
  // Every step narrowed to 16 bits: left as int, the compiler would widen the lanes to 32 bits.
  auto sample = [](int16_t v) { return static_cast<std::uint8_t>(std::clamp<int16_t>(v, 0, 255)); };
  for (std::size_t i = 0; i < kChunk; ++i) {
    const int16_t y = luma[i];
    const auto xb = static_cast<int16_t>(cb[i] - 128);
    const auto xr = static_cast<int16_t>(cr[i] - 128);
    const auto red =
        static_cast<int16_t>(y + xr + ((mul_high(static_cast<int16_t>(2 * xr), 26345) + 1) >> 1));
    const auto blue = static_cast<int16_t>(
        y + 2 * xb + ((mul_high(static_cast<int16_t>(2 * xb), -14942) + 1) >> 1));
    const auto green = static_cast<int16_t>(
        y - xr + static_cast<int16_t>((int32_t{xb} * -22554 + int32_t{xr} * 18734 + 32768) >> 16));
    r[i] = sample(red);
    g[i] = sample(green);
    b[i] = sample(blue);
  }
  return pack_rgba(r, g, b);
}

// The 2x horizontal triangle filter: output 2i weighs source i 3/4 and i - 1 1/4, output 2i + 1
// weighs i and i + 1, each rounded as libjpeg rounds it (h2v1: biases 1 and 2 over 4; h2v2,
// whose inputs are already 3:1 column sums: 8 and 7 over 16).
struct TriangleFilter {
  std::uint16_t even_bias, odd_bias, shift;
};
constexpr TriangleFilter kH2V1{1, 2, 2}, kH2V2{8, 7, 4};

// Outputs [0, kChunk) from s[0 .. kChunk / 2 + 1], s[1 + i] being the weighted source sample i
// of the chunk (s[0] and s[kChunk / 2 + 1] its neighbours outside). All in 16-bit lanes (sums of
// at most 16 * 255).
template <TriangleFilter kFilter>
Plane upsample_h2(const std::uint16_t* s) {
  constexpr std::size_t kHalf = kChunk / 2;
  std::array<std::uint16_t, kHalf + 2> in;
  std::memcpy(in.data(), s, sizeof in);
  std::array<std::uint8_t, kHalf> even, odd;
  for (std::size_t i = 0; i < kHalf; ++i) {
    const auto here = static_cast<std::uint16_t>(3 * in[i + 1]);
    even[i] = static_cast<std::uint8_t>(
        static_cast<std::uint16_t>(here + in[i] + kFilter.even_bias) >> kFilter.shift);
    odd[i] = static_cast<std::uint8_t>(
        static_cast<std::uint16_t>(here + in[i + 2] + kFilter.odd_bias) >> kFilter.shift);
  }
  Plane out;
  for (std::size_t i = 0; i < kHalf; ++i) {
    out[2 * i] = even[i];
    out[2 * i + 1] = odd[i];
  }
  return out;
}

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> bytes, const DecodeLimits& limits)
      : bytes_(bytes), limits_(limits) {}

  Result<Raster> run() {
    if (auto r = read_segments(); !r) return r.error();
    Raster out = streamed_ ? std::move(out_) : render();
    apply_orientation(out);
    return out;
  }

  // Header-only: reads up to the frame header.
  Result<ImageInfo> probe() {
    std::size_t pos = 2;
    for (;;) {
      Result<std::pair<std::uint8_t, std::span<const std::uint8_t>>> seg = segment(pos);
      if (!seg) return seg.error();
      const std::uint8_t m = seg->first;
      if ((m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc)) {
        if (seg->second.size() < 6) return bad_jpeg("short frame header");
        const std::uint8_t* p = seg->second.data();
        // Refused from the header alone, so a fitting file is never passed on unreadable.
        if (p[0] != 8)
          return refused(std::to_string(p[0]) + "-bit samples; only 8-bit JPEG is supported");
        if (p[5] == 4) return refused("CMYK or YCCK (four components); convert it to RGB first");
        return ImageInfo{Format::jpeg, be16(p + 3), be16(p + 1), false};
      }
      if (m == 0xda || m == 0xd9) return bad_jpeg("no frame header before the scan");
    }
  }

 private:
  // Reads the marker at pos and its segment; advances pos past it.
  Result<std::pair<std::uint8_t, std::span<const std::uint8_t>>> segment(std::size_t& pos) {
    while (pos < bytes_.size() && bytes_[pos] == 0xff && pos + 1 < bytes_.size() &&
           bytes_[pos + 1] == 0xff) {
      ++pos;  // fill bytes before a marker are allowed
    }
    if (pos + 2 > bytes_.size()) return bad_jpeg("truncated before the end-of-image marker");
    if (bytes_[pos] != 0xff) return bad_jpeg("expected a marker at byte " + std::to_string(pos));
    const std::uint8_t m = bytes_[pos + 1];
    if (m == 0xd9) {
      pos += 2;
      return std::pair{m, std::span<const std::uint8_t>{}};
    }
    if (pos + 4 > bytes_.size()) return bad_jpeg("truncated inside a marker segment");
    const std::size_t len = be16(bytes_.data() + pos + 2);
    if (len < 2 || pos + 2 + len > bytes_.size())
      return bad_jpeg("truncated inside a marker segment");
    auto payload = bytes_.subspan(pos + 4, len - 2);
    pos += 2 + len;
    return std::pair{m, payload};
  }

  Result<void> read_segments() {
    std::size_t pos = 2;
    for (;;) {
      auto seg = segment(pos);
      if (!seg) return seg.error();
      const auto [m, data] = *seg;
      Result<void> r;
      if (m == 0xd9) {
        if (frame_.comps.empty() || scans_ == 0)
          return bad_jpeg("no image data before end of image");
        return {};
      } else if (m == 0xc0 || m == 0xc1 || m == 0xc2) {
        r = read_frame(data, m == 0xc2);
      } else if ((m >= 0xc3 && m <= 0xcf) && m != 0xc4 && m != 0xc8 && m != 0xcc) {
        r = refused("lossless, hierarchical or arithmetic-coded files are not supported");
      } else if (m == 0xc4) {
        r = read_dht(data);
      } else if (m == 0xdb) {
        r = read_dqt(data);
      } else if (m == 0xdd) {
        r = data.size() == 2 ? Result<void>() : Result<void>(bad_jpeg("bad DRI length"));
        if (r) restart_interval_ = be16(data.data());
      } else if (m == 0xe1) {
        read_exif(data);
      } else if (m == 0xee) {
        if (data.size() >= 12 && std::equal(data.begin(), data.begin() + 5, "Adobe")) {
          adobe_transform_ = data[11];
        }
      } else if (m == 0xda) {
        r = read_scan(data, pos);
      }
      if (!r) return r;
    }
  }

  Result<void> read_frame(std::span<const std::uint8_t> d, bool progressive) {
    if (!frame_.comps.empty()) return bad_jpeg("more than one frame header");
    if (d.size() < 6) return bad_jpeg("short frame header");
    if (d[0] != 8) {
      return refused(std::to_string(d[0]) + "-bit samples; only 8-bit JPEG is supported");
    }
    frame_.progressive = progressive;
    frame_.height = be16(d.data() + 1);
    frame_.width = be16(d.data() + 3);
    const int n = d[5];
    if (frame_.height == 0) return refused("a height defined later by a DNL marker");
    if (n == 4) return refused("CMYK or YCCK (four components); convert it to RGB first");
    if (n != 1 && n != 3) return bad_jpeg(std::to_string(n) + " components");
    if (d.size() < 6 + 3 * std::size_t(n)) return bad_jpeg("short frame header");
    if (auto r = check_dimensions("JPEG", frame_.width, frame_.height, limits_); !r) return r;
    for (int i = 0; i < n; ++i) {
      Component c;
      c.id = d[6 + 3 * i];
      c.h = d[7 + 3 * i] >> 4;
      c.v = d[7 + 3 * i] & 15;
      c.tq = d[8 + 3 * i];
      if (c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3) return bad_jpeg("bad component");
      frame_.hmax = std::max(frame_.hmax, c.h);
      frame_.vmax = std::max(frame_.vmax, c.v);
      frame_.comps.push_back(std::move(c));
    }
    frame_.mcus_x = (frame_.width + 8 * frame_.hmax - 1) / (8 * frame_.hmax);
    frame_.mcus_y = (frame_.height + 8 * frame_.vmax - 1) / (8 * frame_.vmax);
    for (Component& c : frame_.comps) {
      if (frame_.hmax % c.h != 0 || frame_.vmax % c.v != 0) {
        return refused("sampling factors that do not divide the largest one");
      }
      c.blocks_w = frame_.mcus_x * static_cast<std::uint32_t>(c.h);
      c.blocks_h = frame_.mcus_y * static_cast<std::uint32_t>(c.v);
      // Sequential planes are allocated by the first scan, which knows whether they can be a
      // ring (see sequential_scan).
      if (progressive) c.coef.assign(std::size_t{c.blocks_w} * c.blocks_h * 64, 0);
    }
    return {};
  }

  Result<void> read_dht(std::span<const std::uint8_t> d) {
    std::size_t i = 0;
    while (i < d.size()) {
      if (d.size() - i < 17) return bad_jpeg("short Huffman table");
      const int tc = d[i] >> 4, th = d[i] & 15;
      if (tc > 1 || th > 3) return bad_jpeg("bad Huffman table id");
      int total = 0;
      for (int k = 0; k < 16; ++k) total += d[i + 1 + std::size_t(k)];
      if (total > 256 || d.size() - i - 17 < std::size_t(total))
        return bad_jpeg("short Huffman table");
      HuffTable& t = (tc == 0 ? dc_ : ac_)[static_cast<std::size_t>(th)];
      if (auto r = build_table(t, d.data() + i + 1, d.data() + i + 17, total); !r) return r;
      i += 17 + std::size_t(total);
    }
    return {};
  }

  Result<void> read_dqt(std::span<const std::uint8_t> d) {
    std::size_t i = 0;
    while (i < d.size()) {
      const int pq = d[i] >> 4, tq = d[i] & 15;
      if (pq > 1 || tq > 3) return bad_jpeg("bad quantisation table id");
      const std::size_t need = 1 + 64 * (pq + 1);
      if (d.size() - i < need) return bad_jpeg("short quantisation table");
      for (std::size_t k = 0; k < 64; ++k) {
        const std::uint32_t q = pq ? be16(d.data() + i + 1 + 2 * k) : d[i + 1 + k];
        quant_[static_cast<std::size_t>(tq)][kZigZag[k]] = idct::quantiser(q);
      }
      i += need;
    }
    return {};
  }

  void read_exif(std::span<const std::uint8_t> d) {
    // "Exif\0\0", then a TIFF header; the orientation is tag 0x0112 in IFD0.
    if (d.size() < 14 || !std::equal(d.begin(), d.begin() + 6, "Exif\0\0")) return;
    const std::uint8_t* t = d.data() + 6;
    const std::size_t n = d.size() - 6;
    const bool le = t[0] == 'I';
    auto u16 = [&](std::size_t o) -> unsigned {
      return o + 2 <= n ? (le ? t[o] | (t[o + 1] << 8) : (t[o] << 8) | t[o + 1]) : 0;
    };
    auto u32 = [&](std::size_t o) -> std::size_t {
      return o + 4 <= n ? (le ? u16(o) | (std::size_t(u16(o + 2)) << 16)
                              : (std::size_t(u16(o)) << 16) | u16(o + 2))
                        : 0;
    };
    const std::size_t ifd = u32(4);
    const unsigned entries = u16(ifd);
    for (unsigned e = 0; e < entries; ++e) {
      const std::size_t at = ifd + 2 + 12 * std::size_t(e);
      if (at + 12 > n) return;
      if (u16(at) == 0x0112) {
        const unsigned v = u16(at + 8);
        if (v >= 1 && v <= 8) orientation_ = static_cast<int>(v);
        return;
      }
    }
  }

  Result<void> read_scan(std::span<const std::uint8_t> d, std::size_t& pos) {
    if (frame_.comps.empty()) return bad_jpeg("a scan before the frame header");
    if (d.empty()) return bad_jpeg("short scan header");
    Scan s;
    s.count = d[0];
    if (s.count < 1 || s.count > static_cast<int>(frame_.comps.size()) ||
        d.size() != 1 + 2 * std::size_t(s.count) + 3) {
      return bad_jpeg("bad scan header");
    }
    for (int i = 0; i < s.count; ++i) {
      const int id = d[1 + 2 * i];
      auto it = std::find_if(frame_.comps.begin(), frame_.comps.end(),
                             [&](const Component& c) { return c.id == id; });
      if (it == frame_.comps.end()) return bad_jpeg("a scan names an unknown component");
      s.comp[static_cast<std::size_t>(i)] = static_cast<int>(it - frame_.comps.begin());
      it->td = d[2 + 2 * i] >> 4;
      it->ta = d[2 + 2 * i] & 15;
      if (it->td > 3 || it->ta > 3) return bad_jpeg("bad Huffman table selector");
    }
    const std::uint8_t* tail = d.data() + 1 + 2 * s.count;
    s.ss = tail[0];
    s.se = tail[1];
    s.ah = tail[2] >> 4;
    s.al = tail[2] & 15;
    if (frame_.progressive) {
      if (s.ss > s.se || s.se > 63 || (s.ss == 0 && s.se != 0) || (s.ss > 0 && s.count != 1) ||
          s.al > 13) {
        return bad_jpeg("bad progressive scan parameters");
      }
    } else if (s.ss != 0 || s.se != 63 || s.ah != 0 || s.al != 0) {
      return bad_jpeg("bad sequential scan parameters");
    }
    ++scans_;
    bits_.reset(bytes_.data() + pos, bytes_.data() + bytes_.size());
    if (auto r = decode_scan(s); !r) return r;
    // Continue after the entropy-coded data: at the marker that ended it.
    bits_.sync_to_marker();
    const std::uint8_t* p = bits_.position();
    if (bits_.marker() == 0) return bad_jpeg("truncated scan data (no end-of-image marker)");
    pos = static_cast<std::size_t>(p - bytes_.data());
    return {};
  }

  Result<void> check_tables(const Scan& s) {
    for (int i = 0; i < s.count; ++i) {
      const Component& c =
          frame_.comps[static_cast<std::size_t>(s.comp[static_cast<std::size_t>(i)])];
      const bool needs_dc = s.ss == 0 && s.ah == 0;
      const bool needs_ac = s.se > 0;
      if ((needs_dc && !dc_[static_cast<std::size_t>(c.td)].defined) ||
          (needs_ac && !ac_[static_cast<std::size_t>(c.ta)].defined)) {
        return bad_jpeg("a scan uses an undefined Huffman table");
      }
    }
    return {};
  }

  Result<void> decode_scan(const Scan& s) {
    if (auto r = check_tables(s); !r) return r;
    for (Component& c : frame_.comps) c.dc_pred = 0;
    eobrun_ = 0;
    // One component alone is coded over its own block grid, not in MCUs (T.81 A.2.2).
    const bool single = s.count == 1;
    Component& first = frame_.comps[static_cast<std::size_t>(s.comp[0])];
    const std::uint32_t units_x =
        single ? (ceil_div(frame_.width * static_cast<std::uint32_t>(first.h),
                           static_cast<std::uint32_t>(frame_.hmax)) +
                  7) /
                     8
               : frame_.mcus_x;
    const std::uint32_t units_y =
        single ? (ceil_div(frame_.height * static_cast<std::uint32_t>(first.v),
                           static_cast<std::uint32_t>(frame_.vmax)) +
                  7) /
                     8
               : frame_.mcus_y;
    if (!frame_.progressive) return sequential_scan(s, units_x, units_y);
    std::uint32_t until_restart = restart_interval_;
    int expected_rst = 0;
    for (std::uint32_t uy = 0; uy < units_y; ++uy) {
      for (std::uint32_t ux = 0; ux < units_x; ++ux) {
        if (restart_interval_ != 0 && until_restart == 0) {
          if (auto r = restart(expected_rst); !r) return r;
          expected_rst = (expected_rst + 1) & 7;
          until_restart = restart_interval_;
        }
        if (single) {
          if (auto r = unit(s, first, ux, uy); !r) return r;
        } else {
          for (int i = 0; i < s.count; ++i) {
            Component& c =
                frame_.comps[static_cast<std::size_t>(s.comp[static_cast<std::size_t>(i)])];
            for (int by = 0; by < c.v; ++by) {
              for (int bx = 0; bx < c.h; ++bx) {
                if (auto r = unit(
                        s, c, ux * static_cast<std::uint32_t>(c.h) + static_cast<std::uint32_t>(bx),
                        uy * static_cast<std::uint32_t>(c.v) + static_cast<std::uint32_t>(by));
                    !r) {
                  return r;
                }
              }
            }
          }
        }
        if (bits_.starved()) return bad_jpeg("truncated scan data");
        if (restart_interval_ != 0) --until_restart;
      }
    }
    return {};
  }

  static std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }

  Result<void> restart(int expected) {
    bits_.sync_to_marker();
    if (bits_.marker() != 0xd0 + expected) {
      return bad_jpeg("expected restart marker RST" + std::to_string(expected));
    }
    bits_.consume_marker();
    for (Component& c : frame_.comps) c.dc_pred = 0;
    eobrun_ = 0;
    return {};
  }

  // A sequential scan, decoded and transformed block by block. The bit reader lives in a local
  // for the whole scan, so its buffer and count stay in registers instead of going through
  // memory at every code; a block reports failure as a message, not a Result, for the same
  // reason.
  //
  // A first scan that holds every component (nearly every sequential file) is rendered as it is
  // decoded: after each row of MCUs, the output rows whose samples are all in are converted,
  // and each component keeps only a ring of two block rows instead of its whole plane, so the
  // samples are read back from cache rather than memory. Files that spread their components
  // over several scans keep whole planes and are rendered at the end.
  Result<void> sequential_scan(const Scan& s, std::uint32_t units_x, std::uint32_t units_y) {
    if (streamed_) return bad_jpeg("a scan after one that held every component");
    if (scans_ == 1) {
      const bool stream = s.count == static_cast<int>(frame_.comps.size());
      for (Component& c : frame_.comps) {
        const std::size_t block_rows =
            stream ? 2 * static_cast<std::size_t>(s.count == 1 ? 1 : c.v) : c.blocks_h;
        c.rows_kept = block_rows * 8;
        c.samples.assign(c.rows_kept * c.stride(), 128);  // what all-zero coefficients give
      }
      streamed_ = stream;
      if (stream) begin_render();
    }
    EntropyReader bits = bits_;
    std::uint32_t until_restart = restart_interval_;
    int expected_rst = 0;
    for (std::uint32_t uy = 0; uy < units_y; ++uy) {
      for (std::uint32_t ux = 0; ux < units_x; ++ux) {
        if (restart_interval_ != 0 && until_restart == 0) {
          bits_ = bits;
          if (auto r = restart(expected_rst); !r) return r;
          bits = bits_;
          expected_rst = (expected_rst + 1) & 7;
          until_restart = restart_interval_;
        }
        for (int i = 0; i < s.count; ++i) {
          Component& c =
              frame_.comps[static_cast<std::size_t>(s.comp[static_cast<std::size_t>(i)])];
          // One component alone is coded block by block; several, in MCUs of h x v blocks each.
          const int h = s.count == 1 ? 1 : c.h, v = s.count == 1 ? 1 : c.v;
          for (int by = 0; by < v; ++by) {
            for (int bx = 0; bx < h; ++bx) {
              const std::uint32_t x =
                  ux * static_cast<std::uint32_t>(h) + static_cast<std::uint32_t>(bx);
              const std::uint32_t y =
                  uy * static_cast<std::uint32_t>(v) + static_cast<std::uint32_t>(by);
              if (const char* why = sequential_block(bits, c, x, y)) return bad_jpeg(why);
            }
          }
        }
        if (bits.starved()) return bad_jpeg("truncated scan data");
        if (restart_interval_ != 0) --until_restart;
      }
      if (streamed_) render_rows(uy + 1 == units_y ? frame_.height : rows_ready(s, uy + 1));
    }
    bits_ = bits;
    return {};
  }

  // The output rows that can be rendered once `unit_rows` rows of units are decoded: every
  // component row they read is in. Output row y reads component row y / f (f = vmax / v) and,
  // for 2x vertical upsampling, the row after it, so one row is held back (the last one is
  // rendered with the next units).
  std::size_t rows_ready(const Scan& s, std::uint32_t unit_rows) const {
    std::size_t ready = frame_.height;
    for (const Component& c : frame_.comps) {
      const std::size_t rows =
          std::size_t{unit_rows} * 8 * static_cast<std::size_t>(s.count == 1 ? 1 : c.v);
      const auto f = static_cast<std::size_t>(frame_.vmax / c.v);
      ready = std::min(ready, f * rows - 1);
    }
    return ready;
  }

  // Decodes the block at block column bx, row by of component c and transforms it into the
  // component's samples. Returns why it failed, or nullptr.
  const char* sequential_block(EntropyReader& bits, Component& c, std::uint32_t bx,
                               std::uint32_t by) {
    std::array<std::int16_t, 64> b{};
    const int t = bits.decode(dc_[static_cast<std::size_t>(c.td)]);
    if (t < 0 || t > 11) return "bad DC code";
    c.dc_pred = wrap16(c.dc_pred + bits.receive_extend(t));
    b[0] = static_cast<std::int16_t>(c.dc_pred);
    const HuffTable& ac = ac_[static_cast<std::size_t>(c.ta)];
    bool any_ac = false;
    for (int k = 1; k < 64;) {
      bits.ensure(32);
      // Most codes: the zero run, the value and the bits they took, in one lookup.
      if (const int e = ac.fast_ac[bits.look()]; e != 0) {
        bits.skip(e & 15);
        const int run = (e >> 4) & 15, value = e >> 8;
        if (value == 0) {
          if (run == 0) break;  // end of block
          k += 16;
          continue;
        }
        k += run;
        if (k > 63) return "AC coefficients run past the block";
        b[kZigZag[static_cast<std::size_t>(k++)]] = static_cast<std::int16_t>(value);
        any_ac = true;
        continue;
      }
      const int rs = bits.decode(ac);
      if (rs < 0) return "bad AC code";
      const int r = rs >> 4, size = rs & 15;
      if (size == 0) {
        if (r != 15) break;  // end of block
        k += 16;
        continue;
      }
      k += r;
      if (k > 63) return "AC coefficients run past the block";
      b[kZigZag[static_cast<std::size_t>(k++)]] =
          static_cast<std::int16_t>(bits.receive_extend(size));
      any_ac = true;
    }
    const std::int16_t* q = quant_[static_cast<std::size_t>(c.tq)].data();
    std::uint8_t* out = c.row(std::size_t{by} * 8) + std::size_t{bx} * 8;
    if (any_ac) {
      idct_islow(b.data(), q, out, c.stride());
    } else {
      idct_dc_only(b[0], q[0], out, c.stride());
    }
    return nullptr;
  }

  // One block of a progressive scan at block column bx, row by of component c.
  Result<void> unit(const Scan& s, Component& c, std::uint32_t bx, std::uint32_t by) {
    return block(s, c, c.block(bx, by));
  }

  Result<void> block(const Scan& s, Component& c, std::int16_t* b) {
    if (s.ss == 0) return s.ah == 0 ? dc_first(c, b, s.al) : dc_refine(b, s.al);
    return s.ah == 0 ? ac_first(c, b, s) : ac_refine(c, b, s);
  }

  // DC predictions stay in 16 bits, so a hostile run of differences cannot overflow an int.
  static int wrap16(int v) { return static_cast<std::int16_t>(v); }

  Result<int> dc_diff(Component& c) {
    const int t = bits_.decode(dc_[static_cast<std::size_t>(c.td)]);
    if (t < 0 || t > 11) return bad_jpeg("bad DC code");
    return bits_.receive_extend(t);
  }

  Result<void> dc_first(Component& c, std::int16_t* b, int al) {
    Result<int> diff = dc_diff(c);
    if (!diff) return diff.error();
    c.dc_pred = wrap16(c.dc_pred + *diff);
    b[0] = static_cast<std::int16_t>(c.dc_pred * (1 << al));
    return {};
  }

  Result<void> dc_refine(std::int16_t* b, int al) {
    if (bits_.bit()) b[0] = static_cast<std::int16_t>(b[0] | (1 << al));
    return {};
  }

  Result<void> ac_first(Component& c, std::int16_t* b, const Scan& s) {
    if (eobrun_ > 0) {
      --eobrun_;
      return {};
    }
    const HuffTable& ac = ac_[static_cast<std::size_t>(c.ta)];
    for (int k = s.ss; k <= s.se;) {
      const int rs = bits_.decode(ac);
      if (rs < 0) return bad_jpeg("bad AC code");
      const int r = rs >> 4, size = rs & 15;
      if (size == 0) {
        if (r < 15) {
          eobrun_ = (1 << r) - 1 + bits_.bits(r);
          break;
        }
        k += 16;
        continue;
      }
      k += r;
      if (k > 63) return bad_jpeg("AC coefficients run past the block");
      b[kZigZag[static_cast<std::size_t>(k++)]] =
          static_cast<std::int16_t>(bits_.receive_extend(size) * (1 << s.al));
    }
    return {};
  }

  // Successive approximation of AC coefficients (T.81 G.1.2.3): nonzero coefficients gain a
  // correction bit; zero ones are skipped by run length, and one may become +-1 << al.
  Result<void> ac_refine(Component& c, std::int16_t* b, const Scan& s) {
    const int p1 = 1 << s.al;
    const int m1 = -p1;
    int k = s.ss;
    auto refine = [&](std::int16_t& coef) {
      if (bits_.bit() && (coef & p1) == 0)
        coef = static_cast<std::int16_t>(coef >= 0 ? coef + p1 : coef + m1);
    };
    if (eobrun_ <= 0) {
      const HuffTable& ac = ac_[static_cast<std::size_t>(c.ta)];
      for (; k <= s.se;) {
        const int rs = bits_.decode(ac);
        if (rs < 0) return bad_jpeg("bad AC code");
        int r = rs >> 4;
        const int size = rs & 15;
        int value = 0;
        if (size == 0) {
          if (r < 15) {
            eobrun_ = (1 << r) + bits_.bits(r);
            break;
          }
        } else {
          if (size != 1) return bad_jpeg("bad AC refinement size");
          value = bits_.bit() ? p1 : m1;
        }
        while (k <= s.se) {
          std::int16_t& coef = b[kZigZag[static_cast<std::size_t>(k)]];
          if (coef != 0) {
            refine(coef);
          } else {
            if (r == 0) {
              if (value != 0) coef = static_cast<std::int16_t>(value);
              ++k;
              break;
            }
            --r;
          }
          ++k;
        }
      }
    }
    if (eobrun_ > 0) {
      for (; k <= s.se; ++k) {
        std::int16_t& coef = b[kZigZag[static_cast<std::size_t>(k)]];
        if (coef != 0) refine(coef);
      }
      --eobrun_;
    }
    return {};
  }

  // ---- after entropy decoding ----------------------------------------------------------------

  // Progressive files: dequantises and inverse-transforms every block of each component into
  // its plane of samples, then lets the coefficients go.
  void transform_coefficients() {
    for (Component& c : frame_.comps) {
      if (c.coef.empty()) continue;
      c.samples.resize(c.coef.size());
      c.rows_kept = std::size_t{c.blocks_h} * 8;
      const std::int16_t* q = quant_[static_cast<std::size_t>(c.tq)].data();
      const std::size_t w = c.stride();
      for (std::uint32_t by = 0; by < c.blocks_h; ++by) {
        for (std::uint32_t bx = 0; bx < c.blocks_w; ++bx) {
          idct_islow(c.coef.data() + (std::size_t{by} * c.blocks_w + bx) * 64, q,
                     c.samples.data() + std::size_t{by} * 8 * w + std::size_t{bx} * 8, w);
        }
      }
      c.coef = {};
    }
  }

  // Output row y of component c at full resolution: the plane's own row when the component is
  // not subsampled, else upsampled into `buf` (at least w + kChunk bytes). 2x horizontally and
  // 2x2 use libjpeg's "fancy" triangle filter (what Pillow shows by default): each output sample
  // weighs its nearest source sample 3/4 and the next one out 1/4, per direction. Other factors
  // replicate. A row at a time, so the upsampled chroma never exists as a whole plane.
  const std::uint8_t* component_row(const Component& c, std::size_t y, std::uint8_t* buf,
                                    std::vector<std::uint16_t>& sums) const {
    const auto fx = static_cast<std::size_t>(frame_.hmax / c.h);
    const auto fy = static_cast<std::size_t>(frame_.vmax / c.v);
    const std::size_t w = frame_.width, h = frame_.height;
    const std::size_t cw = (w + fx - 1) / fx;  // source samples that cover the image
    const std::size_t ch = (h + fy - 1) / fy;
    auto src_row = [&](std::size_t cy) { return c.row(std::min(cy, ch - 1)); };
    if (fx == 1 && fy == 1) return c.row(y);
    if (fx == 2 && fy <= 2) {
      // sums[1 + i] holds source sample i weighted for the filter (x1 across only, 3:1 with the
      // row above or below for 2x2); sums[0] and sums[cw + 1] repeat the edge samples.
      std::uint16_t* s = sums.data() + 1;
      if (fy == 1) {
        const std::uint8_t* in = src_row(y);
        for (std::size_t i = 0; i < cw; ++i) s[i] = in[i];
      } else {
        const std::size_t cy = y / 2;
        const std::uint8_t* near = src_row(cy);
        // The vertical neighbour: the row above for even output rows, below for odd.
        const std::uint8_t* far = y % 2 == 0 ? src_row(cy == 0 ? 0 : cy - 1) : src_row(cy + 1);
        for (std::size_t i = 0; i < cw; ++i)
          s[i] = static_cast<std::uint16_t>(3 * near[i] + far[i]);
      }
      sums[0] = s[0];
      std::fill(s + cw, sums.data() + sums.size(), s[cw - 1]);
      for (std::size_t x = 0; x < w; x += kChunk) {
        const Plane up = fy == 1 ? upsample_h2<kH2V1>(sums.data() + x / 2)
                                 : upsample_h2<kH2V2>(sums.data() + x / 2);
        std::memcpy(buf + x, up.data(), std::min(kChunk, w - x));
      }
      return buf;
    }
    const std::uint8_t* in = src_row(y / fy);
    if (fx == 1) return in;
    for (std::size_t x = 0; x < w; ++x) buf[x] = in[x / fx];
    return buf;
  }

  bool stored_as_rgb() const {
    const auto& c = frame_.comps;
    if (adobe_transform_ == 0) return true;
    return adobe_transform_ < 0 && c[0].id == 'R' && c[1].id == 'G' && c[2].id == 'B';
  }

  // Upsampling and colour conversion in one pass, row by row and a chunk of the row at a time,
  // into the RGBA raster: all at once after the last scan, or as a streamed scan goes.
  Raster render() {
    transform_coefficients();
    begin_render();
    render_rows(frame_.height);
    return std::move(out_);
  }

  void begin_render() {
    out_.width = frame_.width;
    out_.height = frame_.height;
    const std::size_t w = out_.width;
    // Appended a chunk at a time (rows come in order): resize() would first zero 4 bytes a pixel.
    out_.rgba.reserve(w * out_.height * 4);
    row_buffers_.assign((w + kChunk) * frame_.comps.size(), 0);
    sums_.assign(w / 2 + kChunk + 2, 0);
  }

  // Renders output rows [rendered_, end).
  void render_rows(std::size_t end) {
    const std::size_t w = out_.width;
    const std::size_t ncomp = frame_.comps.size();
    const bool rgb = ncomp == 3 && stored_as_rgb();
    for (std::size_t y = rendered_; y < end; ++y) {
      std::array<const std::uint8_t*, kMaxComponents> row{};
      for (std::size_t i = 0; i < ncomp; ++i) {
        row[i] = component_row(frame_.comps[i], y, row_buffers_.data() + i * (w + kChunk), sums_);
      }
      for (std::size_t x = 0; x < w; x += kChunk) {
        const std::size_t n = std::min(kChunk, w - x);
        auto chunk = [&](std::size_t i) { return load_chunk(row[i] + x, n); };
        Pixels pixels;
        if (ncomp == 1) {
          pixels = grey_to_rgba(chunk(0));
        } else if (rgb) {
          pixels = rgb_to_rgba(chunk(0), chunk(1), chunk(2));
        } else {
          pixels = ycc_to_rgba(chunk(0), chunk(1), chunk(2));
        }
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(pixels.data());
        out_.rgba.insert(out_.rgba.end(), bytes, bytes + 4 * n);
      }
    }
    rendered_ = std::max(rendered_, end);
  }

  // EXIF orientation 2-8: mirror and/or rotate so the pixels stand upright.
  void apply_orientation(Raster& img) const {
    if (orientation_ <= 1) return;
    const bool swap = orientation_ >= 5;
    Raster out;
    out.width = swap ? img.height : img.width;
    out.height = swap ? img.width : img.height;
    out.rgba.resize(img.rgba.size());
    const std::uint32_t W = img.width, H = img.height;
    for (std::uint32_t y = 0; y < out.height; ++y) {
      for (std::uint32_t x = 0; x < out.width; ++x) {
        std::uint32_t sx = x, sy = y;
        switch (orientation_) {
          case 2: sx = W - 1 - x; break;
          case 3:
            sx = W - 1 - x;
            sy = H - 1 - y;
            break;
          case 4: sy = H - 1 - y; break;
          case 5:
            sx = y;
            sy = x;
            break;
          case 6:
            sx = y;
            sy = H - 1 - x;
            break;
          case 7:
            sx = W - 1 - y;
            sy = H - 1 - x;
            break;
          case 8:
            sx = W - 1 - y;
            sy = x;
            break;
          default: break;
        }
        std::copy_n(img.rgba.data() + (std::size_t{sy} * W + sx) * 4, 4,
                    out.rgba.data() + (std::size_t{y} * out.width + x) * 4);
      }
    }
    img = std::move(out);
  }

  std::span<const std::uint8_t> bytes_;
  DecodeLimits limits_;
  JpegFrame frame_;
  std::array<HuffTable, 4> dc_{}, ac_{};
  std::array<std::array<std::int16_t, 64>, 4> quant_{};  // idct::quantiser values
  std::uint32_t restart_interval_ = 0;
  int adobe_transform_ = -1;
  int orientation_ = 1;
  int scans_ = 0;
  int eobrun_ = 0;
  EntropyReader bits_;
  // Rendering state (render_rows() continues where it stopped).
  bool streamed_ = false;  // the first scan held every component and rendered the image
  Raster out_;
  std::vector<std::uint8_t> row_buffers_;  // one upsampled row per component
  std::vector<std::uint16_t> sums_;        // weighted samples for the triangle filter
  std::size_t rendered_ = 0;
};

}  // namespace

Result<ImageInfo> probe_jpeg(std::span<const std::uint8_t> bytes) {
  return Decoder(bytes, {}).probe();
}

Result<Raster> decode_jpeg(std::span<const std::uint8_t> bytes, const DecodeLimits& limits) {
  return Decoder(bytes, limits).run();
}

}  // namespace agentkit::images::detail
