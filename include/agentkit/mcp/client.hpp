// agentkit/mcp/client.hpp — an MCP client for one server, in either protocol era, over stdio,
// Streamable HTTP or the 2024-11-05 HTTP+SSE transport (OAuth: oauth.hpp), and the tool source
// that brings a server's tools into an agent.
//
//   using namespace agentkit;
//   mcp::ServerConfig files{.name = "files",
//                           .transport = mcp::StdioLaunch{.command = "npx",
//                                                         .args = {"-y", "@modelcontextprotocol/server-filesystem", "/tmp/w"}}};
//   AgentDefinition def;
//   def.tools.mcp.push_back({.name = "files", .connect = mcp::tool_connector(files)});  // files__read_file, ...
//
//   // Or directly:
//   auto client = mcp::Client::connect(files).value();
//   client.diagnostics().era;                                // Era::legacy: the server has no server/discover
//   auto tools = client.list_tools().value();               // cached until list_changed (or the TTL hint)
//   auto r = client.call_tool("read_text_file", json::Object{{"path", "/tmp/w/a.txt"}}).value();
//   ToolResult seen = mcp::to_tool_result(r, 50'000);      // what a model would see
//
// Negotiation: `automatic` sends server/discover first; a DiscoverResult or a
// recognised modern error (-32022) means the 2026-07-28 era, any other error or silence on stdio
// means the 2025 `initialize` handshake (a timeout over HTTP is an outage, not a legacy signal).
// `modern` and `legacy` pin an era. The chosen era, version and how it was chosen are in
// diagnostics(). Modern requests carry the `_meta` envelope, and over HTTP the routing headers
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) derived from the body.
//
// Limits (REQ-MCP-CLIENT-07..09, NFR-REL-03): each request waits 30 s, and a progress notification
// restarts the clock; 1000 tool calls per server per session; a stdio server that dies is
// restarted up to 3 times (a call cut off by the death fails and is never re-sent); a result is
// capped at 50,000 code points across all of its blocks, with a note saying what was cut. Every
// inbound frame goes through the strict bounded decoder; the first malformed one tears the
// connection down. Sampling and elicitation requests (server-to-client in the legacy era,
// `input_required` rounds in the modern era, at most 3 rounds) are refused unless enabled, and
// every one is reported to the audit sink, allowed or not.
//
// Thread safety: a Client may be used from many threads at once; calls run concurrently.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/base/version.hpp"
#include "agentkit/core/tracing.hpp"
#include "agentkit/core/tool.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/mcp/oauth.hpp"
#include "agentkit/mcp/protocol.hpp"

