#include "oauth_flow.hpp"

#include <algorithm>
#include <random>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::mcp::detail {
namespace {

constexpr int kHttpOk = 200;
constexpr int kHttpCreated = 201;
// Refused tokens in a row before the request fails: the first refusal may be an expired or
// revoked token, a second one after a fresh login means the server will never accept us.
constexpr int kMaxRefusals = 2;
// PKCE verifier and state entropy (RFC 7636 §7.1 asks for 32 octets for the verifier).
constexpr std::size_t kVerifierBytes = 32;
constexpr std::size_t kStateBytes = 16;

std::string random_url_token(std::size_t bytes) {
  std::random_device device;  // the OS's CSPRNG on the platforms we build for
  std::string raw;
  raw.reserve(bytes);
  for (std::size_t i = 0; i < bytes; ++i) raw += static_cast<char>(device() & 0xFFU);
  return base64::encode(raw, base64::Alphabet::url);
}

std::string pkce_challenge(std::string_view verifier) {
  const auto digest = sha256(verifier);
  return base64::encode(
      std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()),
      base64::Alphabet::url);
}

void add_param(std::string& form, std::string_view name, std::string_view value) {
  if (!form.empty()) form += '&';
  form += name;
  form += '=';
  form += http::form_encode(value);
}

// The token endpoint authentication method for a client with `secret` (RFC 6749 §2.3.1; RFC 8414
// §2: a server that lists none supports client_secret_basic). Basic is preferred, as OAuth says
// every server must support it; a client without a secret is public ("none").
std::string auth_method_for(const ServerMetadata& server, const std::string& secret) {
  if (secret.empty()) return "none";
  const auto& listed = server.token_endpoint_auth_methods_supported;
  const auto offers = [&](std::string_view m) {
    return std::find(listed.begin(), listed.end(), m) != listed.end();
  };
  if (listed.empty() || offers("client_secret_basic")) return "client_secret_basic";
  if (offers("client_secret_post")) return "client_secret_post";
  return "none";
}

bool is_loopback(const http::Url& url) {
  return url.host == "localhost" || url.host == "::1" || url.host.rfind("127.", 0) == 0;
}

std::string origin_of(const http::Url& url) { return url.scheme + "://" + url.authority(); }

// A resource's URL as RFC 8707 wants it: no fragment (the parser drops it), lowercase scheme
// and host.
std::string canonical(const http::Url& url) {
  std::string out = origin_of(url);
  if (url.path != "/") out += url.path;
  if (url.query) out += "?" + *url.query;
  return out;
}

// True when `resource` names `server` itself or a parent of it on the same origin.
bool resource_covers(const http::Url& resource, const http::Url& server) {
  if (origin_of(resource) != origin_of(server)) return false;
  if (resource.path == "/" || resource.path == server.path) return true;
  std::string parent = resource.path;
  if (parent.back() != '/') parent += '/';
  return server.path.rfind(parent, 0) == 0;
}

// True when `a` and `b` name the same authorization server (RFC 8414 issuers compare as URLs:
// scheme and host case-insensitively, no fragment).
bool same_server(const std::string& a, const std::string& b) {
  auto ua = http::parse_url(a);
  auto ub = http::parse_url(b);
  if (!ua || !ub) return a == b;
  return canonical(*ua) == canonical(*ub);
}

// True when a client registered with redirect `registered` may log in with redirect `now`: the
// same URI, or loopback ones that differ only in their port (RFC 8252 §7.3: an authorization
// server allows any port on a loopback redirect, which a desktop program picks afresh each run).
bool compatible_redirect(const std::string& registered, const std::string& now) {
  if (registered == now) return true;
  auto a = http::parse_url(registered);
  auto b = http::parse_url(now);
  return a && b && is_loopback(*a) && a->scheme == b->scheme && a->host == b->host &&
         a->path == b->path && a->query == b->query;
}

