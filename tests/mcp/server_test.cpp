// The MCP server over stdio, driven with raw frames through pipes (and by our client where the
// exchange is long): both eras, pagination, templates, cancellation, concurrency, list_changed.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/server.hpp"
#include "mcp_test_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;
using mcp_test::modern_meta;
using mcp_test::PipeServer;

namespace {

mcp::ServerTool text_tool(std::string name, std::string answer) {
  return {.name = std::move(name), .handler = [answer](const mcp::ToolCall&) -> mcp::ToolOutcome {
            return mcp::ServerToolResult::text(answer);
          }};
}

void handshake(PipeServer& pipe, std::string_view version = "2025-11-25") {
  pipe.send(std::string(R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":")") +
            std::string(version) + R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  REQUIRE(pipe.reply_to("\"init\""));
  pipe.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

std::string modern_call(std::string_view id, std::string_view method, std::string_view params_members = "") {
  std::string p = "{" + std::string(params_members) + (params_members.empty() ? "" : ",") + modern_meta() + "}";
  return std::string(R"({"jsonrpc":"2.0","id":)") + std::string(id) + R"(,"method":")" + std::string(method) +
         R"(","params":)" + p + "}";
}

json::Value result_of(const std::optional<json::Value>& reply) {
  REQUIRE(reply);
  REQUIRE(reply->find("result"));
  return *reply->find("result");
}

std::int64_t error_code(const std::optional<json::Value>& reply) {
  REQUIRE(reply);
  REQUIRE(reply->find("error"));
  return reply->find("error")->find("code")->to_int64().value();
}

// A tool whose calls block until released (or cancelled), counting how many run at once.
struct Blocker {
  std::mutex mu;
  agentkit::condition_variable_any cv;
  bool released = false;
  int running = 0;
  int peak = 0;
  int cancelled = 0;

  mcp::ServerTool tool(std::string name = "block") {
    return {.name = std::move(name), .handler = [this](const mcp::ToolCall& call) -> mcp::ToolOutcome {
              std::unique_lock lock(mu);
              ++running;
              peak = std::max(peak, running);
              cv.notify_all();
              const bool ok = cv.wait(lock, call.stop, [&] { return released; });
              --running;
              if (!ok) ++cancelled;
              cv.notify_all();
              return mcp::ServerToolResult::text(ok ? "released" : "cancelled");
            }};
  }
  void wait_running(int n) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, 5s, [&] { return running >= n; });
  }
  void release() {
    std::lock_guard lock(mu);
    released = true;
    cv.notify_all();
  }
  int cancelled_count() {
    std::lock_guard lock(mu);
    return cancelled;
  }
  int peak_seen() {
    std::lock_guard lock(mu);
    return peak;
  }
};

}  // namespace

TEST_CASE("a registered tool is listed and callable in both eras") {
  mcp::Server server;
  REQUIRE(server.add_tool(text_tool("hello", "hi there")));
  PipeServer pipe(server);
  handshake(pipe);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const auto& listed = result_of(pipe.reply_to("1"));
  CHECK(listed.find("tools")->as_array().at(0).find("name")->as_string() == "hello");
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello"}})");
  CHECK(result_of(pipe.reply_to("2")).find("content")->as_array().at(0).find("text")->as_string() == "hi there");
  pipe.send(modern_call("3", "tools/call", R"("name":"hello","arguments":{})"));
  CHECK(result_of(pipe.reply_to("3")).find("resultType")->as_string() == "complete");
}

TEST_CASE("the library registers no tools by default and refuses a duplicate name") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(modern_call("1", "tools/list"));
  CHECK(result_of(pipe.reply_to("1")).find("tools")->as_array().empty());
  REQUIRE(server.add_tool(text_tool("a", "x")));
  auto dup = server.add_tool(text_tool("a", "y"));
  REQUIRE(!dup);
  CHECK(dup.error().code == Errc::already_exists);
}

TEST_CASE("initialize echoes a legacy version it speaks and counter-offers its newest otherwise") {
  mcp::Server server;
  {
    PipeServer pipe(server);
    pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    CHECK(result_of(pipe.reply_to("1")).find("protocolVersion")->as_string() == "2025-06-18");
  }
  {
    PipeServer pipe(server);
    pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    const auto& r = result_of(pipe.reply_to("1"));
    CHECK(r.find("protocolVersion")->as_string() == "2025-11-25");
    CHECK(!r.find("resultType"));  // legacy results carry no modern decoration
  }
}

TEST_CASE("a legacy initialize gets a diagnostic naming the supported versions from a modern-only server") {
  mcp::Server server({.legacy = mcp::LegacyMode::reject});
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  auto reply = pipe.reply_to("1");
  CHECK(error_code(reply) == -32022);
  const json::Value& error = *reply->find("error");
  CHECK(error.find("message")->as_string().find("2026-07-28") != std::string::npos);
  CHECK(json::dump(*error.find("data")->find("supported")) == R"(["2026-07-28"])");
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");  // no envelope, no session
  CHECK(error_code(pipe.reply_to("2")) == -32022);
}

TEST_CASE("an unsupported version is rejected with the supported list") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{)" + modern_meta("2025-06-18") + "}}");
  auto reply = pipe.reply_to("1");
  CHECK(error_code(reply) == -32022);
  CHECK(json::dump(*reply->find("error")->find("data")) == R"({"supported":["2026-07-28"],"requested":"2025-06-18"})");
}

