// The OAuth 2 refresh-token grant (RFC 6749 §6) against a token endpoint.
#include "agentkit/http/url.hpp"
#include "agentkit/providers/credentials.hpp"
#include "agentkit/wire/decode.hpp"

namespace agentkit::providers {
namespace {

// Largest token-endpoint answer read; a real one is a few hundred bytes.
constexpr std::size_t kMaxTokenResponseBytes = 64 * 1024;

std::string string_member(const json::Value& doc, std::string_view key) {
  const json::Value* v = doc.find(key);
  return v && v->is_string() ? v->as_string() : std::string();
}

}  // namespace

OAuthRefresher token_endpoint_refresher(std::shared_ptr<http::HttpTransport> transport, std::string token_url,
                                        std::string client_id, std::shared_ptr<const Clock> clock) {
  if (!clock) clock = std::make_shared<SystemClock>();
  return [transport = std::move(transport), url = std::move(token_url), client = std::move(client_id),
          clock = std::move(clock)](const StoredCredential& current, const RefreshContext& ctx) -> Result<StoredCredential> {
    if (current.refresh_token.empty()) {
      return make_error(Errc::unauthenticated, "the stored OAuth credential has no refresh token; log in again");
    }
    http::Request req{.method = "POST", .url = url};
    req.headers.add("Content-Type", "application/x-www-form-urlencoded");
    req.headers.add("Accept", "application/json");
    req.body = "grant_type=refresh_token&refresh_token=" +
               http::form_encode(current.refresh_token.reveal());
    if (!client.empty()) req.body += "&client_id=" + http::form_encode(client);
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.deadline - clock->now());
    req.first_byte_timeout = std::max(remaining, std::chrono::milliseconds(1));
    req.idle_timeout = req.first_byte_timeout;
    auto resp = transport->send(req, ctx.stop);
    if (!resp) return resp.error();
    auto body = resp->read_all(kMaxTokenResponseBytes);
    if (!body) return body.error();
    if (resp->status() != 200) {
      auto doc = wire::decode(*body);
      std::string reason = doc ? string_member(*doc, "error") : std::string();
      return make_error(Errc::unauthenticated, "the token endpoint answered HTTP " + std::to_string(resp->status()) +
                                                   (reason.empty() ? std::string() : ": " + reason))
          .with_detail("status", std::to_string(resp->status()));
    }
    auto doc = wire::decode(*body);
    if (!doc) return make_error(Errc::protocol_error, "the token endpoint's answer is not JSON: " + doc.error().message);
    StoredCredential fresh = current;
    std::string access = string_member(*doc, "access_token");
    if (access.empty()) return make_error(Errc::protocol_error, "the token endpoint's answer has no access_token");
    fresh.access_token = Secret(std::move(access));
    // A rotated refresh token replaces the old one; an answer without one keeps it (RFC 6749 §6).
    if (std::string rotated = string_member(*doc, "refresh_token"); !rotated.empty()) fresh.refresh_token = Secret(std::move(rotated));
    fresh.expires_at.reset();
    if (const json::Value* expires_in = doc->find("expires_in")) {
      auto seconds = expires_in->to_int64();
      if (seconds && *seconds > 0) fresh.expires_at = clock->wall_now() + std::chrono::seconds(*seconds);
    }
    return fresh;
  };
}

}  // namespace agentkit::providers
