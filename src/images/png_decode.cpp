// PNG (ISO/IEC 15948): every colour type and bit depth, PLTE with tRNS, Adam7 interlacing, and
// 16-bit samples (reduced to their high byte, as Pillow does). Chunk CRCs are checked, the image
// size is checked against the limits before the inflater runs, and the inflater is capped at the
// exact number of bytes the header implies.
#include <array>
#include <string>

#include "codecs.hpp"
#include "zlib.hpp"

namespace agentkit::images::detail {
namespace {

constexpr std::array<std::uint8_t, 8> kSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t kChunkOverhead = 12;  // length, type, CRC

Error bad_png(const std::string& why) { return make_error(Errc::parse_error, "PNG: " + why); }

struct Header {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int depth = 0;
  int color = 0;
  bool interlaced = false;
  int channels() const {
    return color == 0 ? 1 : color == 2 ? 3 : color == 3 ? 1 : color == 4 ? 2 : 4;
  }
  int bits_per_pixel() const { return depth * channels(); }
  std::size_t row_bytes(std::uint32_t w) const {
    return (static_cast<std::size_t>(w) * static_cast<std::size_t>(bits_per_pixel()) + 7) / 8;
  }
};

struct Chunk {
  std::uint32_t type = 0;
  std::span<const std::uint8_t> data;
};

constexpr std::uint32_t tag(const char (&s)[5]) {
  return (std::uint32_t(std::uint8_t(s[0])) << 24) | (std::uint32_t(std::uint8_t(s[1])) << 16) |
         (std::uint32_t(std::uint8_t(s[2])) << 8) | std::uint32_t(std::uint8_t(s[3]));
}

// Walks the chunk list. next() returns the next chunk with its CRC checked, or an error.
class ChunkReader {
 public:
  explicit ChunkReader(std::span<const std::uint8_t> bytes)
      : bytes_(bytes), pos_(kSignature.size()) {}
  Result<Chunk> next() {
    if (bytes_.size() - pos_ < kChunkOverhead) return bad_png("truncated before the IEND chunk");
    const std::uint8_t* p = bytes_.data() + pos_;
    const std::uint32_t len = be32(p);
    if (len > bytes_.size() - pos_ - kChunkOverhead) return bad_png("truncated inside a chunk");
    const std::span<const std::uint8_t> typed = bytes_.subspan(pos_ + 4, 4 + std::size_t{len});
    if (crc32(typed) != be32(p + 8 + len)) {
      return bad_png("CRC mismatch in chunk '" + std::string(typed.begin(), typed.begin() + 4) +
                     "'");
    }
    pos_ += kChunkOverhead + len;
    return Chunk{be32(p + 4), typed.subspan(4)};
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_;
};

Result<Header> parse_ihdr(const Chunk& c) {
  if (c.type != tag("IHDR") || c.data.size() != 13) return bad_png("the first chunk is not IHDR");
  Header h;
  h.width = be32(c.data.data());
  h.height = be32(c.data.data() + 4);
  h.depth = c.data[8];
  h.color = c.data[9];
  if (h.width == 0 || h.height == 0 || h.width > 0x7fffffffu || h.height > 0x7fffffffu) {
    return bad_png("width and height must be between 1 and 2^31-1");
  }
  const int d = h.depth;
  const bool ok = (h.color == 0 && (d == 1 || d == 2 || d == 4 || d == 8 || d == 16)) ||
                  (h.color == 3 && (d == 1 || d == 2 || d == 4 || d == 8)) ||
                  ((h.color == 2 || h.color == 4 || h.color == 6) && (d == 8 || d == 16));
  if (!ok) {
    return bad_png("colour type " + std::to_string(h.color) + " cannot have bit depth " +
                   std::to_string(d));
  }
  if (c.data[10] != 0 || c.data[11] != 0) return bad_png("unknown compression or filter method");
  if (c.data[12] > 1) return bad_png("unknown interlace method");
  h.interlaced = c.data[12] == 1;
  return h;
}

struct Pass {
  std::uint32_t x0, y0, dx, dy;
};
constexpr std::array<Pass, 7> kAdam7 = {Pass{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                        {0, 2, 2, 4},     {1, 0, 2, 2}, {0, 1, 1, 2}};
constexpr Pass kWhole = {0, 0, 1, 1};

std::uint32_t pass_size(std::uint32_t total, std::uint32_t start, std::uint32_t step) {
  return total > start ? (total - start + step - 1) / step : 0;
}

std::uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = p > a ? p - a : a - p;
  const int pb = p > b ? p - b : b - p;
  const int pc = p > c ? p - c : c - p;
  if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
  return static_cast<std::uint8_t>(pb <= pc ? b : c);
}

// Reverses the row filter in place; prior is the previous unfiltered row (zeros for the first).
Result<void> unfilter(int type, std::uint8_t* row, const std::uint8_t* prior, std::size_t n,
                      std::size_t bpp) {
  switch (type) {
    case 0: return {};
    case 1:
      for (std::size_t i = bpp; i < n; ++i)
        row[i] = static_cast<std::uint8_t>(row[i] + row[i - bpp]);
      return {};
    case 2:
      for (std::size_t i = 0; i < n; ++i) row[i] = static_cast<std::uint8_t>(row[i] + prior[i]);
      return {};
    case 3:
      for (std::size_t i = 0; i < n; ++i) {
        const int left = i >= bpp ? row[i - bpp] : 0;
        row[i] = static_cast<std::uint8_t>(row[i] + ((left + prior[i]) >> 1));
      }
      return {};
    case 4:
      for (std::size_t i = 0; i < n; ++i) {
        const int left = i >= bpp ? row[i - bpp] : 0;
        const int up_left = i >= bpp ? prior[i - bpp] : 0;
        row[i] = static_cast<std::uint8_t>(row[i] + paeth(left, prior[i], up_left));
      }
      return {};
    default: return bad_png("unknown row filter type " + std::to_string(type));
  }
}

// Turns unfiltered rows into RGBA pixels, applying the palette and transparency.
class PixelWriter {
 public:
  PixelWriter(const Header& h, const std::vector<std::uint8_t>& palette,
              const std::vector<std::uint8_t>& trns, Raster& out)
      : h_(h), palette_(palette), trns_(trns), out_(out) {}

