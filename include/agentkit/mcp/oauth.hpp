// agentkit/mcp/oauth.hpp — OAuth 2.1 authorization for remote MCP servers, as the MCP
// specification profiles it (2025-11-25 and 2026-07-28): how the user authorises, where tokens
// are kept, and a loopback redirect listener for desktop programs.
//
//   using namespace agentkit;
//   auto redirect = mcp::LoopbackRedirect::start().value();  // http://127.0.0.1:<port>/callback
//   mcp::ClientOptions options;
//   options.authorize = redirect.authorizer([](std::string_view url) { open_in_browser(url); });
//   mcp::HttpTarget target{.url = "https://mcp.example.com/mcp",
//                          .oauth = mcp::OAuthSettings{.redirect_uri = redirect.redirect_uri()}};
//   mcp::ServerConfig hosted{.name = "hosted", .transport = target};
//   auto client = mcp::Client::connect(hosted, options);          // logs in on the first 401
//
// The flow, on a 401 from the server: the `WWW-Authenticate` Bearer challenge names the
// protected-resource metadata (`resource_metadata`) and maybe a `scope`; without it the well-known
// locations are tried (RFC 9728: the path-suffixed one, then the root). The metadata's `resource`
// must be the server's own URL (or a parent of it on the same origin) and names the authorization
// server, whose metadata is read from the RFC 8414 location, then OpenID discovery; its `issuer`
// must be the one we asked for and it must offer PKCE S256. The client is identified by a
// pre-registered id (OAuthSettings::client_id), else a client ID metadata document URL when the
// server supports them, else dynamic registration (RFC 7591). The authorization request uses PKCE
// S256 and a fresh `state`, both checked; `resource` (RFC 8707) rides on every authorization and
// token request; the scope is the challenge's, else OAuthSettings::scopes, else the metadata's
// `scopes_supported`. A 403 with `error="insufficient_scope"` re-authorises with the wider scope,
// at most `max_step_ups` times per request; a token the server refuses twice in a row is a "401
// loop" error, never a retry storm.
//
// A refused token makes the flow read the protected-resource metadata again: when it names
// another authorization server than the one logged in at (a migration, SEP-2352), everything learnt
// from the old server (its metadata, the registration, the tokens) is forgotten and the flow starts
// again at the new one, registering there afresh; a pre-registered client_id is the embedder's and
// is kept.
//
// Tokens are refreshed before they expire (`refresh_margin`), one refresh at a time per server
// however many calls need it; they live in the OAuthTokenStore (memory by default, or the
// application's credential store through agentkit/mcp_credentials.hpp), keyed by server name and
// bound to the resource they were issued for: a stored token for another resource is never sent.
// With the tokens the store keeps the client they were issued to (a dynamic registration's id and
// secret) and the issuer, so a later run over the same store refreshes, or logs in again, as the
// same client without registering anew, and a resource that has moved to another authorization
// server since is noticed at its first refusal, before anything is sent to the old server.
// The access token goes only in the Authorization header of requests to the server's own endpoint
// (never to a metadata, registration or token endpoint, never to another origin) and never into
// an error message, note or log line.
//
// Every wait (the metadata fetches, the token exchange, the user's login) is bounded by the
// request that triggered it: its timeout or its stop token ends the flow.
//
// Thread safety: OAuthSettings and the requests are values. MemoryTokenStore and the stores an
// application writes are called from many threads at once. LoopbackRedirect's authorizer may be
// called from any thread; one authorization waits on it at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/base/stop_token.hpp"

