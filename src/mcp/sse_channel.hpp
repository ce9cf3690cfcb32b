// The 2024-11-05 HTTP+SSE client transport: a GET opens an event stream whose first `endpoint`
// event names the URL to POST messages to; every answer and server message arrives on the stream.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "http_channel.hpp"

namespace agentkit::mcp::detail {

// Resolves an `endpoint` event's URI reference against the stream's URL (RFC 3986 §5.2, without
// dot-segment removal) and refuses one whose scheme, host or port differ from the stream's.
Result<std::string> resolve_sse_endpoint(std::string_view stream_url, std::string_view reference);

// `endpoint_timeout` bounds the wait for the stream's headers and its `endpoint` event.
std::unique_ptr<Channel> make_sse_channel(HttpEndpoint endpoint,
                                          std::chrono::milliseconds endpoint_timeout);

}  // namespace agentkit::mcp::detail
