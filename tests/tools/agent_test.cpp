// End to end through the public API: an Agent with coding_tools(workspace) and restricted_policy,
// driven by the faux provider, reads, edits and runs a command in a temporary workspace; escapes
// are refused with errors the model sees; make_agent refuses the shell tools unguarded.
#include <filesystem>
#include <string>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/tools/coding_tools.hpp"
#include "agentkit/tools/command_policy.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using namespace agentkit;
using agentkit::testing::TempDir;
namespace faux = agentkit::providers;

namespace {

std::vector<ToolResultMessage> tool_results(const RunResult& r) {
  std::vector<ToolResultMessage> out;
  for (const auto& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) out.push_back(*t);
  }
  return out;
}

const ToolResultMessage& result_for(const std::vector<ToolResultMessage>& results, std::string_view id) {
  for (const auto& r : results) {
    if (r.tool_use_id == id) return r;
  }
  FAIL("no result for " << id);
  return results.front();
}

RuntimeConfig faux_runtime(std::shared_ptr<faux::FauxProvider> provider) {
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::move(provider));
  return rt;
}

AgentDefinition coding_agent(const tools::Workspace& ws) {
  AgentDefinition def;
  def.instructions = "You edit files in the workspace.";
  def.tools.direct = tools::coding_tools(ws);
  return def;
}

}  // namespace

TEST_CASE("an agent with coding_tools reads, edits and runs a command under restricted_policy") {
  TempDir dir;
  dir.write("a.txt", "hello world\n");
  TempDir outside;
  outside.write("secret.txt", "s3cret\n");
  fs::create_symlink(outside.path(), dir.path() / "escape");
  auto ws = tools::Workspace::open(dir.path()).value();
  const std::string absolute_outside = (outside.path() / "secret.txt").string();

  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("r1", "read_file", R"({"path":"a.txt"})")}),
      faux::tool_call_response({faux::tool_call(
          "e1", "edit_file", R"({"path":"a.txt","edits":[{"old_string":"hello","new_string":"goodbye"}]})")}),
      faux::tool_call_response({faux::tool_call("x1", "execute", R"({"command":"cat a.txt"})")}),
      faux::tool_call_response({
          faux::tool_call("t1", "read_file", R"({"path":"../secret.txt"})"),
          faux::tool_call("t2", "read_file", json::dump(json::Value(json::Object{{"path", absolute_outside}}))),
          faux::tool_call("t3", "read_file", R"({"path":"escape/secret.txt"})"),
          faux::tool_call("t4", "write_file", R"({"path":"escape/new.txt","content":"x"})"),
          faux::tool_call("p1", "execute", R"({"command":"cat a.txt | sh"})"),
      }),
      faux::text_response("done"),
  });
  RuntimeConfig rt = faux_runtime(provider);
  rt.extensions.before_tool_call = tools::restricted_policy();
  auto agent = make_agent(coding_agent(ws), std::move(rt));
  REQUIRE(agent.has_value());

  auto run = agent->run("Change hello to goodbye in a.txt and show it.");
  REQUIRE(run.has_value());
  CHECK(run->final_text == "done");
  CHECK(run->stop_reason == RunStopReason::stop);
  CHECK(agentkit::testing::read_file(dir.path() / "a.txt") == "goodbye world\n");
  CHECK_FALSE(fs::exists(outside.path() / "new.txt"));

  auto results = tool_results(*run);
  REQUIRE(results.size() == 8);
  CHECK(text_of(result_for(results, "r1").content) == "     1\thello world\n");
  CHECK(text_of(result_for(results, "e1").content) == "Applied 1 edit to a.txt.");
  CHECK(text_of(result_for(results, "x1").content) == "goodbye world\n[exit code 0]");
  CHECK(result_for(results, "x1").metadata.find("exit_code")->number_text() == "0");
  for (const char* id : {"t1", "t2", "t3", "t4"}) {
    INFO(id);
    const ToolResultMessage& refused = result_for(results, id);
    CHECK(refused.is_error);
    CHECK(text_of(refused.content).find("outside the workspace") != std::string::npos);
    CHECK(refused.metadata.find("error_code")->as_string() == "path_not_allowed");
    CHECK(text_of(refused.content).find("s3cret") == std::string::npos);
  }
  const ToolResultMessage& denied = result_for(results, "p1");
  CHECK(denied.is_error);
  CHECK(text_of(denied.content).find("shell operator '|'") != std::string::npos);

  // The model saw the nine tools, and every result went back to it.
  auto requests = provider->requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0].tool_names == std::vector<std::string>{"read_file", "write_file", "edit_file", "list_files",
                                                            "find_files", "search_files", "execute", "run_command",
                                                            "powershell"});
  bool saw_refusal = false;
  for (const auto& m : requests[4].messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m); t && t->tool_use_id == "t3") {
      saw_refusal = text_of(t->content).find("outside the workspace") != std::string::npos;
    }
  }
  CHECK(saw_refusal);
}

TEST_CASE("make_agent refuses coding_tools without an interceptor, and restricted_policy satisfies it") {
  TempDir dir;
  auto ws = tools::Workspace::open(dir.path()).value();
  auto unguarded = make_agent(coding_agent(ws), faux_runtime(std::make_shared<faux::FauxProvider>()));
  REQUIRE_FALSE(unguarded.has_value());
  const std::string message = unguarded.error().to_string();
  CHECK(message.find("unguarded_execute") != std::string::npos);
  for (const char* shell : {"'execute'", "'run_command'", "'powershell'"}) CHECK(message.find(shell) != std::string::npos);

  RuntimeConfig guarded = faux_runtime(std::make_shared<faux::FauxProvider>());
  guarded.extensions.before_tool_call = tools::restricted_policy();
  CHECK(make_agent(coding_agent(ws), std::move(guarded)).has_value());

  RuntimeConfig open = faux_runtime(std::make_shared<faux::FauxProvider>());
  open.extensions.allow_all_tool_calls = true;
  CHECK(make_agent(coding_agent(ws), std::move(open)).has_value());

  AgentDefinition files_only;
  files_only.tools.direct = {tools::read_file_tool(ws), tools::edit_file_tool(ws)};
  CHECK(make_agent(std::move(files_only), faux_runtime(std::make_shared<faux::FauxProvider>())).has_value());
}

TEST_CASE("write_file and edit_file of one file in one parallel batch both land") {
  TempDir dir;
  dir.write("real.txt", "one\ntwo\n");
  fs::create_symlink(dir.path() / "real.txt", dir.path() / "link.txt");
  auto ws = tools::Workspace::open(dir.path()).value();
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({
          faux::tool_call("a", "edit_file", R"({"path":"link.txt","edits":[{"old_string":"one","new_string":"1"}]})"),
          faux::tool_call("b", "edit_file", R"({"path":"./real.txt","edits":[{"old_string":"two","new_string":"2"}]})"),
      }),
      faux::text_response("ok"),
  });
  RuntimeConfig rt = faux_runtime(provider);
  rt.extensions.before_tool_call = tools::restricted_policy();
  auto agent = make_agent(coding_agent(ws), std::move(rt));
  REQUIRE(agent.has_value());
  auto run = agent->run("edit");
  REQUIRE(run.has_value());
  for (const auto& r : tool_results(*run)) CHECK_FALSE(r.is_error);
  CHECK(agentkit::testing::read_file(dir.path() / "real.txt") == "1\n2\n");
}
