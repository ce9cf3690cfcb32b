// The Streamable HTTP client transport: every message is its own POST to one endpoint; a request's
// answer comes back as application/json or as an SSE stream scoped to that request (progress and
// server-to-client messages first, then the answer). No GET stream and no resumption: a cut
// stream loses the request (2026-07-28), which the client re-issues with a new id.
#pragma once

#include <memory>
#include <string>

#include "agentkit/http/client.hpp"
#include "channel.hpp"
#include "oauth_flow.hpp"

namespace agentkit::mcp::detail {

struct HttpEndpoint {
  std::string url;
  http::Headers headers;  // configured headers (credentials), already interpolated and checked
  std::shared_ptr<http::HttpTransport> transport;
  // Bearer tokens and the 401/403 recovery; nullptr: no OAuth.
  std::shared_ptr<OAuthSession> oauth{};
};

std::unique_ptr<Channel> make_http_channel(HttpEndpoint endpoint);

}  // namespace agentkit::mcp::detail
