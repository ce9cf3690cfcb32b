// Our MCP client against independent servers: the official reference servers server-everything
// and server-filesystem (v1 TypeScript SDK, legacy era only) and a server built on the v2 SDK
// (v2_server.mjs, modern-only and dual-era). Versions pinned by package-lock.json.
#include <signal.h>

#include <atomic>
#include <thread>

#include "agentkit/http/client.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/jsonrpc.hpp"
#include "interop_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

std::optional<std::string> everything_script() {
  auto p = interop::package_file("@modelcontextprotocol/server-everything", "dist/index.js");
  return p ? std::optional<std::string>(p->string()) : std::nullopt;
}

std::optional<std::string> filesystem_script() {
  auto p = interop::package_file("@modelcontextprotocol/server-filesystem", "dist/index.js");
  return p ? std::optional<std::string>(p->string()) : std::nullopt;
}

bool have_v2_server() { return interop::package_file("@modelcontextprotocol/server", "package.json").has_value(); }

mcp::ServerConfig node_server(std::string name, std::vector<std::string> args) {
  return mcp::ServerConfig{.name = std::move(name), .transport = mcp::StdioLaunch{.command = *interop::node_program(), .args = std::move(args)}};
}

mcp::ClientOptions options() {
  mcp::ClientOptions o;
  o.request_timeout = 30s;
  o.shutdown_grace = 500ms;
  return o;
}

json::Value obj(std::string_view text) { return json::parse(text).value(); }

std::string text_of(const mcp::CallResult& r, std::size_t i = 0) {
  const json::Value* t = r.content.at(i).find("text");
  return t ? t->as_string() : std::string();
}

bool has_tool(const std::vector<mcp::ToolInfo>& tools, std::string_view name) {
  for (const auto& t : tools) {
    if (t.name == name) return true;
  }
  return false;
}

pid_t pid_from(const mcp::Diagnostics& d) {
  const auto at = d.transport.rfind("(pid ");
  return at == std::string::npos ? -1 : static_cast<pid_t>(std::stol(d.transport.substr(at + 5)));
}

}  // namespace