std::vector<std::string> split_scopes(std::string_view scope) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < scope.size()) {
    while (i < scope.size() && scope[i] == ' ') ++i;
    std::size_t j = i;
    while (j < scope.size() && scope[j] != ' ') ++j;
    if (j > i) out.emplace_back(scope.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string out;
  for (const auto& s : scopes) {
    if (std::find(scopes.begin(), scopes.end(), s) != scopes.begin() + (&s - scopes.data()))
      continue;
    out += (out.empty() ? "" : " ") + s;
  }
  return out;
}

bool is_json(const http::Response& resp) {
  const auto type = std::string(resp.headers().get("Content-Type").value_or(""));
  const auto media = trim_ows(std::string_view(type).substr(0, type.find(';')));
  return iequals(media, "application/json") ||
         (media.size() > 5 && iequals(media.substr(media.size() - 5), "+json"));
}

std::string media_or_none(const http::Response& resp) {
  const auto type = std::string(resp.headers().get("Content-Type").value_or("no Content-Type"));
  return std::string(trim_ows(std::string_view(type).substr(0, type.find(';'))));
}

}  // namespace

OAuthSession::OAuthSession(OAuthContext context) : context_(std::move(context)) {
  if (!context_.store) context_.store = std::make_shared<MemoryTokenStore>();
}

Error OAuthSession::error(Errc code, std::string message) const {
  return make_error(code, context_.label + ": " + std::move(message))
      .with_detail("server", context_.server);
}

void OAuthSession::load_once() {
  if (loaded_) return;
  loaded_ = true;
  auto stored = context_.store->load(context_.server);
  if (!stored || !*stored) return;
  auto server = http::parse_url(context_.resource_url);
  auto resource = http::parse_url((*stored)->resource);
  if (!server || !resource || !resource_covers(*resource, *server)) {
    // A token is only ever sent to the resource it was issued for.
    if (context_.note)
      context_.note("the stored OAuth token was issued for another resource and is not used");
    return;
  }
  OAuthTokens tokens = std::move(**stored);
  const OAuthSettings& s = context_.settings;
  // A pre-registered client's secret is the embedder's: it comes from the settings, not the store.
  if (!s.client_id.empty() && tokens.client_id == s.client_id)
    tokens.client_secret = s.client_secret;
  if (!tokens.registered_redirect_uri.empty() && !tokens.client_id.empty() &&
      !tokens.issuer.empty()) {
    registration_ = tokens;
    registration_->access_token.clear();
    registration_->refresh_token.clear();
  }
  current_ = std::move(tokens);
}

bool OAuthSession::expiring(const OAuthTokens& tokens) const {
  return tokens.expires_at &&
         std::chrono::system_clock::now() + context_.refresh_margin >= *tokens.expires_at;
}

Result<std::optional<std::string>> OAuthSession::bearer(agentkit::stop_token stop) {
  std::string seen;
  {
    std::lock_guard lock(mu_);
    load_once();
    if (!current_) return std::optional<std::string>();
    if (!expiring(*current_) || current_->refresh_token.empty())
      return std::optional<std::string>(current_->access_token);
    seen = current_->access_token;
  }
  std::lock_guard flight(flight_mu_);
  {
    std::lock_guard lock(mu_);
    if (current_ && current_->access_token != seen)
      return std::optional<std::string>(current_->access_token);
  }
  if (auto ok = refresh(stop); !ok) {
    if (stop.stop_requested()) return std::move(ok).error();
    // A refused refresh sends the request without a token: its 401 starts a fresh login.
    if (context_.note)
      context_.note("refreshing the OAuth token failed (" + ok.error().message +
                    "); logging in again");
    std::lock_guard lock(mu_);
    current_.reset();
    return std::optional<std::string>();
  }
  std::lock_guard lock(mu_);
  return std::optional<std::string>(current_->access_token);
}

Result<std::optional<std::string>> OAuthSession::current_bearer() {
  std::lock_guard lock(mu_);
  load_once();
  if (!current_) return std::optional<std::string>();
  return std::optional<std::string>(current_->access_token);
}

