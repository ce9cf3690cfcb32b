// Our MCP client against the official reference servers (server-everything, server-filesystem;
// both built on the v1 TypeScript SDK, so legacy era only).
#include <atomic>

#include "agentkit/mcp/client.hpp"
#include "interop_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

std::optional<mcp::ServerConfig> everything_stdio() {
  auto node = interop::node_program();
  auto script = interop::package_file("@modelcontextprotocol/server-everything", "dist/index.js");
  if (!node || !script) return std::nullopt;
  return mcp::ServerConfig{.name = "everything",
                           .transport = mcp::StdioLaunch{.command = *node, .args = {script->string(), "stdio"}}};
}

}  // namespace

TEST_CASE("our client negotiates the legacy era with server-everything over stdio and calls echo") {
  auto config = everything_stdio();
  AGENTKIT_REQUIRE_PEER(config, "@modelcontextprotocol/server-everything");
  auto client = mcp::Client::connect(*config);
  REQUIRE(client);
  auto diag = client->diagnostics();
  CHECK(diag.era == mcp::Era::legacy);
  CHECK(diag.protocol_version == "2025-11-25");
  for (auto& n : diag.notes) INFO(n);
  auto tools = client->list_tools();
  REQUIRE(tools);
  CHECK(tools->size() > 5);
  auto r = client->call_tool("echo", json::Value(json::Object{{"message", "hello"}}));
  REQUIRE(r);
  REQUIRE(r->content.size() == 1);
  CHECK(r->content[0].find("text")->as_string() == "Echo: hello");
}
