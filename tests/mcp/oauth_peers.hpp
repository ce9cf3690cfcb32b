// Loopback peers for the OAuth tests: an authorization server (metadata, dynamic registration, an
// authorization endpoint that redirects, a token endpoint that checks PKCE and `resource`) and a
// protected MCP resource (our mcp::Server behind a front that checks bearer tokens and answers
// 401/403 challenges). Both are our http::HttpServer; knobs turn each rule into a misbehaviour.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/http/server.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/mcp/oauth.hpp"
#include "agentkit/mcp/server.hpp"

namespace agentkit::mcp_test {

// Query or form parameters, decoded.
std::map<std::string, std::string> form_params(std::string_view text);

struct IssuedToken {
  std::string scope;
  std::string resource;
  std::string client_id;
};

class AuthServer {
 public:
  AuthServer();
  ~AuthServer();
  std::string issuer() const;
  // The user's part: an `open` for LoopbackRedirect::authorizer that follows the authorization
  // endpoint's redirect to the loopback listener (rewriting the state when forge_state is set).
  std::function<void(std::string_view)> browser();

  // Knobs.
  std::string metadata_issuer;  // non-empty: the metadata names this issuer instead
  bool token_answers_html = false;
  bool offer_s256 = true;
  bool offer_registration = true;
  bool cimd_supported = false;
  bool forge_state = false;
  std::vector<std::string> auth_methods;  // token_endpoint_auth_methods_supported ({}: omitted)
  std::string issue_secret;               // non-empty: registration answers this client_secret
  bool advertise_iss = false;             // authorization_response_iss_parameter_supported
  std::string client_prefix = "client-";  // registered ids are this and a counter
  std::string robot_id, robot_secret;     // set: client_credentials grants for this client
  std::string iss_in_redirect;            // non-empty: the redirect carries this iss
  std::int64_t first_expires_in = 3600;   // expires_in of authorization_code grants
  std::int64_t refresh_expires_in = 3600;
  std::chrono::milliseconds refresh_delay{0};  // a slow refresh, so concurrent callers pile up
  bool refuse_refresh = false;                 // every refresh_token grant answered invalid_grant
  std::vector<std::string> scopes_supported{"mcp:tools"};

  // What happened.
  std::mutex mu;
  std::vector<std::map<std::string, std::string>> authorize_queries;
  std::vector<std::map<std::string, std::string>> token_forms;
  std::vector<std::string> registered_clients;
  std::vector<json::Value> registration_requests;  // the registration bodies, as sent
  std::vector<std::string> paths;                  // every request path, in order
  std::vector<std::string> authorization_headers;  // any Authorization header sent to this server
  std::map<std::string, IssuedToken> tokens;       // access token -> grant
  std::atomic<int> refresh_grants{0};
  std::atomic<int> code_grants{0};
  std::atomic<int> credential_grants{0};

  bool valid(const std::string& token, std::string* scope, std::string* resource);

 private:
  void handle(const http::ServerRequest& req, http::ResponseWriter& out);
  void token(const http::ServerRequest& req, http::ResponseWriter& out);
  struct Code {
    std::string challenge, client_id, redirect_uri, resource, scope;
  };
  std::map<std::string, Code> codes_;
  std::map<std::string, IssuedToken> refresh_;
  std::map<std::string, std::string> client_secrets_;  // registered client -> its issued secret
  int counter_ = 0;
  std::optional<http::HttpServer> server_;
};

class ProtectedServer {
 public:
  explicit ProtectedServer(AuthServer& auth);
  ~ProtectedServer();
  std::string url() const;  // the MCP endpoint, "<base>/mcp"
  std::string base() const;

  // Knobs.
  bool refuse_all = false;                    // every request 401, valid token or not
  bool name_metadata = true;                  // the challenge carries resource_metadata
  std::string challenge_scope = "mcp:tools";  // the challenge's scope ("" = none)
  std::string write_scope;        // non-empty: tools/call needs this scope too (step-up)
  bool step_up_forever = false;   // insufficient_scope whatever the token holds
  std::string metadata_resource;  // non-empty: the metadata claims this resource
  // Set: the resource now trusts this authorization server only (its metadata names it, and the
  // old server's tokens are refused), as when a deployment migrates.
  std::atomic<AuthServer*> moved_to{nullptr};

  std::mutex mu;
  std::vector<std::string> bearers_seen;  // every Authorization value received
  std::atomic<int> challenges{0};

 private:
  void handle(const http::ServerRequest& req, http::ResponseWriter& out);
  void forward(const http::ServerRequest& req, http::ResponseWriter& out);
  AuthServer& auth_;
  mcp::Server mcp_;
  std::optional<mcp::HttpService> upstream_;
  std::optional<http::HttpServer> front_;
};

}  // namespace agentkit::mcp_test
