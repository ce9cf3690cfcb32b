// The image normaliser: a header-only fast path for images that already fit, and decode ->
// flatten -> area-average -> re-encode for those that do not, cached by content hash.
#include "agentkit/images/normalize.hpp"

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/images/encode.hpp"

namespace agentkit::images {
namespace {

// How much base64 is decoded to read PNG and WebP headers: a small prefix first, then larger
// ones (a PNG may carry a large iCCP or text chunk before IDAT). JPEGs are walked segment by
// segment instead (probe_jpeg_base64). GIF needs every byte: its animation flag is a second
// image anywhere in the file.
constexpr std::array<std::size_t, 3> kHeaderPrefixChars = {8 * 1024, 64 * 1024, 256 * 1024};
// Each retry when no encoding fits shrinks the sides to this fraction.
constexpr double kShrinkStep = 0.7;
constexpr int kMaxShrinks = 6;
constexpr std::size_t kCacheEntries = 256;
// Texts renormalize() remembers as checked (one entry per image in history, a few dozen bytes).
constexpr std::size_t kCheckedEntries = 4096;
// The fingerprint reads texts up to this size whole, and of longer ones both ends and
// kFingerprintWords words spread evenly between them.
constexpr std::size_t kFingerprintWhole = 8 * 1024;
constexpr std::size_t kFingerprintEnds = 1024;
constexpr std::size_t kFingerprintWords = 256;
// A lossless source with at most this many colours is a diagram or text: PNG keeps it sharp.
constexpr std::size_t kFewColours = 256;

// True when every byte of `chunk` is in the standard base64 alphabet. A byte at a time with no
// branch inside each 64-byte run, which compilers turn into vector compares (about 8 GB/s on
// SSE2): what a megabyte of base64 costs the first time an image is seen.
bool all_standard_alphabet(std::string_view chunk) {
  const auto* p = reinterpret_cast<const unsigned char*>(chunk.data());
  const std::size_t n = chunk.size();
  auto bad_byte = [](unsigned char c) -> unsigned char {
    // (c | 0x20) folds 'A'-'Z' onto 'a'-'z'; '/' and '0'-'9' are one run of 11.
    const bool ok = static_cast<unsigned char>((c | 0x20) - 'a') < 26 ||
                    static_cast<unsigned char>(c - '/') < 11 || c == '+';
    return ok ? 0 : 1;
  };
  unsigned char bad = 0;
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    unsigned char run = 0;
    for (std::size_t k = 0; k < 64; ++k) run |= bad_byte(p[i + k]);
    bad |= run;
  }
  for (; i < n; ++i) bad |= bad_byte(p[i]);
  return bad == 0;
}

// True when `text` is strict, padded, standard base64 (what providers require): the whole text
// in the alphabet, '=' only as the final padding, and a last group that decodes strictly (its
// unused bits zero). One bad character anywhere would make every later request a 400.
bool looks_strict_base64(std::string_view text) {
  if (text.size() % 4 != 0) return false;
  std::size_t end = text.size();
  if (end > 0 && text[end - 1] == '=') --end;
  if (end > 0 && text[end - 1] == '=') --end;
  if (!all_standard_alphabet(text.substr(0, end))) return false;
  return text.empty() || base64::decode(text.substr(text.size() - 4)).has_value();
}

// Bytes [offset, offset + count) of the data that strict base64 `text` encodes, decoding only
// the groups that hold them; shorter at the end of the data.
std::optional<std::string> bytes_at(std::string_view text, std::size_t offset, std::size_t count) {
  const std::size_t first_group = offset / 3;
  const std::size_t last_group = (offset + count + 2) / 3;  // exclusive
  const std::size_t from = first_group * 4;
  if (from >= text.size()) return std::string();
  Result<std::string> decoded = base64::decode(text.substr(from, (last_group - first_group) * 4));
  if (!decoded) return std::nullopt;
  const std::size_t skip = offset - first_group * 3;
  if (skip >= decoded->size()) return std::string();
  return decoded->substr(skip, count);
}

// A JPEG's headers read straight from its base64 text: walks the marker segments, decoding only
// each marker and length (and the frame header at the end), so EXIF, XMP and ICC segments of tens
// of KB before the frame header cost a few groups each. Returns what probe() says of a minimal
// JPEG made of the frame header, or nullopt when the walk fails (the caller decodes instead).
std::optional<Result<ImageInfo>> probe_jpeg_base64(std::string_view text) {
  constexpr int kMaxSegments = 1024;
  std::size_t pos = 2;  // past SOI
  for (int n = 0; n < kMaxSegments; ++n) {
    std::optional<std::string> head = bytes_at(text, pos, 4);
    if (!head || head->size() < 4) return std::nullopt;
    const auto* h = reinterpret_cast<const std::uint8_t*>(head->data());
    if (h[0] != 0xff) return std::nullopt;
    if (h[1] == 0xff) {  // a fill byte before the marker
      ++pos;
      continue;
    }
    const std::uint8_t marker = h[1];
    if (marker == 0xd8 || marker == 0xd9 || marker == 0xda || (marker >= 0xd0 && marker <= 0xd7)) {
      return std::nullopt;  // a scan (or the end) before any frame header: let decode say why
    }
    const std::size_t length = (std::size_t{h[2]} << 8) | h[3];
    if (length < 2) return std::nullopt;
    const bool frame =
        marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
    if (frame) {
      std::optional<std::string> segment = bytes_at(text, pos, 2 + length);
      if (!segment || segment->size() < 2 + length) return std::nullopt;
      std::string minimal = "\xff\xd8" + *segment;
      return probe({reinterpret_cast<const std::uint8_t*>(minimal.data()), minimal.size()});
    }
    pos += 2 + length;
  }
  return std::nullopt;
}

// A 64-bit digest of the length, both ends and evenly spaced words of `text` (all of a short
// text): enough to notice that a remembered buffer now holds another image, in a few µs.
std::uint64_t fingerprint(std::string_view text) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ text.size();
  auto mix = [&h](std::uint64_t w) {
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  };
  auto words = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i + 8 <= to; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, text.data() + i, 8);
      mix(w);
    }
  };
  if (text.size() <= kFingerprintWhole) {
    words(0, text.size());
    for (std::size_t i = text.size() / 8 * 8; i < text.size(); ++i)
      mix(static_cast<unsigned char>(text[i]));
    return h;
  }
  words(0, kFingerprintEnds);
  words(text.size() - kFingerprintEnds, text.size());
  const std::size_t step = (text.size() - 8) / kFingerprintWords;
  for (std::size_t k = 0; k < kFingerprintWords; ++k) words(k * step, k * step + 8);
  return h;
}