TEST_CASE("server-everything over stdio: legacy era, tools, content types, progress, resources") {
  auto script = everything_script();
  AGENTKIT_REQUIRE_PEER(interop::node_program() && script, "@modelcontextprotocol/server-everything");
  auto client = mcp::Client::connect(node_server("everything", {*script, "stdio"}), options());
  REQUIRE(client);
  auto d = client->diagnostics();
  CHECK(d.era == mcp::Era::legacy);  // server/discover answered -32601: the fallback
  CHECK(d.protocol_version == "2025-11-25");
  CHECK(d.server_name == "mcp-servers/everything");
  auto tools = client->list_tools();
  REQUIRE(tools);
  CHECK(has_tool(*tools, "echo"));
  CHECK(has_tool(*tools, "get-structured-content"));

  auto echo = client->call_tool("echo", obj(R"({"message":"hello"})"));
  REQUIRE(echo);
  CHECK(text_of(*echo) == "Echo: hello");
  auto sum = client->call_tool("get-sum", obj(R"({"a":2,"b":40})"));
  REQUIRE(sum);
  CHECK(text_of(*sum).find("42") != std::string::npos);

  auto image = client->call_tool("get-tiny-image", obj("{}"));
  REQUIRE(image);
  ToolResult seen = mcp::to_tool_result(*image, 50'000);
  REQUIRE(seen.images.size() == 1);
  CHECK(seen.images[0].mime_type == "image/png");

  auto links = client->call_tool("get-resource-links", obj(R"({"count":2})"));
  REQUIRE(links);
  CHECK(mcp::to_tool_result(*links, 50'000).text->find("[resource link:") != std::string::npos);
  auto reference = client->call_tool("get-resource-reference", obj(R"({"resourceType":"Text","resourceId":3})"));
  REQUIRE(reference);
  INFO(*mcp::to_tool_result(*reference, 50'000).text);
  CHECK(mcp::to_tool_result(*reference, 50'000).text->find("[resource demo://resource/dynamic/text/3]") != std::string::npos);
  auto structured = client->call_tool("get-structured-content", obj(R"({"location":"New York"})"));
  REQUIRE(structured);
  REQUIRE(structured->structured_content);
  CHECK(structured->structured_content->find("temperature"));
  auto annotated = client->call_tool("get-annotated-message", obj(R"({"messageType":"error","includeImage":true})"));
  REQUIRE(annotated);  // annotations on blocks are declared members, not smuggled ones

  std::atomic<int> progress{0};
  auto slow = client->call_tool("trigger-long-running-operation", obj(R"({"duration":1,"steps":4})"),
                                {.on_progress = [&](double, std::optional<double> total, std::string_view) {
                                  CHECK(total == 4.0);
                                  ++progress;
                                }});
  REQUIRE(slow);
  CHECK(progress.load() == 4);

  auto read = client->request("resources/read", obj(R"({"uri":"demo://resource/dynamic/text/7"})"));
  REQUIRE(read);
  CHECK(read->find("contents")->as_array().at(0).find("uri")->as_string() == "demo://resource/dynamic/text/7");
  auto templates = client->request("resources/templates/list", obj("{}"));
  REQUIRE(templates);
  CHECK(!templates->find("resourceTemplates")->as_array().empty());
  auto prompt = client->request("prompts/get", obj(R"({"name":"args-prompt","arguments":{"city":"Paris"}})"));
  REQUIRE(prompt);
  auto unknown = client->call_tool("no_such_tool", obj("{}"));
  REQUIRE(unknown);
  CHECK(unknown->is_error);  // the v1 SDK answers an unknown tool with an isError result
}

TEST_CASE("server-everything over stdio: sampling reaches our provider only when allowed, and is audited") {
  auto script = everything_script();
  AGENTKIT_REQUIRE_PEER(interop::node_program() && script, "@modelcontextprotocol/server-everything");
  auto config = node_server("everything", {*script, "stdio"});
  config.allow_sampling = true;
  auto o = options();
  std::vector<mcp::AuditRecord> audit;
  std::mutex mu;
  o.audit = [&](const mcp::AuditRecord& r) {
    std::lock_guard lock(mu);
    audit.push_back(r);
  };
  o.sampling = [](const mcp::InputRequest& req) -> Result<json::Value> {
    CHECK(req.server == "everything");
    return obj(R"({"role":"assistant","content":{"type":"text","text":"a faux completion"},"model":"faux-1","stopReason":"endTurn"})");
  };
  auto client = mcp::Client::connect(config, o);
  REQUIRE(client);
  // The server registers its sampling tool only for clients that declared sampling, then says
  // list_changed; the cache follows.
  std::optional<std::vector<mcp::ToolInfo>> tools;
  for (int i = 0; i < 50; ++i) {
    tools = client->list_tools().value();
    if (has_tool(*tools, "trigger-sampling-request")) break;
    std::this_thread::sleep_for(50ms);
  }
  REQUIRE(has_tool(*tools, "trigger-sampling-request"));
  auto r = client->call_tool("trigger-sampling-request", obj(R"({"prompt":"say something","maxTokens":20})"));
  REQUIRE(r);
  CHECK(text_of(*r).find("a faux completion") != std::string::npos);
  std::lock_guard lock(mu);
  int sampled = 0;
  for (const auto& a : audit) sampled += a.kind == "sampling" && a.allowed ? 1 : 0;
  CHECK(sampled == 1);
}

TEST_CASE("server-everything over stdio: the client survives the server being killed") {
  auto script = everything_script();
  AGENTKIT_REQUIRE_PEER(interop::node_program() && script, "@modelcontextprotocol/server-everything");
  auto client = mcp::Client::connect(node_server("everything", {*script, "stdio"}), options());
  REQUIRE(client);
  REQUIRE(client->call_tool("echo", obj(R"({"message":"before"})")));
  const pid_t pid = pid_from(client->diagnostics());
  REQUIRE(pid > 0);
  ::kill(-pid, SIGKILL);
  std::this_thread::sleep_for(200ms);
  auto after = client->call_tool("echo", obj(R"({"message":"after"})"));
  REQUIRE(after);
  CHECK(text_of(*after) == "Echo: after");
  CHECK(client->diagnostics().reconnects == 1);
  CHECK(pid_from(client->diagnostics()) != pid);
}

TEST_CASE(
    "server-everything over the 2024-11-05 HTTP+SSE transport (the SDK's SSEServerTransport)") {
  auto script = everything_script();
  AGENTKIT_REQUIRE_PEER(interop::node_program() && script,
                        "@modelcontextprotocol/server-everything");
  const int port = interop::free_port();
  interop::BackgroundProcess server({*interop::node_program(), *script, "sse"},
                                    {"PORT=" + std::to_string(port)});
  REQUIRE(server.started());
  REQUIRE(interop::wait_for_port(port));
  mcp::ServerConfig config{
      .name = "everything-sse",
      .transport = mcp::HttpTarget{.url = "http://127.0.0.1:" + std::to_string(port) + "/sse",
                                   .kind = mcp::HttpKind::sse}};
  auto client = mcp::Client::connect(config, options());
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::legacy);
  auto tools = client->list_tools();
  REQUIRE(tools);
  CHECK(has_tool(*tools, "echo"));
  auto echo = client->call_tool("echo", obj(R"({"message":"over sse"})"));
  REQUIRE(echo);
  CHECK(text_of(*echo) == "Echo: over sse");
  // Progress notifications arrive on the stream and reach the caller (a tool execution update
  // inside an agent run).
  int updates = 0;
  mcp::CallControl control;
  control.on_progress = [&](double, std::optional<double>, std::string_view) { ++updates; };
  if (has_tool(*tools, "trigger-long-running-operation")) {
    auto slow = client->call_tool("trigger-long-running-operation",
                                  obj(R"({"duration":1,"steps":3})"), control);
    REQUIRE(slow);
    CHECK(updates >= 1);
  }
  CHECK(client->close());
}

TEST_CASE("server-everything over Streamable HTTP: the probe falls back, the session carries the calls") {
  auto script = everything_script();
  AGENTKIT_REQUIRE_PEER(interop::node_program() && script, "@modelcontextprotocol/server-everything");
  const int port = interop::free_port();
  interop::BackgroundProcess server({*interop::node_program(), *script, "streamableHttp"}, {"PORT=" + std::to_string(port)});
  REQUIRE(server.started());
  REQUIRE(interop::wait_for_port(port));
  mcp::ServerConfig config{.name = "everything-http",
                           .transport = mcp::HttpTarget{.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp"}};
  auto client = mcp::Client::connect(config, options());
  REQUIRE(client);
  auto d = client->diagnostics();
  CHECK(d.era == mcp::Era::legacy);  // a modern POST got 400 with a non-modern error: legacy
  CHECK(d.protocol_version == "2025-11-25");
  auto tools = client->list_tools();
  REQUIRE(tools);
  CHECK(has_tool(*tools, "echo"));
  auto echo = client->call_tool("echo", obj(R"({"message":"over http"})"));
  REQUIRE(echo);
  CHECK(text_of(*echo) == "Echo: over http");
  std::atomic<int> progress{0};
  auto slow = client->call_tool("trigger-long-running-operation", obj(R"({"duration":1,"steps":3})"),
                                {.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; }});
  REQUIRE(slow);
  CHECK(progress.load() == 3);  // progress arrives on the request's SSE stream
  REQUIRE(client->close());     // DELETEs the session
}

TEST_CASE("server-filesystem over stdio: the legacy era and its file tools") {
  auto script = filesystem_script();
  AGENTKIT_REQUIRE_PEER(interop::node_program() && script, "@modelcontextprotocol/server-filesystem");
  testing::TempDir dir;
  const std::string root = std::filesystem::canonical(dir.path()).string();
  dir.write("notes/a.txt", "alpha\nbeta\n");
  auto client = mcp::Client::connect(node_server("files", {*script, root}), options());
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::legacy);
  CHECK(client->diagnostics().server_name == "secure-filesystem-server");
  auto tools = client->list_tools();
  REQUIRE(tools);
  CHECK(has_tool(*tools, "read_text_file"));
  auto allowed = client->call_tool("list_allowed_directories", obj("{}"));
  REQUIRE(allowed);
  CHECK(text_of(*allowed).find(root) != std::string::npos);
  json::Value write(json::Object{{"path", root + "/notes/b.txt"}, {"content", "written by agentkit"}});
  REQUIRE(client->call_tool("write_file", write));
  CHECK(testing::read_file(dir.path() / "notes/b.txt") == "written by agentkit");
  auto read = client->call_tool("read_text_file", json::Value(json::Object{{"path", root + "/notes/a.txt"}}));
  REQUIRE(read);
  CHECK(text_of(*read) == "alpha\nbeta\n");
  json::Value edit(json::Object{{"path", root + "/notes/a.txt"},
                                {"edits", json::Array{json::Object{{"oldText", "beta"}, {"newText", "gamma"}}}}});
  REQUIRE(client->call_tool("edit_file", edit));
  CHECK(testing::read_file(dir.path() / "notes/a.txt") == "alpha\ngamma\n");
  auto listing = client->call_tool("list_directory", json::Value(json::Object{{"path", root + "/notes"}}));
  REQUIRE(listing);
  CHECK(text_of(*listing).find("b.txt") != std::string::npos);
  auto tree = client->call_tool("directory_tree", json::Value(json::Object{{"path", root}}));
  REQUIRE(tree);
  auto info = client->call_tool("get_file_info", json::Value(json::Object{{"path", root + "/notes/a.txt"}}));
  REQUIRE(info);
  auto outside = client->call_tool("read_text_file", obj(R"({"path":"/etc/hostname"})"));
  REQUIRE(outside);
  CHECK(outside->is_error);
  CHECK(!mcp::to_tool_result(*outside, 50'000).ok);
}

TEST_CASE("a v2-SDK server over stdio: discovery keeps us modern, calls and an input_required round trip work") {
  AGENTKIT_REQUIRE_PEER(interop::node_program() && have_v2_server(), "@modelcontextprotocol/server (v2)");
  for (std::string_view legacy : {"serve", "reject"}) {  // dual-era and modern-only
    INFO("legacy " << legacy);
    auto config = node_server("v2", {interop::fixture_script("v2_server.mjs").string(), "stdio", std::string(legacy)});
    config.allow_elicitation = true;
    auto o = options();
    int asked = 0;
    o.elicitation = [&](const mcp::InputRequest& req) -> Result<json::Value> {
      ++asked;
      CHECK(req.params.find("message")->as_string().starts_with("Confirm"));
      return obj(R"({"action":"accept","content":{"yes":true}})");
    };
    auto client = mcp::Client::connect(config, o);
    REQUIRE(client);
    auto d = client->diagnostics();
    CHECK(d.era == mcp::Era::modern);
    CHECK(d.server_name == "v2-fixture");
    auto tools = client->list_tools();
    REQUIRE(tools);
    CHECK(has_tool(*tools, "confirm"));
    auto echo = client->call_tool("echo", obj(R"({"message":"modern"})"));
    REQUIRE(echo);
    CHECK(text_of(*echo) == "Echo: modern");
    auto once = client->call_tool("confirm", obj("{}"));
    REQUIRE(once);
    CHECK(text_of(*once) == "confirmed=true state=after-first");
    CHECK(once->input_rounds == 1);
    auto twice = client->call_tool("confirm", obj(R"({"rounds":2})"));
    REQUIRE(twice);
    CHECK(text_of(*twice) == "confirmed=true state=after-second");
    CHECK(twice->input_rounds == 2);
    CHECK(asked == 3);
  }
}

TEST_CASE("a v2-SDK server: pinned legacy talks to the dual-era one and is refused by the modern-only one") {
  AGENTKIT_REQUIRE_PEER(interop::node_program() && have_v2_server(), "@modelcontextprotocol/server (v2)");
  auto o = options();
  o.negotiation = mcp::Negotiation::legacy;
  auto dual = mcp::Client::connect(node_server("v2", {interop::fixture_script("v2_server.mjs").string(), "stdio", "serve"}), o);
  REQUIRE(dual);
  CHECK(dual->diagnostics().era == mcp::Era::legacy);
  CHECK(dual->call_tool("echo", obj(R"({"message":"old"})")));
  auto modern_only = mcp::Client::connect(node_server("v2", {interop::fixture_script("v2_server.mjs").string(), "stdio", "reject"}), o);
  REQUIRE(!modern_only);
  INFO(modern_only.error().message);
  CHECK(modern_only.error().message.find("-32022") != std::string::npos);
  CHECK(modern_only.error().message.find("2026-07-28") != std::string::npos);
}

TEST_CASE("a v2-SDK server over HTTP: modern calls with derived headers; header mismatches and unknown versions refused") {
  AGENTKIT_REQUIRE_PEER(interop::node_program() && have_v2_server(), "@modelcontextprotocol/server (v2)");
  const int port = interop::free_port();
  interop::BackgroundProcess server({*interop::node_program(), interop::fixture_script("v2_server.mjs").string(), "http",
                                     std::to_string(port), "reject"});
  REQUIRE(interop::wait_for_port(port));
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  auto o = options();
  o.allow_elicitation = true;
  o.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> { return obj(R"({"action":"accept","content":{"yes":false}})"); };
  auto config = mcp::ServerConfig{.name = "v2-http", .transport = mcp::HttpTarget{.url = url}};
  config.allow_elicitation = true;
  auto client = mcp::Client::connect(config, o);
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::modern);
  auto echo = client->call_tool("echo", obj(R"({"message":"résumé"})"));  // the SDK checks Mcp-Name/Mcp-Method against the body
  REQUIRE(echo);
  CHECK(text_of(*echo) == "Echo: résumé");
  auto confirm = client->call_tool("confirm", obj("{}"));
  REQUIRE(confirm);
  CHECK(text_of(*confirm) == "confirmed=false state=after-first");

  // The same checks by hand: what the server says to a request whose headers disagree with it.
  http::HttpClient raw;
  const auto post = [&](std::string body, http::Headers headers) {
    http::Request req{.method = "POST", .url = url, .headers = std::move(headers), .body = std::move(body)};
    req.headers.add("Content-Type", "application/json");
    req.headers.add("Accept", "application/json, text/event-stream");
    auto resp = raw.send(req);
    REQUIRE(resp);
    const int status = resp->status();
    return std::pair{status, mcp::parse_message(resp->read_all().value())};
  };
  const auto meta = [](std::string_view version) {
    return std::string(R"("_meta":{"io.modelcontextprotocol/protocolVersion":")") + std::string(version) +
           R"(","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}})";
  };
  const std::string call = R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},)" + meta("2026-07-28") + "}}";
  auto [mismatch_status, mismatch] = post(call, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "confirm"}});
  CHECK(mismatch_status == 400);
  REQUIRE(mismatch);
  CHECK(mismatch->error.code == mcp::rpc_code::header_mismatch);
  const std::string old = R"({"jsonrpc":"2.0","id":6,"method":"tools/list","params":{)" + meta("1900-01-01") + "}}";
  auto [old_status, unsupported] = post(old, {{"MCP-Protocol-Version", "1900-01-01"}, {"Mcp-Method", "tools/list"}});
  CHECK(old_status == 400);
  REQUIRE(unsupported);
  CHECK(unsupported->error.code == mcp::rpc_code::unsupported_protocol_version);
  CHECK(json::dump(*unsupported->error.data->find("supported")) == R"(["2026-07-28"])");
}
