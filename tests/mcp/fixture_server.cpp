// mcp_fixture_server: our MCP server with a few test tools, over stdio (or HTTP with --http), for
// the client tests and for the official SDK clients in the interop tests.
//
//   mcp_fixture_server [--legacy-reject] [--page-size N] [--http PORT --api-key KEY]
//
// Tools: echo {message} -> "Echo: <message>"; add {a, b} -> the sum as text; slow {ms} sleeps
// (honouring cancellation) and reports progress; confirm {} asks the client for input
// (elicitation) and answers with what it said; env {} lists its environment variable names;
// big {chars} answers that many 'x'; meet {tag} logs and waits for a second caller; item_N
// (N = 1..--extra-tools) for pagination.
// Resources: x://static/readme (exact), x://items/{id} (template) and x://ask/topic (asks for a
// topic first). Prompts: greet {name}; ask_topic (asks for a topic first); ask_forever (asks for
// ever).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "agentkit/mcp/server.hpp"
#include "meet_tool.hpp"

extern char** environ;

using namespace agentkit;

namespace {

mcp::ServerTool echo_tool() {
  return {.name = "echo",
          .description = "Echoes the message back",
          .input_schema = json::parse(R"({"type":"object","properties":{"message":{"type":"string"}},"required":["message"]})").value(),
          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            const json::Value* m = call.arguments.find("message");
            return mcp::ServerToolResult::text("Echo: " + (m && m->is_string() ? m->as_string() : std::string()));
          }};
}

mcp::ServerTool add_tool() {
  return {.name = "add",
          .description = "Adds two integers",
          .input_schema = json::parse(R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]})").value(),
          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            auto a = call.arguments.find("a")->to_int64();
            auto b = call.arguments.find("b")->to_int64();
            if (!a || !b) return mcp::ServerToolResult::error("a and b must be integers");
            return mcp::ServerToolResult::text(std::to_string(*a + *b));
          }};
}

mcp::ServerTool slow_tool() {
  return {.name = "slow",
          .description = "Sleeps for ms milliseconds in 10 steps, reporting progress",
          .input_schema = json::parse(R"({"type":"object","properties":{"ms":{"type":"integer"}}})").value(),
          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            const std::int64_t ms = call.arguments.find("ms") ? call.arguments.find("ms")->to_int64().value_or(100) : 100;
            constexpr int kSteps = 10;
            for (int i = 1; i <= kSteps; ++i) {
              std::this_thread::sleep_for(std::chrono::milliseconds(ms / kSteps));
              if (call.stop.stop_requested()) return mcp::ServerToolResult::error("cancelled");
              call.progress(i, kSteps, "step");
            }
            return mcp::ServerToolResult::text("slept " + std::to_string(ms) + " ms");
          }};
}

mcp::ServerTool chatty_tool() {
  return {.name = "chatty",
          .description = "Logs two messages (notifications/message), then answers",
          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            if (call.log) {
              call.log(mcp::LogLevel::info, json::Value("starting"), "fixture");
              call.log(mcp::LogLevel::warning, json::Object{{"disk", "nearly full"}}, "");
            }
            return mcp::ServerToolResult::text("said my piece");
          }};
}

mcp::ServerTool confirm_tool() {
  return {.name = "confirm",
          .description = "Asks the user to confirm, then reports the answer",
          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            if (const json::Value* answer = call.input_responses.find("ok")) {
              const json::Value* content = answer->find("content");
              const json::Value* yes = content ? content->find("yes") : nullptr;
              const bool confirmed = yes && yes->get_bool() == std::optional<bool>(true);
              return mcp::ServerToolResult::text(std::string(confirmed ? "confirmed" : "declined") +
                                                 " (state " + call.state.value_or("none") + ")");
            }
            mcp::InputRequired asked;
            asked.requests.emplace_back(
                "ok", mcp::elicitation_request("Really?", json::parse(R"({"type":"object","properties":{"yes":{"type":"boolean"}},"required":["yes"]})").value()));
            asked.state = "asked-once";
            return asked;
          }};
}

mcp::ServerTool env_tool() {
  return {.name = "env",
          .description = "Lists the names of the server's environment variables",
          .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
            std::string names;
            for (char** e = environ; *e != nullptr; ++e) {
              std::string_view kv(*e);
              names += std::string(kv.substr(0, kv.find('='))) + "\n";
            }
            return mcp::ServerToolResult::text(names);
          }};
}

mcp::ServerTool big_tool() {
  return {.name = "big",
          .description = "Answers a text of the given length",
          .input_schema = json::parse(R"({"type":"object","properties":{"chars":{"type":"integer"}}})").value(),
          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
            const auto n = call.arguments.find("chars")->to_int64().value_or(0);
            return mcp::ServerToolResult::text(std::string(static_cast<std::size_t>(n), 'x'));
          }};
}

std::pair<std::string, json::Value> topic_request() {
  return {
      "topic",
      mcp::elicitation_request(
          "Which topic?",
          json::parse(
              R"({"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]})")
              .value())};
}