// Base64 as tools and MCP servers really send it: wrapped lines, the URL-safe alphabet, missing
// padding. Everything becomes URL-safe and unpadded, which base64::decode accepts.
Result<std::string> lenient_base64_decode(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '=') continue;
    clean.push_back(c == '+' ? '-' : c == '/' ? '_' : c);
  }
  return base64::decode(clean, base64::Alphabet::url);
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string size_text(Size s) { return std::to_string(s.width) + "x" + std::to_string(s.height); }

std::string kb(std::size_t bytes) { return std::to_string((bytes + 512) / 1024) + " KB"; }

NormalizedImage refusal(std::string_view mime, std::string_view data, Size original,
                        const std::string& why) {
  NormalizedImage out;
  out.outcome = Outcome::refused;
  out.mime_type = std::string(mime);
  out.data_base64 = std::string(data);
  out.original = out.sent = original;
  out.note = "[Image not usable as sent: " + why + ".]";
  return out;
}

bool few_colours(const Raster& r) {
  std::unordered_set<std::uint32_t> seen;
  for (std::size_t i = 0; i + 3 < r.rgba.size(); i += 4) {
    seen.insert(r.rgba[i] | (r.rgba[i + 1] << 8) | (std::uint32_t{r.rgba[i + 2]} << 16));
    if (seen.size() > kFewColours) return false;
  }
  return true;
}

