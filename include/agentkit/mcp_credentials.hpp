// agentkit/mcp_credentials.hpp — MCP OAuth tokens kept in the application's credential store, next
// to the model providers' credentials.
//
//   using namespace agentkit;
//   auto store = std::make_shared<providers::FileCredentialStore>(home / ".agentkit/creds.json");
//   mcp::ClientOptions options;
//   options.tokens = mcp_token_store(store);   // "mcp:<server>" and "mcp-client:<server>"
//
// Each server's tokens are one StoredCredential of kind oauth under the vendor key
// "mcp:<server name>": the access and refresh tokens as Secrets, the expiry, and the resource the
// token was issued for in `base_url` (a token is only ever sent to that resource). Beside it,
// under "mcp-client:<server name>", an entry of kind api_key whose key (a Secret) is a JSON
// record of the rest of OAuthTokens: the issuer, the token endpoint, the client id, the secret
// of a dynamically registered client, how it authenticates, the redirect it was registered with
// and the granted scope. A later run over the same store therefore refreshes as the same client
// (no second registration, no second login), and notices a resource that moved to another
// authorization server by the issuer. An entry written before the record existed has tokens
// only: its refresh finds the endpoint and the client again from the server's metadata.
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
