// agentkit/providers/headers.hpp — how the headers of a provider request are decided.
//
//   using namespace agentkit::providers;
//   HeaderOverrides wire = {{"content-type", "application/json"}, {"x-api-key", key}};
//   HeaderOverrides per_request = {{"x-api-key", std::nullopt}, {"X-Gw-Key", "k"}};  // nullopt deletes
//   std::array layers = {HeaderLayer{"provider default", &wire}, HeaderLayer{"per request", &per_request}};
//   auto headers = merge_headers(layers);   // content-type and X-Gw-Key; no x-api-key at all
//
// Layers are applied lowest first; the usual order is attribution < provider default (the wire's
// own headers and the credential) < catalog row < configuration < per request. Names compare
// case-insensitively and keep the spelling of the layer that set them last. A nullopt value deletes
// whatever a lower layer set (a gateway must be able to suppress the upstream x-api-key). An empty
// value is sent empty when a caller wrote it, but in a layer marked drop_empty_values (a credential
// or attribution that resolved to nothing) it is dropped instead of being sent blank. A name that is
// not an RFC 9110 token, a value with a control byte (CR and LF inject headers), and the framing
// headers the transport owns (Host, Content-Length, Transfer-Encoding, Connection) are refused.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/http/message.hpp"

namespace agentkit::providers {

// Name -> value; a nullopt value deletes the header (the same shape as StreamOptions::headers).
using HeaderOverrides = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct HeaderLayer {
  // Named in errors: "per request", "configuration", "catalog", "provider default", "attribution".
  std::string_view origin;
  const HeaderOverrides* entries = nullptr;
  // Values computed from something that may be missing: empty ones are dropped, not sent blank.
  bool drop_empty_values = false;
};

// Merges `layers` (lowest precedence first) into the headers to send, in first-set order.
// Errc::invalid_argument names the header and its layer, never its value (it may be a secret).
Result<http::Headers> merge_headers(std::span<const HeaderLayer> layers);

// Checks one header: a token name, no control byte in the value, not a framing header.
Result<void> check_header(std::string_view name, std::string_view value, std::string_view origin);

}  // namespace agentkit::providers
