// agentkit/mcp/server.hpp — an MCP server speaking both protocol eras, over stdio and HTTP.
//
//   using namespace agentkit;
//   mcp::Server server({.server_info = {"my-host", "1.0.0", ""}});
//   (void)server.add_tools(my_tool_definitions);              // agent tools, served as they are
//   (void)server.add_tool({.name = "lookup",
//                          .description = "Look a key up",
//                          .input_schema = json::parse(R"({"type":"object","properties":{"key":{"type":"string"}}})").value(),
//                          .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
//                            return mcp::ServerToolResult::text("42");
//                          }});
//   (void)server.add_resource_template({.uri_template = "x://items/{id}", .name = "item",
//                                       .read = [](const mcp::ResourceRead& r) { ... r.variables ... }});
//   server.serve_stdio();                                     // blocks until the client hangs up
//   // or: auto http = server.serve_http({.port = 8808, .api_key = key}).value();  http.url()
//
// Eras: a request carrying the 2026-07-28 `_meta` envelope is served
// statelessly as modern (results carry resultType, serverInfo and, for lists and reads, ttlMs and
// cacheScope); `initialize` opens a legacy session (stdio: this connection; HTTP: an
// Mcp-Session-Id); server/discover is always answered. With LegacyMode::reject the server is
// modern-only and answers `initialize` with -32022 naming the versions it speaks. A version it does
// not speak gets -32022 with data.supported.
//
// Handlers are MRTR-native: a tool, a prompt's `get` and a resource's `read` may answer
// InputRequired instead of a result. A modern client gets `input_required` with a sealed
// requestState (HMAC, bound to the method, the tool, prompt or URI, the arguments and an expiry)
// and retries; for a legacy client the server asks the questions itself, as server-to-client
// requests on the session, and calls the handler again with the answers — at most
// `max_input_rounds` rounds either way. Handlers run concurrently, at most
// `max_concurrent_handlers` at once; a notifications/cancelled fires the handler's stop token and
// its reply is never sent; stopping the server cancels everything in flight before waiting.
// Registering or removing a tool, resource or prompt notifies every initialised legacy session and
// every modern subscription that asked for that list, after the registry lock is released.
// Legacy sessions may also set a log level (logging/setLevel; handlers log through ToolCall::log)
// and subscribe to resources (resources/subscribe, then Server::resource_updated). Prompts and
// resource templates with a `complete` callback answer completion/complete in both eras.
// Pagination cursors name the next entry (sealed, so a cursor this server never issued, or one
// naming an entry since removed, is refused with -32602).
//
// HTTP (REQ-MCP-SERVER-02/07): loopback by default; refuses to start without an API key, which
// every request must carry (`Authorization: Bearer <key>` or `X-API-Key: <key>`), checked before
// anything else (401); then Origin (403), method (405), Content-Type (415), body bound (413),
// strict parsing (400), and for modern requests the routing headers against the body (400, -32020).
//
// Thread safety: registration may happen from any thread while serving.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
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
#include "agentkit/core/tool.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/mcp/protocol.hpp"
#include "agentkit/mcp/uri_template.hpp"

namespace agentkit::mcp {

// A finished tool call.
struct ServerToolResult {
  std::vector<json::Value> content;  // content blocks
  std::optional<json::Value> structured_content;
  bool is_error = false;

