// agentkit/providers/openai.hpp — the two OpenAI wires: `openai-completions` (Chat Completions,
// spoken by OpenAI-compatible hosts: OpenRouter, DeepSeek, Groq, Together, Moonshot, xAI, vLLM,
// llama.cpp, LM Studio, ...) and `openai-responses` (OpenAI's Responses API, Azure OpenAI).
//
//   using namespace agentkit;
//   auto chat = providers::make_openai_completions_client();   // WireOptions defaults
//   auto responses = providers::make_openai_responses_client();
//   registry.add("openai-completions", chat);                  // or providers::register_wires()
//
// Two wires, not one class with a mode flag: messages vs items, `call_id` vs the
// composite `call_id|item_id`, reasoning replay, caching parameters and service-tier billing differ.
//
// Completions: "OpenAI-compatible" is a profile, not a base URL. The row's compat
// object overrides flags inferred from the vendor and host (use_max_tokens, supports_store,
// supports_developer_role, supports_reasoning_effort, thinking_format, thinking_token_budget_field,
// supports_strict_tools, supports_long_cache_retention, supports_finish_reason,
// allows_null_assistant_content, allows_user_after_tool_result, requires_tool_result_name,
// cache_control_format). Tool results are N role:"tool" messages keyed by tool_call_id, a failed
// call's text prefixed "Error: "; argument bytes travel as the JSON string they arrived as;
// prompt_tokens include cached tokens, which are netted out once, read from
// prompt_tokens_details.cached_tokens, prompt_cache_hit_tokens or a top-level cached_tokens.
//
// Responses: instructions + input items; tools flat ({type, name, description, parameters,
// strict}); a call's canonical id is "call_id|item_id" and a function_call_output names only the
// call id; reasoning items are replayed with their id and encrypted content; there is no stop
// parameter, so stop sequences are reported unsupported (an ErrorEvent), never dropped silently;
// a served service tier scales the cost (flex 0.5x, priority 2x).
//
// Both: level 0 sends Request::session_id as prompt_cache_key (64 code points) where the vendor
// accepts it, and the affinity header everywhere; level 1 is automatic on OpenAI.
//
// Thread safety: clients accept concurrent calls (wires.hpp).
#pragma once

#include <memory>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers {

std::shared_ptr<WireClient> make_openai_completions_client(const WireOptions& options = {},
                                                           std::shared_ptr<const RequestPipeline> pipeline = nullptr);
std::shared_ptr<WireClient> make_openai_responses_client(const WireOptions& options = {},
                                                         std::shared_ptr<const RequestPipeline> pipeline = nullptr);

}  // namespace agentkit::providers