TEST_CASE("a modern envelope without clientCapabilities is refused with -32602 naming the key") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
  auto reply = pipe.reply_to("1");
  CHECK(error_code(reply) == -32602);
  CHECK(reply->find("error")->find("data")->find("envelope")->find("key")->as_string() ==
        "io.modelcontextprotocol/clientCapabilities");
}

TEST_CASE("modern list results carry resultType, ttlMs, cacheScope and serverInfo") {
  mcp::Server server({.server_info = {"srv", "9", ""}, .list_ttl_ms = 1234});
  PipeServer pipe(server);
  for (std::string_view method : {"tools/list", "resources/list", "resources/templates/list", "prompts/list"}) {
    pipe.send(modern_call("1", method));
    const auto& r = result_of(pipe.reply_to("1"));
    CHECK(r.find("resultType")->as_string() == "complete");
    CHECK(r.find("ttlMs")->number_text() == "1234");
    CHECK(r.find("cacheScope")->as_string() == "private");
    CHECK(r.find("_meta")->find("io.modelcontextprotocol/serverInfo")->find("name")->as_string() == "srv");
  }
}

TEST_CASE("ping is gone in the modern era and answered in a legacy session") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(modern_call("1", "ping"));
  CHECK(error_code(pipe.reply_to("1")) == -32601);
  handshake(pipe);
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  CHECK(result_of(pipe.reply_to("2")).as_object().empty());
}

TEST_CASE("server/discover advertises versions and capabilities") {
  mcp::Server server({.instructions = "use me well"});
  PipeServer pipe(server);
  pipe.send(modern_call("\"probe\"", "server/discover"));
  const auto& r = result_of(pipe.reply_to("\"probe\""));
  CHECK(json::dump(*r.find("supportedVersions")) ==
        R"(["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"])");
  CHECK(r.find("capabilities")->find("tools")->find("listChanged")->as_bool());
  CHECK(r.find("instructions")->as_string() == "use me well");
  CHECK(r.find("ttlMs"));
}

TEST_CASE("a request with neither a session nor the version envelope is refused") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  CHECK(error_code(pipe.reply_to("1")) == -32600);
}

TEST_CASE("pagination cursors name an entry: a removal does not skip, and stale or fabricated cursors are refused") {
  mcp::Server server({.page_size = 2});
  for (auto n : {"a", "b", "c", "d", "e"}) REQUIRE(server.add_tool(text_tool(n, n)));
  PipeServer pipe(server);
  pipe.send(modern_call("1", "tools/list"));
  const auto& first = result_of(pipe.reply_to("1"));
  const std::string cursor = first.find("nextCursor")->as_string();
  REQUIRE(server.remove_tool("a"));  // an index-based cursor would now skip "c"
  pipe.send(modern_call("2", "tools/list", R"("cursor":")" + cursor + "\""));
  const auto& second = result_of(pipe.reply_to("2"));
  CHECK(second.find("tools")->as_array().at(0).find("name")->as_string() == "c");
  REQUIRE(server.remove_tool("e"));
  const std::string cursor2 = second.find("nextCursor")->as_string();  // names "e"
  pipe.send(modern_call("3", "tools/list", R"("cursor":")" + cursor2 + "\""));
  CHECK(error_code(pipe.reply_to("3")) == -32602);
  pipe.send(modern_call("4", "tools/list", R"("cursor":"Y3Vyc29yCnRvb2xzCmQ.AAAA")"));
  CHECK(error_code(pipe.reply_to("4")) == -32602);
}

TEST_CASE("a resource template dispatches its variables, and an exact registration wins over it") {
  mcp::Server server;
  const auto reader = [](std::string tag) {
    return [tag](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
      std::string text = tag;
      for (const auto& [k, v] : r.variables) text += " " + k + "=" + v;
      return std::vector<mcp::ResourceContents>{{r.uri, "text/plain", text, std::nullopt}};
    };
  };
  REQUIRE(server.add_resource_template({.uri_template = "x://items/{id}", .name = "item", .read = reader("template")}));
  REQUIRE(server.add_resource({.uri = "x://items/special", .name = "special", .read = reader("exact")}));
  PipeServer pipe(server);
  pipe.send(modern_call("1", "resources/read", R"("uri":"x://items/7")"));
  const auto& r = result_of(pipe.reply_to("1"));
  CHECK(r.find("contents")->as_array().at(0).find("text")->as_string() == "template id=7");
  CHECK(r.find("ttlMs"));
  pipe.send(modern_call("2", "resources/read", R"("uri":"x://items/special")"));
  CHECK(result_of(pipe.reply_to("2")).find("contents")->as_array().at(0).find("text")->as_string() == "exact");
  pipe.send(modern_call("3", "resources/templates/list"));
  CHECK(result_of(pipe.reply_to("3")).find("resourceTemplates")->as_array().at(0).find("uriTemplate")->as_string() ==
        "x://items/{id}");
  pipe.send(modern_call("4", "resources/read", R"("uri":"x://items/7/deeper")"));
  CHECK(error_code(pipe.reply_to("4")) == -32602);  // modern resource-not-found
  handshake(pipe);
  pipe.send(R"({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"x://nothing"}})");
  CHECK(error_code(pipe.reply_to("5")) == -32002);  // legacy resource-not-found
}

TEST_CASE("a cancelled request stops its handler and goes unanswered; the string id never cancels the number") {
  Blocker blocker;
  mcp::Server server;
  REQUIRE(server.add_tool(blocker.tool()));
  PipeServer pipe(server);
  handshake(pipe);
  pipe.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}})");
  blocker.wait_running(1);
  pipe.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"5"}})");
  std::this_thread::sleep_for(100ms);
  CHECK(blocker.cancelled_count() == 0);  // "5" is not 5
  pipe.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}})");
  pipe.send(R"({"jsonrpc":"2.0","id":6,"method":"ping"})");
  std::vector<json::Value> others;
  REQUIRE(pipe.reply_to("6", &others));
  std::this_thread::sleep_for(100ms);
  CHECK(blocker.cancelled_count() == 1);
  CHECK(!pipe.reply_to("5", nullptr, 300ms));  // never answered
  for (const auto& o : others) CHECK(json::dump(*o.find("id")) != "5");
}

