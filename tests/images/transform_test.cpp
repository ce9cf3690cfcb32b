// Flattening, area-averaging and the encoders, against hand-computed values and Pillow.
#include "agentkit/images/transform.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "agentkit/images/encode.hpp"
#include "image_fixtures.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"

namespace fs = std::filesystem;
using namespace agentkit::images;
using namespace agentkit::images::testing;

namespace {

Raster grey_row(std::vector<std::uint8_t> values) {
  Raster r;
  r.width = static_cast<std::uint32_t>(values.size());
  r.height = 1;
  for (std::uint8_t v : values) r.rgba.insert(r.rgba.end(), {v, v, v, 255});
  return r;
}

double psnr(const Raster& a, const Raster& b) {
  double se = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) {
    if (i % 4 == 3) continue;
    const double d = double(a.rgba[i]) - double(b.rgba[i]);
    se += d * d;
    ++n;
  }
  if (se == 0) return 99.0;
  return 10 * std::log10(255.0 * 255.0 / (se / double(n)));
}

// A real photo as RGBA: Pillow re-saves the shared hopper.jpg as PNG, which we decode.
std::optional<Raster> photo(const fs::path& jpg, const fs::path& png) {
  if (!pillow("topng " + quoted(jpg) + " " + quoted(png))) return std::nullopt;
  agentkit::Result<Raster> r = decode(read_bytes(png));
  if (!r) return std::nullopt;
  return *r;
}

}  // namespace

TEST_CASE("downscaling averages the covered pixels instead of sampling one") {
  // A one-pixel checkerboard halved: sampling gives all black or all white, averaging grey.
  Raster board;
  board.width = board.height = 4;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const std::uint8_t v = (x + y) % 2 ? 255 : 0;
      board.rgba.insert(board.rgba.end(), {v, v, v, 255});
    }
  }
  agentkit::Result<Raster> half = downscale(board, {2, 2});
  REQUIRE(half.has_value());
  for (std::size_t i = 0; i < half->rgba.size(); i += 4) CHECK(int(half->rgba[i]) == 128);
}

TEST_CASE("a source pixel counts toward the output pixel whose footprint holds its centre") {
  // 3 -> 2: spans [0, 1.5) and [1.5, 3); pixel 1's centre sits on the edge and goes left.
  agentkit::Result<Raster> r = downscale(grey_row({0, 255, 60}), {2, 1});
  REQUIRE(r.has_value());
  CHECK(int(r->rgba[0]) == 128);
  CHECK(int(r->rgba[4]) == 60);
  // 6 -> 2: three pixels each, all averaged.
  agentkit::Result<Raster> third = downscale(grey_row({0, 30, 60, 90, 120, 150}), {2, 1});
  REQUIRE(third.has_value());
  CHECK(int(third->rgba[0]) == 30);
  CHECK(int(third->rgba[4]) == 120);
}

TEST_CASE("a downscale over more than 257 rows or 2048 pixels an output pixel still averages") {
  // Column sums switch from 16 to 32 bits past 257 rows, and areas past 2048 pixels divide
  // instead of multiplying by a reciprocal; both must give the rounded mean. The 100x100 case
  // sums to 334999 (a mean of 33.4999), where a reciprocal of 2^32 / 20000 rounds up wrongly.
  struct Case {
    Size from;
    std::uint8_t (*value)(std::uint32_t i);
  };
  const Case cases[] = {
      {{1, 600}, [](std::uint32_t i) { return static_cast<std::uint8_t>(i * 37 % 256); }},
      {{3000, 1}, [](std::uint32_t i) { return static_cast<std::uint8_t>(i * 37 % 256); }},
      {{100, 100}, [](std::uint32_t i) { return static_cast<std::uint8_t>(i < 4999 ? 34 : 33); }},
  };
  for (const Case& c : cases) {
    Raster r;
    r.width = c.from.width;
    r.height = c.from.height;
    std::uint64_t sum = 0;
    for (std::uint32_t i = 0; i < r.width * r.height; ++i) {
      const std::uint8_t v = c.value(i);
      sum += v;
      r.rgba.insert(r.rgba.end(), {v, v, v, 255});
    }
    agentkit::Result<Raster> one = downscale(r, {1, 1});
    REQUIRE(one.has_value());
    const std::uint64_t n = std::uint64_t{r.width} * r.height;
    INFO(r.width << "x" << r.height);
    CHECK(int(one->rgba[0]) == int((2 * sum + n) / (2 * n)));
    CHECK(int(one->rgba[3]) == 255);
  }
}

