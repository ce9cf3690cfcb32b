// agentkit/images/normalize.hpp — making an image fit what a provider accepts.
//
//   agentkit::images::ImageNormalizer normalizer;                 // default budget, see below
//   agentkit::images::NormalizedImage out =
//       normalizer.normalize("image/png", base64_text, /*images_in_request=*/1);
//   switch (out.outcome) {
//     case agentkit::images::Outcome::unchanged: break;        // out.data_base64 == base64_text
//     case agentkit::images::Outcome::refused:                 // keep the original, add out.note
//     default: use(out.mime_type, out.data_base64, out.note);  // downscaled or re-encoded
//   }
//
// The budget is measured on what is sent: the base64 text, not the decoded bytes (base64 is 4/3
// of its bytes, so a byte budget would ship an image a third over the limit it was checked
// against). An image that already fits is returned byte for byte after reading only its headers.
// One that does not is decoded, composited onto white, area-averaged down to the side limit and
// re-encoded as the smaller of PNG (for lossless sources: screenshots, diagrams, text) and JPEG
// stepped down a quality ladder. One that cannot be decoded or fitted is refused with a reason;
// the caller keeps the original and shows the reason.
//
// Thread safety: normalize() may be called from many threads at once; the cache of re-encoded
// results is guarded internally. ImageBudget is a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/images/image.hpp"
#include "agentkit/images/transform.hpp"

namespace agentkit::images {

// Limits for the images of one request, with headroom below the vendors' own (see
// docs/providers.md for each vendor's figure and its source). The defaults are the strictest
// vendor's (Anthropic's); budget_for_vendor() gives each vendor's own. Safe to copy.
struct ImageBudget {
  // Largest base64 length of one image: 4.5 MB, under Anthropic's 5 MB per image.
  std::size_t max_base64_bytes = 4'500'000;
  // Longest side of one image in pixels: 2000, under Anthropic's 8000 px.
  std::uint32_t max_side = 2000;
  // Longest side once a request holds more than many_images images: Anthropic's 2000 px rule.
  std::uint32_t max_side_when_many = 2000;
  std::size_t many_images = 20;
  // Largest base64 total of all images in one request; each image gets an equal share when the
  // sum of max_base64_bytes would pass it. 24 MB, under the 32 MB request limit.
  std::size_t max_request_base64_bytes = 24'000'000;
  // Most images one request may carry: Anthropic's 100 per API request. A request holding more
  // sends the most recent ones and a note in place of each older one (history keeps them all).
  std::size_t max_images_per_request = 100;
  // JPEG qualities tried in order until the encoding fits.
  std::vector<int> jpeg_quality_ladder = {85, 75, 60, 45, 30};
  // Bounds applied before decoding any pixels.
  DecodeLimits decode;
};

enum class Outcome {
  unchanged,       // already fits: the same base64 text and MIME type
  mime_corrected,  // the same bytes, under the MIME type its magic bytes say
  reencoded,       // same size in pixels, re-encoded to fit the byte budget (or to drop base64url)
  downscaled,      // made smaller in pixels (and re-encoded)
  refused,         // cannot be decoded or fitted: `note` says why; keep the original
};

struct NormalizedImage {
  Outcome outcome = Outcome::unchanged;
  std::string mime_type;
  std::string data_base64;
  // For the model: what changed and why (empty when unchanged). A downscaled image's note gives
  // both sizes so the model can scale coordinates back.
  std::string note;
  Size original;  // 0x0 when the headers could not be read
  Size sent;
};

// The budget for a model of `vendor` (the catalog's vendor id: "anthropic", "openai", "google",
// ...): 90% of each of that vendor's published byte figures and its image count as published
// (docs/providers.md). An unknown vendor, or one that routes to many (openrouter), gets the
// strictest: ImageBudget{}.
ImageBudget budget_for_vendor(std::string_view vendor);

// The per-image limits that apply inside a request holding `images` images.
struct ImageLimits {
  std::size_t max_base64_bytes = 0;
  std::uint32_t max_side = 0;
};
ImageLimits limits_for_request(const ImageBudget& budget, std::size_t images);

class ImageNormalizer {
 public:
  explicit ImageNormalizer(ImageBudget budget = {});
  ~ImageNormalizer();
  ImageNormalizer(ImageNormalizer&&) noexcept;
  ImageNormalizer& operator=(ImageNormalizer&&) noexcept;

  // Normalises one image of a request that holds `images_in_request` images in total. Base64 is
  // read leniently (line breaks, spaces, the URL-safe alphabet, missing padding); what is sent
  // is always standard padded base64.
  NormalizedImage normalize(std::string_view mime_type, std::string_view data_base64,
                            std::size_t images_in_request = 1) const;

  // The per-request re-check of an image already in history (the many-images rule can make an
  // image that fitted alone too large later). As normalize(), with two differences. When this
  // normaliser has read this very text before (the same buffer and length: the string held in
  // history) and a fingerprint of its length, both ends and 256 spread words still matches,
  // the headers read then are reused and the whole-text alphabet check is skipped, so a
  // conforming image costs microseconds whatever its size. And an `unchanged` result leaves
  // data_base64 empty (the caller holds the text). Every other text is checked in full, so
  // call normalize() where an image enters history; see docs/security.md for what the
  // fingerprint does not see (an in-place edit of a byte it does not read).
  NormalizedImage renormalize(std::string_view mime_type, std::string_view data_base64,
                              std::size_t images_in_request = 1) const;

  const ImageBudget& budget() const noexcept;
  // How many images were decoded and re-encoded, and how many re-encodings came from the cache
  // (keyed by content hash and limits, so an image is never re-encoded twice for the same limits).
  std::size_t encodes() const noexcept;
  std::size_t cache_hits() const noexcept;
  // How many renormalize() calls reused an earlier check of the same text.
  std::size_t rechecks_skipped() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace agentkit::images
