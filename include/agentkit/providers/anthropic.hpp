// agentkit/providers/anthropic.hpp — the anthropic-messages wire (Anthropic's Messages API, and the
// catalog rows that speak it: OpenRouter's anthropic/* models).
//
//   using namespace agentkit;
//   providers::WireOptions options;
//   options.anthropic.server_compaction = true;              // opt-in
//   auto client = providers::make_anthropic_messages_client(options);
//   registry.add("anthropic-messages", client);              // or providers::register_wires()
//
// Encoding: system as a block list carrying the level-1 breakpoint (a plain string when caching is
// off), tools as {name, description, input_schema} (the last established one marked), tool calls
// replayed with their argument bytes unchanged, a run of tool results packed into ONE user message
// of tool_result blocks with any image or text after all of them, thinking as the
// row's style says (adaptive + output_config.effort, or an integer budget), max_tokens always set
// (clamped from the catalog when the caller sets none). Decoding: SSE (message_start ...
// message_stop; an `error` event fails the call; a body without message_stop is truncated) or a
// whole JSON message; input_tokens already exclude cache reads and writes, so nothing is netted.
//
// Thread safety: the client accepts concurrent calls (wires.hpp).
#pragma once

#include <memory>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers {

// The Messages API version this wire speaks (the anthropic-version header).
inline constexpr std::string_view kAnthropicApiVersion = "2023-06-01";
// The server-side compaction beta.
inline constexpr std::string_view kAnthropicCompactionBeta = "compact-2026-01-12";

// A client for `anthropic-messages`. `pipeline` may be shared with other wires; nullptr builds
// one from options.transport.
std::shared_ptr<WireClient> make_anthropic_messages_client(const WireOptions& options = {},
                                                           std::shared_ptr<const RequestPipeline> pipeline = nullptr);

}  // namespace agentkit::providers