  static ServerToolResult text(std::string text);
  static ServerToolResult error(std::string text);  // is_error, with the text for the model
};

// A tool, prompt or resource that needs the client's input before it can finish: `requests`
// maps keys of the handler's choosing to {"method": "elicitation/create" |
// "sampling/createMessage" | "roots/list", "params": {...}}; `state` comes back in the next call
// (opaque to the client).
struct InputRequired {
  std::vector<std::pair<std::string, json::Value>> requests;
  std::optional<std::string> state;
};

// {"method":"elicitation/create","params":{"mode":"form","message":...,"requestedSchema":...}}
json::Value elicitation_request(std::string message, json::Value requested_schema);

using ToolOutcome = std::variant<ServerToolResult, InputRequired>;

// The eight syslog severities of MCP logging (notifications/message), least severe first.
enum class LogLevel : std::uint8_t {
  debug,
  info,
  notice,
  warning,
  error,
  critical,
  alert,
  emergency
};

// "debug" ... "emergency"; nullopt for anything else.
std::optional<LogLevel> parse_log_level(std::string_view name);
std::string_view log_level_name(LogLevel level);

// What a tool handler sees of one call.
struct ToolCall {
  std::string name;
  json::Value arguments;                 // an object
  json::Object input_responses;          // answers to the previous round's requests, by key
  std::optional<std::string> state;      // the handler's own state from its previous round
  json::Value client_capabilities;       // declared for this request (modern) or this session (legacy)
  Era era = Era::legacy;
  std::string protocol_version;
  agentkit::stop_token stop;                  // cancellation, client disconnect, server shutdown
  // Sends notifications/progress when the client asked for progress; a no-op otherwise.
  std::function<void(double progress, std::optional<double> total, std::string_view message)> progress;
  // Sends notifications/message {level, logger, data} to this request's client when it asked for
  // that severity: a legacy session at or above its logging/setLevel (everything until it sets
  // one), a modern request at or above its `io.modelcontextprotocol/logLevel` _meta (nothing
  // without it). A no-op otherwise.
  std::function<void(LogLevel level, json::Value data, std::string_view logger)> log;
};

using ServerToolHandler = std::function<ToolOutcome(const ToolCall&)>;

struct ServerTool {
  std::string name;
  std::string title{};
  std::string description{};
  // A JSON Schema object with "type":"object" at the root.
  json::Value input_schema = json::Value(json::Object{{"type", "object"}});
  std::optional<json::Value> output_schema{};
  json::Value annotations{};  // null: none
  ServerToolHandler handler{};
};

struct ResourceContents {
  std::string uri;
  std::string mime_type{};
  std::optional<std::string> text{};
  std::optional<std::string> blob_base64{};
};

struct ResourceRead {
  std::string uri;
  UriVariables variables;  // filled when a template matched
  agentkit::stop_token stop;
  // Input rounds, as for a tool (ToolCall): the answers to the previous round's requests by key,
  // the reader's own state from that round, and what the client declared it can answer.
  json::Object input_responses{};
  std::optional<std::string> state{};
  json::Value client_capabilities{};
  Era era = Era::legacy;
};

// What a resource read answers: the contents, an error, or InputRequired (the client's input
// first, then the read runs again with the answers). A reader returning
// Result<std::vector<ResourceContents>> converts as it is.
using ResourceOutcome = std::variant<Result<std::vector<ResourceContents>>, InputRequired>;
using ResourceReader = std::function<ResourceOutcome(const ResourceRead&)>;

// One completion/complete question: which argument, what the user typed so far, and the values
// of the arguments already chosen (`context.arguments`).
struct CompletionRequest {
  std::string argument;
  std::string value;
  std::vector<std::pair<std::string, std::string>> context{};
};

// Suggestions for an argument, best first. The server sends at most 100 and sets `total` and
// `hasMore` from the full list.
using Completer = std::function<std::vector<std::string>(const CompletionRequest&)>;

struct ServerResource {
  std::string uri;
  std::string name;
  std::string title{};
  std::string description{};
  std::string mime_type{};
  ResourceReader read{};
};

struct ServerResourceTemplate {
  std::string uri_template;  // RFC 6570, see uri_template.hpp
  std::string name;
  std::string title{};
  std::string description{};
  std::string mime_type{};
  ResourceReader read{};
  // Answers completion/complete for the template's variables; empty: no suggestions.
  Completer complete{};
};

struct PromptArgument {
  std::string name;
  std::string description{};
  bool required = false;
};

struct PromptMessage {
  std::string role;     // "user" or "assistant"
  json::Value content;  // one content block
};

struct PromptGet {
  std::string name;
  std::vector<std::pair<std::string, std::string>> arguments;
  agentkit::stop_token stop;
  // Input rounds, as for a tool (ToolCall): the answers to the previous round's requests by key,
  // the getter's own state from that round, and what the client declared it can answer.
  json::Object input_responses{};
  std::optional<std::string> state{};
  json::Value client_capabilities{};
  Era era = Era::legacy;
};

struct PromptResult {
  std::string description{};
  std::vector<PromptMessage> messages;
};

// What a prompt's `get` answers: the prompt, an error, or InputRequired (the client's input
// first, then `get` runs again with the answers). A getter returning Result<PromptResult>
// converts as it is.
using PromptOutcome = std::variant<Result<PromptResult>, InputRequired>;

struct ServerPrompt {
  std::string name;
  std::string title{};
  std::string description{};
  std::vector<PromptArgument> arguments{};
  std::function<PromptOutcome(const PromptGet&)> get{};
  // Answers completion/complete for the prompt's arguments; empty: no suggestions.
  Completer complete{};
};

enum class LegacyMode : std::uint8_t {
  serve,   // answer `initialize` and serve 2025 sessions too (dual-era, the default)
  reject,  // modern only: `initialize` gets -32022 naming the versions we speak
};

// Settings for a Server. Read once at construction.
struct ServerOptions {
  Implementation server_info{std::string(kProductName), std::string(kVersion), ""};
  std::string instructions{};
  LegacyMode legacy = LegacyMode::serve;
  // Tool, resource and prompt handlers running at once; more wait (seed: 64 per server).
  std::size_t max_concurrent_handlers = 64;
  // Entries per page of tools/list, resources/list, resources/templates/list, prompts/list.
  std::size_t page_size = 100;
  // The ttlMs hint on list and read results (modern); 0 = revalidate every time.
  std::int64_t list_ttl_ms = 0;
  // The cacheScope on those results: "private" unless the lists hold no per-user data.
  std::string cache_scope = "private";
  // Input rounds a tool, prompt or resource read may ask for (both eras).
  int max_input_rounds = 3;
  // How long a sealed requestState stays valid.
  std::chrono::seconds request_state_lifetime{600};
  // How long a legacy server-to-client request (an input round) waits for the client.
  std::chrono::milliseconds client_request_timeout{30'000};
};

// Settings of the HTTP mode.
struct HttpServeOptions {
  // Loopback unless told otherwise (REQ-MCP-SERVER-02 ruling: never every interface by default).
  std::string bind_address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: the system picks (see HttpService::port())
  std::string path = "/mcp";
  // Required: serve_http refuses to start without one (REQ-MCP-SERVER-07).
  std::string api_key{};
  // Browser origins allowed to call ("https://app.example"), besides the loopback ones: a server
  // bound to loopback accepts an Origin whose host is localhost, 127.0.0.1 or [::1] (any port,
  // http or https), as a page the user opened on this machine (the MCP Inspector) sends. Any
  // other Origin gets 403. Requests without an Origin header (non-browser clients) are not
  // affected.
  std::vector<std::string> allowed_origins{};
  // Host header must name loopback when bound to loopback (DNS-rebinding protection).
  bool check_host = true;
  // Serve without an API key. Accepted only with a loopback bind_address (serve_http refuses it
  // otherwise); the Host and Origin checks then are the only guard, so leave it off unless every
  // local process may call the tools (the conformance fixture, a local Inspector session).
  bool unauthenticated_loopback = false;
  // Largest request body (413 beyond); the library's message bound.
  std::size_t max_body_bytes = 16 * 1024 * 1024;
  // Comment lines sent on quiet long-lived streams, which also notice a client that left.
  std::chrono::milliseconds keep_alive_interval{15'000};
  // Legacy sessions kept at once; an initialize beyond it gets 503.
  std::size_t max_sessions = 1024;
};

namespace detail {
class ServerCore;
struct HttpServiceState;
}  // namespace detail

// A running HTTP mode; stopping it (or destroying it) cancels in-flight requests and joins.
class HttpService {
 public:
  HttpService(HttpService&&) noexcept;
  HttpService& operator=(HttpService&&) noexcept;
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;
  ~HttpService();