Result<void> OAuthSession::recover(int status, const std::optional<AuthChallenge>& challenge,
                                   const std::optional<std::string>& sent,
                                   agentkit::stop_token stop) {
  std::lock_guard flight(flight_mu_);
  bool can_refresh = false;
  {
    std::lock_guard lock(mu_);
    load_once();
    const std::optional<std::string> now =
        current_ ? std::optional<std::string>(current_->access_token) : std::nullopt;
    if (now != sent && now) return {};  // another caller already has a new token
    can_refresh = status == kHttpUnauthorized && current_ && !current_->refresh_token.empty();
  }
  if (status == kHttpUnauthorized && sent && authorization_server_moved(challenge, stop)) {
    can_refresh = false;  // the refresh token belongs to the old authorization server
  }
  if (can_refresh) {
    if (auto ok = refresh(stop); ok) return {};
    if (stop.stop_requested())
      return error(Errc::cancelled, "the OAuth token refresh was cancelled");
  }
  return authorize_fully(challenge, stop);
}

bool OAuthSession::authorization_server_moved(const std::optional<AuthChallenge>& challenge,
                                              agentkit::stop_token stop) {
  std::string before;
  {
    std::lock_guard lock(mu_);
    if (discovered_) {
      before = discovered_->resource.authorization_servers.front();
    } else if (current_ && !current_->issuer.empty()) {
      before = current_->issuer;  // tokens of an earlier run: the store says who issued them
    } else if (registration_) {
      before = registration_->issuer;
    }
  }
  if (before.empty()) return false;
  // A refused token may mean the resource now trusts another authorization server (SEP-2352):
  // its metadata says so. Credentials are bound to the server that issued them, so everything
  // learnt from the old one is forgotten and the flow starts again at the new one.
  auto now = fetch_resource_metadata(challenge, stop);
  if (!now || same_server(now->authorization_servers.front(), before)) return false;
  if (context_.note)
    context_.note("the protected resource now names authorization server " +
                  now->authorization_servers.front() + " (was " + before +
                  "); logging in there with a new client registration");
  {
    std::lock_guard lock(mu_);
    discovered_.reset();
    current_.reset();
    registration_.reset();
  }
  // Void for this resource now: a later run must not load them again.
  if (auto forgotten = context_.store->save(context_.server, std::nullopt);
      !forgotten && context_.note)
    context_.note("forgetting the old authorization server's tokens failed: " +
                  forgotten.error().message);
  return true;
}

Result<http::Response> OAuthSession::get_json(const std::string& url, agentkit::stop_token stop) {
  http::Request req{.method = "GET", .url = url};
  req.headers.add("Accept", "application/json");
  req.headers.add("MCP-Protocol-Version", "2025-11-25");
  return context_.transport->send(req, stop);
}

Result<ResourceMetadata> OAuthSession::fetch_resource_metadata(
    const std::optional<AuthChallenge>& challenge, agentkit::stop_token stop) {
  auto server = http::parse_url(context_.resource_url);
  if (!server)
    return error(Errc::invalid_argument, "its URL does not parse: " + server.error().message);
  std::vector<std::string> candidates;
  if (challenge) {
    if (auto named = challenge->param("resource_metadata")) candidates.push_back(*named);
  }
  const std::string root = origin_of(*server) + "/.well-known/oauth-protected-resource";
  if (server->path != "/") candidates.push_back(root + server->path);
  candidates.push_back(root);
  std::string tried;
  for (const auto& url : candidates) {
    if (auto parsed = http::parse_url(url); !parsed) {
      tried += (tried.empty() ? "" : "; ") + url + ": not an http(s) URL";
      continue;
    }
    auto resp = get_json(url, stop);
    if (!resp) {
      if (stop.stop_requested())
        return error(Errc::cancelled, "fetching " + url + " was cancelled");
      tried += (tried.empty() ? "" : "; ") + url + ": " + resp.error().message;
      continue;
    }
    auto body = resp->read_all(kMaxOAuthDocumentBytes);
    if (!body || resp->status() != kHttpOk) {
      tried += (tried.empty() ? "" : "; ") + url + ": HTTP " + std::to_string(resp->status());
      continue;
    }
    auto meta = parse_resource_metadata(*body);
    if (!meta) return error(Errc::protocol_error, url + ": " + meta.error().message);
    auto resource = http::parse_url(meta->resource);
    if (!resource || !resource_covers(*resource, *server)) {
      return error(Errc::protocol_error, "its protected-resource metadata at " + url +
                                             " is for \"" + meta->resource.substr(0, 200) +
                                             "\", not for " + context_.resource_url +
                                             "; refusing to authorize for another resource");
    }
    return meta;
  }
  return error(Errc::unauthenticated,
               "asks for authorization but its protected-resource metadata could not be read (" +
                   tried + ")");
}