namespace agentkit::mcp {

// How the client picks the protocol era.
enum class Negotiation : std::uint8_t {
  automatic,  // probe server/discover, fall back to initialize (the default)
  modern,     // 2026-07-28 only; a server that does not speak it is an error
  legacy,     // the 2025 initialize handshake only
};

// A server started as a child process, spoken to over its stdin/stdout. `${VAR}` in any field is
// resolved when the server is spawned; an unresolvable reference is a configuration error.
struct StdioLaunch {
  std::string command;
  std::vector<std::string> args{};
  // Added to the reduced environment (REQ-MCP-CLIENT-10): the child never inherits ours.
  std::vector<std::pair<std::string, std::string>> env{};
  std::string working_directory{};  // empty: ours
};

// Which HTTP transport a server speaks.
enum class HttpKind : std::uint8_t {
  streamable,  // Streamable HTTP: one POST per message (2025-03-26 and later)
  sse,         // the 2024-11-05 HTTP+SSE transport: a GET stream names a POST endpoint
};

// A server reached over HTTP. `${VAR}` is resolved when connecting; a header whose references
// resolve to nothing is dropped, one holding a control byte is refused. With `kind` sse the GET
// stream's `endpoint` event is resolved against `url` and refused unless its scheme, host and
// port are url's (a server may not choose where our headers and tokens go); the client speaks
// the legacy era there.
struct HttpTarget {
  std::string url;  // http:// or https:// (https needs a TlsProvider in ClientOptions::http)
  std::vector<std::pair<std::string, std::string>> headers{};
  HttpKind kind = HttpKind::streamable;
  // OAuth for this server (agentkit/mcp/oauth.hpp); nullopt: OAuth only when
  // ClientOptions::authorize is set, with default settings.
  std::optional<OAuthSettings> oauth{};
};

// One server. Unset overrides take the ClientOptions value.
struct ServerConfig {
  std::string name;
  std::variant<StdioLaunch, HttpTarget> transport;
  std::optional<Negotiation> negotiation{};
  std::optional<bool> allow_sampling{};
  std::optional<bool> allow_elicitation{};
  std::optional<std::size_t> call_limit{};
  std::optional<std::chrono::milliseconds> request_timeout{};
};

// Something a server asked this client for: sampling/createMessage, elicitation/create or
// roots/list, with its params.
struct InputRequest {
  std::string server;
  std::string method;
  json::Value params;
};
// Answers an InputRequest with the method's result object (a CreateMessageResult, an
// ElicitResult, a ListRootsResult), or an error to refuse it.
using InputProvider = std::function<Result<json::Value>(const InputRequest&)>;

// One audited event: a tool call (server, tool, argument hash, outcome), or a sampling
// / elicitation / roots request, whether it was allowed or refused (REQ-MCP-CLIENT-08).
struct AuditRecord {
  std::string server;
  std::string kind;            // "tool_call", "sampling", "elicitation", "roots"
  std::string name;            // tool name, or the input request's method
  std::string arguments_sha256;  // tool calls: SHA-256 of the argument bytes sent
  bool allowed = true;         // false: refused by policy (nothing was executed)
  bool is_error = false;
  Era era = Era::legacy;
  std::string detail;
};
using AuditSink = std::function<void(const AuditRecord&)>;

// Environment variables a stdio server inherits from ours unless ClientOptions says otherwise:
// what a program needs to run and find its tools, never credentials.
inline const std::vector<std::string>& default_inherited_environment() {
  static const std::vector<std::string> names = {"PATH", "HOME",     "USER", "LOGNAME", "LANG",
                                                 "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "TERM"};
  return names;
}

// Reads one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Settings for a Client. Safe to copy; read when connecting.
struct ClientOptions {
  Implementation client_info{std::string(kProductName), std::string(kVersion), ""};
  Negotiation negotiation = Negotiation::automatic;
  // Each request's deadline; a progress notification for it restarts the clock (REQ-MCP-CLIENT-07).
  std::chrono::milliseconds request_timeout{30'000};
  // How long `automatic` waits for server/discover on stdio before taking silence as "legacy".
  std::chrono::milliseconds probe_timeout{5'000};
  // Tool calls allowed per server per session (REQ-MCP-CLIENT-07); the next is refused unsent.
  std::size_t call_limit = 1000;
  // Times a dead stdio server (or an expired HTTP session) is reconnected (NFR-REL-03).
  int reconnect_limit = 3;
  // Code points of result text the model may see, across the whole result (REQ-MCP-CLIENT-09).
  std::size_t result_cap = 50'000;
  // input_required rounds answered per request (a tool call, prompts/get, resources/read; modern
  // era) before it fails.
  int max_input_rounds = 3;
  // Sampling and elicitation are refused unless allowed and provided (REQ-MCP-CLIENT-08).
  bool allow_sampling = false;
  InputProvider sampling{};
  bool allow_elicitation = false;
  InputProvider elicitation{};
  // Answers roots/list; empty: the roots capability is not declared.
  InputProvider roots{};
  AuditSink audit{};
  // Each stderr line of a stdio server (logs, never protocol); empty: discarded, but always drained.
  std::function<void(std::string_view server, std::string_view line)> on_stderr{};
  // Every notification the server sends (after the client has acted on it).
  std::function<void(std::string_view server, std::string_view method, const json::Value& params)> on_notification{};
  // HTTP transport for HttpTarget servers; nullptr: an HttpClient owned by the client.
  std::shared_ptr<http::HttpTransport> http{};
  // How the user logs in when an HTTP server asks for OAuth (agentkit/mcp/oauth.hpp); empty: a
  // server that needs a login fails with an error saying so.
  Authorize authorize{};
  // Where OAuth tokens are kept, keyed by server name; nullptr: in memory, per client.
  std::shared_ptr<OAuthTokenStore> tokens{};
  // An OAuth token this close to its expiry is refreshed before it is sent.
  std::chrono::seconds refresh_margin{60};
  // Step-up authorizations (403 insufficient_scope) tried per request before it fails.
  int max_step_ups = 2;
  // Time between closing a stdio server's stdin and SIGTERM, and between SIGTERM and SIGKILL.
  std::chrono::milliseconds shutdown_grace{2'000};
  // Variables a stdio server inherits (by name) before the configured ones are added.
  std::vector<std::string> inherited_environment = default_inherited_environment();
  // Where ${VAR} and inherited variables are read; empty: the process environment.
  EnvLookup getenv{};
};

// A tool as the server lists it.
struct ToolInfo {
  std::string name;
  std::string title;        // display name (title, annotations.title, or empty)
  std::string description;
  json::Value input_schema;
  std::optional<json::Value> output_schema;
  json::Value annotations;  // untrusted hints; null when absent
  // Arguments mirrored into Mcp-Param-<header> on HTTP: (property, header name).
  std::vector<std::pair<std::string, std::string>> header_params;
};

// A tools/call result, validated strictly.
struct CallResult {
  std::vector<json::Value> content;   // content blocks as sent (text, image, audio, resource_link, resource)
  std::optional<json::Value> structured_content;
  bool is_error = false;
  int input_rounds = 0;               // input_required rounds it took
};

struct CallControl {
  agentkit::stop_token stop{};
  // Keys the per-session call limit (an agent passes its session id).
  std::string session{};
  // progress, total (if known), message
  std::function<void(double, std::optional<double>, std::string_view)> on_progress{};
  // Log messages (notifications/message: level, logger, data) the server sends while this call
  // is in flight. Over 2026-07-28 the request asks for them (`logLevel` "debug" in its `_meta`).
  // Over Streamable HTTP a message arrives on the response stream of the request it belongs to
  // and goes to that call only; over stdio and HTTP+SSE nothing in the protocol ties a log
  // message to a request, so each goes to every call in flight to that server.
  using LogSink =
      std::function<void(std::string_view level, std::string_view logger, const json::Value& data)>;
  LogSink on_log{};
  // The caller's span (an agent's execute_tool span); null = untraced. The call gets a client
  // span `tools/call {tool}` under it, and the server gets its W3C trace context: `traceparent`
  // in `_meta` over stdio, the `traceparent` header over HTTP.
  tracing::Span* span = nullptr;
};

struct Diagnostics {
  std::string server;
  std::string transport;           // "stdio server 'npx ...' (pid 4242)", "MCP server at http://..."
  Era era = Era::legacy;
  std::string protocol_version;
  std::string server_name;
  std::string server_version;
  std::string instructions;
  int reconnects = 0;
  // How the era was chosen, tools dropped for invalid x-mcp-header annotations, and other notes.
  std::vector<std::string> notes;
};

namespace detail {
struct ClientState;
}

class Client {
 public:
  // Starts or reaches the server and negotiates the era. Errors name the server and what to do.
  static Result<Client> connect(ServerConfig config, ClientOptions options = {}, agentkit::stop_token stop = {});

  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  Diagnostics diagnostics() const;
  // The server's tools, every page; cached until a list_changed notification (legacy, or a
  // modern subscription) or the result's ttlMs hint (modern without a subscription) says stale.
  Result<std::vector<ToolInfo>> list_tools(agentkit::stop_token stop = {});
  // Calls a tool. A tool-level failure is a CallResult with is_error; Errors are protocol,
  // transport and policy failures (the call limit, a refused sampling request, a timeout).
  Result<CallResult> call_tool(std::string_view name, const json::Value& arguments, const CallControl& control = {});
  // Any other request (resources/read, prompts/get, ...), with the era's envelope; the result
  // object. An input_required answer to tools/call, prompts/get or resources/read is answered
  // through the input providers and the request sent again, as for call_tool.
  Result<json::Value> request(std::string_view method, json::Value params, agentkit::stop_token stop = {});
  // Ends the connection (for stdio: stdin closed, then SIGTERM and SIGKILL to the process group).
  Result<void> close();

 private:
  explicit Client(std::shared_ptr<detail::ClientState> state) noexcept;
  friend std::function<Result<std::vector<ToolDefinition>>(agentkit::stop_token)> tool_connector(ServerConfig, ClientOptions);
  std::shared_ptr<detail::ClientState> state_;
};

// The `connect` of an agentkit::McpToolSource (agentkit/definition.hpp): connects when called,
// lists the tools and answers them with their server-local names (make_agent prefixes
// `name__`). The handlers share the connection and keep it alive; it closes with the last of them.
std::function<Result<std::vector<ToolDefinition>>(agentkit::stop_token)> tool_connector(ServerConfig config,
                                                                                  ClientOptions options = {});

// The server's MCP prompts and resources, for the embedder to show or use (the agent itself
// consumes tools only). Lists follow every nextCursor (at most 1000 pages); errors name the
// server and the method.
struct PromptInfo {
  std::string name;
  std::string title;
  std::string description;
  json::Value arguments;  // the listed argument descriptors (an array), null when none
};
struct ResourceInfo {
  std::string uri;
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
};
Result<std::vector<PromptInfo>> list_prompts(Client& client, agentkit::stop_token stop = {});
// The GetPromptResult object ({description?, messages}). A prompt that asks for input first
// (input_required, or a 2025 server's elicitation request) is answered through
// ClientOptions::elicitation / sampling / roots, like a tool call.
Result<json::Value> get_prompt(
    Client& client, std::string_view name,
    const std::vector<std::pair<std::string, std::string>>& arguments = {},
    agentkit::stop_token stop = {});
Result<std::vector<ResourceInfo>> list_resources(Client& client, agentkit::stop_token stop = {});
// The ReadResourceResult object ({contents: [{uri, mimeType?, text | blob}]}); input rounds as
// for get_prompt.
Result<json::Value> read_resource(Client& client, std::string_view uri,
                                  agentkit::stop_token stop = {});

// What the model sees of a result: text blocks joined, images as image blocks, resources and
// audio described in text, structured content as JSON when there is no text; at most `cap` code
// points of text across the whole result, with a note naming what was cut. Images are passed
// whole and not charged (the agent's image normaliser fits each to the model's budget).
// is_error becomes a failed result.
ToolResult to_tool_result(const CallResult& result, std::size_t cap);

}  // namespace agentkit::mcp
