// McpToolSource: an agent whose definition includes an MCP server, driven by the faux provider.
// The server is our fixture program over stdio (the interop suite does the same with the official
// filesystem server).
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <mutex>
#include <thread>

#include "agentkit/agent.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/providers/faux.hpp"
#include "mcp_test_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;
namespace faux = agentkit::providers;

namespace {

RuntimeConfig runtime_with(std::shared_ptr<faux::FauxProvider> provider) {
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::move(provider));
  return rt;
}

std::string result_text(const RunResult& r) {
  for (const auto& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) {
      for (const auto& b : t->content) {
        if (const auto* text = std::get_if<TextBlock>(&b)) return text->text;
      }
    }
  }
  return {};
}

// A process that can still run (a zombie cannot).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

// Our child processes running the fixture server.
std::vector<pid_t> fixture_children() {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string comm = text.substr(open + 1, close - open - 1);
    std::istringstream rest(text.substr(close + 2));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (comm.starts_with("mcp_fixture") && ppid == ::getpid() && state != 'Z') out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

}  // namespace

TEST_CASE("an agent calls an MCP server's tool under its qualified name, and the interceptor sees that name") {
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("c1", "fixture__echo", R"({"message":"through the pool"})")}),
      faux::text_response("done")});
  AgentDefinition def;
  def.tools.mcp.push_back({.name = "fixture", .connect = mcp::tool_connector(mcp_test::fixture(), mcp_test::quick_options())});
  RuntimeConfig rt = runtime_with(provider);
  std::vector<std::string> intercepted;
  std::mutex mu;
  rt.extensions.before_tool_call = [&](const ToolCallRequest& call) {
    std::lock_guard lock(mu);
    intercepted.push_back(call.tool_name);
    return ToolCallDecision::allow();
  };
  auto agent = make_agent(def, rt);
  REQUIRE(agent);
  auto run = agent->run("echo something");
  REQUIRE(run);
  CHECK(result_text(*run) == "Echo: through the pool");
  CHECK(intercepted == std::vector<std::string>{"fixture__echo"});
  const auto names = provider->requests().front().tool_names;
  CHECK(std::find(names.begin(), names.end(), "fixture__add") != names.end());
}

TEST_CASE("an MCP tool that would shadow a direct tool fails make_agent naming both owners") {
  AgentDefinition def;
  ToolDefinition native;
  native.name = "fixture__echo";
  native.handler = [](const json::Value&, const ToolContext&) { return ToolResult::text_result("native"); };
  def.tools.direct.push_back(native);
  def.tools.mcp.push_back({.name = "fixture", .connect = mcp::tool_connector(mcp_test::fixture(), mcp_test::quick_options())});
  auto agent = make_agent(def, runtime_with(std::make_shared<faux::FauxProvider>()));
  REQUIRE(!agent);
  CHECK(agent.error().message.find("fixture__echo") != std::string::npos);
  CHECK(agent.error().message.find("MCP server 'fixture'") != std::string::npos);
}

TEST_CASE("a failing MCP call becomes an error result the model sees, and the run goes on") {
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("c1", "fixture__add", R"({"a":1,"b":"two"})")}),
      faux::text_response("noted")});
  AgentDefinition def;
  auto config = mcp_test::fixture();
  def.tools.mcp.push_back({.name = "fixture", .connect = mcp::tool_connector(config, mcp_test::quick_options())});
  auto agent = make_agent(def, runtime_with(provider));
  REQUIRE(agent);
  auto run = agent->run("add");
  REQUIRE(run);
  bool saw_error = false;
  for (const auto& m : run->messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) saw_error = t->is_error;
  }
  CHECK(saw_error);
  CHECK(run->final_text == "noted");
}