  Result<void> row(const std::uint8_t* row, std::uint32_t count, std::uint32_t y,
                   const Pass& pass) {
    for (std::uint32_t i = 0; i < count; ++i) {
      std::uint8_t* px =
          out_.rgba.data() + (static_cast<std::size_t>(y) * h_.width + pass.x0 + i * pass.dx) * 4;
      if (auto r = pixel(row, i, px); !r) return r;
    }
    return {};
  }

 private:
  // Sample c of pixel i at the image's bit depth (16-bit samples whole).
  unsigned sample(const std::uint8_t* row, std::uint32_t i, int c) const {
    const std::size_t index =
        static_cast<std::size_t>(i) * static_cast<std::size_t>(h_.channels()) +
        static_cast<std::size_t>(c);
    switch (h_.depth) {
      case 16: return be16(row + index * 2);
      case 8: return row[index];
      default: {
        const std::size_t bit = index * static_cast<std::size_t>(h_.depth);
        const unsigned shift = 8 - static_cast<unsigned>(h_.depth) - bit % 8;
        return (row[bit / 8] >> shift) & ((1u << h_.depth) - 1);
      }
    }
  }
  std::uint8_t to8(unsigned v) const {
    switch (h_.depth) {
      case 16: return static_cast<std::uint8_t>(v >> 8);
      case 8: return static_cast<std::uint8_t>(v);
      default: return static_cast<std::uint8_t>(v * 255 / ((1u << h_.depth) - 1));
    }
  }
  unsigned trns_sample(int c) const { return be16(trns_.data() + 2 * c); }

  Result<void> pixel(const std::uint8_t* row, std::uint32_t i, std::uint8_t* px) const {
    switch (h_.color) {
      case 0: {
        const unsigned g = sample(row, i, 0);
        px[0] = px[1] = px[2] = to8(g);
        px[3] = trns_.size() >= 2 && g == trns_sample(0) ? 0 : 255;
        return {};
      }
      case 2: {
        const unsigned r = sample(row, i, 0), g = sample(row, i, 1), b = sample(row, i, 2);
        px[0] = to8(r);
        px[1] = to8(g);
        px[2] = to8(b);
        const bool clear =
            trns_.size() >= 6 && r == trns_sample(0) && g == trns_sample(1) && b == trns_sample(2);
        px[3] = clear ? 0 : 255;
        return {};
      }
      case 3: {
        const unsigned index = sample(row, i, 0);
        if (index * 3 + 2 >= palette_.size()) return bad_png("a palette index is outside PLTE");
        px[0] = palette_[index * 3];
        px[1] = palette_[index * 3 + 1];
        px[2] = palette_[index * 3 + 2];
        px[3] = index < trns_.size() ? trns_[index] : 255;
        return {};
      }
      case 4:
        px[0] = px[1] = px[2] = to8(sample(row, i, 0));
        px[3] = to8(sample(row, i, 1));
        return {};
      default:
        for (int c = 0; c < 4; ++c) px[c] = to8(sample(row, i, c));
        return {};
    }
  }

