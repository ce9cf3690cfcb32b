// The compatibility-profile vocabulary (REQ-PROV-12): one shared list of names per wire API, so a
// catalog row can only set flags the wire actually reads — a misspelt key fails the load instead
// of being ignored (the Go port shipped overrides nobody read).
#include <algorithm>
#include <array>

#include "agentkit/catalog/catalog.hpp"
#include "strict_reader.hpp"

namespace agentkit::catalog {
namespace {

enum class Kind : std::uint8_t { boolean, text, object, choice };

struct CompatKey {
  std::string_view name;
  Kind kind;
  // For Kind::choice: the accepted values, '|'-separated.
  std::string_view choices = {};
};

// Keys every profile understands.
//   thinking_level_map: level -> wire value, written by the loader from the row's "thinking".
constexpr std::array kCommonKeys = {
    CompatKey{"thinking_level_map", Kind::object},
};

// supports_long_cache_retention: the long prompt-cache lifetime is accepted (false on Together,
// Cloudflare, Nvidia; REQ-PROV-12). Only the wires that can ask for one read it.
constexpr CompatKey kLongCacheRetention{"supports_long_cache_retention", Kind::boolean};

// structured_output / structured_output_with_tools: how the model gives a typed answer (issue 17;
// read by answer_support below, which the loop and every wire consult).
constexpr CompatKey kStructuredOutput{"structured_output", Kind::choice, "native|tool"};
constexpr CompatKey kStructuredOutputWithTools{"structured_output_with_tools", Kind::boolean};

// Chat Completions: the thirteen flags of REQ-PROV-12, each needed by a named vendor.
constexpr std::array kCompletionsKeys = {
    CompatKey{"use_max_tokens", Kind::boolean},
    CompatKey{"supports_store", Kind::boolean},
    CompatKey{"supports_developer_role", Kind::boolean},
    CompatKey{"supports_reasoning_effort", Kind::boolean},
    CompatKey{"thinking_format", Kind::choice, "openai|deepseek|together|openrouter|chat-template"},
    CompatKey{"thinking_token_budget_field", Kind::text},
    CompatKey{"supports_strict_tools", Kind::boolean},
    CompatKey{"supports_finish_reason", Kind::boolean},
    CompatKey{"allows_null_assistant_content", Kind::boolean},
    CompatKey{"allows_user_after_tool_result", Kind::boolean},
    CompatKey{"requires_tool_result_name", Kind::boolean},
    CompatKey{"cache_control_format", Kind::choice, "none|anthropic"},
    kLongCacheRetention,
    CompatKey{"structured_output", Kind::choice, "native|json_object|tool"},
    kStructuredOutputWithTools,
};

constexpr std::array kResponsesKeys = {
    CompatKey{"supports_store", Kind::boolean},
    CompatKey{"supports_service_tier", Kind::boolean},
    CompatKey{"supports_encrypted_reasoning", Kind::boolean},
    kLongCacheRetention,
    kStructuredOutput,
    kStructuredOutputWithTools,
};

// Anthropic rows speak either effort levels (adaptive thinking) or integer token budgets, never
// one translated into the other (post-PRD ruling).
constexpr std::array kAnthropicKeys = {
    CompatKey{"thinking_style", Kind::choice, "adaptive|budget"},
    kLongCacheRetention,
    kStructuredOutput,
    kStructuredOutputWithTools,
};

// Gemini and Ollama take everything from the row itself: whether thinking can be sent, switched
// off, or given as a level or a budget is what the row's "thinking" map says.
// (Typed answers are the exception: whether the row's model has a native mode is a compat fact.)
constexpr std::array kGoogleKeys = {kStructuredOutput, kStructuredOutputWithTools};
constexpr std::array kOllamaKeys = {kStructuredOutput, kStructuredOutputWithTools};

// Every name valid for each API (common keys first), for listing in errors and compat_keys().
template <std::size_t N>
constexpr auto names_with_common(const std::array<CompatKey, N>& own) {
  std::array<std::string_view, N + kCommonKeys.size()> out{};
  std::size_t i = 0;
  for (const auto& k : kCommonKeys) out[i++] = k.name;
  for (const auto& k : own) out[i++] = k.name;
  return out;
}
constexpr auto kCompletionsNames = names_with_common(kCompletionsKeys);
constexpr auto kResponsesNames = names_with_common(kResponsesKeys);
constexpr auto kAnthropicNames = names_with_common(kAnthropicKeys);
constexpr auto kGoogleNames = names_with_common(kGoogleKeys);
constexpr auto kOllamaNames = names_with_common(kOllamaKeys);

std::span<const CompatKey> own_keys(std::string_view api) {
  if (api == kOpenAiCompletions) return kCompletionsKeys;
  if (api == kOpenAiResponses) return kResponsesKeys;
  if (api == kAnthropicMessages) return kAnthropicKeys;
  if (api == kGoogleGenerativeAi) return kGoogleKeys;
  if (api == kOllamaChat) return kOllamaKeys;
  return {};
}

const CompatKey* find_key(std::string_view api, std::string_view name) {
  for (const auto& k : kCommonKeys) {
    if (k.name == name) return &k;
  }
  for (const auto& k : own_keys(api)) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

bool is_choice(std::string_view choices, std::string_view value) {
  while (!choices.empty()) {
    auto bar = choices.find('|');
    if (choices.substr(0, bar) == value) return true;
    if (bar == std::string_view::npos) break;
    choices.remove_prefix(bar + 1);
  }
  return false;
}

Result<void> check_value(const CompatKey& key, const json::Value& value, const std::string& path) {
  switch (key.kind) {
    case Kind::boolean:
      if (!value.is_bool()) return detail::shape_error(path, "expected true or false");
      return {};
    case Kind::text:
      if (!value.is_string()) return detail::shape_error(path, "expected a string");
      return {};
    case Kind::object:
      if (!value.is_object()) return detail::shape_error(path, "expected an object");
      return {};
    case Kind::choice:
      if (!value.is_string() || !is_choice(key.choices, value.as_string())) {
        std::string listed(key.choices);
        std::replace(listed.begin(), listed.end(), '|', ',');
        return detail::shape_error(path, "expected one of " + listed);
      }
      return {};
  }
  return {};
}

std::string joined(std::span<const std::string_view> names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace

std::span<const std::string_view> compat_keys(std::string_view api) noexcept {
  if (api == kOpenAiCompletions) return kCompletionsNames;
  if (api == kOpenAiResponses) return kResponsesNames;
  if (api == kAnthropicMessages) return kAnthropicNames;
  if (api == kGoogleGenerativeAi) return kGoogleNames;
  if (api == kOllamaChat) return kOllamaNames;
  return {};
}

Result<void> validate_compat(std::string_view api, const json::Value& compat, std::string_view path) {
  const json::Object* members = compat.get_object();
  if (members == nullptr) return detail::shape_error(path, "expected an object");
  auto known = compat_keys(api);
  if (known.empty()) return {};  // a plugin's wire: its profile is its own business
  for (const auto& m : *members) {
    std::string member_path = std::string(path) + "." + m.key;
    const CompatKey* key = find_key(api, m.key);
    if (key == nullptr) {
      return detail::shape_error(member_path, "unknown compat key for api '" + std::string(api) +
                                                  "'; known keys: " + joined(known))
          .with_detail("api", std::string(api));
    }
    if (auto ok = check_value(*key, m.value, member_path); !ok) return ok.error();
  }
  return {};
}

}  // namespace agentkit::catalog
