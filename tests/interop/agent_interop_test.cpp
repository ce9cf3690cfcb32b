// The agent end to end: an Agent whose definition includes the official filesystem reference
// server as an McpToolSource, driven by the faux provider, reads a real file through it.
#include "agentkit/agent.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/providers/faux.hpp"
#include "interop_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;

TEST_CASE("an agent reads a real file through the filesystem reference server") {
  auto node = interop::node_program();
  auto script = interop::package_file("@modelcontextprotocol/server-filesystem", "dist/index.js");
  AGENTKIT_REQUIRE_PEER(node && script, "@modelcontextprotocol/server-filesystem");
  testing::TempDir dir;
  const std::string root = std::filesystem::canonical(dir.path()).string();
  dir.write("report.txt", "quarterly numbers: 42\n");

  json::Value args(json::Object{{"path", root + "/report.txt"}});
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("call_1", "files__read_text_file", json::dump(args))}),
      faux::text_response("The report says 42.")});
  mcp::ServerConfig files{.name = "files", .transport = mcp::StdioLaunch{.command = *node, .args = {script->string(), root}}};
  AgentDefinition def;
  def.instructions = "Answer from the files.";
  def.tools.mcp.push_back({.name = "files", .connect = mcp::tool_connector(files)});
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  auto agent = make_agent(def, rt);
  REQUIRE(agent);
  auto run = agent->run("What do the quarterly numbers say?");
  REQUIRE(run);
  CHECK(run->final_text == "The report says 42.");
  std::string seen;
  bool is_error = true;
  for (const auto& m : run->messages) {
    if (const auto* result = std::get_if<ToolResultMessage>(&m)) {
      is_error = result->is_error;
      for (const auto& b : result->content) {
        if (const auto* t = std::get_if<TextBlock>(&b)) seen += t->text;
      }
    }
  }
  CHECK(!is_error);
  CHECK(seen == "quarterly numbers: 42\n");
  // The model was offered the server's tools under their qualified names.
  const auto offered = provider->requests().front().tool_names;
  CHECK(std::find(offered.begin(), offered.end(), "files__list_directory") != offered.end());
  REQUIRE(agent->close());
}
