// Clamping what is sent against what the model supports: thinking levels (REQ-PROV-15) and
// max_tokens (REQ-CAT-04), plus the prompt-size estimate the latter needs.
#include <algorithm>
#include <limits>
#include <variant>

#include "agentkit/catalog/catalog.hpp"

namespace agentkit::catalog {
namespace {

bool supports(const Model& model, ThinkingLevel level) {
  return std::find(model.thinking_levels.begin(), model.thinking_levels.end(), level) != model.thinking_levels.end();
}

// The lowest supported level other than off.
std::optional<ThinkingLevel> floor_level(const Model& model) {
  for (auto level : model.thinking_levels) {
    if (level != ThinkingLevel::off) return level;
  }
  return std::nullopt;
}

std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return n / d + (n % d != 0 ? 1 : 0); }

// Adds without overflowing: an absurd transcript saturates at the maximum, which then clamps to 1.
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) return std::numeric_limits<std::int64_t>::max();
  return a + b;
}

std::int64_t text_tokens(std::size_t bytes, std::int64_t bytes_per_token) {
  constexpr auto kMax = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
  return ceil_div(static_cast<std::int64_t>(std::min(bytes, kMax)), bytes_per_token);
}

std::int64_t block_tokens(const ContentBlock& block, const TokenEstimateOptions& o, std::int64_t per_token) {
  if (const auto* t = std::get_if<TextBlock>(&block)) return text_tokens(t->text.size(), per_token);
  if (const auto* t = std::get_if<ThinkingBlock>(&block)) return text_tokens(t->thinking.size(), per_token);
  if (const auto* t = std::get_if<ToolUseBlock>(&block)) {
    return text_tokens(t->name.size() + t->input.bytes().size(), per_token);
  }
  if (std::holds_alternative<ImageBlock>(block)) return std::max<std::int64_t>(0, o.tokens_per_image);
  return 0;  // UnknownBlock: wires drop it when encoding
}

std::int64_t content_tokens(const std::vector<ContentBlock>& content, const TokenEstimateOptions& o, std::int64_t per_token) {
  std::int64_t n = 0;
  for (const auto& block : content) n = saturating_add(n, block_tokens(block, o, per_token));
  return n;
}

}  // namespace

std::optional<ThinkingLevel> clamp_thinking_level(const Model& model, ThinkingLevel requested) noexcept {
  if (model.thinking_levels.empty()) return std::nullopt;
  if (supports(model, requested)) return requested;
  if (requested == ThinkingLevel::off) return floor_level(model);
  // Upward first: a caller asking for more must never silently get less when more exists.
  for (auto level : model.thinking_levels) {
    if (level > requested) return level;
  }
  // Then downward, but never to off: a request for some thinking is never clamped to none.
  std::optional<ThinkingLevel> below;
  for (auto level : model.thinking_levels) {
    if (level < requested && level != ThinkingLevel::off) below = level;
  }
  return below;
}

std::optional<json::Value> thinking_wire_value(const Model& model, ThinkingLevel level) {
  if (!supports(model, level)) return std::nullopt;
  if (const json::Value* map = model.compat.find("thinking_level_map")) {
    if (const json::Value* v = map->find(to_string(level))) return *v;
  }
  return json::Value(std::string(to_string(level)));
}

std::int64_t clamp_max_tokens(const Model& model, std::optional<std::int64_t> requested,
                              std::int64_t estimated_prompt_tokens, const ClampOptions& options) noexcept {
  std::int64_t limit = requested.value_or(options.default_max_tokens);
  if (model.max_output_tokens > 0) limit = std::min(limit, model.max_output_tokens);
  if (model.context_window > 0) {
    // Every operand is clamped to [0, window] or [0, max] first, so no subtraction can overflow:
    // the smallest result is 0 - max.
    std::int64_t estimate = std::clamp<std::int64_t>(estimated_prompt_tokens, 0, model.context_window);
    std::int64_t margin = std::max<std::int64_t>(options.safety_margin, 0);
    std::int64_t available = (model.context_window - estimate) - margin;
    limit = std::min(limit, std::max<std::int64_t>(1, available));
  }
  return std::max<std::int64_t>(1, limit);
}

std::int64_t estimate_prompt_tokens(std::string_view system, std::span<const Message> messages,
                                    std::span<const ToolSpec> tools, const TokenEstimateOptions& options) {
  std::int64_t per_token = std::max<std::int64_t>(1, options.bytes_per_token);
  std::int64_t n = text_tokens(system.size(), per_token);
  for (const auto& tool : tools) {
    // The schema's serialised size is what the wire sends.
    n = saturating_add(n, text_tokens(tool.name.size() + tool.description.size(), per_token));
    n = saturating_add(n, text_tokens(json::dump(tool.input_schema).size(), per_token));
  }
  for (const auto& message : messages) {
    if (const auto* u = std::get_if<UserMessage>(&message)) {
      n = saturating_add(n, content_tokens(u->content, options, per_token));
    } else if (const auto* a = std::get_if<AssistantMessage>(&message)) {
      n = saturating_add(n, content_tokens(a->content, options, per_token));
    } else if (const auto* r = std::get_if<ToolResultMessage>(&message)) {
      n = saturating_add(n, content_tokens(r->content, options, per_token));
    }
  }
  return n;
}

}  // namespace agentkit::catalog