TEST_CASE("a downscale target larger than the source is an error") {
  agentkit::Result<Raster> r = downscale(grey_row({1, 2}), {3, 1});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == agentkit::Errc::invalid_argument);
}

TEST_CASE("alpha is composited onto white, not dropped") {
  Raster r;
  r.width = 3;
  r.height = 1;
  r.rgba = {0, 0, 0, 0, 0, 0, 0, 128, 10, 20, 30, 255};
  flatten_onto_white(r);
  CHECK(r.rgba ==
        std::vector<std::uint8_t>{255, 255, 255, 255, 127, 127, 127, 255, 10, 20, 30, 255});
  CHECK(is_opaque(r));
}

TEST_CASE("fit_within keeps the aspect ratio under the longest side") {
  CHECK(fit_within({4000, 3000}, 2000) == Size{2000, 1500});
  CHECK(fit_within({1000, 30000}, 2000) == Size{67, 2000});
  CHECK(fit_within({1999, 10}, 2000) == Size{1999, 10});
  CHECK(fit_within({100000, 1}, 2000) == Size{2000, 1});
}

TEST_CASE("a downscaled photo is within 40 dB of Pillow's box filter") {
  AGENTKIT_SHARED_TESTDATA(jpg, "images/jpeg/hopper.jpg");
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::testing::TempDir tmp;
  const fs::path png = tmp.path() / "hopper.png";
  std::optional<Raster> src = photo(jpg, png);
  REQUIRE(src.has_value());
  for (Size to : {Size{64, 64}, Size{50, 37}, Size{97, 101}}) {
    agentkit::Result<Raster> ours = downscale(*src, to);
    REQUIRE(ours.has_value());
    std::optional<Raster> theirs = pillow_raster(
        "box " + quoted(png) + " " + std::to_string(to.width) + " " + std::to_string(to.height));
    REQUIRE(theirs.has_value());
    INFO(to.width << "x" << to.height << ": " << psnr(*ours, *theirs) << " dB");
    CHECK(psnr(*ours, *theirs) >= 40.0);
  }
}

TEST_CASE("every PNG we encode opens in Pillow with the same size and pixels") {
  AGENTKIT_SHARED_TESTDATA(dir, "images");
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::testing::TempDir tmp;
  for (const char* name : {"png/basn2c08.png", "png/basn4a08.png", "png/tbbn3p08.png",
                           "png/basn6a16.png", "png/basn0g16.png"}) {
    INFO(name);
    agentkit::Result<Raster> src = decode(read_bytes(dir / name));
    REQUIRE(src.has_value());
    const fs::path out = tmp.path() / "out.png";
    write_bytes(out, encode_png(*src));
    std::optional<Raster> back = pillow_raster("decode " + quoted(out));
    REQUIRE(back.has_value());
    CHECK(back->width == src->width);
    CHECK(back->rgba == src->rgba);
  }
}

TEST_CASE("PNG encoding compresses with deflate rather than storing") {
  Raster flat;
  flat.width = flat.height = 256;
  flat.rgba.assign(256 * 256 * 4, 200);
  for (std::size_t i = 3; i < flat.rgba.size(); i += 4) flat.rgba[i] = 255;
  // 256*256 grey bytes plus filter bytes would be 65 KB stored.
  CHECK(encode_png(flat).size() < 2000);
}

TEST_CASE("every JPEG we encode opens in Pillow with the same size and close pixels") {
  AGENTKIT_SHARED_TESTDATA(jpg, "images/jpeg/hopper.jpg");
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::testing::TempDir tmp;
  std::optional<Raster> src = photo(jpg, tmp.path() / "hopper.png");
  REQUIRE(src.has_value());
  std::size_t previous = SIZE_MAX;
  for (int quality : {95, 85, 70, 50, 30}) {
    INFO("quality " << quality);
    const std::vector<std::uint8_t> bytes = encode_jpeg(*src, {quality});
    const fs::path out = tmp.path() / "out.jpg";
    write_bytes(out, bytes);
    std::optional<Raster> back = pillow_raster("decode " + quoted(out));
    REQUIRE(back.has_value());
    CHECK(back->width == src->width);
    CHECK(back->height == src->height);
    CHECK(psnr(*back, *src) >= (quality >= 85 ? 32.0 : quality >= 70 ? 29.0 : 25.0));
    CHECK(bytes.size() < previous);  // the ladder: each lower rung is smaller
    previous = bytes.size();
  }
}

