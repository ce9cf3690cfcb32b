// conformance_server — the fixture the official MCP conformance suite's server scenarios run
// against: exactly the tools, resources and prompts those scenarios name, written with our
// server library and served over Streamable HTTP (both eras on one endpoint).
//
//   conformance_server [--port N]     prints "PORT <n>" once listening; SIGTERM or SIGINT stops it
//
// The scenario texts (`conformance list`, and each scenario's description in the package) say what
// every entry must return; the comments below quote only what is not obvious from the code.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "agentkit/json/value.hpp"
#include "agentkit/mcp/server.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

// A 1x1 red PNG and a one-millisecond 8 kHz mono WAV, base64.
constexpr std::string_view kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
constexpr std::string_view kWav =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

json::Value parse_json(std::string_view text) { return json::parse(text).value(); }

json::Value text_block(std::string text) {
  return json::Value(json::Object{{"type", "text"}, {"text", std::move(text)}});
}
json::Value image_block() {
  return json::Value(
      json::Object{{"type", "image"}, {"data", std::string(kPng)}, {"mimeType", "image/png"}});
}
json::Value embedded(std::string uri, std::string mime, std::string text) {
  return json::Value(json::Object{{"type", "resource"},
                                  {"resource", json::Object{{"uri", std::move(uri)},
                                                            {"mimeType", std::move(mime)},
                                                            {"text", std::move(text)}}}});
}

mcp::ServerToolResult blocks(std::vector<json::Value> content) {
  mcp::ServerToolResult r;
  r.content = std::move(content);
  return r;
}

mcp::ServerTool simple(std::string name, std::string description,
                       std::function<mcp::ToolOutcome(const mcp::ToolCall&)> fn,
                       json::Value schema = json::Value(json::Object{{"type", "object"}})) {
  mcp::ServerTool t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.input_schema = std::move(schema);
  t.handler = std::move(fn);
  return t;
}

// One input request, as an InputRequired entry.
std::pair<std::string, json::Value> ask(std::string key, std::string method, json::Value params) {
  return {std::move(key),
          json::Value(json::Object{{"method", std::move(method)}, {"params", std::move(params)}})};
}

json::Value elicit_params(std::string message, json::Value schema) {
  return json::Value(
      json::Object{{"message", std::move(message)}, {"requestedSchema", std::move(schema)}});
}

json::Value sampling_params(std::string prompt, int max_tokens) {
  return json::Value(json::Object{
      {"messages", json::Array{json::Object{
                       {"role", "user"},
                       {"content", json::Object{{"type", "text"}, {"text", std::move(prompt)}}}}}},
      {"maxTokens", max_tokens}});
}

json::Value one_string_schema(const std::string& property) {
  return json::Value(
      json::Object{{"type", "object"},
                   {"properties", json::Object{{property, json::Object{{"type", "string"}}}}},
                   {"required", json::Array{property}}});
}

// The accepted elicitation's content[field] when the answer has that shape.
std::optional<std::string> elicited(const json::Object& responses, std::string_view key,
                                    std::string_view field) {
  const json::Value* r = responses.find(key);
  const json::Value* content = r ? r->find("content") : nullptr;
  const json::Value* v = content ? content->find(field) : nullptr;
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->as_string();
}

// The sampled text when the answer is a CreateMessageResult with a text block.
std::optional<std::string> sampled(const json::Object& responses, std::string_view key) {
  const json::Value* r = responses.find(key);
  const json::Value* content = r ? r->find("content") : nullptr;
  if (content != nullptr && content->is_array() && !content->as_array().empty())
    content = &content->as_array().front();
  const json::Value* text = content ? content->find("text") : nullptr;
  if (text == nullptr || !text->is_string()) return std::nullopt;
  return text->as_string();
}

std::string elicitation_summary(const json::Value& answer) {
  const json::Value* action = answer.find("action");
  const json::Value* content = answer.find("content");
  return "action=" + (action && action->is_string() ? action->as_string() : std::string("?")) +
         ", content=" + (content ? json::dump(*content) : std::string("{}"));
}