TEST_CASE("at most 64 handlers run at once; the rest wait their turn") {
  Blocker blocker;
  mcp::Server server;
  REQUIRE(server.add_tool(blocker.tool()));
  PipeServer pipe(server);
  constexpr int kCalls = 70;
  for (int i = 0; i < kCalls; ++i) pipe.send(modern_call(std::to_string(i), "tools/call", R"("name":"block")"));
  blocker.wait_running(64);
  std::this_thread::sleep_for(200ms);
  {
    std::lock_guard lock(blocker.mu);
    CHECK(blocker.running == 64);
  }
  CHECK(server.handlers_running() == 64);
  blocker.release();
  int answered = 0;
  for (int i = 0; i < kCalls; ++i) answered += pipe.next() ? 1 : 0;
  CHECK(answered == kCalls);
  CHECK(blocker.peak_seen() == 64);
}

TEST_CASE("shutdown cancels in-flight handlers before waiting for them") {
  Blocker blocker;
  mcp::Server server;
  REQUIRE(server.add_tool(blocker.tool()));
  PipeServer pipe(server);
  pipe.send(modern_call("1", "tools/call", R"("name":"block")"));
  pipe.send(modern_call("2", "tools/call", R"("name":"block")"));
  blocker.wait_running(2);
  const auto started = std::chrono::steady_clock::now();
  pipe.stop();
  REQUIRE(pipe.finish());
  CHECK(std::chrono::steady_clock::now() - started < 2s);
  CHECK(blocker.cancelled_count() == 2);
}

TEST_CASE("a call made just before EOF is still answered") {
  mcp::Server server;
  REQUIRE(server.add_tool({.name = "late", .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
                             std::this_thread::sleep_for(150ms);
                             return mcp::ServerToolResult::text("still here");
                           }}));
  PipeServer pipe(server);
  pipe.send(modern_call("1", "tools/call", R"("name":"late")"));
  pipe.close_input();
  const auto& r = result_of(pipe.reply_to("1"));
  CHECK(r.find("content")->as_array().at(0).find("text")->as_string() == "still here");
  REQUIRE(pipe.finish());
}

TEST_CASE("a request pipelined right behind initialize already sees the session") {
  // A client that writes initialize and tools/list back to back must not race the handshake:
  // initialize is answered on the reading thread, before the next frame is dispatched.
  mcp::Server server;
  REQUIRE(server.add_tool(text_tool("echo", "hi")));
  for (int round = 0; round < 40; ++round) {
    PipeServer pipe(server);
    pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    pipe.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
    const auto listed = pipe.reply_to("2");
    REQUIRE(listed);
    REQUIRE(listed->find("result"));
    CHECK(listed->find("result")->find("tools")->size() == 1);
  }
}

TEST_CASE("registering a tool notifies an initialized session, never before the handshake completes") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  REQUIRE(pipe.reply_to("1"));
  REQUIRE(server.add_tool(text_tool("early", "x")));  // before notifications/initialized
  CHECK(!pipe.next(200ms));
  pipe.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  std::this_thread::sleep_for(50ms);
  REQUIRE(server.add_tool(text_tool("late", "x")));
  auto note = pipe.next();
  REQUIRE(note);
  CHECK(note->find("method")->as_string() == "notifications/tools/list_changed");
  REQUIRE(server.remove_tool("late"));
  CHECK(pipe.next()->find("method")->as_string() == "notifications/tools/list_changed");
}

TEST_CASE("a listen stream subscribed only to tool changes receives nothing when a resource changes") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(modern_call("9", "subscriptions/listen", R"("notifications":{"toolsListChanged":true,"promptsListChanged":true})"));
  auto ack = pipe.next();
  REQUIRE(ack);
  CHECK(ack->find("method")->as_string() == "notifications/subscriptions/acknowledged");
  CHECK(ack->find("params")->find("_meta")->find("io.modelcontextprotocol/subscriptionId")->number_text() == "9");
  REQUIRE(server.add_resource({.uri = "x://r", .name = "r", .read = [](const mcp::ResourceRead&) -> Result<std::vector<mcp::ResourceContents>> {
                                 return std::vector<mcp::ResourceContents>{};
                               }}));
  CHECK(!pipe.next(200ms));
  REQUIRE(server.add_tool(text_tool("t", "x")));
  auto changed = pipe.next();
  REQUIRE(changed);
  CHECK(changed->find("method")->as_string() == "notifications/tools/list_changed");
  CHECK(changed->find("params")->find("_meta")->find("io.modelcontextprotocol/subscriptionId")->number_text() == "9");
  pipe.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})");
  std::this_thread::sleep_for(100ms);
  REQUIRE(server.add_tool(text_tool("t2", "x")));
  auto after = pipe.next(200ms);
  INFO((after ? json::dump(*after) : std::string("nothing")));
  CHECK(!after);  // the subscription ended with the cancellation
}