TEST_CASE("the server process is gone once the agent holding its tools is gone") {
  const auto before = fixture_children();
  pid_t pid = -1;
  {
    auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{faux::text_response("hi")});
    AgentDefinition def;
    def.tools.mcp.push_back({.name = "fixture", .connect = mcp::tool_connector(mcp_test::fixture(), mcp_test::quick_options())});
    auto agent = make_agent(def, runtime_with(provider));
    REQUIRE(agent);
    for (pid_t p : fixture_children()) {
      if (std::find(before.begin(), before.end(), p) == before.end()) pid = p;
    }
    REQUIRE(pid > 0);
    CHECK(running(pid));
    REQUIRE(agent->close());
  }  // the agent, and with it the last handler holding the connection, is gone
  for (int i = 0; i < 100 && running(pid); ++i) std::this_thread::sleep_for(20ms);
  CHECK(!running(pid));
}

TEST_CASE("an MCP call the client refuses reaches the model as prose with the shared error code") {
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("c1", "fixture__echo", R"({"message":"one"})")}),
      faux::tool_call_response({faux::tool_call("c2", "fixture__echo", R"({"message":"two"})")}),
      faux::text_response("noted")});
  AgentDefinition def;
  auto config = mcp_test::fixture();
  config.call_limit = 1;
  def.tools.mcp.push_back(
      {.name = "fixture", .connect = mcp::tool_connector(config, mcp_test::quick_options())});
  auto agent = make_agent(def, runtime_with(provider));
  REQUIRE(agent);
  auto run = agent->run("echo twice");
  REQUIRE(run);
  std::vector<const ToolResultMessage*> results;
  for (const auto& m : run->messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) results.push_back(t);
  }
  REQUIRE(results.size() == 2);
  CHECK_FALSE(results[0]->is_error);
  const ToolResultMessage& refused = *results[1];
  CHECK(refused.is_error);
  REQUIRE(refused.content.size() == 1);
  const std::string text = std::get<TextBlock>(refused.content[0]).text;
  CHECK(text.find("\"ok\"") == std::string::npos);  // prose, not the JSON envelope
  CHECK(refused.metadata.find("error_code")->as_string() == "limit_exceeded");
  CHECK(run->final_text == "noted");
}

TEST_CASE(
    "an MCP server's log messages during a call reach observers as tool_log events of the run, "
    "never the model, in both eras") {
  for (auto negotiation : {mcp::Negotiation::modern, mcp::Negotiation::legacy}) {
    auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
        faux::tool_call_response({faux::tool_call("c1", "fixture__chatty", "{}")}),
        faux::text_response("done")});
    AgentDefinition def;
    auto options = mcp_test::quick_options();
    options.negotiation = negotiation;
    def.tools.mcp.push_back(
        {.name = "fixture", .connect = mcp::tool_connector(mcp_test::fixture(), options)});
    RuntimeConfig rt = runtime_with(provider);
    std::mutex mu;
    std::vector<ToolLogEvent> logs;
    rt.observability.observers.push_back([&](const Event& e) {
      if (const auto* log = std::get_if<ToolLogEvent>(&e)) {
        std::lock_guard lock(mu);
        logs.push_back(*log);
      }
    });
    auto agent = make_agent(def, rt);
    REQUIRE(agent);
    auto run = agent->run("talk");
    REQUIRE(run);
    CHECK(result_text(*run) == "said my piece");
    std::lock_guard lock(mu);
    REQUIRE(logs.size() == 2);
    CHECK(logs[0].tool_use_id == "c1");
    CHECK(logs[0].tool_name == "fixture__chatty");
    CHECK(logs[0].level == "info");
    CHECK(logs[0].logger == "fixture");
    CHECK(json::dump(logs[0].data) == R"("starting")");
    CHECK(logs[1].level == "warning");
    CHECK(logs[1].logger.empty());
    CHECK(json::dump(logs[1].data) == R"({"disk":"nearly full"})");
    CHECK(json::dump(to_json(Event(logs[1]))) ==
          R"({"type":"tool_log","tool_use_id":"c1","tool_name":"fixture__chatty",)"
          R"("level":"warning","data":{"disk":"nearly full"}})");
    // The model read the tool's answer only: no log text in the transcript.
    for (const auto& m : run->messages)
      CHECK(json::dump(to_json(m)).find("starting") == std::string::npos);
  }
}
