// The official TypeScript clients against our server: @modelcontextprotocol/sdk (v1, legacy only)
// and @modelcontextprotocol/client (v2) in its legacy, auto and pinned-modern modes, over stdio
// (our fixture server program) and HTTP (our server in this process). The driver script prints one
// JSON line of what each step returned.
#include "agentkit/mcp/server.hpp"
#include "interop_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;

namespace {

constexpr std::string_view kKey = "interop-key";

bool have_clients() {
  return interop::node_program() && interop::package_file("@modelcontextprotocol/sdk", "package.json") &&
         interop::package_file("@modelcontextprotocol/client", "package.json");
}

json::Value drive(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"node", interop::fixture_script("official_client.mjs").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = testing::run_program(argv);
  INFO("stderr: " << run.err);
  REQUIRE(run.exit_code == 0);
  auto line = json::parse(run.out);
  INFO("stdout: " << run.out);
  REQUIRE(line);
  return *line;
}

void check_session(const json::Value& r, std::string_view expected_version) {
  INFO(json::dump(r));
  REQUIRE(r.find("ok")->as_bool());
  if (!expected_version.empty()) CHECK(r.find("version")->as_string() == expected_version);
  CHECK(r.find("server")->as_string() == "agentkit-fixture");
  CHECK(r.find("echo")->as_string() == "Echo: hello");
  CHECK(r.find("add")->as_string() == "42");
  // Modern: input_required answered by the SDK's auto-fulfilment; legacy: our server asked the
  // client itself with a server-to-client elicitation request and re-ran the handler.
  CHECK(r.find("confirm")->as_string() == "confirmed (state asked-once)");
  CHECK(r.find("resource")->as_string() == "item 7");
  CHECK(r.find("prompt")->as_string() == "Hello, Ada");
  // A prompt and a resource that ask for input first, the same two ways as the tool.
  CHECK(r.find("asking_prompt")->as_string() == "Write about owls (state asked-topic)");
  CHECK(r.find("asking_read")->as_string() == "topic owls (state asked-read)");
  CHECK(r.find("unknown")->as_string() == "error -32602");
  CHECK(r.find("tools")->as_array().size() == 8);
}

struct Mode {
  std::string sdk;
  std::string mode;
  std::string version;  // expected negotiated version ("" when the SDK does not report it)
};

const std::vector<Mode>& modes() {
  static const std::vector<Mode> all = {{"v1", "legacy", ""},
                                        {"v2", "legacy", "2025-11-25"},
                                        {"v2", "auto", "2026-07-28"},
                                        {"v2", "pin", "2026-07-28"}};
  return all;
}

}  // namespace

TEST_CASE("the official v1 and v2 clients, in every negotiation mode, use our server over stdio") {
  AGENTKIT_REQUIRE_PEER(have_clients(), "@modelcontextprotocol/sdk and @modelcontextprotocol/client");
  for (const auto& m : modes()) {
    INFO(m.sdk << " " << m.mode);
    // The v2 client in auto mode starts our server once more, just to probe it.
    check_session(drive({m.sdk, m.mode, "stdio", MCP_FIXTURE_SERVER}), m.version);
  }
}

TEST_CASE("the official v1 and v2 clients, in every negotiation mode, use our server over HTTP") {
  AGENTKIT_REQUIRE_PEER(have_clients(), "@modelcontextprotocol/sdk and @modelcontextprotocol/client");
  // The same fixture server the stdio test runs, in its HTTP mode.
  const int port = interop::free_port();
  interop::BackgroundProcess server({MCP_FIXTURE_SERVER, "--http", std::to_string(port), "--api-key", std::string(kKey)});
  REQUIRE(interop::wait_for_port(port));
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  for (const auto& m : modes()) {
    INFO(m.sdk << " " << m.mode);
    check_session(drive({m.sdk, m.mode, "http", url, std::string(kKey)}), m.version);
  }
}

TEST_CASE("an official client without our API key is turned away at the door") {
  AGENTKIT_REQUIRE_PEER(have_clients(), "@modelcontextprotocol/sdk and @modelcontextprotocol/client");
  const int port = interop::free_port();
  interop::BackgroundProcess server({MCP_FIXTURE_SERVER, "--http", std::to_string(port), "--api-key", std::string(kKey)});
  REQUIRE(interop::wait_for_port(port));
  auto r = drive({"v2", "auto", "http", "http://127.0.0.1:" + std::to_string(port) + "/mcp", "wrong-key"});
  CHECK(!r.find("ok")->as_bool());
  CHECK(r.find("error")->as_string().find("401") != std::string::npos);
}

#ifdef MCP_EXAMPLE_SERVER
TEST_CASE("examples/mcp_server serves the coding tools to the official v2 client in both eras") {
  AGENTKIT_REQUIRE_PEER(have_clients(), "@modelcontextprotocol/client");
  testing::TempDir dir;
  dir.write("hello.txt", "hi from the workspace\n");
  for (std::string_view mode : {"legacy", "auto"}) {
    INFO(mode);
    auto run = testing::run_program({"node", interop::fixture_script("example_host.mjs").string(), std::string(mode),
                                     MCP_EXAMPLE_SERVER, dir.path().string()});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    auto r = json::parse(run.out).value();
    CHECK(r.find("version")->as_string() == (mode == "auto" ? "2026-07-28" : "2025-11-25"));
    CHECK(json::dump(*r.find("tools")) == R"(["read_file","write_file","edit_file","list_files","find_files","search_files"])");
    CHECK(r.find("read")->as_string().find("hi from the workspace") != std::string::npos);
    CHECK(r.find("outside")->as_bool());
  }
}
#endif
