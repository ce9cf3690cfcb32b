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
//
// The auth/* scenarios put an OAuth 2.1 authorization server in front of the MCP server. There the
// client logs in through the library's OAuth flow (agentkit/mcp/oauth.hpp): the scenario's
// authorization endpoint approves at once and answers 302 to our redirect URI, so `authorize`
// GETs the URL and reads code, state and iss from the Location header, as a browser would hand
// them to a loopback listener.
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "agentkit/http/client.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/oauth.hpp"

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

// The client ID metadata document URL the CIMD scenarios expect (the suite's fixed value).
constexpr std::string_view kClientMetadataUrl =
    "https://conformance-test.local/client-metadata.json";

// The value of query parameter `name` in `url` (percent-decoded, '+' as space); empty if absent.
std::string query_param(std::string_view url, std::string_view name) {
  const auto q = url.find('?');
  if (q == std::string_view::npos) return "";
  std::string_view rest = url.substr(q + 1);
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    std::string value(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    for (char& c : value) c = c == '+' ? ' ' : c;
    auto decoded = http::percent_decode(value);
    return decoded ? *decoded : value;
  }
  return "";
}

// The user's login, as the scenario's auto-approving authorization server plays it: GET the
// authorization URL and follow nothing; the 302's Location is the redirect the browser would
// deliver.
mcp::Authorize auto_approve() {
  return [](const mcp::AuthorizationRequest& request,
            agentkit::stop_token stop) -> Result<mcp::AuthorizationRedirect> {
    http::HttpClient http;
    auto resp = http.send({.method = "GET", .url = request.url}, stop);
    if (!resp) return Unexpected(resp.error());
    const auto location = resp->headers().get("location");
    if (resp->status() / 100 != 3 || !location) {
      return Unexpected(make_error(Errc::unauthenticated, "authorization endpoint answered " +
                                                              std::to_string(resp->status()) +
                                                              " without a redirect"));
    }
    const std::string error = query_param(*location, "error");
    if (!error.empty())
      return Unexpected(make_error(Errc::unauthenticated, "authorization refused: " + error));
    return mcp::AuthorizationRedirect{.code = query_param(*location, "code"),
                                      .state = query_param(*location, "state"),
                                      .iss = query_param(*location, "iss")};
  };
}

mcp::ClientOptions options(bool oauth) {
  mcp::ClientOptions o;
  if (oauth) o.authorize = auto_approve();
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
  const std::string context_text = env("MCP_CONFORMANCE_CONTEXT");
  auto context =
      context_text.empty() ? Result<json::Value>(json::Value()) : json::parse(context_text);
  const bool oauth = scenario.starts_with("auth/");
  mcp::HttpTarget target{.url = argv[1]};
  if (oauth) {
    mcp::OAuthSettings settings{.client_metadata_url = std::string(kClientMetadataUrl),
                                .redirect_uri = "http://localhost:3000/callback"};
    // A scenario that pre-registers the client names its id and secret in the context.
    const auto given = [&](std::string_view key) -> std::string {
      const json::Value* v = context && context->is_object() ? context->find(key) : nullptr;
      return v && v->is_string() ? v->as_string() : "";
    };
    settings.client_id = given("client_id");
    settings.client_secret = given("client_secret");
    // The client-credentials scenarios test a program with no person behind it.
    if (scenario.starts_with("auth/client-credentials-"))
      settings.grant = mcp::OAuthGrant::client_credentials;
    target.oauth = std::move(settings);
  }
  mcp::ServerConfig config{.name = "conformance", .transport = std::move(target)};
  auto client = mcp::Client::connect(std::move(config), options(oauth));
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