void add_content_tools(mcp::Server& server) {
  (void)server.add_tool(
      simple("test_simple_text", "Returns one text block", [](const mcp::ToolCall&) {
        return mcp::ServerToolResult::text("This is a simple text response for testing.");
      }));
  (void)server.add_tool(simple("test_image_content", "Returns one image block",
                               [](const mcp::ToolCall&) { return blocks({image_block()}); }));
  (void)server.add_tool(
      simple("test_audio_content", "Returns one audio block", [](const mcp::ToolCall&) {
        return blocks({json::Value(json::Object{
            {"type", "audio"}, {"data", std::string(kWav)}, {"mimeType", "audio/wav"}})});
      }));
  (void)server.add_tool(
      simple("test_embedded_resource", "Returns an embedded resource", [](const mcp::ToolCall&) {
        return blocks({embedded("test://embedded-resource", "text/plain",
                                "This is an embedded resource content.")});
      }));
  (void)server.add_tool(simple(
      "test_multiple_content_types", "Returns text, image and resource", [](const mcp::ToolCall&) {
        return blocks({text_block("Multiple content types test:"), image_block(),
                       embedded("test://mixed-content-resource", "application/json",
                                R"({"test":"data","value":123})")});
      }));
  (void)server.add_tool(simple("test_error_handling", "Always fails", [](const mcp::ToolCall&) {
    return mcp::ServerToolResult::error("This tool intentionally returns an error for testing");
  }));
  (void)server.add_tool(simple(
      "test_tool_with_logging", "Logs three messages while it runs", [](const mcp::ToolCall& call) {
        call.log(mcp::LogLevel::info, json::Value("Tool execution started"), "conformance");
        std::this_thread::sleep_for(50ms);
        call.log(mcp::LogLevel::info, json::Value("Tool processing data"), "conformance");
        std::this_thread::sleep_for(50ms);
        call.log(mcp::LogLevel::info, json::Value("Tool execution completed"), "conformance");
        return mcp::ServerToolResult::text("Tool with logging executed successfully");
      }));
  (void)server.add_tool(simple("test_tool_with_progress", "Reports progress 0, 50, 100 of 100",
                               [](const mcp::ToolCall& call) {
                                 call.progress(0, 100, "");
                                 std::this_thread::sleep_for(50ms);
                                 call.progress(50, 100, "");
                                 std::this_thread::sleep_for(50ms);
                                 call.progress(100, 100, "");
                                 return mcp::ServerToolResult::text(
                                     "Tool with progress executed successfully");
                               }));
  mcp::ServerTool structured =
      simple("test_structured_content", "Returns structured content matching its output schema",
             [](const mcp::ToolCall&) {
               mcp::ServerToolResult r = mcp::ServerToolResult::text(R"({"temperature":22.5})");
               r.structured_content = parse_json(R"({"temperature":22.5})");
               return r;
             });
  structured.output_schema =
      parse_json(R"({"type":"object","properties":{"temperature":{"type":"number"}},)"
                 R"("required":["temperature"]})");
  (void)server.add_tool(std::move(structured));
  (void)server.add_tool(simple(
      "json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
      [](const mcp::ToolCall&) { return mcp::ServerToolResult::text("ok"); },
      parse_json(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
        "$defs":{"address":{"$anchor":"addressDef","type":"object",
          "properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
        "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},
          "contactMethod":{"type":"string","enum":["phone","email"]},
            "phone":{"type":"string"},"email":{"type":"string"}},
        "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
        "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
        "then":{"required":["phone"]},"else":{"required":["email"]},
          "additionalProperties":false})")));
}

// Tools that ask the client: as server-to-client requests on a legacy session, as
// input_required results (MRTR) for a modern request — the same handlers serve both.
void add_client_feature_tools(mcp::Server& server) {
  (void)server.add_tool(simple(
      "test_sampling", "Asks the client's model to answer a prompt",
      [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
        if (auto text = sampled(call.input_responses, "answer"))
          return mcp::ServerToolResult::text("LLM response: " + *text);
        const json::Value* prompt = call.arguments.find("prompt");
        return mcp::InputRequired{
            {ask("answer", "sampling/createMessage",
                 sampling_params(prompt && prompt->is_string() ? prompt->as_string() : "", 100))},
            std::nullopt};
      },
      one_string_schema("prompt")));
  (void)server.add_tool(simple(
      "test_elicitation", "Asks the user for a username and an email",
      [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
        if (const json::Value* answer = call.input_responses.find("user")) {
          return mcp::ServerToolResult::text("User response: " + elicitation_summary(*answer));
        }
        const json::Value* message = call.arguments.find("message");
        json::Value schema = parse_json(R"({"type":"object","properties":{
            "username":{"type":"string","description":"User's response"},
            "email":{"type":"string","description":"User's email address"}},
              "required":["username","email"]})");
        return mcp::InputRequired{
            {ask("user", "elicitation/create",
                 elicit_params(message && message->is_string() ? message->as_string() : "",
                               std::move(schema)))},
            std::nullopt};
      },
      one_string_schema("message")));
  const auto elicit_with = [](std::string name, std::string schema) {
    return simple(std::move(name), "Asks the user through an elicitation form",
                  [schema](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                    if (const json::Value* answer = call.input_responses.find("form")) {
                      return mcp::ServerToolResult::text("Elicitation completed: " +
                                                         elicitation_summary(*answer));
                    }
                    return mcp::InputRequired{
                        {ask("form", "elicitation/create",
                             elicit_params("Please review the form", parse_json(schema)))},
                        std::nullopt};
                  });
  };
  (void)server.add_tool(
      elicit_with("test_elicitation_sep1034_defaults", R"({"type":"object","properties":{
      "name":{"type":"string","default":"John Doe"},
      "age":{"type":"integer","default":30},
      "score":{"type":"number","default":95.5},
      "status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
      "verified":{"type":"boolean","default":true}}})"));
  (void)server.add_tool(
      elicit_with("test_elicitation_sep1330_enums", R"({"type":"object","properties":{
      "untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
      "titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},
        {"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
      "legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One",
        "Option Two","Option Three"]},
      "untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2",
        "option3"]}},
      "titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1",
        "title":"First Choice"},{"const":"value2","title":"Second Choice"},
        {"const":"value3","title":"Third Choice"}]}}}})"));
}

