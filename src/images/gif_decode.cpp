// GIF87a/GIF89a: the first frame only, with its transparent colour and interlacing. A file with a
// second image is animated and refused. The LZW decoder checks every code against the table it
// has built, so a code that points past the table is an error rather than a wild read.
#include <algorithm>
#include <array>
#include <string>

#include "codecs.hpp"

namespace agentkit::images::detail {
namespace {

constexpr int kMaxLzwCodeBits = 12;
constexpr int kMaxCodes = 1 << kMaxLzwCodeBits;
constexpr std::size_t kHeaderBytes = 13;  // signature, logical screen descriptor

Error bad_gif(const std::string& why) { return make_error(Errc::parse_error, "GIF: " + why); }

std::uint16_t le16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> b) : b_(b) {}
  bool has(std::size_t n) const { return b_.size() - pos_ >= n; }
  const std::uint8_t* take(std::size_t n) {
    const std::uint8_t* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::size_t pos() const { return pos_; }

 private:
  std::span<const std::uint8_t> b_;
  std::size_t pos_ = 0;
};

// Reads a chain of data sub-blocks, appending them to out (or skipping them when out is null).
Result<void> sub_blocks(Cursor& in, std::vector<std::uint8_t>* out) {
  for (;;) {
    if (!in.has(1)) return bad_gif("truncated inside a data block");
    const std::size_t n = *in.take(1);
    if (n == 0) return {};
    if (!in.has(n)) return bad_gif("truncated inside a data block");
    const std::uint8_t* p = in.take(n);
    if (out != nullptr) out->insert(out->end(), p, p + n);
  }
}

// Decodes LZW data into exactly out.size() colour indices.
Result<void> lzw(const std::vector<std::uint8_t>& data, int min_bits,
                 std::vector<std::uint8_t>& out) {
  if (min_bits < 2 || min_bits > 8) return bad_gif("bad LZW minimum code size");
  const int clear = 1 << min_bits;
  const int stop = clear + 1;
  std::array<std::uint16_t, kMaxCodes> prefix{};
  std::array<std::uint8_t, kMaxCodes> suffix{};
  std::array<std::uint8_t, kMaxCodes> first{};
  std::array<std::uint16_t, kMaxCodes> length{};
  for (int i = 0; i < clear; ++i) {
    suffix[static_cast<std::size_t>(i)] = first[static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(i);
    length[static_cast<std::size_t>(i)] = 1;
  }
  int bits = min_bits + 1;
  int next = clear + 2;
  int prev = -1;
  std::size_t written = 0;
  std::uint32_t buffer = 0;
  int count = 0;
  std::size_t at = 0;
  while (written < out.size()) {
    while (count < bits) {
      if (at == data.size()) return bad_gif("truncated image data");
      buffer |= std::uint32_t{data[at++]} << count;
      count += 8;
    }
    const int code = static_cast<int>(buffer & ((1u << bits) - 1));
    buffer >>= bits;
    count -= bits;
    if (code == clear) {
      bits = min_bits + 1;
      next = clear + 2;
      prev = -1;
      continue;
    }
    if (code == stop) break;
    if (code > next || (code == next && prev < 0)) {
      return bad_gif("an LZW code refers past the code table");
    }
    if (prev >= 0 && next < kMaxCodes) {
      // The new entry is prev's string plus the first byte of this code's string (or of prev's,
      // when the code is the entry being defined).
      const auto n = static_cast<std::size_t>(next);
      prefix[n] = static_cast<std::uint16_t>(prev);
      first[n] = first[static_cast<std::size_t>(prev)];
      suffix[n] = code == next ? first[static_cast<std::size_t>(prev)]
                               : first[static_cast<std::size_t>(code)];
      length[n] = static_cast<std::uint16_t>(length[static_cast<std::size_t>(prev)] + 1);
      ++next;
      if (next == (1 << bits) && bits < kMaxLzwCodeBits) ++bits;
    } else if (prev >= 0 && code == next) {
      return bad_gif("an LZW code refers past the full code table");
    }
    // Write the string of `code` backwards from its end.
    const std::size_t len = length[static_cast<std::size_t>(code)];
    const std::size_t keep = std::min(len, out.size() - written);
    std::size_t c = static_cast<std::size_t>(code);
    for (std::size_t i = len; i-- > 0;) {
      if (i < keep) out[written + i] = suffix[c];
      c = prefix[c];
    }
    written += keep;
    prev = code;
  }
  if (written < out.size()) return bad_gif("image data ends before the frame is complete");
  return {};
}

struct Screen {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> palette;  // global colour table, RGB triples
};

Result<Screen> read_screen(Cursor& in) {
  if (!in.has(kHeaderBytes)) return bad_gif("truncated header");
  const std::uint8_t* h = in.take(kHeaderBytes);
  Screen s;
  s.width = le16(h + 6);
  s.height = le16(h + 8);
  if (h[10] & 0x80) {
    const std::size_t n = std::size_t{3} << ((h[10] & 7) + 1);
    if (!in.has(n)) return bad_gif("truncated colour table");
    const std::uint8_t* p = in.take(n);
    s.palette.assign(p, p + n);
  }
  return s;
}

struct GifFrame {
  std::uint32_t left = 0, top = 0, width = 0, height = 0;
  bool interlaced = false;
  std::vector<std::uint8_t> palette;
  int transparent = -1;
  int min_bits = 0;
  std::vector<std::uint8_t> data;
};

// Reads blocks up to and including the first image; returns its frame.
Result<GifFrame> read_first_frame(Cursor& in) {
  int transparent = -1;
  for (;;) {
    if (!in.has(1)) return bad_gif("truncated before the first image");
    const std::uint8_t kind = *in.take(1);
    if (kind == 0x3b) return bad_gif("no image in the file");
    if (kind == 0x21) {
      if (!in.has(1)) return bad_gif("truncated extension");
      const std::uint8_t label = *in.take(1);
      if (label == 0xf9) {
        std::vector<std::uint8_t> gce;
        if (auto r = sub_blocks(in, &gce); !r) return r.error();
        if (gce.size() >= 4 && (gce[0] & 1)) transparent = gce[3];
        continue;
      }
      if (auto r = sub_blocks(in, nullptr); !r) return r.error();
      continue;
    }
    if (kind != 0x2c) return bad_gif("unknown block type " + std::to_string(kind));
    if (!in.has(10)) return bad_gif("truncated image descriptor");
    const std::uint8_t* d = in.take(9);
    GifFrame f;
    f.left = le16(d);
    f.top = le16(d + 2);
    f.width = le16(d + 4);
    f.height = le16(d + 6);
    f.interlaced = (d[8] & 0x40) != 0;
    f.transparent = transparent;
    if (d[8] & 0x80) {
      const std::size_t n = std::size_t{3} << ((d[8] & 7) + 1);
      if (!in.has(n)) return bad_gif("truncated colour table");
      const std::uint8_t* p = in.take(n);
      f.palette.assign(p, p + n);
    }
    if (!in.has(1)) return bad_gif("truncated image data");
    f.min_bits = *in.take(1);
    if (auto r = sub_blocks(in, &f.data); !r) return r.error();
    return f;
  }
}

// True when another image follows the first (the file is animated).
Result<bool> has_second_image(Cursor& in) {
  for (;;) {
    if (!in.has(1)) return bad_gif("truncated before the trailer");
    const std::uint8_t kind = *in.take(1);
    if (kind == 0x3b) return false;
    if (kind == 0x2c) return true;
    if (kind != 0x21 || !in.has(1)) return bad_gif("unknown block type " + std::to_string(kind));
    in.take(1);
    if (auto r = sub_blocks(in, nullptr); !r) return r.error();
  }
}

// Row order of an interlaced frame: every 8th from 0, every 8th from 4, every 4th from 2, odd.
std::vector<std::uint32_t> row_order(std::uint32_t height, bool interlaced) {
  std::vector<std::uint32_t> rows;
  rows.reserve(height);
  if (!interlaced) {
    for (std::uint32_t y = 0; y < height; ++y) rows.push_back(y);
    return rows;
  }
  constexpr std::uint32_t kStart[4] = {0, 4, 2, 1};
  constexpr std::uint32_t kStep[4] = {8, 8, 4, 2};
  for (int pass = 0; pass < 4; ++pass) {
    for (std::uint32_t y = kStart[pass]; y < height; y += kStep[pass]) rows.push_back(y);
  }
  return rows;
}

}  // namespace

Result<ImageInfo> probe_gif(std::span<const std::uint8_t> bytes) {
  Cursor in(bytes);
  Result<Screen> s = read_screen(in);
  if (!s) return s.error();
  ImageInfo info{Format::gif, s->width, s->height, false};
  Result<GifFrame> f = read_first_frame(in);
  if (!f) return f.error();
  Result<bool> more = has_second_image(in);
  if (!more) return more.error();
  info.animated = *more;
  return info;
}

Result<Raster> decode_gif(std::span<const std::uint8_t> bytes, const DecodeLimits& limits) {
  Cursor in(bytes);
  Result<Screen> screen = read_screen(in);
  if (!screen) return screen.error();
  if (auto r = check_dimensions("GIF", screen->width, screen->height, limits); !r) return r.error();
  Result<GifFrame> f = read_first_frame(in);
  if (!f) return f.error();
  Result<bool> more = has_second_image(in);
  if (!more) return more.error();
  if (*more) {
    return make_error(Errc::unsupported,
                      "GIF: animated (more than one frame); only still images are accepted");
  }
  if (f->width == 0 || f->height == 0 || f->left + f->width > screen->width ||
      f->top + f->height > screen->height) {
    return bad_gif("the image lies outside the logical screen");
  }
  const std::vector<std::uint8_t>& palette = f->palette.empty() ? screen->palette : f->palette;
  if (palette.empty()) return bad_gif("no colour table");
  std::vector<std::uint8_t> indices(std::size_t{f->width} * f->height);
  if (auto r = lzw(f->data, f->min_bits, indices); !r) return r.error();
  Raster out;
  out.width = screen->width;
  out.height = screen->height;
  out.rgba.assign(std::size_t{out.width} * out.height * 4, 0);  // outside the frame: transparent
  const std::vector<std::uint32_t> rows = row_order(f->height, f->interlaced);
  for (std::uint32_t r = 0; r < f->height; ++r) {
    for (std::uint32_t x = 0; x < f->width; ++x) {
      const std::size_t index = indices[std::size_t{r} * f->width + x];
      std::uint8_t* px =
          out.rgba.data() + ((std::size_t{f->top} + rows[r]) * out.width + f->left + x) * 4;
      if (static_cast<int>(index) == f->transparent) continue;
      if (index * 3 + 2 < palette.size()) std::copy_n(palette.data() + index * 3, 3, px);
      px[3] = 255;
    }
  }
  return out;
}

}  // namespace agentkit::images::detail
