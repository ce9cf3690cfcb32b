// Our decoder's view of a reply, in the same shape the node producers write for the SDK's view:
//   {"text": <text blocks joined>, "thinking": <thinking blocks joined>,
//    "tool_calls": [{"id","name","arguments": <parsed>, "arguments_bytes": "<exact bytes>"}],
//    "stop_reason": <the provider's own stop string>, "usage": {"input_tokens","output_tokens",
//    "cache_read_tokens","cache_write_tokens","reasoning_tokens"}, "error": <bool>}
// Usage is canonical: input excludes cached tokens, output includes reasoning (message.hpp).
//
// Thread safety: a pure function.
#pragma once

#include "agentkit/core/message.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::difftest {

json::Value view_of(const AssistantMessage& message);

}  // namespace agentkit::difftest
