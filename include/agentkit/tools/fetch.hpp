// agentkit/tools/fetch.hpp — fetch_url behind the SSRF guard.
//
//   using namespace agentkit;
//   tools::FetchOptions fo;
//   fo.tls = openssl::make_tls_provider();                 // https:// needs TLS (AGENTKIT_WITH_OPENSSL)
//   auto page = tools::fetch_url({.url = "https://example.com/"}, fo, stop);
//   if (page) std::cout << page->status << ' ' << page->body.size() << '\n';
//
//   AgentDefinition def;
//   def.tools.direct = tools::coding_tools(ws);
//   def.tools.direct.push_back(tools::fetch_url_tool(fo));  // opt-in: NOT in coding_tools()
//
// The rules:
// - https:// only, unless FetchOptions::allow_http. Every other scheme is refused.
// - The SSRF guard refuses any destination that is not a public address (address.hpp's
//   classifier: loopback, private, link-local, CGNAT, unique-local, multicast, reserved and
//   unspecified ranges; IPv4-mapped/compatible/NAT64/6to4 IPv6 forms are unmapped first, so
//   `[::ffff:10.0.0.1]` is 10.0.0.1). It checks three times: an IP-literal host before any I/O;
//   EVERY address a name resolves to (one private answer among public ones refuses the request,
//   rather than trying the public one); and the concrete address just before each TCP connect
//   (HttpOptions::before_connect), with no lookup in between, so a DNS rebind cannot slip
//   through. fetch_url never uses a proxy (the proxy would resolve the name where the guard cannot
//   see it), whatever HTTP_PROXY says.
// - Redirects (301, 302, 303, 307, 308) are followed by fetch_url itself, at most max_redirects
//   (5) hops; every hop goes through the scheme rule and the whole guard again. 303, and 301/302
//   after a POST, continue as GET without a body (what browsers do). The caller's headers are
//   dropped as soon as a hop leaves the first URL's origin (scheme, host, port) and stay dropped.
// - The body is read incrementally and reading stops at max_body_bytes (512 KB): a larger (or
//   endless) body is cut there and marked truncated, never read whole first.
// - The time limit covers the whole call (all hops); each read waits at most the time left.
//
// Thread safety: fetch_url is reentrant; each call builds its own client. FetchOptions is a value
// (its resolver and TLS provider must allow concurrent use).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/tool.hpp"
#include "agentkit/http/message.hpp"
#include "agentkit/http/resolver.hpp"
#include "agentkit/http/stream.hpp"
#include "agentkit/tools/address.hpp"

namespace agentkit::tools {

struct FetchOptions {
  // Allow plain http:// . Default: https only.
  bool allow_http = false;
  // Bytes of body returned at most (512 KB); reading stops there.
  std::size_t max_body_bytes = 512 * 1024;
  // Redirect hops followed at most (5); one more is an error.
  int max_redirects = 5;
  // Time limit when the call gives none (30 s).
  std::chrono::milliseconds default_timeout{30'000};
  // Largest time limit a call may ask for.
  std::chrono::milliseconds max_timeout{300'000};
  // Exact addresses the guard lets through although they are not public — e.g. an internal
  // service the embedder means to expose, or a test's loopback server. An IPv4 entry also covers
  // its IPv4-mapped IPv6 form. Empty: none (the default; every non-public address is refused).
  std::vector<IpAddress> permitted_addresses{};
  // Name resolution. nullptr: the system resolver (getaddrinfo).
  std::shared_ptr<http::Resolver> resolver{};
  // TLS for https://. nullptr: https:// fails naming AGENTKIT_WITH_OPENSSL.
  std::shared_ptr<http::TlsProvider> tls{};
  std::string user_agent = "agentkit-cpp fetch_url";
};

struct FetchRequest {
  std::string url{};
  std::string method = "GET";
  // Sent on the first origin only (see above). Host, Content-Length, Transfer-Encoding and
  // Connection are set by the client and refused here.
  http::Headers headers{};
  std::string body{};
  // nullopt: FetchOptions::default_timeout.
  std::optional<std::chrono::milliseconds> timeout{};
};

struct FetchResult {
  int status = 0;
  std::string reason{};
  // The URL that answered (after redirects).
  std::string final_url{};
  int redirects = 0;
  http::Headers headers{};
  // At most max_body_bytes of the body.
  std::string body{};
  // True when the body was longer than max_body_bytes and was cut.
  bool truncated = false;
  std::chrono::milliseconds duration{0};
};

// The stable codes put in Error::detail("code").
inline constexpr std::string_view kAddressNotAllowed = "address_not_allowed";
inline constexpr std::string_view kSchemeNotAllowed = "scheme_not_allowed";
inline constexpr std::string_view kTooManyRedirects = "too_many_redirects";

// Errors: permission_denied (code address_not_allowed or scheme_not_allowed, with details
// "host" and "address"); invalid_argument (a bad URL, method or header); limit_exceeded (code
// too_many_redirects); timeout; cancelled; unsupported (https:// without TLS); io_error and
// protocol_error from the connection.
Result<FetchResult> fetch_url(const FetchRequest& request, const FetchOptions& options = {},
                              agentkit::stop_token stop = {});

// The guard's verdict on one address (after unmapping): ok, or permission_denied naming the
// address, its class and `host`. Exposed for embedders that guard a transport of their own.
Result<void> check_fetch_address(const IpAddress& address, std::string_view host, const FetchOptions& options);

// fetch_url as a tool: url, method, headers, body, timeout_s. The model reads the status line,
// the final URL when redirected, the content type, then the body (a binary body is described,
// not shown) and a marker when it was cut. metadata: status, final_url, redirects, bytes,
// truncated, content_type, duration_ms. Not part of coding_tools(): add it knowingly.
ToolDefinition fetch_url_tool(FetchOptions options = {});

}  // namespace agentkit::tools
