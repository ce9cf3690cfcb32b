// JPEG decoding against Pillow (libjpeg-turbo) on the shared test files.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "agentkit/images/encode.hpp"
#include "agentkit/images/image.hpp"
#include "image_fixtures.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using namespace agentkit::images;
using namespace agentkit::images::testing;

namespace {

// The tolerance against libjpeg-turbo: none. We use the same arithmetic (the integer LLM
// "islow" IDCT, the fancy triangle upsampling, 16-bit fixed-point YCbCr->RGB), so every sample
// is Pillow's. (The float IDCT used before differed by up to 3 levels, 62-68 dB.)
constexpr int kMaxSampleDiff = 0;
constexpr double kMinPsnr = 99.0;

struct Diff {
  int max = 0;
  double psnr = 99;
};

Diff compare(const Raster& a, const Raster& b) {
  Diff d;
  double se = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) {
    const int e = std::abs(int(a.rgba[i]) - int(b.rgba[i]));
    d.max = std::max(d.max, e);
    se += double(e) * e;
  }
  if (se > 0) d.psnr = 10 * std::log10(255.0 * 255.0 / (se / double(a.rgba.size())));
  return d;
}

void require_close_to_pillow(const fs::path& file) {
  INFO(file.filename().string());
  agentkit::Result<Raster> ours = decode(read_bytes(file));
  INFO((ours ? std::string() : ours.error().to_string()));
  REQUIRE(ours.has_value());
  std::optional<Raster> theirs = pillow_raster("decode " + quoted(file));
  REQUIRE(theirs.has_value());
  REQUIRE(ours->width == theirs->width);
  REQUIRE(ours->height == theirs->height);
  const Diff d = compare(*ours, *theirs);
  INFO("max diff " << d.max << ", PSNR " << d.psnr << " dB");
  CHECK(d.max <= kMaxSampleDiff);
  CHECK(d.psnr >= kMinPsnr);
}

}  // namespace

TEST_CASE("baseline JPEGs decode to exactly Pillow's pixels") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  AGENTKIT_REQUIRE_PILLOW();
  // 4:2:0 with restarts, 4:4:4, 4:4:4 with restarts and Adobe YCbCr, RGB-coded.
  for (const char* name : {"hopper.jpg", "bicycles_restarts.jpg", "pillars-2048x2048.jpg",
                           "xmp_test.jpg", "flower.png.im_q85_rgb.jpg"}) {
    require_close_to_pillow(dir / name);
  }
}

TEST_CASE("a progressive JPEG decodes to exactly Pillow's pixels") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  AGENTKIT_REQUIRE_PILLOW();
  require_close_to_pillow(dir / "flower.png.im_q85_420_progr.jpg");
}

TEST_CASE("JPEGs of every chroma subsampling, and grey ones, decode to exactly Pillow's pixels") {
  // One scan holding every component is rendered while it is decoded, a row of MCUs at a time,
  // holding back the rows the 2x vertical filter cannot finish yet: 4:2:0 (that filter), 4:2:2
  // and 4:4:4 (none) and grey (one component), at odd sides so the last MCU row is partial.
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::testing::TempDir tmp;
  const fs::path png = tmp.path() / "pillars.png";
  REQUIRE(pillow("topng " + quoted(dir / "pillars-2048x2048.jpg") + " " + quoted(png)));
  agentkit::Result<Raster> big = decode(read_bytes(png));
  REQUIRE(big.has_value());
  Raster crop;
  crop.width = 301;
  crop.height = 203;
  for (std::uint32_t y = 0; y < crop.height; ++y) {
    const auto row = big->rgba.begin() + std::ptrdiff_t{y + 900} * big->width * 4 + 4 * 800;
    crop.rgba.insert(crop.rgba.end(), row, row + crop.width * 4);
  }
  const fs::path src = tmp.path() / "crop.png";
  write_bytes(src, encode_png(crop));
  for (const char* variant : {"2 RGB", "1 RGB", "0 RGB", "0 L"}) {
    const fs::path jpg = tmp.path() / (std::string("v") + variant[0] + variant[2] + ".jpg");
    REQUIRE(pillow("jpeg " + quoted(src) + " " + quoted(jpg) + " 90 " + variant));
    require_close_to_pillow(jpg);
  }
}

TEST_CASE("a second scan after one that held every component is refused") {
  // Sequential files code each component once; after a scan of all of them (already rendered
  // as it was decoded) another scan can only be corrupt.
  Raster r;
  r.width = 40;
  r.height = 24;
  for (std::uint32_t i = 0; i < r.width * r.height; ++i) {
    r.rgba.insert(r.rgba.end(), {static_cast<std::uint8_t>(i), 90, 200, 255});
  }
  std::vector<std::uint8_t> jpg = encode_jpeg(r);
  REQUIRE(decode(jpg).has_value());
  std::size_t sos = 0;
  for (std::size_t i = 2; i + 1 < jpg.size(); ++i) {
    if (jpg[i] == 0xff && jpg[i + 1] == 0xda) sos = i;
  }
  REQUIRE(sos > 0);
  const std::vector<std::uint8_t> scan(jpg.begin() + std::ptrdiff_t(sos), jpg.end() - 2);
  jpg.insert(jpg.end() - 2, scan.begin(), scan.end());
  agentkit::Result<Raster> twice = decode(jpg);
  REQUIRE_FALSE(twice.has_value());
  CHECK(twice.error().message.find("a scan after one that held every component") !=
        std::string::npos);
}

