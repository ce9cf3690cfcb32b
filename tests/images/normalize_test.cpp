// The normaliser: what passes untouched, what is re-encoded or downscaled, what is refused, and
// that the budget is the base64 text sent.
#include "agentkit/images/normalize.hpp"

#include <string>
#include <vector>

#include "agentkit/base/base64.hpp"
#include "agentkit/images/encode.hpp"
#include "image_fixtures.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"

namespace fs = std::filesystem;
using namespace agentkit::images;
using namespace agentkit::images::testing;

namespace {

std::string b64(const std::vector<std::uint8_t>& bytes) {
  return agentkit::base64::encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

std::vector<std::uint8_t> unb64(const std::string& text) {
  const std::string s = agentkit::base64::decode(text).value();
  return {s.begin(), s.end()};
}

Raster gradient(std::uint32_t w, std::uint32_t h, std::uint8_t alpha = 255) {
  Raster r;
  r.width = w;
  r.height = h;
  r.rgba.resize(std::size_t{w} * h * 4);
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      std::uint8_t* p = r.rgba.data() + (std::size_t{y} * w + x) * 4;
      p[0] = static_cast<std::uint8_t>(x * 255 / w);
      p[1] = static_cast<std::uint8_t>(y * 255 / h);
      p[2] = static_cast<std::uint8_t>((x ^ y) & 0xff);
      p[3] = alpha;
    }
  }
  return r;
}

// Pixels from a linear congruential generator: incompressible, so the PNG is large.
Raster noise(std::uint32_t w, std::uint32_t h) {
  Raster r;
  r.width = w;
  r.height = h;
  r.rgba.resize(std::size_t{w} * h * 4);
  std::uint32_t seed = 7;
  for (std::size_t i = 0; i < r.rgba.size(); ++i) {
    seed = seed * 1103515245u + 12345u;
    r.rgba[i] = i % 4 == 3 ? 255 : static_cast<std::uint8_t>(seed >> 24);
  }
  return r;
}

// Wraps base64 text at 76 columns and switches it to the URL-safe alphabet without padding,
// as some MCP servers send it.
std::string wrapped_url_safe(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') continue;
    if (c == '+') c = '-';
    if (c == '/') c = '_';
    out.push_back(c);
    if (i % 76 == 75) out += "\r\n";
  }
  return out;
}

}  // namespace

TEST_CASE("a conforming image is returned byte for byte") {
  AGENTKIT_SHARED_TESTDATA(dir, "images");
  ImageNormalizer normalizer;
  for (const char* name : {"png/basn2c08.png", "jpeg/hopper.jpg", "gif/hopper.gif",
                           "webp/simple.webp", "jpeg/xmp_test.jpg"}) {
    INFO(name);
    const std::string text = b64(read_bytes(dir / name));
    const std::string mime(mime_type(probe(read_bytes(dir / name))->format));
    NormalizedImage out = normalizer.normalize(mime, text);
    CHECK(out.outcome == Outcome::unchanged);
    CHECK(out.data_base64 == text);
    CHECK(out.note.empty());
  }
  CHECK(normalizer.encodes() == 0);
}

TEST_CASE("the budget is measured on the base64 text, not the decoded bytes") {
  AGENTKIT_SHARED_TESTDATA(file, "images/jpeg/hopper.jpg");
  const std::vector<std::uint8_t> bytes = read_bytes(file);  // 6412 bytes, 8552 of base64
  ImageBudget budget;
  budget.max_base64_bytes = 7000;  // over the bytes, under their base64
  NormalizedImage out = ImageNormalizer(budget).normalize("image/jpeg", b64(bytes));
  CHECK(out.outcome == Outcome::reencoded);
  CHECK(out.data_base64.size() <= 7000);
  CHECK(out.note.find("re-encoded") != std::string::npos);
}