TEST_CASE("a JPEG we encode holds libjpeg's coefficients: it decodes to Pillow's JPEG's pixels") {
  // Same colour conversion, chroma averaging, forward DCT, quantisation tables and rounding as
  // libjpeg-turbo (which Pillow runs) means the same quantised coefficients, so both files
  // decode to the same pixels; any difference in any of those steps shows up here.
  AGENTKIT_SHARED_TESTDATA(dir, "images/jpeg");
  AGENTKIT_REQUIRE_PILLOW();
  agentkit::testing::TempDir tmp;
  std::optional<Raster> hopper = photo(dir / "hopper.jpg", tmp.path() / "hopper.png");
  std::optional<Raster> pillars = photo(dir / "pillars-2048x2048.jpg", tmp.path() / "p.png");
  REQUIRE(hopper.has_value());
  REQUIRE(pillars.has_value());
  Raster crop;  // odd sides: partial MCUs on the right and at the bottom
  crop.width = 333;
  crop.height = 251;
  for (std::uint32_t y = 0; y < crop.height; ++y) {
    const auto row = pillars->rgba.begin() + std::ptrdiff_t{y + 600} * pillars->width * 4 + 4 * 700;
    crop.rgba.insert(crop.rgba.end(), row, row + crop.width * 4);
  }
  for (const Raster* src : {&*hopper, &crop}) {
    const fs::path png = tmp.path() / "src.png";
    write_bytes(png, encode_png(*src));
    for (int quality : {100, 85, 30}) {
      INFO(src->width << "x" << src->height << " at quality " << quality);
      const fs::path theirs = tmp.path() / "pillow.jpg";
      REQUIRE(pillow("jpeg " + quoted(png) + " " + quoted(theirs) + " " + std::to_string(quality)));
      agentkit::Result<Raster> a = decode(encode_jpeg(*src, {quality}));
      agentkit::Result<Raster> b = decode(read_bytes(theirs));
      REQUIRE(a.has_value());
      REQUIRE(b.has_value());
      CHECK(a->rgba == b->rgba);
    }
  }
}

TEST_CASE("a noisy JPEG full of stuffed 0xFF bytes decodes in Pillow to our own decoder's pixels") {
  AGENTKIT_REQUIRE_PILLOW();
  // Noise at quality 100 makes long codes and many 0xFF bytes in the entropy-coded data, each
  // of which must be followed by a stuffed zero; odd sides make partial MCUs at both edges.
  Raster noise;
  noise.width = 203;
  noise.height = 97;
  std::uint32_t state = 12345;
  for (std::uint32_t i = 0; i < noise.width * noise.height; ++i) {
    state = state * 1664525u + 1013904223u;  // grey noise: all of it in full-resolution luma
    const auto v = static_cast<std::uint8_t>(state >> 24);
    noise.rgba.insert(noise.rgba.end(), {v, v, v, 255});
  }
  agentkit::testing::TempDir tmp;
  for (int quality : {100, 90, 50}) {
    INFO("quality " << quality);
    const std::vector<std::uint8_t> bytes = encode_jpeg(noise, {quality});
    std::size_t stuffed = 0;
    for (std::size_t i = 0; i + 1 < bytes.size(); ++i)
      stuffed += bytes[i] == 0xff && bytes[i + 1] == 0;
    if (quality == 100) CHECK(stuffed > 100);
    const fs::path out = tmp.path() / "noise.jpg";
    write_bytes(out, bytes);
    std::optional<Raster> theirs = pillow_raster("decode " + quoted(out));
    REQUIRE(theirs.has_value());
    agentkit::Result<Raster> ours = decode(bytes);
    REQUIRE(ours.has_value());
    CHECK(ours->rgba == theirs->rgba);
    INFO("PSNR " << psnr(*theirs, noise));
    CHECK(psnr(*theirs, noise) >= (quality == 100 ? 45.0 : quality == 90 ? 30.0 : 18.0));
  }
}

TEST_CASE("a JPEG of an image with odd sides and transparency opens in Pillow flattened") {
  AGENTKIT_REQUIRE_PILLOW();
  Raster r;
  r.width = 19;
  r.height = 7;
  for (std::uint32_t i = 0; i < r.width * r.height; ++i) r.rgba.insert(r.rgba.end(), {0, 0, 0, 0});
  agentkit::testing::TempDir tmp;
  const fs::path out = tmp.path() / "clear.jpg";
  write_bytes(out, encode_jpeg(r));
  std::optional<Raster> back = pillow_raster("decode " + quoted(out));
  REQUIRE(back.has_value());
  CHECK(back->width == 19);
  CHECK(back->height == 7);
  CHECK(int(back->rgba[0]) >= 250);  // transparent black became white
}
