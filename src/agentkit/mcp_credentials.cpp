// MCP OAuth tokens over a providers::CredentialStore.
#include "agentkit/mcp_credentials.hpp"

#include <string>

namespace agentkit {
namespace {

std::string key_of(std::string_view server) { return "mcp:" + std::string(server); }

class CredentialTokenStore final : public mcp::OAuthTokenStore {
 public:
  explicit CredentialTokenStore(std::shared_ptr<providers::CredentialStore> store)
      : store_(std::move(store)) {}

  Result<std::optional<mcp::OAuthTokens>> load(std::string_view key) override {
    auto stored = store_->load(key_of(key));
    if (!stored) return std::move(stored).error();
    if (!*stored || (*stored)->kind != providers::StoredCredential::Kind::oauth)
      return std::optional<mcp::OAuthTokens>();
    mcp::OAuthTokens tokens;
    tokens.access_token = (*stored)->access_token.reveal();
    tokens.refresh_token = (*stored)->refresh_token.reveal();
    tokens.expires_at = (*stored)->expires_at;
    tokens.resource = (*stored)->base_url;
    return std::optional<mcp::OAuthTokens>(std::move(tokens));
  }

  Result<void> save(std::string_view key, const std::optional<mcp::OAuthTokens>& tokens) override {
    auto written = store_->modify(key_of(key),
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