TEST_CASE("duplicate keys in a request are answered -32700 and end the connection") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})");
  auto reply = pipe.next();
  REQUIRE(reply);
  CHECK(error_code(reply) == -32700);
  CHECK(reply->find("id")->is_null());
  auto served = pipe.finish();
  REQUIRE(!served);
  CHECK(served.error().code == Errc::protocol_error);
}

TEST_CASE("a frame with an unknown envelope member is answered -32600 and the connection survives") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"ping","extra":1})");
  CHECK(error_code(pipe.reply_to("1")) == -32600);
  pipe.send(modern_call("2", "tools/list"));
  CHECK(pipe.reply_to("2"));
}

TEST_CASE("a tool asks for input: sealed state, a retry completes, tampering and missing capabilities are refused") {
  mcp::Server server;
  int handler_calls = 0;
  REQUIRE(server.add_tool({.name = "confirm", .handler = [&](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                             ++handler_calls;
                             if (call.input_responses.contains("ok")) {
                               return mcp::ServerToolResult::text("state=" + call.state.value_or("none"));
                             }
                             mcp::InputRequired asked;
                             asked.requests.emplace_back("ok", mcp::elicitation_request("Sure?", json::Value(json::Object{{"type", "object"}})));
                             asked.state = "mine";
                             return asked;
                           }}));
  PipeServer pipe(server);
  const std::string with_elicitation = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}})";
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{"k":1},)" + with_elicitation + "}}");
  const auto& asked = result_of(pipe.reply_to("1"));
  CHECK(asked.find("resultType")->as_string() == "input_required");
  CHECK(asked.find("inputRequests")->find("ok")->find("method")->as_string() == "elicitation/create");
  const std::string state = asked.find("requestState")->as_string();
  CHECK(state.find("mine") == std::string::npos);  // sealed: the handler's state is not readable as is
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{"k":1},"inputResponses":{"ok":{"action":"accept"}},"requestState":")" +
            state + "\"," + with_elicitation + "}}");
  CHECK(result_of(pipe.reply_to("2")).find("content")->as_array().at(0).find("text")->as_string() == "state=mine");
  // The same state with other arguments belongs to another request.
  pipe.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm","arguments":{"k":2},"inputResponses":{"ok":{"action":"accept"}},"requestState":")" +
            state + "\"," + with_elicitation + "}}");
  CHECK(error_code(pipe.reply_to("3")) == -32602);
  pipe.send(modern_call("4", "tools/call", R"("name":"confirm","arguments":{"k":1})"));
  auto missing = pipe.reply_to("4");
  CHECK(error_code(missing) == -32021);
  CHECK(json::dump(*missing->find("error")->find("data")) == R"({"requiredCapabilities":{"elicitation":{"form":{}}}})");
}

// A tool that asks for input with `request` (a malformed or unsupported input request).
mcp::ServerTool asking_tool(std::string name, std::string_view request) {
  return {.name = std::move(name),
          .handler = [request = std::string(request)](const mcp::ToolCall&) -> mcp::ToolOutcome {
            mcp::InputRequired asked;
            asked.requests.emplace_back("q", json::parse(request).value());
            return asked;
          }};
}

TEST_CASE(
    "a modern input round that ends in a tool error still carries resultType and serverInfo") {
  mcp::Server server({.server_info = {"srv", "9", ""}});
  REQUIRE(server.add_tool(asking_tool("odd", R"({"method":"no/such"})")));
  REQUIRE(server.add_tool(asking_tool("mute", R"({"params":{}})")));
  PipeServer pipe(server);
  for (std::string_view tool : {"odd", "mute"}) {
    INFO(tool);
    const std::string members = R"("name":")" + std::string(tool) + R"(","arguments":{})";
    pipe.send(modern_call("1", "tools/call", members));
    const auto& r = result_of(pipe.reply_to("1"));
    CHECK(r.find("isError")->as_bool());
    REQUIRE(r.find("resultType"));
    CHECK(r.find("resultType")->as_string() == "complete");
    CHECK(!r.find("ttlMs"));  // a call's outcome is never cacheable
    REQUIRE(r.find("_meta"));
    const json::Value* info = r.find("_meta")->find("io.modelcontextprotocol/serverInfo");
    REQUIRE(info);
    CHECK(info->find("name")->as_string() == "srv");
  }
}

TEST_CASE("for a legacy client the server asks the question itself and calls the handler again") {
  mcp::ClientOptions options = mcp_test::quick_options();
  options.negotiation = mcp::Negotiation::legacy;
  options.allow_elicitation = true;
  options.elicitation = [](const mcp::InputRequest& req) -> Result<json::Value> {
    CHECK(req.params.find("message")->as_string() == "Really?");
    return json::parse(R"({"action":"accept","content":{"yes":true}})").value();
  };
  auto legacy = mcp::Client::connect(mcp_test::fixture(), options);
  REQUIRE(legacy);
  auto r = legacy->call_tool("confirm", json::Value(json::Object{}));
  REQUIRE(r);
  CHECK(r->content.at(0).find("text")->as_string() == "confirmed (state asked-once)");
  options.negotiation = mcp::Negotiation::automatic;
  auto modern = mcp::Client::connect(mcp_test::fixture(), options);
  REQUIRE(modern);
  REQUIRE(modern->diagnostics().era == mcp::Era::modern);
  auto m = modern->call_tool("confirm", json::Value(json::Object{}));
  REQUIRE(m);
  CHECK(m->content.at(0).find("text")->as_string() == "confirmed (state asked-once)");
  CHECK(m->input_rounds == 1);
}

