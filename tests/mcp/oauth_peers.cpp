#include "oauth_peers.hpp"

#include <array>
#include <thread>

#include "agentkit/base/base64.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::mcp_test {
namespace {

constexpr std::string_view kUpstreamKey = "upstream-key";

std::string json_reply(const json::Object& members) { return json::dump(json::Value(members)); }

void respond_json(http::ResponseWriter& out, int status, const json::Object& members) {
  (void)out.respond(status, {{"Content-Type", "application/json"}}, json_reply(members));
}

json::Array strings(const std::vector<std::string>& items) {
  json::Array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

bool has_scope(const std::string& granted, const std::string& needed) {
  std::string padded = " " + granted + " ";
  std::size_t i = 0;
  while (i < needed.size()) {
    std::size_t j = needed.find(' ', i);
    if (j == std::string::npos) j = needed.size();
    if (j > i && padded.find(" " + needed.substr(i, j - i) + " ") == std::string::npos)
      return false;
    i = j + 1;
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> form_params(std::string_view text) {
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = text.find('&', i);
    if (end == std::string_view::npos) end = text.size();
    std::string pair(text.substr(i, end - i));
    for (auto& c : pair) {
      if (c == '+') c = ' ';
    }
    const std::size_t eq = pair.find('=');
    auto name = http::percent_decode(pair.substr(0, eq));
    auto value = http::percent_decode(eq == std::string::npos ? "" : pair.substr(eq + 1));
    if (name && value) out[*name] = *value;
    i = end + 1;
  }
  return out;
}

// ---- AuthServer --------------------------------------------------------------------------------

AuthServer::AuthServer() {
  auto started = http::HttpServer::start(
      {}, [this](const http::ServerRequest& req, http::ResponseWriter& out) { handle(req, out); });
  if (started) server_.emplace(std::move(*started));
}

AuthServer::~AuthServer() {
  if (server_) server_->stop();
}

std::string AuthServer::issuer() const { return server_->base_url(); }

bool AuthServer::valid(const std::string& token, std::string* scope, std::string* resource) {
  std::lock_guard lock(mu);
  auto it = tokens.find(token);
  if (it == tokens.end()) return false;
  *scope = it->second.scope;
  *resource = it->second.resource;
  return true;
}

void AuthServer::handle(const http::ServerRequest& req, http::ResponseWriter& out) {
  {
    std::lock_guard lock(mu);
    paths.push_back(req.path);
    if (auto a = req.headers.get("Authorization")) authorization_headers.emplace_back(*a);
  }
  if (req.path == "/.well-known/oauth-authorization-server") {
    json::Object meta;
    meta.append_unique("issuer", metadata_issuer.empty() ? issuer() : metadata_issuer);
    meta.append_unique("authorization_endpoint", issuer() + "/authorize");
    meta.append_unique("token_endpoint", issuer() + "/token");
    if (offer_registration) meta.append_unique("registration_endpoint", issuer() + "/register");
    meta.append_unique("response_types_supported", strings({"code"}));
    meta.append_unique("code_challenge_methods_supported",
                       strings(offer_s256 ? std::vector<std::string>{"plain", "S256"}
                                          : std::vector<std::string>{"plain"}));
    if (cimd_supported) meta.append_unique("client_id_metadata_document_supported", true);
    if (!auth_methods.empty())
      meta.append_unique("token_endpoint_auth_methods_supported", strings(auth_methods));
    if (advertise_iss) meta.append_unique("authorization_response_iss_parameter_supported", true);
    respond_json(out, 200, meta);
    return;
  }
  if (req.path == "/register" && req.method == "POST") {
    auto body = json::parse(req.body);
    std::string id = client_prefix + std::to_string(++counter_);
    {
      std::lock_guard lock(mu);
      registered_clients.push_back(id);
      if (!issue_secret.empty()) client_secrets_[id] = issue_secret;
      registration_requests.push_back(body ? *body : json::Value());
    }
    json::Object answer;
    answer.append_unique("client_id", id);
    if (!issue_secret.empty()) answer.append_unique("client_secret", issue_secret);
    if (body && body->find("redirect_uris"))
      answer.append_unique("redirect_uris", *body->find("redirect_uris"));
    respond_json(out, 201, answer);
    return;
  }
  if (req.path == "/authorize") {
    auto q = form_params(req.query.value_or(""));
    std::lock_guard lock(mu);
    authorize_queries.push_back(q);
    if (q["response_type"] != "code" || q["code_challenge_method"] != "S256" ||
        q["code_challenge"].empty()) {
      (void)out.respond(400, {{"Content-Type", "text/plain"}}, "PKCE S256 required");
      return;
    }
    std::string code = "code-" + std::to_string(++counter_);
    codes_[code] =
        Code{q["code_challenge"], q["client_id"], q["redirect_uri"], q["resource"], q["scope"]};
    std::string location = q["redirect_uri"] + "?code=" + code +
                           "&state=" + (forge_state ? "forged" : q["state"]) +
                           (iss_in_redirect.empty() ? "" : "&iss=" + iss_in_redirect);
    (void)out.respond(302, {{"Location", location}}, "");
    return;
  }
  if (req.path == "/token" && req.method == "POST") {
    token(req, out);
    return;
  }
  (void)out.respond(404, {{"Content-Type", "text/plain"}}, "not found");
}

void AuthServer::token(const http::ServerRequest& req, http::ResponseWriter& out) {
  auto form = form_params(req.body);
  // The client names itself in a Basic header (client_secret_basic, each half form-encoded) or in
  // the form; a client registered with a secret must present it (RFC 6749 §2.3, §6).
  const auto member = [&](const std::string& name) {
    auto it = form.find(name);
    return it == form.end() ? std::string() : it->second;
  };
  std::string client = member("client_id");
  std::string presented = member("client_secret");
  if (const auto basic = req.headers.get("Authorization"); basic && basic->starts_with("Basic ")) {
    if (auto pair = base64::decode(basic->substr(6));
        pair && pair->find(':') != std::string::npos) {
      const auto half = [](std::string_view text) {
        return form_params("v=" + std::string(text))["v"];
      };
      client = half(pair->substr(0, pair->find(':')));
      presented = half(pair->substr(pair->find(':') + 1));
    }
  }
  std::unique_lock lock(mu);
  if (auto secret = client_secrets_.find(client);
      secret != client_secrets_.end() && secret->second != presented) {
    token_forms.push_back(form);
    lock.unlock();
    respond_json(out, 401, {{"error", "invalid_client"}});
    return;
  }
  token_forms.push_back(form);
  if (token_answers_html) {
    lock.unlock();
    (void)out.respond(200, {{"Content-Type", "text/html"}}, "<html><body>Sign in</body></html>");
    return;
  }
  IssuedToken grant;
  std::int64_t expires_in = first_expires_in;
  if (form["grant_type"] == "authorization_code") {
    auto it = codes_.find(form["code"]);
    if (it == codes_.end()) {
      lock.unlock();
      respond_json(out, 400, {{"error", "invalid_grant"}});
      return;
    }
    Code code = it->second;
    codes_.erase(it);
    const auto digest = sha256(form["code_verifier"]);
    const std::string expected = base64::encode(
        std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()),
        base64::Alphabet::url);
    if (expected != code.challenge || client != code.client_id ||
        form["redirect_uri"] != code.redirect_uri || form["resource"] != code.resource) {
      lock.unlock();
      respond_json(out, 400,
                   {{"error", "invalid_grant"},
                    {"error_description", "PKCE, client, redirect or resource mismatch"}});
      return;
    }
    grant = IssuedToken{code.scope, code.resource, code.client_id};
    ++code_grants;
  } else if (form["grant_type"] == "refresh_token") {
    auto it = refresh_.find(form["refresh_token"]);
    // A refresh token is redeemed only by the client it was issued to.
    if (refuse_refresh || it == refresh_.end() || form["resource"] != it->second.resource ||
        client != it->second.client_id) {
      lock.unlock();
      respond_json(out, 400, {{"error", "invalid_grant"}});
      return;
    }
    grant = it->second;
    expires_in = refresh_expires_in;
    ++refresh_grants;
    if (refresh_delay.count() > 0) {
      lock.unlock();
      std::this_thread::sleep_for(refresh_delay);
      lock.lock();
    }
  } else if (form["grant_type"] == "client_credentials" && !robot_id.empty()) {
    const auto basic = req.headers.get("Authorization");
    auto pair = basic && basic->starts_with("Basic ") ? base64::decode(basic->substr(6))
                                                      : Result<std::string>(std::string());
    // RFC 6749 §2.3.1: each half is form-encoded before they are joined.
    const auto half = [&](std::string_view text) {
      return form_params("v=" + std::string(text))["v"];
    };
    const std::size_t colon = pair ? pair->find(':') : std::string::npos;
    if (colon == std::string::npos || half(pair->substr(0, colon)) != robot_id ||
        half(pair->substr(colon + 1)) != robot_secret) {
      lock.unlock();
      respond_json(out, 401, {{"error", "invalid_client"}});
      return;
    }
    grant = IssuedToken{form["scope"], form["resource"], robot_id};
    ++credential_grants;
  } else {
    lock.unlock();
    respond_json(out, 400, {{"error", "unsupported_grant_type"}});
    return;
  }
  const std::string n = std::to_string(++counter_);
  const std::string access = "at-" + n + "-secret-value";
  const std::string refresh = "rt-" + n;
  tokens[access] = grant;
  refresh_[refresh] = grant;
  lock.unlock();
  respond_json(out, 200,
               {{"access_token", access},
                {"token_type", "Bearer"},
                {"expires_in", expires_in},
                {"refresh_token", refresh},
                {"scope", grant.scope}});
}

std::function<void(std::string_view)> AuthServer::browser() {
  return [](std::string_view url) {
    http::HttpClient client;
    auto resp = client.send({.method = "GET", .url = std::string(url)});
    if (!resp || resp->status() != 302) return;
    std::string location(resp->headers().get("Location").value_or(""));
    (void)resp->read_all();
    if (auto back = client.send({.method = "GET", .url = location})) (void)back->read_all();
  };
}

// ---- ProtectedServer ---------------------------------------------------------------------------

ProtectedServer::ProtectedServer(AuthServer& auth) : auth_(auth) {
  (void)mcp_.add_tool(
      {.name = "echo", .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
         const json::Value* t = call.arguments.find("text");
         return mcp::ServerToolResult::text("echo " +
                                            (t && t->is_string() ? t->as_string() : std::string()));
       }});
  auto up = mcp_.serve_http({.api_key = std::string(kUpstreamKey)});
  if (up) upstream_.emplace(std::move(*up));
  auto started = http::HttpServer::start(
      {}, [this](const http::ServerRequest& req, http::ResponseWriter& out) { handle(req, out); });
  if (started) front_.emplace(std::move(*started));
}

ProtectedServer::~ProtectedServer() {
  if (front_) front_->stop();
  if (upstream_) upstream_->stop();
}

std::string ProtectedServer::base() const { return front_->base_url(); }
std::string ProtectedServer::url() const { return base() + "/mcp"; }

void ProtectedServer::handle(const http::ServerRequest& req, http::ResponseWriter& out) {
  const std::string metadata_url = base() + "/.well-known/oauth-protected-resource/mcp";
  if (req.path == "/.well-known/oauth-protected-resource/mcp") {
    json::Object meta;
    meta.append_unique("resource", metadata_resource.empty() ? url() : metadata_resource);
    AuthServer& trusted = moved_to.load() != nullptr ? *moved_to.load() : auth_;
    meta.append_unique("authorization_servers", strings({trusted.issuer()}));
    meta.append_unique("scopes_supported", strings(trusted.scopes_supported));
    respond_json(out, 200, meta);
    return;
  }
  if (req.path != "/mcp") {
    (void)out.respond(404, {{"Content-Type", "text/plain"}}, "not found");
    return;
  }
  std::string presented(req.headers.get("Authorization").value_or(""));
  {
    std::lock_guard lock(mu);
    if (!presented.empty()) bearers_seen.push_back(presented);
  }
  std::string scope, resource;
  const bool bearer = presented.rfind("Bearer ", 0) == 0;
  AuthServer& trusted = moved_to.load() != nullptr ? *moved_to.load() : auth_;
  const bool ok = bearer && trusted.valid(presented.substr(7), &scope, &resource) &&
                  resource == url() && !refuse_all;
  if (!ok) {
    ++challenges;
    std::string challenge = "Bearer realm=\"mcp\"";
    if (name_metadata) challenge += ", resource_metadata=\"" + metadata_url + "\"";
    if (!challenge_scope.empty()) challenge += ", scope=\"" + challenge_scope + "\"";
    (void)out.respond(401, {{"WWW-Authenticate", challenge}, {"Content-Type", "application/json"}},
                      R"({"error":"invalid_token"})");
    return;
  }
  const bool is_call = req.body.find("\"tools/call\"") != std::string::npos;
  if (is_call && !write_scope.empty() && (step_up_forever || !has_scope(scope, write_scope))) {
    ++challenges;
    std::string challenge = "Bearer error=\"insufficient_scope\", scope=\"" + write_scope +
                            "\", resource_metadata=\"" + metadata_url + "\"";
    (void)out.respond(403, {{"WWW-Authenticate", challenge}, {"Content-Type", "text/plain"}},
                      "insufficient scope");
    return;
  }
  forward(req, out);
}

void ProtectedServer::forward(const http::ServerRequest& req, http::ResponseWriter& out) {
  http::HttpClient client;
  http::Request up{.method = req.method, .url = upstream_->url(), .body = req.body};
  for (const auto& h : req.headers) {
    if (iequals(h.name, "host") || iequals(h.name, "authorization") ||
        iequals(h.name, "content-length") || iequals(h.name, "transfer-encoding") ||
        iequals(h.name, "connection")) {
      continue;
    }
    up.headers.add(h.name, h.value);
  }
  up.headers.set("Authorization", "Bearer " + std::string(kUpstreamKey));
  auto resp = client.send(up, out.stop_token());
  if (!resp) {
    (void)out.respond(502, {{"Content-Type", "text/plain"}}, resp.error().message);
    return;
  }
  http::Headers headers;
  for (std::string_view name : {"Content-Type", "Mcp-Session-Id"}) {
    if (auto v = resp->headers().get(name)) headers.add(std::string(name), std::string(*v));
  }
  if (!out.start_stream(resp->status(), headers)) return;
  std::array<char, 16384> buf;
  while (true) {
    auto n = resp->read_some(buf);
    if (!n || *n == 0) break;
    if (!out.write(std::string_view(buf.data(), *n))) return;
  }
  (void)out.finish();
}

}  // namespace agentkit::mcp_test