TEST_CASE("a transparent PNG is flattened onto white") {
  ImageBudget budget;
  budget.max_side = 20;
  const std::string text = b64(encode_png(gradient(40, 40, 0)));
  NormalizedImage out = ImageNormalizer(budget).normalize("image/png", text);
  REQUIRE(out.outcome == Outcome::downscaled);
  agentkit::Result<Raster> px = decode(unb64(out.data_base64));
  REQUIRE(px.has_value());
  for (std::size_t i = 0; i < px->rgba.size(); ++i) CHECK(int(px->rgba[i]) >= 250);
}

TEST_CASE("a downscaled photo carries a note with both sizes and opens in Pillow") {
  AGENTKIT_SHARED_TESTDATA(file, "images/jpeg/pillars-2048x2048.jpg");
  NormalizedImage out = ImageNormalizer().normalize("image/jpeg", b64(read_bytes(file)));
  REQUIRE(out.outcome == Outcome::downscaled);
  CHECK(out.sent == Size{2000, 2000});
  CHECK(out.note.find("2048x2048") != std::string::npos);
  CHECK(out.note.find("2000x2000") != std::string::npos);
  CHECK(out.data_base64.size() <= 4'500'000);
  agentkit::testing::TempDir tmp;
  write_bytes(tmp.path() / "out.jpg", unb64(out.data_base64));
  AGENTKIT_REQUIRE_PILLOW();
  CHECK(pillow("info " + quoted(tmp.path() / "out.jpg")) == std::string("JPEG 2000 2000\n"));
}

TEST_CASE("a 5000x3000 PNG sent as wrapped base64url comes out within the limits") {
  const std::string text = wrapped_url_safe(b64(encode_png(gradient(5000, 3000))));
  NormalizedImage out = ImageNormalizer().normalize("image/png", text);
  REQUIRE(out.outcome == Outcome::downscaled);
  CHECK(out.sent == Size{2000, 1200});
  CHECK(out.data_base64.size() <= 4'500'000);
  agentkit::Result<ImageInfo> info = probe(unb64(out.data_base64));  // strict base64 now
  REQUIRE(info.has_value());
  CHECK(info->width == 2000);
}

TEST_CASE("a conforming image in wrapped base64url is re-sent as standard base64, same bytes") {
  AGENTKIT_SHARED_TESTDATA(file, "images/png/basn2c08.png");
  const std::vector<std::uint8_t> bytes = read_bytes(file);
  NormalizedImage out = ImageNormalizer().normalize("image/png", wrapped_url_safe(b64(bytes)));
  CHECK(out.outcome == Outcome::reencoded);
  CHECK(out.data_base64 == b64(bytes));
}

TEST_CASE("more than twenty images in a request tighten the side limit") {
  ImageBudget budget;
  budget.max_side = 8000;
  ImageNormalizer normalizer(budget);
  const std::string text = b64(encode_png(gradient(2400, 300)));
  CHECK(normalizer.normalize("image/png", text, 20).outcome == Outcome::unchanged);
  NormalizedImage many = normalizer.normalize("image/png", text, 21);
  CHECK(many.outcome == Outcome::downscaled);
  CHECK(many.sent.width == 2000);
}

TEST_CASE("the request total is shared between its images") {
  ImageBudget budget;
  budget.max_request_base64_bytes = 10'000'000;
  CHECK(limits_for_request(budget, 1).max_base64_bytes == 4'500'000);
  CHECK(limits_for_request(budget, 4).max_base64_bytes == 2'500'000);
  CHECK(limits_for_request(budget, 21).max_side == 2000);
}

TEST_CASE("an animated image is refused and keeps its original data") {
  AGENTKIT_SHARED_TESTDATA(dir, "images");
  for (const char* name : {"apng/basic_f20.png", "gif/rotating-squares.gif", "webp/anim.webp"}) {
    INFO(name);
    const std::string text = b64(read_bytes(dir / name));
    NormalizedImage out = ImageNormalizer().normalize("image/png", text);
    CHECK(out.outcome == Outcome::refused);
    CHECK(out.data_base64 == text);
    CHECK(out.note.find("animated") != std::string::npos);
  }
}