namespace {

// A prompt and a resource that ask "Sure?" (elicitation) until answered, then report the answer
// and their own state; `calls` counts the handler's runs.
mcp::InputRequired sure_question(std::string state) {
  mcp::InputRequired asked;
  asked.requests.emplace_back(
      "ok", mcp::elicitation_request("Sure?", json::Value(json::Object{{"type", "object"}})));
  asked.state = std::move(state);
  return asked;
}

std::string answered_text(const json::Object& responses, const std::optional<std::string>& state) {
  const json::Value* ok = responses.find("ok");
  return "answer=" + (ok ? json::dump(*ok) : std::string("none")) +
         " state=" + state.value_or("none");
}

const std::string kWithElicitation =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}})";

// The params members of a retry: `head` (name and arguments, or uri), the answer to "ok", the
// state as it came.
std::string retry_with(std::string_view head, std::string_view answer, const std::string& state) {
  return std::string(head) + R"(,"inputResponses":{"ok":)" + std::string(answer) +
         R"(},"requestState":")" + state + "\"";
}

std::string frame(std::string_view id, std::string_view method, std::string_view members) {
  return std::string(R"({"jsonrpc":"2.0","id":)") + std::string(id) + R"(,"method":")" +
         std::string(method) + R"(","params":{)" + std::string(members) + "," + kWithElicitation +
         "}}";
}

}  // namespace

TEST_CASE(
    "a prompt asks for input: sealed state, a retry completes, tampering and missing capabilities "
    "are refused") {
  mcp::Server server;
  std::atomic<int> calls{0};
  REQUIRE(server.add_prompt(
      {.name = "confirm",
       .arguments = {{.name = "k"}},
       .get = [&](const mcp::PromptGet& g) -> mcp::PromptOutcome {
         ++calls;
         CHECK(g.era == mcp::Era::modern);
         if (!g.input_responses.contains("ok")) return sure_question("mine");
         return mcp::PromptResult{
             "",
             {{"user",
               json::Value(json::Object{{"type", "text"},
                                        {"text", answered_text(g.input_responses, g.state)}})}}};
       }}));
  // A tool of the same name, whose arguments digest the same: the state names its method too.
  REQUIRE(
      server.add_tool({.name = "confirm", .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
                         return mcp::ServerToolResult::text("tool ran");
                       }}));
  PipeServer pipe(server);
  pipe.send(frame("1", "prompts/get", R"("name":"confirm","arguments":{"k":"1"})"));
  const auto asked = result_of(pipe.reply_to("1"));
  CHECK(asked.find("resultType")->as_string() == "input_required");
  CHECK(asked.find("inputRequests")->find("ok")->find("method")->as_string() ==
        "elicitation/create");
  CHECK(asked.find("_meta")->find("io.modelcontextprotocol/serverInfo"));
  const std::string state = asked.find("requestState")->as_string();
  // Sealed: the handler's state is not readable as is.
  CHECK(state.find("mine") == std::string::npos);
  const std::string args1 = R"("name":"confirm","arguments":{"k":"1"})";
  const std::string accept = R"({"action":"accept"})";
  const std::string retry = retry_with(args1, accept, state);
  pipe.send(frame("2", "prompts/get", retry));
  const auto done = result_of(pipe.reply_to("2"));
  CHECK(done.find("resultType")->as_string() == "complete");
  CHECK(done.find("messages")->as_array().at(0).find("content")->find("text")->as_string() ==
        R"(answer={"action":"accept"} state=mine)");
  CHECK(calls.load() == 2);
  // The state belongs to this prompt with these arguments: other arguments, another prompt's name
  // or a changed byte are refused before the getter runs.
  const std::string other_args =
      retry_with(R"("name":"confirm","arguments":{"k":"2"})", accept, state);
  pipe.send(frame("3", "prompts/get", other_args));
  CHECK(error_code(pipe.reply_to("3")) == -32602);
  std::string tampered = state;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  const std::string forged = retry_with(args1, accept, tampered);
  pipe.send(frame("4", "prompts/get", forged));
  CHECK(error_code(pipe.reply_to("4")) == -32602);
  const std::string as_tool = retry_with(args1, accept, state);
  pipe.send(frame("6", "tools/call", as_tool));
  CHECK(error_code(pipe.reply_to("6")) == -32602);
  CHECK(calls.load() == 2);
  // A request that did not declare elicitation is not asked: -32021 naming what is missing.
  pipe.send(modern_call("5", "prompts/get", R"("name":"confirm","arguments":{"k":"1"})"));
  auto missing = pipe.reply_to("5");
  CHECK(error_code(missing) == -32021);
  CHECK(json::dump(*missing->find("error")->find("data")) ==
        R"({"requiredCapabilities":{"elicitation":{"form":{}}}})");
}

