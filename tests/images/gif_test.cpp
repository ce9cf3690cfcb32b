// GIF and WebP: first-frame decoding against Pillow, animation refusal, hostile LZW data, and the
// WebP header reader.
#include <string>
#include <vector>

#include "agentkit/images/image.hpp"
#include "image_fixtures.hpp"
#include "support/catch.hpp"
#include "support/shared_testdata.hpp"

using agentkit::Errc;
using namespace agentkit::images;
using namespace agentkit::images::testing;

namespace {

// A 2x2 GIF89a with a two-colour global table; `lzw` is the image data after the minimum code
// size byte (2), as one sub-block.
std::vector<std::uint8_t> tiny_gif(std::vector<std::uint8_t> lzw, bool transparent = false) {
  std::vector<std::uint8_t> g = {'G',  'I', 'F', '8', '9', 'a', 2, 0, 2,  0,
                                 0x80, 0,   0,   255, 0,   0,   0, 0, 255};
  if (transparent) g.insert(g.end(), {0x21, 0xf9, 4, 1, 0, 0, 1, 0});  // index 1 is clear
  g.insert(g.end(), {0x2c, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2});
  g.push_back(static_cast<std::uint8_t>(lzw.size()));
  g.insert(g.end(), lzw.begin(), lzw.end());
  g.insert(g.end(), {0, 0x3b});
  return g;
}

}  // namespace

TEST_CASE("a still GIF decodes to exactly Pillow's pixels") {
  AGENTKIT_SHARED_TESTDATA(file, "images/gif/hopper.gif");
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::Result<Raster> ours = decode(read_bytes(file));
  REQUIRE(ours.has_value());
  std::optional<Raster> theirs = pillow_raster("decode " + quoted(file));
  REQUIRE(theirs.has_value());
  CHECK(ours->width == theirs->width);
  CHECK(ours->rgba == theirs->rgba);
}

TEST_CASE("an animated GIF is refused as animated") {
  AGENTKIT_SHARED_TESTDATA(file, "images/gif/rotating-squares.gif");
  const std::vector<std::uint8_t> bytes = read_bytes(file);
  agentkit::Result<ImageInfo> info = probe(bytes);
  REQUIRE(info.has_value());
  CHECK(info->animated);
  agentkit::Result<Raster> r = decode(bytes);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::unsupported);
  CHECK(r.error().message.find("animated") != std::string::npos);
}

TEST_CASE("a GIF's transparent index decodes as alpha zero") {
  // Codes clear 4, 0, 1, 1, 0, end 5 -> pixels red, clear, clear, red. The width grows from 3 to
  // 4 bits once code 7 is defined; packed least significant bit first.
  const std::vector<std::uint8_t> lzw = {0x44, 0x02, 0x05};
  agentkit::Result<Raster> r = decode(tiny_gif(lzw, true));
  REQUIRE(r.has_value());
  CHECK(r->rgba ==
        std::vector<std::uint8_t>{255, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 255});
}

TEST_CASE("a GIF whose LZW code points past the table is refused") {
  // clear 4, then code 7 while the next free code is 6: no such entry.
  const std::vector<std::uint8_t> lzw = {0x3c, 0x00};
  agentkit::Result<Raster> r = decode(tiny_gif(lzw));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("LZW") != std::string::npos);
}

TEST_CASE("a GIF truncated anywhere is an error, never a crash") {
  AGENTKIT_SHARED_TESTDATA(file, "images/gif/hopper.gif");
  const std::vector<std::uint8_t> bytes = read_bytes(file);
  for (std::size_t cut = 0; cut < bytes.size(); cut += (cut < 1000 ? 1 : 53)) {
    INFO("cut at " << cut);
    CHECK_FALSE(decode(std::span(bytes.data(), cut)).has_value());
  }
}

TEST_CASE("WebP headers give the size and animation flag, and WebP is never decoded") {
  AGENTKIT_SHARED_TESTDATA(dir, "images/webp");
  struct Want {
    const char* name;
    std::uint32_t w, h;
    bool animated;
  };
  for (const Want& want :
       {Want{"simple-rgb.webp", 100, 100, false}, Want{"simple.webp", 300, 300, false},
        Want{"lossy_alpha.webp", 100, 100, false}, Want{"anim.webp", 200, 200, true}}) {
    INFO(want.name);
    const std::vector<std::uint8_t> bytes = read_bytes(dir / want.name);
    agentkit::Result<ImageInfo> info = probe(bytes);
    REQUIRE(info.has_value());
    CHECK(info->format == Format::webp);
    CHECK(info->width == want.w);
    CHECK(info->height == want.h);
    CHECK(info->animated == want.animated);
    agentkit::Result<Raster> r = decode(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::unsupported);
  }
}
