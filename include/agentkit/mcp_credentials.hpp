// agentkit/mcp_credentials.hpp — MCP OAuth tokens kept in the application's credential store, next
// to the model providers' credentials.
//
//   using namespace agentkit;
//   auto store = std::make_shared<providers::FileCredentialStore>(home / ".agentkit/creds.json");
//   mcp::ClientOptions options;
//   options.tokens = mcp_token_store(store);   // entries "mcp:<server name>", kind oauth
//
// Each server's tokens are one StoredCredential of kind oauth under the vendor key
// "mcp:<server name>": the access and refresh tokens as Secrets, the expiry, and the resource the
// token was issued for in `base_url` (a token is only ever sent to that resource). The client id
// and token endpoint are not stored: a refresh after a restart rediscovers them from the server's
// metadata, so it succeeds for a pre-registered client id and falls back to a new login otherwise.
//
// Thread safety: the returned store may be called from many threads at once; writes go through
// CredentialStore::modify, serialised per server.
#pragma once

#include <memory>

#include "agentkit/mcp/oauth.hpp"
#include "agentkit/providers/credentials.hpp"

namespace agentkit {

std::shared_ptr<mcp::OAuthTokenStore> mcp_token_store(
    std::shared_ptr<providers::CredentialStore> store);

}  // namespace agentkit