std::optional<std::string> elicited_topic(const json::Object& responses) {
  const json::Value* answer = responses.find("topic");
  const json::Value* content = answer ? answer->find("content") : nullptr;
  const json::Value* topic = content ? content->find("topic") : nullptr;
  if (topic == nullptr || !topic->is_string()) return std::nullopt;
  return topic->as_string();
}

void register_everything(mcp::Server& server, int extra_tools) {
  (void)server.add_tool(echo_tool());
  (void)server.add_tool(add_tool());
  (void)server.add_tool(slow_tool());
  (void)server.add_tool(confirm_tool());
  (void)server.add_tool(chatty_tool());
  (void)server.add_tool(mcp_test::meet_tool());
  (void)server.add_tool(env_tool());
  (void)server.add_tool(big_tool());
  for (int i = 1; i <= extra_tools; ++i) {
    (void)server.add_tool({.name = "item_" + std::to_string(i), .handler = [i](const mcp::ToolCall&) -> mcp::ToolOutcome {
                             return mcp::ServerToolResult::text("item " + std::to_string(i));
                           }});
  }
  (void)server.add_resource({.uri = "x://static/readme", .name = "readme", .mime_type = "text/plain",
                             .read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
                               return std::vector<mcp::ResourceContents>{{r.uri, "text/plain", "read me", std::nullopt}};
                             }});
  (void)server.add_resource_template({.uri_template = "x://items/{id}", .name = "item", .mime_type = "text/plain",
                                      .read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
                                        return std::vector<mcp::ResourceContents>{
                                            {r.uri, "text/plain", "item " + r.variables.front().second, std::nullopt}};
                                      }});
  (void)server.add_prompt({.name = "greet", .description = "Greets someone",
                           .arguments = {{.name = "name", .description = "who", .required = true}},
                           .get = [](const mcp::PromptGet& g) -> Result<mcp::PromptResult> {
                             return mcp::PromptResult{"a greeting",
                                                      {{"user", json::Value(json::Object{{"type", "text"},
                                                                                         {"text", "Hello, " + g.arguments.front().second}})}}};
                           }});
  // Input rounds outside tools: a prompt and a resource that ask for a topic first, and a prompt
  // that never stops asking.
  (void)server.add_prompt(
      {.name = "ask_topic",
       .description = "Asks for a topic, then writes the prompt",
       .get = [](const mcp::PromptGet& g) -> mcp::PromptOutcome {
         if (auto topic = elicited_topic(g.input_responses)) {
           return mcp::PromptResult{
               "",
               {{"user", json::Value(json::Object{{"type", "text"},
                                                  {"text", "Write about " + *topic + " (state " +
                                                               g.state.value_or("none") + ")"}})}}};
         }
         return mcp::InputRequired{{topic_request()}, std::string("asked-topic")};
       }});
  (void)server.add_prompt({.name = "ask_forever",
                           .description = "Never satisfied",
                           .get = [](const mcp::PromptGet&) -> mcp::PromptOutcome {
                             return mcp::InputRequired{{topic_request()}, std::nullopt};
                           }});
  (void)server.add_resource(
      {.uri = "x://ask/topic",
       .name = "topic",
       .mime_type = "text/plain",
       .read = [](const mcp::ResourceRead& r) -> mcp::ResourceOutcome {
         if (auto topic = elicited_topic(r.input_responses)) {
           return std::vector<mcp::ResourceContents>{
               {r.uri, "text/plain",
                "topic " + *topic + " (state " + r.state.value_or("none") + ")", std::nullopt}};
         }
         return mcp::InputRequired{{topic_request()}, std::string("asked-read")};
       }});
}

}  // namespace

int main(int argc, char** argv) {
  mcp::ServerOptions options;
  options.server_info = {"agentkit-fixture", "0.0.1", ""};
  int extra_tools = 0;
  int http_port = -1;
  std::string api_key;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--legacy-reject") options.legacy = mcp::LegacyMode::reject;
    if (a == "--page-size" && i + 1 < argc) options.page_size = std::stoul(argv[++i]);
    if (a == "--extra-tools" && i + 1 < argc) extra_tools = std::stoi(argv[++i]);
    if (a == "--http" && i + 1 < argc) http_port = std::stoi(argv[++i]);
    if (a == "--api-key" && i + 1 < argc) api_key = argv[++i];
  }
  mcp::Server server(options);
  register_everything(server, extra_tools);
  if (http_port >= 0) {
    auto http = server.serve_http({.port = static_cast<std::uint16_t>(http_port), .api_key = api_key});
    if (!http) {
      std::cerr << http.error().to_string() << "\n";
      return 1;
    }
    std::cerr << "listening " << http->url() << "\n";
    // Serves until a signal ends the process (the tests kill it by pid).
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  auto served = server.serve_stdio();
  if (!served) {
    std::cerr << served.error().to_string() << "\n";
    return 1;
  }
  return 0;
}
