// The OAuth 2.1 flow behind an MCP HTTP connection (see agentkit/mcp/oauth.hpp for the rules),
// and the request loop that attaches the bearer, reacts to 401/403 challenges and bounds retries.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agentkit/base/stop_token.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/mcp/oauth.hpp"
#include "oauth_wire.hpp"

namespace agentkit::mcp::detail {

// The statuses by which a server refuses a request's authorization.
inline constexpr int kHttpUnauthorized = 401;
inline constexpr int kHttpForbidden = 403;

struct OAuthContext {
  std::string server;        // configured name (the token store key)
  std::string label;         // "MCP server 'x'"
  std::string resource_url;  // the MCP endpoint the tokens are for
  OAuthSettings settings;
  Authorize authorize;
  std::shared_ptr<OAuthTokenStore> store;
  std::shared_ptr<http::HttpTransport> transport;
  std::chrono::seconds refresh_margin{60};
  int max_step_ups = 2;
  // Receives what the flow did, for diagnostics(). Never given a token.
  std::function<void(std::string)> note;
};

class OAuthSession {
 public:
  explicit OAuthSession(OAuthContext context);

  // The access token for the next request to the resource: the current one, refreshed first when
  // it expires within the margin; nullopt before the first login.
  Result<std::optional<std::string>> bearer(agentkit::stop_token stop);
  // The current access token as it is: no refresh, never waits for one in progress.
  Result<std::optional<std::string>> current_bearer();
  // The resource answered 401 (or 403 insufficient_scope) to a request that carried `sent`
  // (nullopt: none). Obtains a better token: a refresh, or the whole flow. Single-flight: when
  // another caller already replaced `sent`, returns at once.
  Result<void> recover(int status, const std::optional<AuthChallenge>& challenge,
                       const std::optional<std::string>& sent, agentkit::stop_token stop);
  int max_step_ups() const { return context_.max_step_ups; }
  const std::string& label() const { return context_.label; }

 private:
  struct Discovered {
    ResourceMetadata resource;
    ServerMetadata server;
    std::string client_id;
    std::string client_secret;
    // How the token endpoint is told who we are: "client_secret_basic", "client_secret_post" or
    // "none" (client_id in the form, no secret).
    std::string auth_method = "none";
    // The redirect_uri of a dynamic registration made (or reused) here; empty otherwise.
    std::string registered_redirect_uri;
  };

  void load_once();
  bool expiring(const OAuthTokens& tokens) const;
  Result<void> refresh(agentkit::stop_token stop);
  // True (and discovery and tokens forgotten) when the resource's metadata now names another
  // authorization server than the one this session logged in at.
  bool authorization_server_moved(const std::optional<AuthChallenge>& challenge,
                                  agentkit::stop_token stop);
  Result<void> authorize_fully(const std::optional<AuthChallenge>& challenge,
                               agentkit::stop_token stop);
  // The client_credentials grant: the pre-registered id and secret traded for a token.
  Result<void> client_credentials(const std::optional<AuthChallenge>& challenge,
                                  agentkit::stop_token stop);
  Result<Discovered> discover(const std::optional<AuthChallenge>& challenge,
                              agentkit::stop_token stop);
  Result<ResourceMetadata> fetch_resource_metadata(const std::optional<AuthChallenge>& challenge,
                                                   agentkit::stop_token stop);
  Result<ServerMetadata> fetch_server_metadata(const std::string& issuer,
                                               agentkit::stop_token stop);
  Result<void> identify_client(Discovered& found, agentkit::stop_token stop);
  std::string scope_for(const std::optional<AuthChallenge>& challenge,
                        const Discovered& found) const;
  // Sends `form` to `endpoint`, identifying the client by `id` and, per `method`, `secret`.
  Result<TokenAnswer> token_request(const std::string& endpoint, std::string form,
                                    const std::string& id, const std::string& secret,
                                    const std::string& method, agentkit::stop_token stop);
  // Keeps the tokens of `answer` with `client` (the non-token fields: resource, client, issuer,
  // token endpoint), in memory and in the store.
  Result<void> adopt(const TokenAnswer& answer, OAuthTokens client);
  // The non-token fields of tokens obtained through `found`.
  static OAuthTokens client_of(const Discovered& found);
  // True when a stored dynamic registration may identify us at `issuer` (same server, a
  // compatible redirect).
  bool reusable_registration(const std::string& issuer) const;
  Result<http::Response> get_json(const std::string& url, agentkit::stop_token stop);
  Error error(Errc code, std::string message) const;

  OAuthContext context_;
  std::mutex flight_mu_;   // one refresh or login at a time
  mutable std::mutex mu_;  // guards the fields below
  bool loaded_ = false;
  std::optional<OAuthTokens> current_;
  std::optional<Discovered> discovered_;
  // The dynamic registration the stored tokens were issued to (client and issuer fields only),
  // kept when the tokens are dropped so a new login reuses it; none once the resource moved.
  std::optional<OAuthTokens> registration_;
};

// Sends `build()` with the bearer, and on a 401 or a 403 insufficient_scope recovers and sends
// again, bounded: a token refused twice is a "401 loop" error; at most max_step_ups step-ups.
// `oauth` may be null (no OAuth: one plain send). With `may_recover` false the current bearer is
// sent once and a challenge is answered as it is: a notification (notifications/cancelled sent
// while a login is in progress, say) must never start or wait for a login.
Result<http::Response> send_authorized(http::HttpTransport& transport, OAuthSession* oauth,
                                       const std::function<http::Request()>& build,
                                       agentkit::stop_token stop, bool may_recover = true);

}  // namespace agentkit::mcp::detail