// The 2026-07-28 input_required scenarios (the same handlers would ask over a legacy session).
void add_input_required_tools(mcp::Server& server) {
  const auto name_request = [] {
    return ask("user_name", "elicitation/create",
               elicit_params("What is your name?", one_string_schema("name")));
  };
  (void)server.add_tool(
      simple("test_input_required_result_elicitation", "Asks for a name, then greets",
             [name_request](const mcp::ToolCall& call) -> mcp::ToolOutcome {
               // Missing, misnamed or malformed answers: ask again (not an error).
               if (auto name = elicited(call.input_responses, "user_name", "name")) {
                 return mcp::ServerToolResult::text("Hello, " + *name + "!");
               }
               return mcp::InputRequired{{name_request()}, std::nullopt};
             }));
  (void)server.add_tool(simple(
      "test_input_required_result_sampling", "Asks the client's model a question",
      [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
        if (auto text = sampled(call.input_responses, "capital_question")) {
          return mcp::ServerToolResult::text("The model answered: " + *text);
        }
        return mcp::InputRequired{{ask("capital_question", "sampling/createMessage",
                                       sampling_params("What is the capital of France?", 100))},
                                  std::nullopt};
      }));
  (void)server.add_tool(
      simple("test_input_required_result_list_roots", "Asks for the client's roots",
             [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
               const json::Value* r = call.input_responses.find("client_roots");
               const json::Value* roots = r ? r->find("roots") : nullptr;
               if (roots != nullptr && roots->is_array()) {
                 std::string uris;
                 for (const auto& root : roots->as_array()) {
                   if (const json::Value* uri = root.find("uri"); uri && uri->is_string()) {
                     uris += (uris.empty() ? "" : ", ") + uri->as_string();
                   }
                 }
                 return mcp::ServerToolResult::text("Client roots: " + uris);
               }
               return mcp::InputRequired{
                   {ask("client_roots", "roots/list", json::Value(json::Object{}))}, std::nullopt};
             }));
  (void)server.add_tool(
      simple("test_input_required_result_request_state", "Asks for confirmation, keeping state",
             [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
               if (call.state == std::optional<std::string>("awaiting-confirm") &&
                   call.input_responses.contains("confirm")) {
                 return mcp::ServerToolResult::text("Confirmed; state-ok");
               }
               json::Value schema = parse_json(
                   R"({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]})");
               return mcp::InputRequired{{ask("confirm", "elicitation/create",
                                              elicit_params("Please confirm", std::move(schema)))},
                                         std::string("awaiting-confirm")};
             }));
  (void)server.add_tool(simple(
      "test_input_required_result_multiple_inputs", "Asks three questions at once",
      [name_request](const mcp::ToolCall& call) -> mcp::ToolOutcome {
        const auto& in = call.input_responses;
        if (in.contains("user_name") && in.contains("greeting") && in.contains("client_roots")) {
          return mcp::ServerToolResult::text("All inputs received");
        }
        return mcp::InputRequired{
            {name_request(),
             ask("greeting", "sampling/createMessage", sampling_params("Generate a greeting", 50)),
             ask("client_roots", "roots/list", json::Value(json::Object{}))},
            std::string("multi")};
      }));
  (void)server.add_tool(simple(
      "test_input_required_result_multi_round", "Asks in two rounds",
      [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
        if (call.state == std::optional<std::string>("round-2") &&
            call.input_responses.contains("step2")) {
          return mcp::ServerToolResult::text("Both rounds complete");
        }
        if (call.state == std::optional<std::string>("round-1") &&
            call.input_responses.contains("step1")) {
          return mcp::InputRequired{{ask("step2", "elicitation/create",
                                         elicit_params("Step 2: What is your favorite color?",
                                                       one_string_schema("color")))},
                                    std::string("round-2")};
        }
        return mcp::InputRequired{
            {ask("step1", "elicitation/create",
                 elicit_params("Step 1: What is your name?", one_string_schema("name")))},
            std::string("round-1")};
      }));
  // The sealed requestState is this library's own (HMAC, bound to the call): a tampered one is
  // -32602.
  (void)server.add_tool(simple("test_input_required_result_tampered_state",
                               "Asks with integrity-protected state",
                               [name_request](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                                 if (call.state && call.input_responses.contains("user_name"))
                                   return mcp::ServerToolResult::text("state verified");
                                 return mcp::InputRequired{{name_request()}, std::string("sealed")};
                               }));
  // Asks only for what the request's capabilities declare: elicitation, else sampling.
  (void)server.add_tool(simple(
      "test_input_required_result_capabilities", "Asks through a capability the client declared",
      [name_request](const mcp::ToolCall& call) -> mcp::ToolOutcome {
        if (!call.input_responses.empty()) return mcp::ServerToolResult::text("done");
        if (call.client_capabilities.find("elicitation") != nullptr) {
          return mcp::InputRequired{{name_request()}, std::nullopt};
        }
        return mcp::InputRequired{
            {ask("answer", "sampling/createMessage", sampling_params("Say hello", 20))},
            std::nullopt};
      }));
  // Needs sampling whatever the client declared: without it the library answers -32021.
  (void)server.add_tool(simple("test_missing_capability", "Needs sampling",
                               [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                                 if (auto text = sampled(call.input_responses, "answer"))
                                   return mcp::ServerToolResult::text(*text);
                                 return mcp::InputRequired{{ask("answer", "sampling/createMessage",
                                                                sampling_params("Say hello", 20))},
                                                           std::nullopt};
                               }));
  (void)server.add_tool(
      simple("test_streaming_elicitation", "Asks for a name (never as a request on the stream)",
             [name_request](const mcp::ToolCall& call) -> mcp::ToolOutcome {
               if (auto name = elicited(call.input_responses, "user_name", "name")) {
                 return mcp::ServerToolResult::text("Hello, " + *name + "!");
               }
               return mcp::InputRequired{{name_request()}, std::nullopt};
             }));
  // Mirrors its `region` argument into Mcp-Param-Region (2026-07-28 custom headers).
  (void)server.add_tool(simple(
      "test_header_params", "Echoes a region sent in a custom header",
      [](const mcp::ToolCall& call) {
        const json::Value* region = call.arguments.find("region");
        return mcp::ServerToolResult::text(
            "region=" + (region && region->is_string() ? region->as_string() : std::string()));
      },
      parse_json(R"({"type":"object","properties":{"region":{"type":"string",)"
                 R"("x-mcp-header":"Region"}},"required":["region"]})")));
  (void)server.add_tool(
      simple("test_logging_tool", "Logs one message at info", [](const mcp::ToolCall& call) {
        call.log(mcp::LogLevel::info, json::Value("logging tool ran"), "conformance");
        return mcp::ServerToolResult::text("logged");
      }));
}

