#include "image_boundary.hpp"

#include <algorithm>
#include <string>
#include <variant>

namespace agentkit::detail {
namespace {

std::vector<ContentBlock>* images_holder(Message& m) {
  if (auto* u = std::get_if<UserMessage>(&m)) return &u->content;
  if (auto* t = std::get_if<ToolResultMessage>(&m)) return &t->content;
  return nullptr;
}

const std::vector<ContentBlock>* images_holder(const Message& m) {
  return images_holder(const_cast<Message&>(m));
}

std::size_t count_images(std::span<const Message> messages) {
  std::size_t n = 0;
  for (const Message& m : messages) {
    if (const auto* content = images_holder(m)) {
      for (const ContentBlock& b : *content) n += std::holds_alternative<ImageBlock>(b) ? 1 : 0;
    }
  }
  return n;
}

}  // namespace

void normalize_images_for_history(const images::ImageNormalizer& normalizer,
                                  std::vector<ContentBlock>& content) {
  for (std::size_t i = 0; i < content.size(); ++i) {
    auto* image = std::get_if<ImageBlock>(&content[i]);
    if (image == nullptr) continue;
    images::NormalizedImage out = normalizer.normalize(image->mime_type, image->data_base64);
    if (out.outcome != images::Outcome::refused && out.outcome != images::Outcome::unchanged) {
      image->mime_type = std::move(out.mime_type);
      image->data_base64 = std::move(out.data_base64);
    }
    if (!out.note.empty()) {
      content.insert(content.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                     TextBlock{std::move(out.note)});
      ++i;
    }
  }
}

std::optional<std::vector<Message>> fit_request_images(const images::ImageNormalizer& normalizer,
                                                       std::span<const Message> messages) {
  const std::size_t n = count_images(messages);
  if (n == 0) return std::nullopt;
  // Over the vendor's image count the oldest go: the model most needs what it saw last.
  const std::size_t cap = std::max<std::size_t>(1, normalizer.budget().max_images_per_request);
  std::size_t to_omit = n > cap ? n - cap : 0;
  const std::size_t sent = n - to_omit;
  std::optional<std::vector<Message>> fitted;
  auto blocks_of = [&](std::size_t m) -> std::vector<ContentBlock>& {
    if (!fitted) fitted.emplace(messages.begin(), messages.end());
    return *images_holder((*fitted)[m]);
  };
  for (std::size_t m = 0; m < messages.size(); ++m) {
    const auto* content = images_holder(messages[m]);
    if (content == nullptr) continue;
    for (std::size_t i = 0; i < content->size(); ++i) {
      const auto* image = std::get_if<ImageBlock>(&(*content)[i]);
      if (image == nullptr) continue;
      if (to_omit > 0) {
        --to_omit;
        blocks_of(m)[i] = TextBlock{"[Image omitted from this request: the conversation holds " +
                                    std::to_string(n) + " images and the provider takes at most " +
                                    std::to_string(cap) + " per request; the latest " +
                                    std::to_string(cap) + " are sent.]"};
        continue;
      }
      // History's own strings: renormalize() skips the alphabet check of a text it has seen.
      images::NormalizedImage out =
          normalizer.renormalize(image->mime_type, image->data_base64, sent);
      if (out.outcome == images::Outcome::unchanged) continue;
      if (out.outcome == images::Outcome::refused) {
        blocks_of(m)[i] = TextBlock{std::move(out.note)};
      } else {
        blocks_of(m)[i] = ImageBlock{std::move(out.mime_type), std::move(out.data_base64)};
      }
    }
  }
  return fitted;
}

}  // namespace agentkit::detail
