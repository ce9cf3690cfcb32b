// Encoding a canonical request as a Gemini generateContent body.
//
//   RequestParts parts = encode_request(request, view, tool_bytes);
//   std::string body = whole_body(parts);              // {<prefix>,"contents":[...],"generationConfig":{...}}
//   std::string cached = cached_body("cachedContents/abc", parts);   // the prefix replaced by the name
//
// The body is laid out as two pieces so the explicit context cache can swap one for the other
// without re-encoding: `prefix` holds the members a CachedContent can carry (systemInstruction,
// tools, toolConfig — a request naming a cache must not repeat them) and `rest` everything else.
//
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../cache/tool_schema_cache.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"

namespace agentkit::providers::detail {
struct Splice;  // encoded_history.hpp
}  // namespace agentkit::providers::detail

namespace agentkit::providers::detail::gemini {

// Marks a Gemini thought the service returned without a thoughtSignature. Send-time repair turns
// unsigned thinking into visible text (rule 4); with this marker a same-model transcript keeps it
// as thinking, and the encoder leaves it out of the request (Gemini reads back only signed
// thoughts). Another model still sees it as text (rule 3).
inline constexpr std::string_view kUnsignedThoughtMarker = "agentkit:gemini-unsigned-thought";

struct RequestParts {
  // Comma-joined members, no braces: systemInstruction, tools, toolConfig. Empty when none.
  std::string prefix;
  // Comma-joined members, no braces: contents, generationConfig.
  std::string rest;
};

// `tool_bytes[i]` is the rendered declaration of request.tools[i] (render_tool, cached by level 3);
// `answer_schema`, when set, the lowered answer schema (generationConfig.responseJsonSchema).
// `write_contents`, when set, appends the contents array (the kept history) instead of encoding
// `view` whole.
RequestParts encode_request(const Request& request, std::span<const Message> view,
                            std::span<const ToolBytes> tool_bytes,
                            const ToolBytes& answer_schema = {},
                            const std::function<void(std::string&)>& write_contents = {});

// The contents of `segment`, each followed by ',' (EncodedHistory's items). `splices`, when set,
// gets the calls' long arguments written in them (the transcript's bytes, which a kept history
// references instead of keeping).
std::string contents_items(std::span<const Message> segment,
                           std::vector<Splice>* splices = nullptr);
// True when no content spans the boundary between the two messages.
bool contents_split(const Message& before, const Message& after);

// {"name","description","parametersJsonSchema"}: plain JSON Schema, as the SDK sends it.
std::string render_tool(const ToolSpec& tool);

std::string whole_body(const RequestParts& parts);
std::string cached_body(std::string_view cache_name, const RequestParts& parts);

// The HTTP path of a streamed call for `model_id` (relative to the base URL, which ends in the
// API version: ".../v1beta").
std::string stream_path(std::string_view model_id);

}  // namespace agentkit::providers::detail::gemini