TEST_CASE(
    "a resource read asks for input the same way, and its question is never marked cacheable") {
  mcp::Server server({.list_ttl_ms = 5000});
  REQUIRE(server.add_resource_template(
      {.uri_template = "x://guarded/{id}",
       .name = "guarded",
       .read = [](const mcp::ResourceRead& r) -> mcp::ResourceOutcome {
         if (!r.input_responses.contains("ok"))
           return sure_question("read-" + r.variables.front().second);
         return std::vector<mcp::ResourceContents>{
             {r.uri, "text/plain", answered_text(r.input_responses, r.state), std::nullopt}};
       }}));
  PipeServer pipe(server);
  pipe.send(frame("1", "resources/read", R"("uri":"x://guarded/7")"));
  const auto asked = result_of(pipe.reply_to("1"));
  CHECK(asked.find("resultType")->as_string() == "input_required");
  CHECK(!asked.find("ttlMs"));
  CHECK(!asked.find("cacheScope"));
  const std::string state = asked.find("requestState")->as_string();
  pipe.send(frame(
      "2", "resources/read",
      R"("uri":"x://guarded/7","inputResponses":{"ok":{"action":"decline"}},"requestState":")" +
          state + "\""));
  const auto done = result_of(pipe.reply_to("2"));
  CHECK(done.find("resultType")->as_string() == "complete");
  CHECK(done.find("ttlMs")->to_int64() == std::optional<std::int64_t>(5000));
  CHECK(done.find("contents")->as_array().at(0).find("text")->as_string() ==
        R"(answer={"action":"decline"} state=read-7)");
  // The state names its URI: another resource's read is refused.
  pipe.send(frame(
      "3", "resources/read",
      R"("uri":"x://guarded/8","inputResponses":{"ok":{"action":"decline"}},"requestState":")" +
          state + "\""));
  CHECK(error_code(pipe.reply_to("3")) == -32602);
}

TEST_CASE(
    "a prompt that keeps asking is stopped after max_input_rounds with an error, not a prompt") {
  mcp::Server server({.max_input_rounds = 2});
  REQUIRE(
      server.add_prompt({.name = "needy", .get = [](const mcp::PromptGet&) -> mcp::PromptOutcome {
                           return sure_question("again");
                         }}));
  PipeServer pipe(server);
  std::string members = R"("name":"needy")";
  for (int round = 1; round <= 2; ++round) {
    const std::string id = std::to_string(round);
    pipe.send(frame(id, "prompts/get", members));
    const auto asked = result_of(pipe.reply_to(id));
    REQUIRE(asked.find("resultType")->as_string() == "input_required");
    members = R"("name":"needy","inputResponses":{"ok":{"action":"cancel"}},"requestState":")" +
              asked.find("requestState")->as_string() + "\"";
  }
  pipe.send(frame("3", "prompts/get", members));
  auto stopped = pipe.reply_to("3");
  CHECK(error_code(stopped) == -32603);
  CHECK(stopped->find("error")->find("message")->as_string() ==
        "prompt 'needy' asked for input more than 2 times");
}

TEST_CASE(
    "our client answers a prompt's and a resource's input rounds through the embedder, in both "
    "eras") {
  for (auto negotiation : {mcp::Negotiation::legacy, mcp::Negotiation::modern}) {
    INFO((negotiation == mcp::Negotiation::legacy ? "legacy" : "modern"));
    mcp::ClientOptions options = mcp_test::quick_options();
    options.negotiation = negotiation;
    options.allow_elicitation = true;
    std::vector<std::string> asked;
    options.elicitation = [&](const mcp::InputRequest& req) -> Result<json::Value> {
      asked.push_back(req.method + ": " + req.params.find("message")->as_string());
      return json::parse(R"({"action":"accept","content":{"topic":"owls"}})").value();
    };
    std::vector<mcp::AuditRecord> audit;
    options.audit = [&](const mcp::AuditRecord& r) { audit.push_back(r); };
    auto client = mcp::Client::connect(mcp_test::fixture(), options);
    REQUIRE(client);
    auto prompt = mcp::get_prompt(*client, "ask_topic");
    REQUIRE(prompt);
    // The handler's own state comes back in both eras: sealed for a modern client, kept by the
    // server itself for a legacy one.
    CHECK(prompt->find("messages")->as_array().at(0).find("content")->find("text")->as_string() ==
          "Write about owls (state asked-topic)");
    auto read = mcp::read_resource(*client, "x://ask/topic");
    REQUIRE(read);
    CHECK(read->find("contents")->as_array().at(0).find("text")->as_string() ==
          "topic owls (state asked-read)");
    CHECK(asked == std::vector<std::string>{"elicitation/create: Which topic?",
                                            "elicitation/create: Which topic?"});
    int elicitations = 0;
    for (const auto& a : audit) elicitations += a.kind == "elicitation" && a.allowed ? 1 : 0;
    CHECK(elicitations == 2);
  }
}

TEST_CASE(
    "a prompt's input round is refused unless elicitation is enabled, and the embedder is never "
    "asked") {
  for (auto negotiation : {mcp::Negotiation::legacy, mcp::Negotiation::modern}) {
    INFO((negotiation == mcp::Negotiation::legacy ? "legacy" : "modern"));
    mcp::ClientOptions options = mcp_test::quick_options();
    options.negotiation = negotiation;
    int asked = 0;
    options.elicitation = [&](const mcp::InputRequest&) -> Result<json::Value> {
      ++asked;
      return json::Value(json::Object{{"action", "accept"}});
    };
    auto client = mcp::Client::connect(mcp_test::fixture(), options);  // allow_elicitation is false
    REQUIRE(client);
    auto prompt = mcp::get_prompt(*client, "ask_topic");
    REQUIRE(!prompt);
    CHECK(prompt.error().message.find("fixture") != std::string::npos);
    CHECK(asked == 0);
  }
}

TEST_CASE("the client stops answering a prompt's input rounds after max_input_rounds") {
  mcp::ClientOptions options = mcp_test::quick_options();
  options.negotiation = mcp::Negotiation::modern;
  options.max_input_rounds = 1;
  options.allow_elicitation = true;
  int asked = 0;
  options.elicitation = [&](const mcp::InputRequest&) -> Result<json::Value> {
    ++asked;
    return json::Value(json::Object{{"action", "decline"}});
  };
  auto client = mcp::Client::connect(mcp_test::fixture(), options);
  REQUIRE(client);
  auto prompt = mcp::get_prompt(*client, "ask_forever");
  REQUIRE(!prompt);
  CHECK(prompt.error().code == Errc::limit_exceeded);
  CHECK(prompt.error().message.find("prompts/get 'ask_forever'") != std::string::npos);
  CHECK(asked == 1);
}

TEST_CASE("agent tool definitions are served with their schema, argument pipeline and handler") {
  ToolDefinition shout;
  shout.name = "shout";
  shout.description = "Upper-cases text";
  shout.input_schema = schema::object({schema::required("text", schema::string())});
  shout.handler = [](const json::Value& a, const ToolContext& ctx) {
    CHECK(ctx.tool_name == "shout");
    std::string t = a.find("text")->as_string();
    for (auto& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return ToolResult::text_result(t);
  };
  ToolDefinition boom;
  boom.name = "boom";
  boom.handler = [](const json::Value&, const ToolContext&) -> ToolResult { throw std::runtime_error("kaboom"); };
  mcp::Server server;
  REQUIRE(server.add_tools({shout, boom}));
  PipeServer pipe(server);
  pipe.send(modern_call("1", "tools/list"));
  const auto& listed = result_of(pipe.reply_to("1"));
  CHECK(listed.find("tools")->as_array().at(0).find("inputSchema")->find("required")->as_array().at(0).as_string() == "text");
  pipe.send(modern_call("2", "tools/call", R"("name":"shout","arguments":{"text":"hi"})"));
  CHECK(result_of(pipe.reply_to("2")).find("content")->as_array().at(0).find("text")->as_string() == "HI");
  pipe.send(modern_call("3", "tools/call", R"("name":"shout","arguments":{})"));
  const auto& invalid = result_of(pipe.reply_to("3"));
  CHECK(invalid.find("isError")->as_bool());
  pipe.send(modern_call("4", "tools/call", R"("name":"boom","arguments":{})"));
  const auto& thrown = result_of(pipe.reply_to("4"));
  CHECK(thrown.find("isError")->as_bool());
  CHECK(thrown.find("content")->as_array().at(0).find("text")->as_string().find("kaboom") != std::string::npos);
  pipe.send(modern_call("5", "tools/call", R"("name":"nope")"));
  CHECK(error_code(pipe.reply_to("5")) == -32602);  // unknown tool: a protocol error
}

TEST_CASE("prompts are listed and got; a missing required argument is refused") {
  auto client = mcp::Client::connect(mcp_test::fixture(), mcp_test::quick_options());
  REQUIRE(client);
  auto got = client->request("prompts/get", json::parse(R"({"name":"greet","arguments":{"name":"Ada"}})").value());
  REQUIRE(got);
  CHECK(got->find("messages")->as_array().at(0).find("content")->find("text")->as_string() == "Hello, Ada");
  auto missing = client->request("prompts/get", json::parse(R"({"name":"greet"})").value());
  REQUIRE(!missing);
  CHECK(missing.error().find_detail("rpc_code") == std::optional<std::string_view>("-32602"));
}

namespace {

// A tool that logs one message at each of debug, warning and error.
mcp::ServerTool logging_tool() {
  return {.name = "logs", .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            call.log(mcp::LogLevel::debug, json::Value("d"), "test");
            call.log(mcp::LogLevel::warning, json::Value("w"), "test");
            call.log(mcp::LogLevel::error, json::Value("e"), "test");
            return mcp::ServerToolResult::text("done");
          }};
}

std::vector<std::string> logged_levels(const std::vector<json::Value>& frames) {
  std::vector<std::string> out;
  for (const auto& f : frames) {
    if (const json::Value* m = f.find("method"); m && m->as_string() == "notifications/message") {
      out.push_back(f.find("params")->find("level")->as_string());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a legacy session's logging/setLevel filters the handler's log messages") {
  mcp::Server server;
  REQUIRE(server.add_tool(logging_tool()));
  PipeServer pipe(server);
  handshake(pipe);
  std::vector<json::Value> before;
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logs"}})");
  REQUIRE(pipe.reply_to("1", &before));
  CHECK(logged_levels(before) ==
        std::vector<std::string>{"debug", "warning", "error"});  // no level set: all
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}})");
  CHECK(result_of(pipe.reply_to("2")).as_object().empty());
  std::vector<json::Value> after;
  pipe.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"logs"}})");
  REQUIRE(pipe.reply_to("3", &after));
  CHECK(logged_levels(after) == std::vector<std::string>{"warning", "error"});
  pipe.send(R"({"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}})");
  CHECK(error_code(pipe.reply_to("4")) == -32602);
}

