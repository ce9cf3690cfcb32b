// MCP OAuth tokens over a providers::CredentialStore.
#include "agentkit/mcp_credentials.hpp"

#include <string>

#include "agentkit/json/value.hpp"

namespace agentkit {
namespace {

std::string tokens_key(std::string_view server) { return "mcp:" + std::string(server); }
// Never the tokens key of another server: no "mcp:" key starts with "mcp-client:".
std::string client_key(std::string_view server) { return "mcp-client:" + std::string(server); }

// The non-token fields of OAuthTokens, as the JSON text kept in the client entry's Secret (it
// holds the client secret of a dynamic registration).
std::string client_record(const mcp::OAuthTokens& t) {
  json::Object o;
  const auto put = [&](std::string_view key, const std::string& value) {
    if (!value.empty()) o.append_unique(std::string(key), value);
  };
  put("issuer", t.issuer);
  put("token_endpoint", t.token_endpoint);
  put("client_id", t.client_id);
  put("client_secret", t.client_secret);
  put("token_endpoint_auth_method", t.token_endpoint_auth_method);
  put("registered_redirect_uri", t.registered_redirect_uri);
  put("scope", t.scope);
  return json::dump(json::Value(std::move(o)));
}

// Fills `t` from a client record; a record that does not parse is ignored (the tokens then
// behave as those of a store that kept only tokens: the client is found again).
void read_client_record(std::string_view text, mcp::OAuthTokens& t) {
  auto record = json::parse(text);
  if (!record || !record->is_object()) return;
  const auto get = [&](std::string_view key) {
    const json::Value* v = record->find(key);
    return v && v->is_string() ? v->as_string() : std::string();
  };
  t.issuer = get("issuer");
  t.token_endpoint = get("token_endpoint");
  t.client_id = get("client_id");
  t.client_secret = get("client_secret");
  t.token_endpoint_auth_method = get("token_endpoint_auth_method");
  t.registered_redirect_uri = get("registered_redirect_uri");
  t.scope = get("scope");
}

class CredentialTokenStore final : public mcp::OAuthTokenStore {
 public:
  explicit CredentialTokenStore(std::shared_ptr<providers::CredentialStore> store)
      : store_(std::move(store)) {}

  Result<std::optional<mcp::OAuthTokens>> load(std::string_view key) override {
    auto stored = store_->load(tokens_key(key));
    if (!stored) return std::move(stored).error();
    if (!*stored || (*stored)->kind != providers::StoredCredential::Kind::oauth)
      return std::optional<mcp::OAuthTokens>();
    mcp::OAuthTokens tokens;
    auto client = store_->load(client_key(key));
    if (!client) return std::move(client).error();
    if (*client && (*client)->kind == providers::StoredCredential::Kind::api_key)
      read_client_record((*client)->api_key.reveal(), tokens);
    tokens.access_token = (*stored)->access_token.reveal();
    tokens.refresh_token = (*stored)->refresh_token.reveal();
    tokens.expires_at = (*stored)->expires_at;
    tokens.resource = (*stored)->base_url;
    return std::optional<mcp::OAuthTokens>(std::move(tokens));
  }

  Result<void> save(std::string_view key, const std::optional<mcp::OAuthTokens>& tokens) override {
    // The client first: tokens are never stored without the client they were issued to.
    auto client = store_->modify(client_key(key),
                                 [&](const std::optional<providers::StoredCredential>&)
                                     -> Result<std::optional<providers::StoredCredential>> {
                                   if (!tokens) return std::optional<providers::StoredCredential>();
                                   providers::StoredCredential c;
                                   c.kind = providers::StoredCredential::Kind::api_key;
                                   c.api_key = providers::Secret(client_record(*tokens));
                                   return std::optional<providers::StoredCredential>(std::move(c));
                                 });
    if (!client) return std::move(client).error();
    auto written = store_->modify(tokens_key(key),
                                  [&](const std::optional<providers::StoredCredential>&)
                                      -> Result<std::optional<providers::StoredCredential>> {
                                    if (!tokens)
                                      return std::optional<providers::StoredCredential>();
                                    providers::StoredCredential c;
                                    c.kind = providers::StoredCredential::Kind::oauth;
                                    c.access_token = providers::Secret(tokens->access_token);
                                    c.refresh_token = providers::Secret(tokens->refresh_token);
                                    c.expires_at = tokens->expires_at;
                                    c.base_url = tokens->resource;
                                    return std::optional<providers::StoredCredential>(std::move(c));
                                  });
    if (!written) return std::move(written).error();
    return {};
  }

 private:
  std::shared_ptr<providers::CredentialStore> store_;
};

}  // namespace

std::shared_ptr<mcp::OAuthTokenStore> mcp_token_store(
    std::shared_ptr<providers::CredentialStore> store) {
  return std::make_shared<CredentialTokenStore>(std::move(store));
}

}  // namespace agentkit