// Tools that change the lists, so list_changed reaches open subscriptions.
void add_list_changers(mcp::Server& server) {
  mcp::Server* s = &server;
  (void)server.add_tool(
      simple("test_trigger_tool_change", "Adds or removes a tool", [s](const mcp::ToolCall&) {
        if (!s->remove_tool("test_dynamic_tool")) {
          (void)s->add_tool(simple("test_dynamic_tool", "Comes and goes", [](const mcp::ToolCall&) {
            return mcp::ServerToolResult::text("dynamic");
          }));
        }
        return mcp::ServerToolResult::text("tool list changed");
      }));
  (void)server.add_tool(
      simple("test_trigger_prompt_change", "Adds or removes a prompt", [s](const mcp::ToolCall&) {
        if (!s->remove_prompt("test_dynamic_prompt")) {
          (void)s->add_prompt({.name = "test_dynamic_prompt",
                               .description = "Comes and goes",
                               .get = [](const mcp::PromptGet&) -> Result<mcp::PromptResult> {
                                 return mcp::PromptResult{"", {{"user", text_block("dynamic")}}};
                               }});
        }
        return mcp::ServerToolResult::text("prompt list changed");
      }));
}

mcp::ResourceContents text_contents(std::string uri, std::string mime, std::string text) {
  return {std::move(uri), std::move(mime), std::move(text), std::nullopt};
}

