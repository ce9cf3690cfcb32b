// The vendor's own words for a failure reported inside a reply body (an SSE `error` event, an
// error chunk, a failed response), so the one line a user needs reaches RunResult::error_message.
//
//   // {"type":"error","error":{"type":"insufficient_quota","message":"You exceeded ..."}}
//   Error e = vendor_error(event);   // provider_error, "insufficient_quota: You exceeded ..."
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "agentkit/base/error.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::providers::detail {

// `source` is the message itself (a string), an object with a "message" (prefixed by its "type",
// else its "code"), or an object wrapping one under "error" or "response.error" (Responses
// streams nest it though the documentation shows it flat). When no message is found, the JSON of
// `source` is quoted (shortened) rather than replaced by a generic phrase.
std::string vendor_error_text(const json::Value& source);
// vendor_error_text as a provider_error.
Error vendor_error(const json::Value& source);

}  // namespace agentkit::providers::detail