TEST_CASE("an image that cannot be decoded keeps its original block and says why") {
  AGENTKIT_SHARED_TESTDATA(dir, "images");
  ImageBudget budget;
  budget.max_side = 64;  // so the CMYK file must be decoded, and cannot be
  for (const char* name : {"jpeg/pil_sample_cmyk.jpg", "jpeg/truncated_jpeg.jpg",
                           "png/xs1n0g01.png", "jpeg/giant-image.jpg"}) {
    INFO(name);
    const std::string text = b64(read_bytes(dir / name));
    NormalizedImage out = ImageNormalizer(budget).normalize("image/jpeg", text);
    CHECK(out.outcome == Outcome::refused);
    CHECK(out.data_base64 == text);
    CHECK_FALSE(out.note.empty());
  }
  NormalizedImage junk = ImageNormalizer().normalize("image/png", "not base64 at all!");
  CHECK(junk.outcome == Outcome::refused);
  CHECK(junk.data_base64 == "not base64 at all!");
}

TEST_CASE("the same image is re-encoded only once for the same limits") {
  ImageBudget budget;
  budget.max_side = 100;
  ImageNormalizer normalizer(budget);
  const std::string text = b64(encode_png(gradient(300, 200)));
  NormalizedImage first = normalizer.normalize("image/png", text);
  NormalizedImage second = normalizer.normalize("image/png", text);
  CHECK(first.data_base64 == second.data_base64);
  CHECK(normalizer.encodes() == 1);
  CHECK(normalizer.cache_hits() == 1);
}

TEST_CASE("a MIME type that contradicts the magic bytes is corrected, bytes untouched") {
  AGENTKIT_SHARED_TESTDATA(file, "images/jpeg/flower.png.im_q85_420_progr.jpg");
  ImageBudget budget;
  budget.max_side = 4000;
  const std::string text = b64(read_bytes(file));
  NormalizedImage out = ImageNormalizer(budget).normalize("image/png", text);
  CHECK(out.outcome == Outcome::mime_corrected);
  CHECK(out.mime_type == "image/jpeg");
  CHECK(out.data_base64 == text);
}

TEST_CASE("a WebP over the limits is reported, not re-encoded") {
  AGENTKIT_SHARED_TESTDATA(file, "images/webp/simple.webp");
  ImageBudget budget;
  budget.max_side = 100;
  const std::string text = b64(read_bytes(file));
  NormalizedImage out = ImageNormalizer(budget).normalize("image/webp", text);
  CHECK(out.outcome == Outcome::refused);
  CHECK(out.note.find("WebP") != std::string::npos);
  CHECK(out.data_base64 == text);
}

TEST_CASE("a screenshot-like image with few colours is re-encoded as PNG") {
  Raster r = gradient(400, 100);
  for (std::size_t i = 0; i < r.rgba.size(); ++i) {
    if (i % 4 != 3) r.rgba[i] = r.rgba[i] & 0xc0;  // at most 64 colours
  }
  ImageBudget budget;
  budget.max_side = 200;
  NormalizedImage out = ImageNormalizer(budget).normalize("image/png", b64(encode_png(r)));
  CHECK(out.outcome == Outcome::downscaled);
  CHECK(out.mime_type == "image/png");
}

TEST_CASE("a cached refusal still hands back each caller's own base64 text") {
  // Found by fuzz_image_normalize: the cache is keyed by the decoded bytes, so a wrapped copy of
  // the same file hit the entry the plain copy made and got the plain text back.
  AGENTKIT_SHARED_TESTDATA(file, "images/jpeg/truncated_jpeg.jpg");
  ImageBudget budget;
  budget.max_side = 64;  // 100x100 must be decoded, and the truncated scan cannot be
  ImageNormalizer normalizer(budget);
  const std::string plain = b64(read_bytes(file));
  const std::string wrapped = wrapped_url_safe(plain);
  CHECK(normalizer.normalize("image/jpeg", plain).data_base64 == plain);
  NormalizedImage second = normalizer.normalize("image/jpeg", wrapped);
  CHECK(second.outcome == Outcome::refused);
  CHECK(second.data_base64 == wrapped);
  CHECK(normalizer.cache_hits() == 1);
}

