// Canned reply bytes: how a reply is cut into pieces for delivery, and which reply answers a
// request-direction scenario. Both recorders (node's and ours) follow the same rules, so the SDK
// and our decoder receive the same bytes in the same pieces.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agentkit::difftest {

// "whole": one piece. "every:N": N-byte pieces. "inside_utf8": a cut right after the first byte
// of every multi-byte UTF-8 character, so each such character arrives split across two pieces
// (the decoder must not turn a half character into U+FFFD).
std::vector<std::string_view> split_body(std::string_view body, std::string_view split);

// True when the captured request asks for a streamed reply: "stream":true in the body, Gemini's
// :streamGenerateContent method, or an Ollama body without "stream":false (its server streams by
// default).
bool wants_stream(std::string_view wire, std::string_view target, std::string_view body);

// The file (under canned/<wire>/) answering a request-direction scenario.
std::string request_reply_file(bool stream);

}  // namespace agentkit::difftest
