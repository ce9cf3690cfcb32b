// PNG decoding against Pillow and the PngSuite files in the shared test data.
#include <filesystem>
#include <string>
#include <vector>

#include "agentkit/images/image.hpp"
#include "image_fixtures.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"
#include "zlib.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using namespace agentkit::images;
using namespace agentkit::images::testing;

namespace {

void require_same_as_pillow(const fs::path& file) {
  INFO(file.filename().string());
  const std::vector<std::uint8_t> bytes = read_bytes(file);
  agentkit::Result<Raster> ours = decode(bytes);
  REQUIRE(ours.has_value());
  std::optional<Raster> theirs = pillow_raster("decode " + quoted(file));
  REQUIRE(theirs.has_value());
  CHECK(ours->width == theirs->width);
  CHECK(ours->height == theirs->height);
  CHECK(ours->rgba == theirs->rgba);
}

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

// A PNG chunk with a correct CRC, so a test reaches the check it means to reach.
void put_chunk(std::vector<std::uint8_t>& out, const char* type, std::vector<std::uint8_t> data) {
  put_be32(out, static_cast<std::uint32_t>(data.size()));
  std::vector<std::uint8_t> typed(type, type + 4);
  typed.insert(typed.end(), data.begin(), data.end());
  out.insert(out.end(), typed.begin(), typed.end());
  put_be32(out, agentkit::images::detail::crc32(typed));
}

std::vector<std::uint8_t> png_with(std::uint32_t w, std::uint32_t h,
                                   std::vector<std::uint8_t> idat) {
  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> ihdr;
  put_be32(ihdr, w);
  put_be32(ihdr, h);
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT", std::move(idat));
  put_chunk(png, "IEND", {});
  return png;
}

}  // namespace

TEST_CASE("every PngSuite image decodes to exactly Pillow's pixels") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/png");
  AGENTKIT_REQUIRE_PILLOW();
  int checked = 0;
  for (const char* name : {"basn2c08.png", "basi2c08.png", "basn6a16.png", "basn4a08.png",
                           "tbbn3p08.png", "basn0g16.png"}) {
    require_same_as_pillow(dir / name);
    ++checked;
  }
  CHECK(checked == 6);
}

TEST_CASE("an interlaced PNG has the same pixels as its non-interlaced twin") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/png");
  agentkit::Result<Raster> plain = decode(read_bytes(dir / "basn2c08.png"));
  agentkit::Result<Raster> adam7 = decode(read_bytes(dir / "basi2c08.png"));
  REQUIRE(plain.has_value());
  REQUIRE(adam7.has_value());
  CHECK(plain->rgba == adam7->rgba);
}

TEST_CASE("every colour type and bit depth Pillow writes decodes to Pillow's pixels") {
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::testing::TempDir tmp;
  for (const char* kind : {"gray1", "gray8", "gray16", "graya8", "rgb8", "rgb8trns", "rgba8",
                           "palette1", "palette2", "palette4", "palette8"}) {
    const fs::path file = tmp.path() / (std::string(kind) + ".png");
    REQUIRE(pillow(std::string("make ") + kind + " " + quoted(file)).has_value());
    require_same_as_pillow(file);
  }
}

TEST_CASE("an animated PNG is refused and a one-frame APNG is a still image") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/apng");
  const std::vector<std::uint8_t> animated = read_bytes(dir / "basic_f20.png");
  agentkit::Result<Raster> refused = decode(animated);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == Errc::unsupported);
  CHECK(refused.error().message.find("animated") != std::string::npos);
  agentkit::Result<ImageInfo> info = probe(animated);
  REQUIRE(info.has_value());
  CHECK(info->animated);

  agentkit::Result<Raster> still = decode(read_bytes(dir / "single_frame.png"));
  REQUIRE(still.has_value());
  CHECK(still->width == 128);
  CHECK(still->height == 64);
}

TEST_CASE("a PNG with a corrupt signature is not sniffed as PNG") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/png");
  const std::vector<std::uint8_t> bytes = read_bytes(dir / "xs1n0g01.png");
  agentkit::Result<ImageInfo> info = probe(bytes);
  REQUIRE_FALSE(info.has_value());
  CHECK(info.error().code == Errc::unsupported);
  CHECK_FALSE(decode(bytes).has_value());
}

TEST_CASE("a PNG declaring 10 GB of pixels is refused before anything is allocated") {
  // 50000 x 50000 RGBA is 10 GB; the IDAT is tiny, so only the header check can stop it.
  const std::vector<std::uint8_t> png = png_with(50000, 50000, {0x78, 0x9c, 0x03, 0, 0, 0, 0, 1});
  agentkit::Result<Raster> r = decode(png);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::limit_exceeded);
  CHECK(r.error().message.find("50000x50000") != std::string::npos);
  agentkit::Result<ImageInfo> info = probe(png);
  REQUIRE(info.has_value());  // probing reads headers only, so it still reports the size
  CHECK(info->width == 50000);
}

TEST_CASE("a zlib bomb inside a PNG stops at the size the header implies") {
  // 4x4 RGB needs 4 * (1 + 12) = 52 bytes; this stream inflates to 1 MB of zeros.
  const std::vector<std::uint8_t> bomb =
      agentkit::images::detail::zlib_deflate(std::vector<std::uint8_t>(1 << 20, 0));
  agentkit::Result<Raster> r = decode(png_with(4, 4, bomb));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::limit_exceeded);
}

TEST_CASE("a PNG truncated anywhere is a clear error, never a crash") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/png");
  for (const char* name : {"basn2c08.png", "basi2c08.png", "tbbn3p08.png"}) {
    const std::vector<std::uint8_t> bytes = read_bytes(dir / name);
    REQUIRE(decode(bytes).has_value());
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      INFO(name << " cut at " << cut);
      const std::span<const std::uint8_t> head(bytes.data(), cut);
      agentkit::Result<Raster> r = decode(head);
      REQUIRE_FALSE(r.has_value());
      CHECK_FALSE(r.error().message.empty());
    }
  }
}

TEST_CASE("a PNG whose chunk CRC is wrong is refused") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/png");
  std::vector<std::uint8_t> bytes = read_bytes(dir / "basn2c08.png");
  bytes[30] ^= 0x01;  // a bit of the IHDR CRC
  agentkit::Result<Raster> r = decode(bytes);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("CRC") != std::string::npos);
}