Result<ServerMetadata> OAuthSession::fetch_server_metadata(const std::string& issuer,
                                                           agentkit::stop_token stop) {
  auto url = http::parse_url(issuer);
  if (!url)
    return error(Errc::protocol_error,
                 "authorization server \"" + issuer.substr(0, 200) + "\" is not an http(s) URL");
  if (!url->is_https() && !is_loopback(*url)) {
    return error(Errc::protocol_error, "authorization server " + issuer +
                                           " is not https:// (only loopback may use http)");
  }
  const std::string origin = origin_of(*url);
  const std::string path = url->path == "/" ? std::string() : url->path;
  std::vector<std::string> candidates;
  candidates.push_back(origin + "/.well-known/oauth-authorization-server" + path);
  candidates.push_back(origin + "/.well-known/openid-configuration" + path);
  if (!path.empty()) candidates.push_back(origin + path + "/.well-known/openid-configuration");
  std::string tried;
  for (const auto& candidate : candidates) {
    auto resp = get_json(candidate, stop);
    if (!resp) {
      if (stop.stop_requested())
        return error(Errc::cancelled, "fetching " + candidate + " was cancelled");
      tried += (tried.empty() ? "" : "; ") + candidate + ": " + resp.error().message;
      continue;
    }
    auto body = resp->read_all(kMaxOAuthDocumentBytes);
    if (!body || resp->status() != kHttpOk) {
      tried += (tried.empty() ? "" : "; ") + candidate + ": HTTP " + std::to_string(resp->status());
      continue;
    }
    auto meta = parse_server_metadata(*body);
    if (!meta) return error(Errc::protocol_error, candidate + ": " + meta.error().message);
    // RFC 8414 §3.3: metadata for another issuer is an attack (mix-up), not a redirect.
    auto named = http::parse_url(meta->issuer);
    if (!named || canonical(*named) != canonical(*url)) {
      return error(Errc::protocol_error, "the authorization server metadata at " + candidate +
                                             " is for issuer \"" + meta->issuer.substr(0, 200) +
                                             "\", not \"" + issuer + "\"; refusing it");
    }
    // PKCE guards the authorization code; the client_credentials grant has none.
    const auto& methods = meta->code_challenge_methods_supported;
    if (context_.settings.grant == OAuthGrant::authorization_code &&
        std::find(methods.begin(), methods.end(), "S256") == methods.end()) {
      return error(Errc::unsupported,
                   "authorization server " + issuer +
                       " does not list PKCE S256 in code_challenge_methods_supported; refusing to "
                       "authorize without it");
    }
    for (const std::string* endpoint :
         {&meta->authorization_endpoint, &meta->token_endpoint, &meta->registration_endpoint}) {
      if (endpoint->empty()) continue;
      auto e = http::parse_url(*endpoint);
      if (!e || (!e->is_https() && !is_loopback(*e))) {
        return error(Errc::protocol_error, "authorization server " + issuer + " names endpoint \"" +
                                               endpoint->substr(0, 200) +
                                               "\", which is not an https:// URL");
      }
    }
    return meta;
  }
  return error(Errc::unauthenticated, "the metadata of authorization server " + issuer +
                                          " could not be read (" + tried + ")");
}