void add_resources(mcp::Server& server) {
  (void)server.add_resource(
      {.uri = "test://static-text",
       .name = "static-text",
       .description = "A static text resource",
       .mime_type = "text/plain",
       .read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
         return std::vector{text_contents(r.uri, "text/plain",
                                          "This is the content of the static text resource.")};
       }});
  (void)server.add_resource(
      {.uri = "test://static-binary",
       .name = "static-binary",
       .description = "A static binary resource (a PNG)",
       .mime_type = "image/png",
       .read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
         return std::vector{
             mcp::ResourceContents{r.uri, "image/png", std::nullopt, std::string(kPng)}};
       }});
  (void)server.add_resource(
      {.uri = "test://watched-resource",
       .name = "watched-resource",
       .description = "A resource clients may subscribe to",
       .mime_type = "text/plain",
       .read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
         return std::vector{text_contents(r.uri, "text/plain", "Watched resource content")};
       }});
  (void)server.add_resource_template(
      {.uri_template = "test://template/{id}/data",
       .name = "template-data",
       .description = "Data for an id",
       .mime_type = "application/json",
       .read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
         std::string id;
         for (const auto& [k, v] : r.variables) {
           if (k == "id") id = v;
         }
         json::Value body(
             json::Object{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}});
         return std::vector{text_contents(r.uri, "application/json", json::dump(body))};
       },
       .complete =
           [](const mcp::CompletionRequest& c) {
             std::vector<std::string> out;
             for (const char* id : {"123", "124", "200"}) {
               if (std::string_view(id).starts_with(c.value)) out.emplace_back(id);
             }
             return out;
           }});
}

