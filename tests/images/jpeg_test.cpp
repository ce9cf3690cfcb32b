// JPEG decoding against Pillow (libjpeg-turbo) on the shared test files.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "agentkit/images/image.hpp"
#include "image_fixtures.hpp"
#include "support/catch.hpp"
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