Result<void> OAuthSession::identify_client(Discovered& found, agentkit::stop_token stop) {
  const OAuthSettings& s = context_.settings;
  if (!s.client_id.empty()) {
    found.client_id = s.client_id;
    found.client_secret = s.client_secret;
    found.auth_method = auth_method_for(found.server, found.client_secret);
    return {};
  }
  if (reusable_registration(found.server.issuer)) {
    // Registered at this server in an earlier run (the store kept it): the same client again.
    std::lock_guard lock(mu_);
    found.client_id = registration_->client_id;
    found.client_secret = registration_->client_secret;
    found.auth_method = registration_->token_endpoint_auth_method.empty()
                            ? auth_method_for(found.server, found.client_secret)
                            : registration_->token_endpoint_auth_method;
    found.registered_redirect_uri = registration_->registered_redirect_uri;
    if (context_.note)
      context_.note("using the OAuth client registered earlier at " + found.server.issuer);
    return {};
  }
  if (!s.client_metadata_url.empty() && found.server.client_id_metadata_document_supported) {
    found.client_id = s.client_metadata_url;
    return {};
  }
  if (found.server.registration_endpoint.empty()) {
    return error(Errc::unauthenticated,
                 "authorization server " + found.server.issuer +
                     " offers no dynamic registration; set a client id in the server's "
                     "\"oauth\" settings");
  }
  if (s.redirect_uri.empty())
    return error(Errc::invalid_argument, "needs an OAuth redirect_uri to register a client");
  json::Object meta;
  meta.append_unique("client_name", s.client_name);
  meta.append_unique("redirect_uris", json::Array{json::Value(s.redirect_uri)});
  meta.append_unique("grant_types",
                     json::Array{json::Value("authorization_code"), json::Value("refresh_token")});
  meta.append_unique("response_types", json::Array{json::Value("code")});
  meta.append_unique("token_endpoint_auth_method", "none");
  // SEP-837: a loopback redirect is a native application's, anything else a web one's.
  auto redirect = http::parse_url(s.redirect_uri);
  meta.append_unique("application_type", redirect && is_loopback(*redirect) ? "native" : "web");
  http::Request req{.method = "POST", .url = found.server.registration_endpoint};
  req.headers.add("Content-Type", "application/json");
  req.headers.add("Accept", "application/json");
  req.body = json::dump(json::Value(std::move(meta)));
  auto resp = context_.transport->send(req, stop);
  if (!resp)
    return error(resp.error().code,
                 "client registration at " + req.url + " failed: " + resp.error().message);
  auto body = resp->read_all(kMaxOAuthDocumentBytes);
  if (!body)
    return error(body.error().code,
                 "reading the registration answer failed: " + body.error().message);
  if (resp->status() != kHttpCreated && resp->status() != kHttpOk) {
    std::string why = oauth_error_of(*body);
    return error(Errc::unauthenticated, "client registration at " + req.url + " answered HTTP " +
                                            std::to_string(resp->status()) +
                                            (why.empty() ? "" : ": " + why));
  }
  auto reg = parse_registration(*body);
  if (!reg) return error(Errc::protocol_error, reg.error().message);
  found.client_id = reg->client_id;
  found.client_secret = reg->client_secret;
  found.registered_redirect_uri = s.redirect_uri;
  // The method the registration settled on wins; else what the metadata offers.
  found.auth_method = reg->token_endpoint_auth_method.empty() || found.client_secret.empty()
                          ? auth_method_for(found.server, found.client_secret)
                          : reg->token_endpoint_auth_method;
  if (context_.note) context_.note("registered OAuth client at " + req.url);
  return {};
}

Result<OAuthSession::Discovered> OAuthSession::discover(
    const std::optional<AuthChallenge>& challenge, agentkit::stop_token stop) {
  {
    std::lock_guard lock(mu_);
    if (discovered_) return *discovered_;
  }
  Discovered found;
  auto resource = fetch_resource_metadata(challenge, stop);
  if (!resource) return std::move(resource).error();
  found.resource = std::move(*resource);
  auto server = fetch_server_metadata(found.resource.authorization_servers.front(), stop);
  if (!server) return std::move(server).error();
  found.server = std::move(*server);
  if (auto ok = identify_client(found, stop); !ok) return std::move(ok).error();
  std::lock_guard lock(mu_);
  discovered_ = found;
  return found;
}

