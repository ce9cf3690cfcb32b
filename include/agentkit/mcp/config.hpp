// agentkit/mcp/config.hpp — MCP servers from a JSON configuration in the common `mcpServers` shape
// (Claude Desktop, Cursor, VS Code and most hosts write it), and `${VAR}` interpolation.
//
//   using namespace agentkit;
//   auto servers = mcp::parse_servers_config(R"({"mcpServers": {
//       "files":  {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]},
//       "github": {"url": "https://mcp.example.com/mcp",
//                  "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}}})").value();
//   // servers[0].transport holds a StdioLaunch, servers[1] an HttpTarget; ${GITHUB_TOKEN} stays
//   // unresolved until the server is connected (NFR-SEC-03: secrets resolve at spawn).
//   auto text = mcp::interpolate("Bearer ${T}", [](std::string_view) { return std::optional<std::string>("x"); });
//
// Shape: {"mcpServers": {"<name>": {...}}}. A stdio server has "command" and optionally "args"
// (strings), "env" (string values) and "cwd"; an HTTP server has "url" and optionally "headers"
// and "type" ("http" or "streamable-http", or "sse" for the 2024-11-05 HTTP+SSE transport), and
// "oauth": {"clientId", "clientSecret" (best a ${VAR} reference: like header values it resolves
// at connect), "clientMetadataUrl", "scopes" (strings), "redirectUri", "clientName", "grant"
// ("authorization_code", the default, or "client_credentials")} (see oauth.hpp; the login itself
// is ClientOptions::authorize). Per
// server, "negotiation" ("auto", "modern", "legacy"), "allowSampling", "allowElicitation",
// "callLimit" and "timeoutMs" override the client options. A configuration is a manifest, not a
// protocol payload, so members other hosts add ("disabled", "autoApprove") are ignored; a server with both or neither of command and url, a member of the wrong type, and names
// that are empty or hold "__" (the separator of qualified tool names) are errors.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/mcp/client.hpp"

namespace agentkit::mcp {

// Parses a configuration document; errors name the server and the member.
Result<std::vector<ServerConfig>> parse_servers_config(std::string_view json_text);

// Replaces each ${NAME} with its value from `getenv` (the process environment when empty). A
// reference to an unset variable is an Errc::invalid_argument error naming every such variable
// (detail "variable" per name); "$" not followed by "{" is literal; "${" without "}" is an error.
Result<std::string> interpolate(std::string_view text, const EnvLookup& getenv = {});

}  // namespace agentkit::mcp