TEST_CASE("a modern request gets log messages only at or above the logLevel in its _meta") {
  mcp::Server server;
  REQUIRE(server.add_tool(logging_tool()));
  PipeServer pipe(server);
  std::vector<json::Value> silent;
  pipe.send(modern_call("1", "tools/call", R"("name":"logs")"));
  REQUIRE(pipe.reply_to("1", &silent));
  CHECK(logged_levels(silent).empty());
  std::vector<json::Value> some;
  const std::string with_level =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs",)"
      R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
      R"("io.modelcontextprotocol/clientCapabilities":{},)"
      R"("io.modelcontextprotocol/logLevel":"error"}}})";
  pipe.send(with_level);
  REQUIRE(pipe.reply_to("2", &some));
  CHECK(logged_levels(some) == std::vector<std::string>{"error"});
  pipe.send(modern_call("3", "logging/setLevel", R"("level":"debug")"));
  CHECK(error_code(pipe.reply_to("3")) == -32601);  // removed in 2026-07-28
}

TEST_CASE("completion/complete asks the prompt's or the template's completer, in both eras") {
  mcp::Server server;
  REQUIRE(server.add_prompt({.name = "greet",
                             .arguments = {{"city", "", true}},
                             .get = [](const mcp::PromptGet&) -> Result<mcp::PromptResult> {
                               return mcp::PromptResult{};
                             },
                             .complete =
                                 [](const mcp::CompletionRequest& c) {
                                   std::vector<std::string> out;
                                   for (const char* w : {"paris", "park", "rome"}) {
                                     if (c.argument == "city" &&
                                         std::string_view(w).starts_with(c.value))
                                       out.emplace_back(w);
                                   }
                                   return out;
                                 }}));
  REQUIRE(server.add_resource_template(
      {.uri_template = "x://n/{id}",
       .name = "n",
       .read = [](const mcp::ResourceRead&) -> Result<std::vector<mcp::ResourceContents>> {
         return std::vector<mcp::ResourceContents>{};
       },
       .complete =
           [](const mcp::CompletionRequest&) {
             std::vector<std::string> many;
             for (int i = 0; i < 150; ++i) many.push_back(std::to_string(i));
             return many;
           }}));
  PipeServer pipe(server);
  handshake(pipe);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"completion/complete",)"
            R"("params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"city",)"
            R"("value":"par"}}})");
  const auto prompt = result_of(pipe.reply_to("1"));
  const json::Value& values = *prompt.find("completion")->find("values");
  REQUIRE(values.as_array().size() == 2);
  CHECK(values.as_array()[0].as_string() == "paris");
  CHECK(values.as_array()[1].as_string() == "park");
  CHECK(prompt.find("completion")->find("hasMore")->as_bool() == false);
  pipe.send(modern_call(
      "2", "completion/complete",
      R"("ref":{"type":"ref/resource","uri":"x://n/{id}"},"argument":{"name":"id","value":""})"));
  const auto tmpl = result_of(pipe.reply_to("2"));
  CHECK(tmpl.find("completion")->find("values")->as_array().size() ==
        100);  // the specification's bound
  CHECK(tmpl.find("completion")->find("total")->to_int64() == 150);
  CHECK(tmpl.find("completion")->find("hasMore")->as_bool());
  CHECK(tmpl.find("resultType")->as_string() == "complete");
  pipe.send(R"({"jsonrpc":"2.0","id":3,"method":"completion/complete",)"
            R"("params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a",)"
            R"("value":""}}})");
  CHECK(error_code(pipe.reply_to("3")) == -32602);
}

TEST_CASE(
    "a subscribed legacy session gets resources/updated for that uri only, until it unsubscribes") {
  mcp::Server server;
  PipeServer pipe(server);
  handshake(pipe);
  pipe.send(
      R"({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"x://watched"}})");
  CHECK(result_of(pipe.reply_to("1")).as_object().empty());
  server.resource_updated("x://other");
  CHECK(!pipe.next(200ms));
  server.resource_updated("x://watched");
  auto note = pipe.next();
  REQUIRE(note);
  CHECK(note->find("method")->as_string() == "notifications/resources/updated");
  CHECK(note->find("params")->find("uri")->as_string() == "x://watched");
  pipe.send(R"({"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe",)"
            R"("params":{"uri":"x://watched"}})");
  CHECK(result_of(pipe.reply_to("2")).as_object().empty());
  server.resource_updated("x://watched");
  CHECK(!pipe.next(200ms));
}

TEST_CASE(
    "a modern listen stream gets resources/updated for the uris in its resourceSubscriptions") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(modern_call("7", "subscriptions/listen",
                        R"("notifications":{"resourceSubscriptions":["x://a"]})"));
  REQUIRE(pipe.next());  // the acknowledgement
  server.resource_updated("x://b");
  CHECK(!pipe.next(200ms));
  server.resource_updated("x://a");
  auto note = pipe.next();
  REQUIRE(note);
  CHECK(note->find("method")->as_string() == "notifications/resources/updated");
  CHECK(note->find("params")->find("uri")->as_string() == "x://a");
  CHECK(note->find("params")
            ->find("_meta")
            ->find("io.modelcontextprotocol/subscriptionId")
            ->number_text() == "7");
}

TEST_CASE("server/discover without the envelope is refused with -32602") {
  mcp::Server server;
  PipeServer pipe(server);
  pipe.send(R"({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}})");
  CHECK(error_code(pipe.reply_to("1")) == -32602);
  pipe.send(modern_call("2", "server/discover"));
  const auto found = result_of(pipe.reply_to("2"));
  CHECK(found.find("capabilities")->find("logging"));
  CHECK(found.find("capabilities")->find("completions"));
  CHECK(found.find("capabilities")->find("resources")->find("subscribe")->as_bool());
}