  std::uint16_t port() const noexcept;
  // "http://127.0.0.1:<port>/mcp"
  std::string url() const;
  void stop();

 private:
  friend class Server;
  explicit HttpService(std::unique_ptr<detail::HttpServiceState> state) noexcept;
  std::unique_ptr<detail::HttpServiceState> state_;
};

class Server {
 public:
  explicit Server(ServerOptions options = {});
  ~Server();
  Server(Server&&) noexcept;
  Server& operator=(Server&&) noexcept;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Errc::already_exists for a taken name or URI; Errc::invalid_argument for a bad schema or
  // template.
  Result<void> add_tool(ServerTool tool);
  // Serves agent tool definitions as MCP tools (their schema, their handler, arguments through
  // the same preparation pipeline; a thrown exception or a failed result becomes isError).
  Result<void> add_tools(std::vector<ToolDefinition> tools);
  bool remove_tool(std::string_view name);
  Result<void> add_resource(ServerResource resource);
  Result<void> add_resource_template(ServerResourceTemplate resource_template);
  bool remove_resource(std::string_view uri_or_template);
  Result<void> add_prompt(ServerPrompt prompt);
  bool remove_prompt(std::string_view name);

  // Serves one client over `in_fd`/`out_fd` (this process's stdin and stdout by default; stdout
  // carries protocol only) until the client closes its end — answers to requests already
  // received still go out — or `stop` fires, which cancels everything in flight first.
  // Errc::protocol_error when the client sent a frame that could not be decoded.
  Result<void> serve_stdio(agentkit::stop_token stop = {}, int in_fd = 0, int out_fd = 1);
  // Starts the HTTP mode on its own threads.
  Result<HttpService> serve_http(HttpServeOptions options);

  // Sends notifications/resources/updated {uri} to every legacy session that subscribed to `uri`
  // (resources/subscribe) and every modern listen stream whose resourceSubscriptions name it.
  void resource_updated(std::string_view uri);

  // Handlers running right now (for tests and diagnostics).
  std::size_t handlers_running() const;

 private:
  std::shared_ptr<detail::ServerCore> core_;
};

}  // namespace agentkit::mcp
