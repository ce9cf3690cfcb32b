// Reading what authorization servers and protected resources send us: the WWW-Authenticate
// challenge (RFC 9110 §11.6.1, RFC 6750 §3), protected-resource metadata (RFC 9728),
// authorization-server metadata (RFC 8414), dynamic registration answers (RFC 7591) and token
// answers (RFC 6749 §5). All of it is untrusted: bounded, strict where a field matters, tolerant of
// members we do not read (both metadata formats are extensible by registry).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::mcp::detail {

// Longest WWW-Authenticate value read, and most auth-params in it: a real one is a few hundred
// bytes with three or four parameters.
inline constexpr std::size_t kMaxChallengeBytes = 8 * 1024;
inline constexpr std::size_t kMaxChallengeParams = 64;
// Largest metadata, registration or token document read (real ones are a few KiB).
inline constexpr std::size_t kMaxOAuthDocumentBytes = 256 * 1024;

struct AuthChallenge {
  std::string scheme;  // as sent; compare case-insensitively
  std::string token68{};
  std::vector<std::pair<std::string, std::string>> params{};  // names lowercased
  std::optional<std::string> param(std::string_view name) const;
};

// Every challenge in one or more WWW-Authenticate values (joined by ", ").
Result<std::vector<AuthChallenge>> parse_www_authenticate(std::string_view value);
// The Bearer challenge among them, if any.
std::optional<AuthChallenge> bearer_challenge(const std::vector<AuthChallenge>& challenges);

struct ResourceMetadata {
  std::string resource;
  std::vector<std::string> authorization_servers;
  std::vector<std::string> scopes_supported;
};
Result<ResourceMetadata> parse_resource_metadata(std::string_view body);

struct ServerMetadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;
  std::vector<std::string> code_challenge_methods_supported;
  std::vector<std::string> scopes_supported;
  // Empty when the metadata does not say (RFC 8414 §2: then client_secret_basic is the default).
  std::vector<std::string> token_endpoint_auth_methods_supported;
  bool client_id_metadata_document_supported = false;
  bool authorization_response_iss_parameter_supported = false;  // RFC 9207 §3
};
Result<ServerMetadata> parse_server_metadata(std::string_view body);

struct Registration {
  std::string client_id;
  std::string client_secret;
  std::string token_endpoint_auth_method;  // as registered; empty when the answer omits it
};
Result<Registration> parse_registration(std::string_view body);

struct TokenAnswer {
  std::string access_token;
  std::string refresh_token;
  std::optional<std::int64_t> expires_in;
  std::string scope;
};
Result<TokenAnswer> parse_token_answer(std::string_view body);
// The `error` (and `error_description`) of an OAuth error answer; empty when it is not one.
std::string oauth_error_of(std::string_view body);

}  // namespace agentkit::mcp::detail
