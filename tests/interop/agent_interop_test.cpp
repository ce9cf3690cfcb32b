// The agent end to end: an Agent whose definition includes the official filesystem reference
// server as an McpToolSource, driven by the faux provider, reads a real file through it; and a
// server on the official TypeScript SDK returns images that enter history normalised.
#include "agentkit/agent.hpp"
#include "agentkit/base/base64.hpp"
#include "agentkit/images/image.hpp"
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

namespace {

agentkit::images::ImageInfo probe_base64(const std::string& text) {
  const std::string bytes = base64::decode(text).value();
  return agentkit::images::probe(
             {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()})
      .value();
}

}  // namespace

TEST_CASE(
    "an image from an official-SDK MCP server enters history normalised, a fitting one untouched") {
  auto node = interop::node_program();
  auto sdk = interop::package_file("@modelcontextprotocol/sdk", "dist/esm/server/mcp.js");
  AGENTKIT_REQUIRE_PEER(node && sdk, "@modelcontextprotocol/sdk");
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response(
          {faux::tool_call("big", "shots__screenshot", R"({"width":2600,"height":1300})"),
           faux::tool_call("small", "shots__screenshot", R"({"width":300,"height":200})")}),
      faux::text_response("Seen both.")});
  mcp::ServerConfig shots{
      .name = "shots",
      .transport = mcp::StdioLaunch{
          .command = *node, .args = {interop::fixture_script("image_server.mjs").string()}}};
  AgentDefinition def;
  def.instructions = "Look at the screen.";
  def.tools.mcp.push_back({.name = "shots", .connect = mcp::tool_connector(shots)});
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  auto agent = make_agent(def, rt);
  REQUIRE(agent);
  auto run = agent->run("Take two screenshots.");
  REQUIRE(run);
  std::vector<const ToolResultMessage*> results;
  for (const auto& m : run->messages) {
    if (const auto* r = std::get_if<ToolResultMessage>(&m)) results.push_back(r);
  }
  REQUIRE(results.size() == 2);
  auto image_and_note = [](const ToolResultMessage& r) {
    std::pair<const ImageBlock*, std::string> out{nullptr, ""};
    for (const auto& b : r.content) {
      if (const auto* i = std::get_if<ImageBlock>(&b)) out.first = i;
      if (const auto* t = std::get_if<TextBlock>(&b); t && out.first != nullptr)
        out.second += t->text;
    }
    return out;
  };
  // The 2600x1300 screenshot was area-averaged to the 2000 px side and says so.
  auto [big, big_note] = image_and_note(*results[0]);
  std::string first_text;
  for (const auto& b : results[0]->content) {
    if (const auto* t = std::get_if<TextBlock>(&b)) first_text += t->text;
  }
  INFO("first result: " << first_text.substr(0, 600));
  REQUIRE(big != nullptr);
  CHECK(probe_base64(big->data_base64).width == 2000);
  CHECK(probe_base64(big->data_base64).height == 1000);
  CHECK(big_note.find("2600x1300") != std::string::npos);
  // The 300x200 one fits: no note, the server's PNG as it came.
  auto [small, small_note] = image_and_note(*results[1]);
  REQUIRE(small != nullptr);
  CHECK(small->mime_type == "image/png");
  CHECK(probe_base64(small->data_base64).width == 300);
  CHECK(small_note.empty());
  // The model saw the normalised image.
  const auto requests = provider->requests();
  REQUIRE(requests.size() == 2);
  bool saw_downscaled = false;
  for (const auto& m : requests[1].messages) {
    if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
      for (const auto& b : r->content) {
        if (const auto* i = std::get_if<ImageBlock>(&b)) {
          saw_downscaled |= i->data_base64 == big->data_base64;
        }
      }
    }
  }
  CHECK(saw_downscaled);
  REQUIRE(agent->close());
}