mcp::PromptMessage user(json::Value content) { return {"user", std::move(content)}; }

void add_prompts(mcp::Server& server) {
  (void)server.add_prompt(
      {.name = "test_simple_prompt",
       .description = "A prompt without arguments",
       .get = [](const mcp::PromptGet&) -> Result<mcp::PromptResult> {
         return mcp::PromptResult{"", {user(text_block("This is a simple prompt for testing."))}};
       }});
  (void)server.add_prompt(
      {.name = "test_prompt_with_arguments",
       .description = "A prompt with two arguments",
       .arguments = {{"arg1", "First test argument", true}, {"arg2", "Second test argument", true}},
       .get = [](const mcp::PromptGet& g) -> Result<mcp::PromptResult> {
         std::string a1, a2;
         for (const auto& [k, v] : g.arguments) {
           if (k == "arg1") a1 = v;
           if (k == "arg2") a2 = v;
         }
         return mcp::PromptResult{
             "", {user(text_block("Prompt with arguments: arg1='" + a1 + "', arg2='" + a2 + "'"))}};
       },
       .complete =
           [](const mcp::CompletionRequest& c) {
             std::vector<std::string> out;
             for (const char* word : {"paris", "park", "party", "hello", "world"}) {
               if (std::string_view(word).starts_with(c.value)) out.emplace_back(word);
             }
             return out;
           }});
  (void)server.add_prompt(
      {.name = "test_prompt_with_embedded_resource",
       .description = "A prompt embedding a resource",
       .arguments = {{"resourceUri", "URI of the resource to embed", true}},
       .get = [](const mcp::PromptGet& g) -> Result<mcp::PromptResult> {
         std::string uri;
         for (const auto& [k, v] : g.arguments) {
           if (k == "resourceUri") uri = v;
         }
         return mcp::PromptResult{
             "",
             {user(embedded(uri, "text/plain", "Embedded resource content for testing.")),
              user(text_block("Please process the embedded resource above."))}};
       }});
  // input-required-result-non-tool-request (2026-07-28): a prompt asks for context first.
  (void)server.add_prompt(
      {.name = "test_input_required_result_prompt",
       .description = "Asks what context to use, then answers the prompt",
       .get = [](const mcp::PromptGet& g) -> mcp::PromptOutcome {
         if (auto context = elicited(g.input_responses, "user_context", "context")) {
           return mcp::PromptResult{"", {user(text_block("Use this context: " + *context))}};
         }
         return mcp::InputRequired{{ask("user_context", "elicitation/create",
                                        elicit_params("What context should the prompt use?",
                                                      one_string_schema("context")))},
                                   std::nullopt};
       }});
  (void)server.add_prompt(
      {.name = "test_prompt_with_image",
       .description = "A prompt with an image",
       .get = [](const mcp::PromptGet&) -> Result<mcp::PromptResult> {
         return mcp::PromptResult{
             "", {user(image_block()), user(text_block("Please analyze the image above."))}};
       }});
}

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--port" && i + 1 < argc)
      port = static_cast<std::uint16_t>(std::atoi(argv[++i]));
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts, so sigwait gets them

  mcp::Server server({.server_info = {"agentkit-conformance-fixture", "1.0.0", ""}});
  add_content_tools(server);
  add_client_feature_tools(server);
  add_input_required_tools(server);
  add_list_changers(server);
  add_resources(server);
  add_prompts(server);
  auto http = server.serve_http({.port = port, .unauthenticated_loopback = true});
  if (!http) {
    std::cerr << "conformance_server: " << http.error().message << "\n";
    return 1;
  }
  std::cout << "PORT " << http->port() << std::endl;
  int got = 0;
  sigwait(&signals, &got);
  http->stop();
  return 0;
}