TEST_CASE("16-bit quantisation tables at their largest decode without overflowing") {
  // Coefficients up to 2^15 times quantisers up to 65535: the transform clamps the dequantised
  // values and its first pass, so no 32-bit sum overflows (the sanitizer builds check it).
  Raster r;
  r.width = 33;
  r.height = 17;
  std::uint32_t state = 7;
  for (std::uint32_t i = 0; i < r.width * r.height; ++i) {
    state = state * 1664525u + 1013904223u;
    r.rgba.insert(r.rgba.end(),
                  {static_cast<std::uint8_t>(state >> 24), static_cast<std::uint8_t>(state >> 16),
                   static_cast<std::uint8_t>(state >> 8), 255});
  }
  const std::vector<std::uint8_t> jpg = encode_jpeg(r, {100});
  // Every 8-bit DQT segment (FF DB 00 43 Tq, 64 bytes) becomes a 16-bit one of 65535s.
  std::vector<std::uint8_t> wide;
  std::size_t tables = 0;
  for (std::size_t i = 0; i < jpg.size();) {
    if (i + 4 < jpg.size() && jpg[i] == 0xff && jpg[i + 1] == 0xdb && jpg[i + 3] == 0x43) {
      wide.insert(wide.end(),
                  {0xff, 0xdb, 0x00, 0x83, static_cast<std::uint8_t>(0x10 | jpg[i + 4])});
      wide.insert(wide.end(), 128, 0xff);
      i += 2 + 0x43;
      ++tables;
      continue;
    }
    wide.push_back(jpg[i++]);
  }
  REQUIRE(tables == 2);
  agentkit::Result<Raster> out = decode(wide);
  REQUIRE(out.has_value());
  CHECK(out->width == 33);
  CHECK(out->height == 17);
}

TEST_CASE("EXIF orientation 6 is applied as a quarter turn clockwise") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  AGENTKIT_REQUIRE_PILLOW();
  // The reference applies ImageOps.exif_transpose, so equality means the same rotation.
  require_close_to_pillow(dir / "hopper_orientation_6.jpg");
}

TEST_CASE("a CMYK JPEG is refused, not passed through or mangled") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  agentkit::Result<Raster> r = decode(read_bytes(dir / "pil_sample_cmyk.jpg"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::unsupported);
  CHECK(r.error().message.find("CMYK") != std::string::npos);
}

TEST_CASE("a 280-megapixel JPEG is refused from its frame header") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  const std::vector<std::uint8_t> bytes = read_bytes(dir / "giant-image.jpg");
  agentkit::Result<ImageInfo> info = probe(bytes);
  REQUIRE(info.has_value());
  CHECK(info->width == 20000);
  CHECK(info->height == 14000);
  agentkit::Result<Raster> r = decode(bytes);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::limit_exceeded);
}

TEST_CASE("a JPEG truncated mid-scan is refused") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  agentkit::Result<Raster> r = decode(read_bytes(dir / "truncated_jpeg.jpg"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::parse_error);
  CHECK(r.error().message.find("truncated") != std::string::npos);
}

TEST_CASE("a JPEG cut at any segment boundary or inside a scan is an error, never a crash") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  const std::vector<std::uint8_t> bytes = read_bytes(dir / "hopper.jpg");
  REQUIRE(decode(bytes).has_value());
  int refused = 0;
  for (std::size_t cut = 0; cut + 2 < bytes.size(); cut += (cut < 700 ? 1 : 97)) {
    INFO("cut at " << cut);
    agentkit::Result<Raster> r = decode(std::span(bytes.data(), cut));
    CHECK_FALSE(r.has_value());
    refused += r.has_value() ? 0 : 1;
  }
  CHECK(refused > 700);
}

TEST_CASE("a JPEG Huffman table with more codes than its lengths allow is refused") {
  // SOI, then a DHT whose 16 counts claim 3 one-bit codes (at most 2 exist).
  std::vector<std::uint8_t> jpg = {0xff, 0xd8, 0xff, 0xc4, 0x00, 0x16, 0x00, 3};
  jpg.resize(jpg.size() + 15, 0);
  jpg.insert(jpg.end(), {1, 2, 3});
  jpg.insert(jpg.end(), {0xff, 0xd9});
  agentkit::Result<Raster> r = decode(jpg);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("Huffman") != std::string::npos);
}