std::string OAuthSession::scope_for(const std::optional<AuthChallenge>& challenge,
                                    const Discovered& found) const {
  std::vector<std::string> scopes;
  std::optional<std::string> asked = challenge ? challenge->param("scope") : std::nullopt;
  if (asked) {
    scopes = split_scopes(*asked);
    // A step-up keeps what was granted before and adds what the server now asks for.
    std::lock_guard lock(mu_);
    if (current_) {
      auto had = split_scopes(current_->scope);
      scopes.insert(scopes.begin(), had.begin(), had.end());
    }
  } else if (!context_.settings.scopes.empty()) {
    scopes = context_.settings.scopes;
  } else {
    scopes = found.resource.scopes_supported;
  }
  return join_scopes(scopes);
}

Result<void> OAuthSession::client_credentials(const std::optional<AuthChallenge>& challenge,
                                              agentkit::stop_token stop) {
  if (context_.settings.client_id.empty() || context_.settings.client_secret.empty()) {
    return error(Errc::invalid_argument,
                 "uses the client_credentials grant, which needs both a client_id and a "
                 "client_secret in its OAuth settings");
  }
  auto found = discover(challenge, stop);
  if (!found) return std::move(found).error();
  const std::string scope = scope_for(challenge, *found);
  const std::string& resource = found->resource.resource;
  std::string form;
  add_param(form, "grant_type", "client_credentials");
  add_param(form, "resource", resource);
  if (!scope.empty()) add_param(form, "scope", scope);
  auto answer = token_request(found->server.token_endpoint, std::move(form), found->client_id,
                              found->client_secret, found->auth_method, stop);
  if (!answer) return std::move(answer).error();
  if (answer->scope.empty()) answer->scope = scope;
  if (context_.note)
    context_.note("obtained an OAuth token (client credentials) from " + found->server.issuer);
  return adopt(*answer, client_of(*found));
}

Result<void> OAuthSession::authorize_fully(const std::optional<AuthChallenge>& challenge,
                                           agentkit::stop_token stop) {
  if (context_.settings.grant == OAuthGrant::client_credentials)
    return client_credentials(challenge, stop);
  if (!context_.authorize) {
    return error(Errc::unauthenticated,
                 "requires an OAuth login; set ClientOptions::authorize (for a desktop program, "
                 "mcp::LoopbackRedirect::authorizer)");
  }
  if (context_.settings.redirect_uri.empty()) {
    return error(Errc::invalid_argument,
                 "requires an OAuth login but its settings have no redirect_uri");
  }
  auto found = discover(challenge, stop);
  if (!found) return std::move(found).error();
  const std::string verifier = random_url_token(kVerifierBytes);
  const std::string state = random_url_token(kStateBytes);
  const std::string scope = scope_for(challenge, *found);
  const std::string& resource = found->resource.resource;
  std::string query;
  add_param(query, "response_type", "code");
  add_param(query, "client_id", found->client_id);
  add_param(query, "redirect_uri", context_.settings.redirect_uri);
  add_param(query, "code_challenge", pkce_challenge(verifier));
  add_param(query, "code_challenge_method", "S256");
  add_param(query, "state", state);
  add_param(query, "resource", resource);
  if (!scope.empty()) add_param(query, "scope", scope);
  const std::string& endpoint = found->server.authorization_endpoint;
  AuthorizationRequest ask{context_.server,
                           endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + query,
                           state, context_.settings.redirect_uri};
  auto redirect = context_.authorize(ask, stop);
  if (!redirect)
    return error(redirect.error().code,
                 "the OAuth login did not complete: " + redirect.error().message);
  if (redirect->state != state) {
    return error(Errc::unauthenticated,
                 "the OAuth redirect carried the wrong state (a forged or stale redirect); "
                 "the code was not used");
  }
  if (redirect->code.empty())
    return error(Errc::unauthenticated, "the OAuth redirect carried no code");
  // RFC 9207: the issuer named in the redirect, compared as a plain string, tells a mix-up
  // attack (a code from another authorization server) from the real answer.
  if (redirect->iss.empty() ? found->server.authorization_response_iss_parameter_supported
                            : redirect->iss != found->server.issuer) {
    return error(
        Errc::unauthenticated,
        "the OAuth redirect's issuer (iss) " +
            (redirect->iss.empty() ? std::string("is missing") : "is not " + found->server.issuer) +
            "; the code was not used");
  }
  std::string form;
  add_param(form, "grant_type", "authorization_code");
  add_param(form, "code", redirect->code);
  add_param(form, "redirect_uri", context_.settings.redirect_uri);
  add_param(form, "code_verifier", verifier);
  add_param(form, "resource", resource);
  auto answer = token_request(found->server.token_endpoint, std::move(form), found->client_id,
                              found->client_secret, found->auth_method, stop);
  if (!answer) return std::move(answer).error();
  if (answer->scope.empty()) answer->scope = scope;
  if (context_.note) context_.note("obtained an OAuth token from " + found->server.issuer);
  return adopt(*answer, client_of(*found));
}

