// conformance_client — our MCP client as the official conformance suite's client scenarios drive
// it: `conformance client --command conformance_client` appends the scenario server's URL and
// sets MCP_CONFORMANCE_SCENARIO (the scenario), MCP_CONFORMANCE_PROTOCOL_VERSION (the revision
// to speak: through 2025-11-25 the initialize handshake, 2026-07-28 per-request _meta) and, for
// some scenarios, MCP_CONFORMANCE_CONTEXT (JSON: the tool calls to make).
//
// One behaviour serves every scenario, as an embedder would use the library: connect, list the
// tools, call the ones the context names (or every tool, with arguments made from its schema),
// and touch the server's resources and prompts. Sampling, elicitation and roots are answered
// through the ClientOptions callbacks; an elicitation is accepted with an empty form, so the
// library's default-filling is what the server sees.
#include <cstdlib>
#include <iostream>
#include <string>

#include "agentkit/json/value.hpp"
#include "agentkit/mcp/client.hpp"

using namespace agentkit;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// An argument value a schema accepts: its default, first enum value, or a plain value of its type.
json::Value sample_value(const json::Value& schema) {
  if (const json::Value* d = schema.find("default")) return *d;
  if (const json::Value* e = schema.find("enum"); e && e->is_array() && !e->as_array().empty())
    return e->as_array().front();
  const json::Value* type = schema.find("type");
  const std::string t = type && type->is_string() ? type->as_string() : "string";
  if (t == "number" || t == "integer") return json::Value(2);
  if (t == "boolean") return json::Value(true);
  if (t == "object") return json::Value(json::Object{});
  if (t == "array") return json::Value(json::Array{});
  return json::Value("conformance");
}

json::Value arguments_for(const mcp::ToolInfo& tool) {
  json::Object args;
  const json::Value* props = tool.input_schema.find("properties");
  const json::Value* required = tool.input_schema.find("required");
  if (props == nullptr || !props->is_object() || required == nullptr || !required->is_array())
    return json::Value(std::move(args));
  for (const auto& name : required->as_array()) {
    if (!name.is_string()) continue;
    if (const json::Value* p = props->find(name.as_string()))
      args.set(name.as_string(), sample_value(*p));
  }
  return json::Value(std::move(args));
}

mcp::ClientOptions options() {
  mcp::ClientOptions o;
  o.client_info = {"agentkit-conformance-client", "1.0.0", ""};
  const std::string version = env("MCP_CONFORMANCE_PROTOCOL_VERSION");
  if (!version.empty()) {
    o.negotiation = mcp::era_of(version) == mcp::Era::modern ? mcp::Negotiation::modern
                                                             : mcp::Negotiation::legacy;
  }
  o.allow_sampling = true;
  o.sampling = [](const mcp::InputRequest&) -> Result<json::Value> {
    return json::Value(json::Object{{"role", "assistant"},
                                    {"content", json::Object{{"type", "text"}, {"text", "Paris"}}},
                                    {"model", "conformance-model"},
                                    {"stopReason", "endTurn"}});
  };
  o.allow_elicitation = true;
  o.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> {
    return json::Value(json::Object{{"action", "accept"}, {"content", json::Object{}}});
  };
  o.roots = [](const mcp::InputRequest&) -> Result<json::Value> {
    return json::Value(json::Object{
        {"roots",
         json::Array{json::Object{{"uri", "file:///conformance-root"}, {"name", "root"}}}}});
  };
  return o;
}

void report(std::string_view what, const Error& e) {
  std::cerr << "conformance_client: " << what << ": " << e.message << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: conformance_client <server url>\n";
    return 2;
  }
  const std::string scenario = env("MCP_CONFORMANCE_SCENARIO");
  mcp::ServerConfig config{.name = "conformance", .transport = mcp::HttpTarget{argv[1]}};
  auto client = mcp::Client::connect(std::move(config), options());
  if (!client) {
    report("connect", client.error());
    return 1;
  }
  auto tools = client->list_tools();
  if (!tools) {
    report("tools/list", tools.error());
    return 1;
  }
  int failures = 0;
  const auto call = [&](std::string_view name, const json::Value& args) {
    auto r = client->call_tool(name, args);
    if (!r) {
      report("tools/call " + std::string(name), r.error());
      ++failures;
    }
  };
  const std::string context_text = env("MCP_CONFORMANCE_CONTEXT");
  auto context =
      context_text.empty() ? Result<json::Value>(json::Value()) : json::parse(context_text);
  const json::Value* calls = context && context->is_object() ? context->find("toolCalls") : nullptr;
  if (calls != nullptr && calls->is_array()) {
    for (const auto& c : calls->as_array()) {
      const json::Value* name = c.find("name");
      const json::Value* args = c.find("arguments");
      if (name && name->is_string())
        call(name->as_string(), args ? *args : json::Value(json::Object{}));
    }
  } else if (scenario == "json-schema-2020-12-preservation") {
    // Echo the focal tool's schema, as received, through the tool that takes a `schema`.
    const mcp::ToolInfo* echo = nullptr;
    const mcp::ToolInfo* focal = nullptr;
    for (const auto& t : *tools) {
      const json::Value* props = t.input_schema.find("properties");
      (props && props->find("schema") ? echo : focal) = &t;
    }
    if (echo && focal) call(echo->name, json::Value(json::Object{{"schema", focal->input_schema}}));
  } else if (scenario != "json-schema-ref-no-deref") {
    for (const auto& t : *tools) call(t.name, arguments_for(t));
  }
  // Resources and prompts, as an embedder reaches them (failures here are the server's business:
  // a scenario server need not serve them).
  if (auto resources = mcp::list_resources(*client); resources && !resources->empty()) {
    (void)mcp::read_resource(*client, resources->front().uri);
  }
  if (auto prompts = mcp::list_prompts(*client); prompts && !prompts->empty()) {
    (void)mcp::get_prompt(*client, prompts->front().name);
  }
  (void)client->close();
  return failures == 0 ? 0 : 1;
}