struct Encoded {
  std::string mime;
  std::string base64;
};

// The smaller encoding that fits `max_chars` of base64, or nothing.
std::optional<Encoded> encode_within(const Raster& pixels, bool lossless_source,
                                     const ImageBudget& budget, std::size_t max_chars) {
  std::optional<Encoded> png;
  if (lossless_source) {
    const std::vector<std::uint8_t> bytes = encode_png(pixels);
    if (base64::encoded_size(bytes.size()) <= max_chars) {
      png = Encoded{"image/png",
                    base64::encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()})};
      if (few_colours(pixels)) return png;
    }
  }
  for (int quality : budget.jpeg_quality_ladder) {
    const std::vector<std::uint8_t> bytes = encode_jpeg(pixels, {quality});
    const std::size_t chars = base64::encoded_size(bytes.size());
    if (chars > max_chars) continue;
    if (png && png->base64.size() <= chars) return png;
    return Encoded{"image/jpeg",
                   base64::encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()})};
  }
  return png;
}

}  // namespace

ImageBudget budget_for_vendor(std::string_view vendor) {
  ImageBudget b;  // Anthropic's figures, and the strictest: every other vendor starts here
  if (vendor == "openai") {
    // 20 MB per image, 50 MB of images per request, 500 images per request.
    b.max_base64_bytes = 18'000'000;
    b.max_request_base64_bytes = 45'000'000;
    b.max_images_per_request = 500;
    b.many_images = b.max_images_per_request;  // no many-images side rule
  } else if (vendor == "google") {
    // About 20 MB for a whole request with inline data; 7 MB per inline file (Vertex AI);
    // 3000 images per prompt.
    b.max_base64_bytes = 6'300'000;
    b.max_request_base64_bytes = 18'000'000;
    b.max_images_per_request = 3000;
    b.many_images = b.max_images_per_request;
  }
  return b;
}

ImageLimits limits_for_request(const ImageBudget& budget, std::size_t images) {
  ImageLimits l;
  l.max_side = images > budget.many_images ? std::min(budget.max_side, budget.max_side_when_many)
                                           : budget.max_side;
  l.max_base64_bytes = budget.max_base64_bytes;
  if (images > 0) {
    l.max_base64_bytes = std::min(l.max_base64_bytes, budget.max_request_base64_bytes / images);
  }
  return l;
}

struct ImageNormalizer::State {
  ImageBudget budget;
  mutable std::mutex mu;
  mutable std::unordered_map<std::string, NormalizedImage> cache;
  // Texts found strict with readable headers, by buffer address and length: renormalize() of
  // the same buffer with the same fingerprint reuses the headers and skips the alphabet check.
  struct Checked {
    std::uint64_t fingerprint = 0;
    ImageInfo info;
  };
  mutable std::map<std::pair<const char*, std::size_t>, Checked> checked;
  mutable std::atomic<std::size_t> rechecks_skipped{0};
  mutable std::atomic<std::size_t> encodes{0};
  mutable std::atomic<std::size_t> hits{0};

  NormalizedImage run(std::string_view mime, std::string_view data, std::size_t images,
                      bool trust_checked) const;
  std::optional<ImageInfo> recall(std::string_view data) const;
  void remember(std::string_view data, const ImageInfo& info) const;
  NormalizedImage slow_path(std::string_view mime, std::string_view data, const ImageInfo& info,
                            const ImageLimits& limits) const;
  NormalizedImage fit(std::string_view mime, std::string_view data, const std::string& bytes,
                      const ImageInfo& info, const ImageLimits& limits) const;
};

ImageNormalizer::ImageNormalizer(ImageBudget budget) : state_(std::make_unique<State>()) {
  state_->budget = std::move(budget);
}
ImageNormalizer::~ImageNormalizer() = default;
ImageNormalizer::ImageNormalizer(ImageNormalizer&&) noexcept = default;
ImageNormalizer& ImageNormalizer::operator=(ImageNormalizer&&) noexcept = default;