  const Header& h_;
  const std::vector<std::uint8_t>& palette_;
  const std::vector<std::uint8_t>& trns_;
  Raster& out_;
};

std::size_t inflated_size(const Header& h) {
  if (!h.interlaced) return (1 + h.row_bytes(h.width)) * h.height;
  std::size_t total = 0;
  for (const Pass& p : kAdam7) {
    const std::uint32_t w = pass_size(h.width, p.x0, p.dx);
    const std::uint32_t rows = pass_size(h.height, p.y0, p.dy);
    if (w != 0) total += (1 + h.row_bytes(w)) * rows;
  }
  return total;
}

Result<void> expand(const Header& h, std::vector<std::uint8_t>& data, PixelWriter& writer) {
  const std::size_t bpp = static_cast<std::size_t>((h.bits_per_pixel() + 7) / 8);
  std::size_t at = 0;
  auto run_pass = [&](const Pass& p) -> Result<void> {
    const std::uint32_t w = pass_size(h.width, p.x0, p.dx);
    const std::uint32_t rows = pass_size(h.height, p.y0, p.dy);
    if (w == 0 || rows == 0) return {};
    const std::size_t n = h.row_bytes(w);
    std::vector<std::uint8_t> zeros(n, 0);
    const std::uint8_t* prior = zeros.data();
    for (std::uint32_t r = 0; r < rows; ++r) {
      std::uint8_t* row = data.data() + at + 1;
      if (auto u = unfilter(data[at], row, prior, n, bpp); !u) return u;
      if (auto wr = writer.row(row, w, p.y0 + r * p.dy, p); !wr) return wr;
      prior = row;
      at += n + 1;
    }
    return {};
  };
  if (!h.interlaced) return run_pass(kWhole);
  for (const Pass& p : kAdam7) {
    if (auto r = run_pass(p); !r) return r;
  }
  return {};
}

// What the chunks before IEND say: the header, palette, transparency and the joined IDAT data.
struct Parsed {
  Header header;
  std::vector<std::uint8_t> palette;
  std::vector<std::uint8_t> trns;
  std::vector<std::uint8_t> idat;
  std::uint32_t frames = 1;
};

Result<void> read_ancillary(const Chunk& c, Parsed& p) {
  if (c.type == tag("PLTE")) {
    if (c.data.size() % 3 != 0 || c.data.empty() || c.data.size() > 768)
      return bad_png("bad PLTE size");
    p.palette.assign(c.data.begin(), c.data.end());
  } else if (c.type == tag("tRNS")) {
    p.trns.assign(c.data.begin(), c.data.end());
  } else if (c.type == tag("acTL")) {
    if (c.data.size() != 8) return bad_png("bad acTL size");
    p.frames = be32(c.data.data());
  } else if ((c.type >> 24 & 0x20) == 0) {
    // Upper-case first letter: a critical chunk this decoder does not know must not be skipped.
    return bad_png("unknown critical chunk");
  }
  return {};
}

Result<Parsed> parse_chunks(std::span<const std::uint8_t> bytes, const DecodeLimits& limits) {
  ChunkReader reader(bytes);
  Result<Chunk> first = reader.next();
  if (!first) return first.error();
  Result<Header> header = parse_ihdr(*first);
  if (!header) return header.error();
  Parsed p;
  p.header = *header;
  if (auto r = check_dimensions("PNG", p.header.width, p.header.height, limits); !r) {
    return r.error();
  }
  for (;;) {
    Result<Chunk> c = reader.next();
    if (!c) return c.error();
    if (c->type == tag("IEND")) break;
    if (c->type == tag("IDAT")) {
      p.idat.insert(p.idat.end(), c->data.begin(), c->data.end());
    } else if (auto r = read_ancillary(*c, p); !r) {
      return r.error();
    }
  }
  if (p.idat.empty()) return bad_png("no IDAT chunk");
  if (p.header.color == 3 && p.palette.empty()) return bad_png("a palette image without PLTE");
  return p;
}

}  // namespace

Result<ImageInfo> probe_png(std::span<const std::uint8_t> bytes) {
  // Signature, IHDR, then any chunks up to the first IDAT (where acTL must appear).
  if (bytes.size() < kSignature.size() + kChunkOverhead + 13) return bad_png("truncated header");
  ChunkReader reader(bytes);
  Result<Chunk> first = reader.next();
  if (!first) return first.error();
  Result<Header> h = parse_ihdr(*first);
  if (!h) return h.error();
  ImageInfo info{Format::png, h->width, h->height, false};
  for (;;) {
    Result<Chunk> c = reader.next();
    if (!c) return c.error();
    if (c->type == tag("IDAT") || c->type == tag("IEND")) break;
    if (c->type == tag("acTL") && c->data.size() == 8) info.animated = be32(c->data.data()) > 1;
  }
  return info;
}

Result<Raster> decode_png(std::span<const std::uint8_t> bytes, const DecodeLimits& limits) {
  Result<Parsed> parsed = parse_chunks(bytes, limits);
  if (!parsed) return parsed.error();
  if (parsed->frames > 1) {
    return make_error(Errc::unsupported, "PNG: animated (APNG with " +
                                             std::to_string(parsed->frames) +
                                             " frames); only still images are accepted");
  }
  const Header& h = parsed->header;
  const std::size_t want = inflated_size(h);
  Result<std::vector<std::uint8_t>> data = zlib_inflate(parsed->idat, want);
  if (!data) return make_error(data.error().code, "PNG: image data: " + data.error().message);
  if (data->size() != want) return bad_png("image data is shorter than the header implies");
  Raster out;
  out.width = h.width;
  out.height = h.height;
  out.rgba.assign(static_cast<std::size_t>(h.width) * h.height * 4, 0);
  PixelWriter writer(h, parsed->palette, parsed->trns, out);
  if (auto r = expand(h, *data, writer); !r) return r.error();
  return out;
}

}  // namespace agentkit::images::detail