TEST_CASE(
    "line breaks deep in the base64 text are caught by the fast path and the text re-encoded") {
  const std::string text = b64(encode_png(noise(200, 100)));
  REQUIRE(text.size() > 40'000);
  // Two CRLFs keep the length a multiple of four, so only the alphabet can give them away.
  std::string broken = text;
  broken.insert(36'001, "\r\n");
  broken.insert(30'001, "\r\n");
  ImageNormalizer normalizer;
  NormalizedImage out = normalizer.normalize("image/png", broken);
  CHECK(out.outcome == Outcome::reencoded);
  CHECK(out.data_base64 == text);
}

TEST_CASE(
    "a character outside the alphabet deep in the base64 text refuses the image, keeping its "
    "text") {
  const std::string text = b64(encode_png(noise(200, 100)));
  REQUIRE(text.size() > 40'000);
  std::string broken = text;
  broken[30'001] = '*';
  ImageNormalizer normalizer;
  NormalizedImage out = normalizer.normalize("image/png", broken);
  CHECK(out.outcome == Outcome::refused);
  CHECK(out.data_base64 == broken);
  CHECK(out.note.find("base64") != std::string::npos);
}

namespace {

// A JPEG with `segments` APP2 segments of 65,000 bytes each between its SOI and the rest, as
// cameras put EXIF, XMP and ICC data before the frame header.
std::vector<std::uint8_t> jpeg_behind_metadata(const std::vector<std::uint8_t>& jpeg,
                                               int segments) {
  std::vector<std::uint8_t> out(jpeg.begin(), jpeg.begin() + 2);
  for (int s = 0; s < segments; ++s) {
    const std::size_t length = 65'000;
    out.insert(out.end(), {0xff, 0xe2, static_cast<std::uint8_t>(length >> 8),
                           static_cast<std::uint8_t>(length & 0xff)});
    for (std::size_t i = 0; i + 2 < length; ++i) out.push_back(static_cast<std::uint8_t>(i * 7));
  }
  out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
  return out;
}

}  // namespace

TEST_CASE("a JPEG's frame header behind 325 KB of metadata is read from its base64 text") {
  const std::vector<std::uint8_t> jpeg =
      jpeg_behind_metadata(encode_jpeg(gradient(64, 48), {80}), 5);
  REQUIRE(probe(jpeg).has_value());
  const std::string text = b64(jpeg);
  ImageNormalizer normalizer;
  NormalizedImage out = normalizer.normalize("image/jpeg", text);
  CHECK(out.outcome == Outcome::unchanged);
  CHECK(out.original == Size{64, 48});
  CHECK(out.data_base64 == text);
  CHECK(normalizer.encodes() == 0);
}

TEST_CASE("a 12-bit JPEG behind metadata is refused from its headers with the reason") {
  std::vector<std::uint8_t> jpeg = jpeg_behind_metadata(encode_jpeg(gradient(64, 48), {80}), 2);
  // The frame header's precision byte follows FF C0 and its two length bytes.
  for (std::size_t i = 2; i + 4 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xff && jpeg[i + 1] == 0xc0) {
      jpeg[i + 4] = 12;
      break;
    }
  }
  ImageNormalizer normalizer;
  NormalizedImage out = normalizer.normalize("image/jpeg", b64(jpeg));
  CHECK(out.outcome == Outcome::refused);
  CHECK(out.note.find("12-bit") != std::string::npos);
}

TEST_CASE("each vendor's budget is 90% of its published byte limits and its image count") {
  const ImageBudget anthropic = budget_for_vendor("anthropic");
  CHECK(anthropic.max_base64_bytes == 4'500'000);
  CHECK(anthropic.max_images_per_request == 100);
  CHECK(anthropic.many_images == 20);
  const ImageBudget openai = budget_for_vendor("openai");
  CHECK(openai.max_base64_bytes == 18'000'000);
  CHECK(openai.max_request_base64_bytes == 45'000'000);
  CHECK(openai.max_images_per_request == 500);
  const ImageBudget google = budget_for_vendor("google");
  CHECK(google.max_request_base64_bytes == 18'000'000);
  CHECK(google.max_images_per_request == 3000);
  // Unknown and routing vendors get the strictest figures.
  CHECK(budget_for_vendor("openrouter").max_base64_bytes == ImageBudget{}.max_base64_bytes);
  CHECK(budget_for_vendor("").max_images_per_request == 100);
}

TEST_CASE("Google's request total shares out: 4 images of 5 MB of base64 each must shrink") {
  const ImageLimits l = limits_for_request(budget_for_vendor("google"), 4);
  CHECK(l.max_base64_bytes == 4'500'000);  // 18 MB over 4 images
  CHECK(limits_for_request(budget_for_vendor("google"), 1).max_base64_bytes == 6'300'000);
}

TEST_CASE("a replayed image already checked is re-checked from its remembered headers") {
  ImageBudget budget;
  budget.max_side = 8000;
  ImageNormalizer normalizer(budget);
  const std::string text = b64(encode_png(noise(300, 200)));
  REQUIRE(normalizer.normalize("image/png", text).outcome == Outcome::unchanged);
  NormalizedImage again = normalizer.renormalize("image/png", text);
  CHECK(again.outcome == Outcome::unchanged);
  CHECK(again.data_base64.empty());  // the caller holds the text
  CHECK(again.sent == Size{300, 200});
  CHECK(normalizer.rechecks_skipped() == 1);
  // The same bytes in another buffer were never checked there: checked in full.
  const std::string copy = text;
  CHECK(normalizer.renormalize("image/png", copy).outcome == Outcome::unchanged);
  CHECK(normalizer.rechecks_skipped() == 1);
  CHECK(normalizer.renormalize("image/png", copy).outcome == Outcome::unchanged);
  CHECK(normalizer.rechecks_skipped() == 2);
}

TEST_CASE("a remembered image still meets each request's limits: the many-images rule applies") {
  ImageBudget budget;
  budget.max_side = 8000;
  ImageNormalizer normalizer(budget);
  const std::string text = b64(encode_png(gradient(2400, 300)));
  REQUIRE(normalizer.normalize("image/png", text, 1).outcome == Outcome::unchanged);
  NormalizedImage many = normalizer.renormalize("image/png", text, 21);
  CHECK(normalizer.rechecks_skipped() == 1);
  CHECK(many.outcome == Outcome::downscaled);
  CHECK(many.sent.width == 2000);
}

TEST_CASE("a remembered buffer that now holds a broken text is checked again, not trusted") {
  ImageNormalizer normalizer;
  std::string text = b64(encode_png(noise(200, 100)));
  REQUIRE(text.size() > 40'000);
  REQUIRE(normalizer.normalize("image/png", text).outcome == Outcome::unchanged);
  const char* buffer = text.data();
  // Edited in place (same buffer, same length): a character outside the alphabet near the end,
  // where the fingerprint reads.
  text[text.size() - 100] = '*';
  REQUIRE(text.data() == buffer);
  NormalizedImage out = normalizer.renormalize("image/png", text);
  CHECK(out.outcome == Outcome::refused);
  CHECK(normalizer.rechecks_skipped() == 0);
}

TEST_CASE("line breaks deep in a replayed text seen for the first time are caught") {
  const std::string text = b64(encode_png(noise(200, 100)));
  std::string broken = text;
  broken.insert(36'001, "\r\n");
  broken.insert(30'001, "\r\n");
  ImageNormalizer normalizer;
  NormalizedImage out = normalizer.renormalize("image/png", broken);
  CHECK(out.outcome == Outcome::reencoded);
  CHECK(out.data_base64 == text);
}