const ImageBudget& ImageNormalizer::budget() const noexcept { return state_->budget; }
std::size_t ImageNormalizer::encodes() const noexcept { return state_->encodes.load(); }
std::size_t ImageNormalizer::cache_hits() const noexcept { return state_->hits.load(); }

NormalizedImage ImageNormalizer::normalize(std::string_view mime, std::string_view data,
                                           std::size_t images_in_request) const {
  return state_->run(mime, data, images_in_request, /*trust_checked=*/false);
}

NormalizedImage ImageNormalizer::renormalize(std::string_view mime, std::string_view data,
                                             std::size_t images_in_request) const {
  return state_->run(mime, data, images_in_request, /*trust_checked=*/true);
}

std::size_t ImageNormalizer::rechecks_skipped() const noexcept {
  return state_->rechecks_skipped.load();
}

std::optional<ImageInfo> ImageNormalizer::State::recall(std::string_view data) const {
  std::lock_guard<std::mutex> lock(mu);
  auto it = checked.find({data.data(), data.size()});
  if (it == checked.end()) return std::nullopt;
  // Outside the buffer's identity, the fingerprint: the buffer may have been freed and reused.
  if (it->second.fingerprint != fingerprint(data)) {
    checked.erase(it);
    return std::nullopt;
  }
  return it->second.info;
}

void ImageNormalizer::State::remember(std::string_view data, const ImageInfo& info) const {
  const std::uint64_t print = fingerprint(data);
  std::lock_guard<std::mutex> lock(mu);
  if (checked.size() >= kCheckedEntries) checked.clear();
  checked.insert_or_assign({data.data(), data.size()}, Checked{print, info});
}

NormalizedImage ImageNormalizer::State::run(std::string_view mime, std::string_view data,
                                            std::size_t images, bool trust_checked) const {
  const ImageLimits limits = limits_for_request(budget, images);
  Result<ImageInfo> info = make_error(Errc::parse_error, "no header read yet");
  bool have_info = false;
  bool strict = false;
  bool recalled = false;
  if (trust_checked) {
    if (std::optional<ImageInfo> known = recall(data)) {
      info = *known;
      have_info = strict = recalled = true;
      rechecks_skipped.fetch_add(1);
    }
  }
  if (!have_info) strict = looks_strict_base64(data);
  // Headers first: a conforming image is never decoded in full. A JPEG ("/9j/" is FF D8 FF) is
  // walked marker by marker in its text; other formats have their headers in a prefix.
  if (!have_info && strict && data.starts_with("/9j/")) {
    if (std::optional<Result<ImageInfo>> walked = probe_jpeg_base64(data)) {
      info = std::move(*walked);
      have_info = true;
    }
  }
  for (std::size_t chars : kHeaderPrefixChars) {
    if (have_info || !strict) break;
    const std::size_t take = std::min(chars, data.size());  // prefixes are whole groups
    Result<std::string> prefix = base64::decode(data.substr(0, take));
    if (!prefix) break;
    info = probe(as_bytes(*prefix));
    if (info && info->format == Format::gif && take < data.size()) break;  // needs every frame
    have_info = info.has_value();
    if (take == data.size()) break;
  }
  if (!have_info) {
    Result<std::string> all = lenient_base64_decode(data);
    if (!all) return refusal(mime, data, {}, "its base64 text does not decode");
    info = probe(as_bytes(*all));
  }
  if (!info) return refusal(mime, data, {}, info.error().message);
  const Size size{info->width, info->height};
  if (info->animated)
    return refusal(mime, data, size, "it is animated; only still images are sent");
  if (strict && !recalled) remember(data, *info);
  const bool fits = std::max(size.width, size.height) <= limits.max_side &&
                    data.size() <= limits.max_base64_bytes;
  if (fits && strict) {
    NormalizedImage out;
    out.mime_type = std::string(mime_type(info->format));
    out.outcome = out.mime_type == mime ? Outcome::unchanged : Outcome::mime_corrected;
    // renormalize() hands back no copy of an unchanged text: the caller has it, and copying
    // megabytes per image per request is what the replay check must not cost.
    if (!trust_checked || out.outcome != Outcome::unchanged) out.data_base64 = std::string(data);
    out.original = out.sent = size;
    return out;
  }
  return slow_path(mime, data, *info, limits);
}

