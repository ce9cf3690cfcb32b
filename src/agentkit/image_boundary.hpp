// Images at the history boundary: every image that enters history (tool results after
// after_tool_call, user input) passes one normaliser, and every request re-checks the images it
// replays against its own limits (an image that was fine alone can break the many-images rule
// later).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/images/normalize.hpp"

namespace agentkit::detail {

// Normalises each image block in place. A changed image is replaced (and followed by a text
// note when the model should know, e.g. the original and new size); an image that cannot be
// used keeps its original block and gains a note saying why; nothing is ever deleted.
void normalize_images_for_history(const images::ImageNormalizer& normalizer,
                                  std::vector<ContentBlock>& content);

// The messages of one request with every image fitted to that request's limits, or nullopt when
// all already fit (the common case: no copy). An image that cannot fit is replaced by its note
// in the request only; the history keeps it. Over the budget's image count, the oldest images are
// replaced by a note saying so, in the request only.
std::optional<std::vector<Message>> fit_request_images(const images::ImageNormalizer& normalizer,
                                                       std::span<const Message> messages);

}  // namespace agentkit::detail