Result<void> OAuthSession::refresh(agentkit::stop_token stop) {
  OAuthTokens had;
  {
    std::lock_guard lock(mu_);
    if (!current_ || current_->refresh_token.empty())
      return error(Errc::unauthenticated, "has no refresh token");
    had = *current_;
  }
  if (had.token_endpoint.empty() || had.client_id.empty() ||
      had.token_endpoint_auth_method.empty()) {
    // A store that kept only the tokens: find the endpoint and the client again.
    auto found = discover(std::nullopt, stop);
    if (!found) return std::move(found).error();
    if (had.token_endpoint.empty()) had.token_endpoint = found->server.token_endpoint;
    if (had.issuer.empty()) had.issuer = found->server.issuer;
    if (had.client_id.empty() || had.client_id == found->client_id) {
      had.client_id = found->client_id;
      had.client_secret = found->client_secret;
      had.token_endpoint_auth_method = found->auth_method;
      had.registered_redirect_uri = found->registered_redirect_uri;
    }
  }
  std::string form;
  add_param(form, "grant_type", "refresh_token");
  add_param(form, "refresh_token", had.refresh_token);
  add_param(form, "resource", had.resource);
  const std::string method =
      had.token_endpoint_auth_method.empty() ? "none" : had.token_endpoint_auth_method;
  auto answer = token_request(had.token_endpoint, std::move(form), had.client_id, had.client_secret,
                              method, stop);
  if (!answer) return std::move(answer).error();
  // RFC 6749 §6: an answer without a new refresh token keeps the old one.
  if (answer->refresh_token.empty()) answer->refresh_token = had.refresh_token;
  if (answer->scope.empty()) answer->scope = had.scope;
  if (context_.note) context_.note("refreshed the OAuth token");
  return adopt(*answer, std::move(had));
}

Result<TokenAnswer> OAuthSession::token_request(const std::string& endpoint, std::string form,
                                                const std::string& id, const std::string& secret,
                                                const std::string& method,
                                                agentkit::stop_token stop) {
  http::Request req{.method = "POST", .url = endpoint};
  if (method == "client_secret_basic" && !secret.empty()) {
    // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64'd.
    req.headers.add("Authorization", "Basic " + base64::encode(http::form_encode(id) + ":" +
                                                               http::form_encode(secret)));
  } else {
    add_param(form, "client_id", id);
    if (method == "client_secret_post" && !secret.empty()) add_param(form, "client_secret", secret);
  }
  req.headers.add("Content-Type", "application/x-www-form-urlencoded");
  req.headers.add("Accept", "application/json");
  req.body = std::move(form);
  auto resp = context_.transport->send(req, stop);
  if (!resp)
    return error(resp.error().code,
                 "the token endpoint " + endpoint + " failed: " + resp.error().message);
  auto body = resp->read_all(kMaxOAuthDocumentBytes);
  if (!body)
    return error(body.error().code,
                 "reading the token endpoint's answer failed: " + body.error().message);
  if (resp->status() != kHttpOk) {
    std::string why = oauth_error_of(*body);
    return error(Errc::unauthenticated, "the token endpoint " + endpoint + " answered HTTP " +
                                            std::to_string(resp->status()) +
                                            (why.empty() ? "" : ": " + why));
  }
  if (!is_json(*resp)) {
    return error(Errc::protocol_error, "the token endpoint " + endpoint + " answered " +
                                           media_or_none(*resp) +
                                           ", not JSON (is it a login page?)");
  }
  auto answer = parse_token_answer(*body);
  if (!answer) return error(Errc::protocol_error, answer.error().message);
  return answer;
}