namespace agentkit::mcp {

// How tokens are obtained. `authorization_code`: a person logs in through the browser (PKCE).
// `client_credentials` (the MCP extension io.modelcontextprotocol/oauth-client-credentials): a
// program with no person behind it trades its pre-registered `client_id` and `client_secret`
// straight for a token at the token endpoint; no browser, no redirect, no refresh token (a new
// token is asked for when the old one is refused).
enum class OAuthGrant : std::uint8_t { authorization_code, client_credentials };

// Per-server OAuth settings (from the `oauth` member of an `mcpServers` entry, or set in code).
struct OAuthSettings {
  // A client id registered with the authorization server beforehand; empty: a client ID metadata
  // document (below) when the server supports them, else dynamic registration.
  std::string client_id{};
  // The secret of the pre-registered client_id, for a confidential client; empty: a public
  // client. Sent to the token endpoint only, by the method its metadata offers
  // (client_secret_basic unless it lists only client_secret_post).
  std::string client_secret{};
  // The https:// URL of this application's client ID metadata document, used as the client id
  // when the authorization server says `client_id_metadata_document_supported`; empty: not used.
  std::string client_metadata_url{};
  // Scopes to ask for when the server's challenge names none; empty: the metadata's
  // `scopes_supported`.
  std::vector<std::string> scopes{};
  // Where the authorization server sends the browser back (LoopbackRedirect::redirect_uri() for a
  // desktop program). Required once a login is needed.
  std::string redirect_uri{};
  // The `client_name` sent with dynamic registration.
  std::string client_name = "agentkit-cpp";
  // client_credentials needs client_id and client_secret; it never registers and never asks the
  // user.
  OAuthGrant grant = OAuthGrant::authorization_code;
};

// What the user is asked to open: the authorization URL, and the state it must come back with.
struct AuthorizationRequest {
  std::string server;        // the MCP server's configured name
  std::string url;           // the authorization endpoint with every parameter
  std::string state;         // the value the redirect must carry back
  std::string redirect_uri;  // where the browser will be sent
};
// What the browser came back with (the redirect's query parameters).
struct AuthorizationRedirect {
  std::string code;
  std::string state;
  // The `iss` parameter (RFC 9207), empty when the redirect has none. When present it must equal
  // the authorization server's issuer exactly; a server whose metadata says
  // `authorization_response_iss_parameter_supported` must send it.
  std::string iss{};
};
// How the user authorises: show or open `request.url`, wait for the redirect, answer its code and
// state (an error when the user declined). Must return once `stop` fires.
using Authorize = std::function<Result<AuthorizationRedirect>(const AuthorizationRequest& request,
                                                              agentkit::stop_token stop)>;

// Tokens for one server. The token values are secrets: nothing in this library prints them.
struct OAuthTokens {
  std::string access_token;
  std::string refresh_token{};
  // When the access token stops working; nullopt: it does not say.
  std::optional<std::chrono::system_clock::time_point> expires_at{};
  std::string scope{};           // as granted (space-separated)
  std::string resource{};        // the resource (RFC 8707) the token was issued for
  std::string client_id{};       // the client the token belongs to (needed to refresh it)
  std::string token_endpoint{};  // where it is refreshed
  // The authorization server that issued the tokens (its metadata's `issuer`). When the
  // resource's metadata names another one, the resource has moved: the tokens and the client
  // registration are dropped unused, and nothing of them is sent to either server.
  std::string issuer{};
  // The secret of a client this library registered dynamically (RFC 7591), kept so a later run
  // refreshes and logs in as the same client; empty for a public client and for a pre-registered
  // OAuthSettings::client_id (its secret stays in the settings). A secret, like the tokens.
  std::string client_secret{};
  // How the client authenticates at the token endpoint: "none", "client_secret_basic" or
  // "client_secret_post"; empty: not known (found again from the metadata).
  std::string token_endpoint_auth_method{};
  // The redirect_uri a dynamic registration was made with; empty when the client was not
  // registered by this library (a pre-registered id, a client ID metadata document). A new login
  // reuses the registration when its redirect is this one, or a loopback one that differs only in
  // its port (RFC 8252 §7.3).
  std::string registered_redirect_uri{};
  friend bool operator==(const OAuthTokens&, const OAuthTokens&) = default;
};

// Where OAuth tokens are kept between calls and runs. `key` is the server's configured name.
class OAuthTokenStore {
 public:
  virtual ~OAuthTokenStore() = default;
  virtual Result<std::optional<OAuthTokens>> load(std::string_view key) = 0;
  // Stores `tokens` for `key`; nullopt forgets them.
  virtual Result<void> save(std::string_view key, const std::optional<OAuthTokens>& tokens) = 0;
};

// Tokens in memory: the default, gone when the process ends.
class MemoryTokenStore final : public OAuthTokenStore {
 public:
  MemoryTokenStore();
  ~MemoryTokenStore() override;
  Result<std::optional<OAuthTokens>> load(std::string_view key) override;
  Result<void> save(std::string_view key, const std::optional<OAuthTokens>& tokens) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Settings for LoopbackRedirect. Safe to copy.
struct LoopbackRedirectOptions {
  // Port on 127.0.0.1; 0 lets the system pick one (register the resulting redirect_uri()).
  std::uint16_t port = 0;
  // The redirect's path.
  std::string path = "/callback";
  // What the browser shows once the redirect has arrived.
  std::string success_page = "Authorization complete. You can close this window.";
};

// Listens on a loopback port for the authorization server's redirect (RFC 8252 §7.3), for
// programs with a browser at hand. The listener lives as long as this object.
class LoopbackRedirect {
 public:
  static Result<LoopbackRedirect> start(LoopbackRedirectOptions options = {});
  LoopbackRedirect(LoopbackRedirect&&) noexcept;
  LoopbackRedirect& operator=(LoopbackRedirect&&) noexcept;
  LoopbackRedirect(const LoopbackRedirect&) = delete;
  LoopbackRedirect& operator=(const LoopbackRedirect&) = delete;
  ~LoopbackRedirect();

  // "http://127.0.0.1:<port>/callback".
  std::string redirect_uri() const;
  // An Authorize that calls `open` with the URL, then waits for the redirect (or `stop`). A
  // redirect carrying `error` is an Errc::unauthenticated error naming it. The authorizer keeps
  // the listener alive.
  Authorize authorizer(std::function<void(std::string_view url)> open) const;

 private:
  struct State;
  explicit LoopbackRedirect(std::shared_ptr<State> state) noexcept;
  std::shared_ptr<State> state_;
};

}  // namespace agentkit::mcp
