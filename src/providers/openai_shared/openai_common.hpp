// What the two OpenAI wires share: usage accounting (REQ-PROV-05 rules 1-2), the level-0 cache
// key decision, and the marker that lets unsigned same-model reasoning survive send-time repair.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::providers::detail {

// Chat Completions usage: prompt_tokens include cached reads (and, on gateways that report them,
// cache writes), so input = prompt - read - write, netted exactly once here (rule 1); the cached
// count is read from all three places vendors use (rule 2). Present members only overwrite.
void read_completions_usage(const json::Value& usage, Usage& out);
// Responses usage: input_tokens include input_tokens_details.cached_tokens.
void read_responses_usage(const json::Value& usage, Usage& out);

// Level 0: vendors whose API takes `prompt_cache_key` (an unknown parameter is a 400 on some
// OpenAI-compatible hosts, so it is not sent everywhere).
bool accepts_prompt_cache_key(const Model& model);

// The signature given to reasoning a Completions host returns in the clear (reasoning_content,
// reasoning): send-time repair rule 4 turns unsigned thinking into text every turn, which would
// make same-model replay of DeepSeek's reasoning_content unreachable (REQ-PROV-12 post-PRD trap).
// Rule 3 still strips it when the model changes.
inline constexpr std::string_view kClearReasoningSignature = "agentkit:clear-reasoning";

// The system message that declares tools added after tool results, on a host that would refuse a
// changed tool list mid-conversation: the tools' JSON declarations, one per line.
std::string prose_declaration(const std::vector<ToolBytes>& tools);

}  // namespace agentkit::providers::detail