OAuthTokens OAuthSession::client_of(const Discovered& found) {
  OAuthTokens t;
  t.resource = found.resource.resource;
  t.client_id = found.client_id;
  t.token_endpoint = found.server.token_endpoint;
  t.issuer = found.server.issuer;
  t.client_secret = found.client_secret;
  t.token_endpoint_auth_method = found.auth_method;
  t.registered_redirect_uri = found.registered_redirect_uri;
  return t;
}

bool OAuthSession::reusable_registration(const std::string& issuer) const {
  std::lock_guard lock(mu_);
  return registration_ && same_server(registration_->issuer, issuer) &&
         compatible_redirect(registration_->registered_redirect_uri,
                             context_.settings.redirect_uri);
}

Result<void> OAuthSession::adopt(const TokenAnswer& answer, OAuthTokens client) {
  OAuthTokens tokens = std::move(client);
  tokens.access_token = answer.access_token;
  tokens.refresh_token = answer.refresh_token;
  tokens.expires_at.reset();
  if (answer.expires_in)
    tokens.expires_at = std::chrono::system_clock::now() + std::chrono::seconds(*answer.expires_in);
  tokens.scope = answer.scope;
  OAuthTokens saved = tokens;
  // A pre-registered client's secret stays in the embedder's settings, not in a second place.
  if (saved.registered_redirect_uri.empty()) saved.client_secret.clear();
  if (auto stored = context_.store->save(context_.server, saved); !stored) {
    return error(stored.error().code, "storing the OAuth token failed: " + stored.error().message);
  }
  std::lock_guard lock(mu_);
  if (!tokens.registered_redirect_uri.empty()) {
    registration_ = tokens;
    registration_->access_token.clear();
    registration_->refresh_token.clear();
  }
  current_ = std::move(tokens);
  return {};
}

Result<http::Response> send_authorized(http::HttpTransport& transport, OAuthSession* oauth,
                                       const std::function<http::Request()>& build,
                                       agentkit::stop_token stop, bool may_recover) {
  if (oauth == nullptr) return transport.send(build(), stop);
  int refusals = 0;
  int step_ups = 0;
  while (true) {
    http::Request req = build();
    auto token = may_recover ? oauth->bearer(stop) : oauth->current_bearer();
    if (!token) return std::move(token).error();
    if (*token) req.headers.set("Authorization", "Bearer " + **token);
    auto resp = transport.send(req, stop);
    if (!resp) return resp;
    const int status = resp->status();
    if (!may_recover || (status != kHttpUnauthorized && status != kHttpForbidden)) return resp;
    std::optional<AuthChallenge> challenge;
    std::string header;
    for (auto v : resp->headers().get_all("WWW-Authenticate"))
      header += (header.empty() ? "" : ", ") + std::string(v);
    if (auto parsed = parse_www_authenticate(header); parsed) challenge = bearer_challenge(*parsed);
    if (status == kHttpForbidden) {
      if (!challenge ||
          challenge->param("error") != std::optional<std::string>("insufficient_scope"))
        return resp;
      if (++step_ups > oauth->max_step_ups()) {
        return make_error(Errc::unauthenticated,
                          oauth->label() + " still answers 403 insufficient_scope after " +
                              std::to_string(oauth->max_step_ups()) + " step-up authorizations")
            .with_detail("http_status", "403");
      }
    } else if (*token && ++refusals >= kMaxRefusals) {
      return make_error(Errc::unauthenticated,
                        oauth->label() +
                            " refused a freshly obtained OAuth token again (HTTP 401 "
                            "loop); check the server's authorization setup")
          .with_detail("http_status", "401");
    }
    resp->discard();
    if (auto ok = oauth->recover(status, challenge, *token, stop); !ok)
      return std::move(ok).error();
  }
}

}  // namespace agentkit::mcp::detail
