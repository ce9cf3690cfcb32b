// Encoding a canonical request as an Ollama POST /api/chat body.
//
//   OllamaRequest r = encode_request(request, view, tool_bytes, ollama_options);
//   r.body;          // {"model":...,"messages":[...],"tools":[...],"options":{...},"stream":true}
//   r.unsupported;   // what was asked for and cannot be sent (a forced tool choice)
//
// Thread safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "../wire_common/encoded_history.hpp"
#include "agentkit/base/error.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/providers/ollama.hpp"

namespace agentkit::providers::detail::ollama {

// Marks thinking Ollama returned (it is never signed). Send-time repair turns unsigned thinking
// into visible text (rule 4); with this marker a same-model transcript keeps it as thinking and it
// goes back in the assistant message's "thinking" field. Another model sees it as text (rule 3).
inline constexpr std::string_view kThinkingMarker = "agentkit:ollama-thinking";

struct OllamaRequest {
  std::string body;
  std::vector<Error> unsupported;
};

// `tool_bytes[i]` is the rendered declaration of request.tools[i] (render_tool, cached by level 3).
// With `history` and `meter`, the messages kept from the session's previous request are reused.
OllamaRequest encode_request(const Request& request, std::span<const Message> view,
                             std::span<const ToolBytes> tool_bytes, const OllamaOptions& options,
                             const ToolBytes& answer_schema = {}, EncodedHistory* history = nullptr,
                             CacheMeter* meter = nullptr, HistoryPromise promise = {});

// {"type":"function","function":{"name","description","parameters"}} (the Chat Completions shape).
std::string render_tool(const ToolSpec& tool);
// The messages of `segment` as JSON text, each followed by ',': the items the request's kept
// history holds for them. `splices`, when set, gets the calls' long arguments written in them (the
// transcript's bytes, which a kept history references instead of keeping).
std::string message_items(std::span<const Message> segment, std::vector<Splice>* splices = nullptr);

inline constexpr std::string_view kChatPath = "/api/chat";

}  // namespace agentkit::providers::detail::ollama