NormalizedImage ImageNormalizer::State::slow_path(std::string_view mime, std::string_view data,
                                                  const ImageInfo& info,
                                                  const ImageLimits& limits) const {
  Result<std::string> bytes = lenient_base64_decode(data);
  if (!bytes) return refusal(mime, data, {}, "its base64 text does not decode");
  const std::string key = sha256_hex(*bytes) + "/" + std::to_string(limits.max_side) + "/" +
                          std::to_string(limits.max_base64_bytes);
  NormalizedImage out;
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) {
      hits.fetch_add(1);
      out = it->second;
      cached = true;
    }
  }
  if (!cached) {
    out = fit(mime, data, *bytes, info, limits);
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= kCacheEntries) cache.clear();
    cache.emplace(key, out);
  }
  if (out.outcome == Outcome::refused) {
    // The key is the decoded bytes: another text of the same bytes (wrapped, URL-safe) may have
    // made this entry, and a refusal must hand back this caller's own block.
    out.mime_type = std::string(mime);
    out.data_base64 = std::string(data);
  }
  return out;
}

NormalizedImage ImageNormalizer::State::fit(std::string_view mime, std::string_view data,
                                            const std::string& bytes, const ImageInfo& info,
                                            const ImageLimits& limits) const {
  const Size original{info.width, info.height};
  const bool fits = std::max(original.width, original.height) <= limits.max_side &&
                    base64::encoded_size(bytes.size()) <= limits.max_base64_bytes;
  if (fits) {  // only the base64 text was off (wrapped or URL-safe): same bytes, re-encoded text
    NormalizedImage out;
    out.outcome = Outcome::reencoded;
    out.mime_type = std::string(mime_type(info.format));
    out.data_base64 = base64::encode(bytes);
    out.original = out.sent = original;
    return out;
  }
  if (info.format == Format::webp) {
    return refusal(mime, data, original,
                   "it is WebP over the limits, and WebP cannot be re-encoded here");
  }
  Result<Raster> pixels = decode(as_bytes(bytes), budget.decode);
  if (!pixels) return refusal(mime, data, original, pixels.error().message);
  encodes.fetch_add(1);
  flatten_onto_white(*pixels);
  const bool lossless = info.format != Format::jpeg;
  Size target = fit_within({pixels->width, pixels->height}, limits.max_side);
  for (int attempt = 0; attempt <= kMaxShrinks; ++attempt) {
    Result<Raster> scaled = downscale(*pixels, target);
    if (!scaled) break;
    if (std::optional<Encoded> e =
            encode_within(*scaled, lossless, budget, limits.max_base64_bytes)) {
      NormalizedImage out;
      out.mime_type = std::move(e->mime);
      out.data_base64 = std::move(e->base64);
      out.original = {pixels->width, pixels->height};
      out.sent = target;
      if (target == out.original) {
        out.outcome = Outcome::reencoded;
        out.note = "[Image re-encoded as " + out.mime_type +
                   " to fit the size limit: " + kb(data.size()) + " of base64 became " +
                   kb(out.data_base64.size()) + "; still " + size_text(target) + " px.]";
      } else {
        out.outcome = Outcome::downscaled;
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.4g",
                      static_cast<double>(out.original.width) / target.width);
        out.note = "[Image downscaled from " + size_text(out.original) + " to " +
                   size_text(target) + " px to fit the model's image limits; multiply " +
                   "coordinates in it by " + ratio + " to map them to the original.]";
      }
      return out;
    }
    target = {std::max<std::uint32_t>(1, static_cast<std::uint32_t>(target.width * kShrinkStep)),
              std::max<std::uint32_t>(1, static_cast<std::uint32_t>(target.height * kShrinkStep))};
  }
  return refusal(mime, data, original,
                 "no encoding fits " + kb(limits.max_base64_bytes) + " of base64");
}

}  // namespace agentkit::images
