// MCP payloads on arbitrary input, both directions:
//  - as a client: the strict binders of what a server sends (tools/list, tools/call, initialize,
//    server/discover, input_required) never crash, and what the model would see of a bound call
//    result stays within the cap plus the truncation note;
//  - as a server: every line is routed and dispatched by a ServerCore with a tool, a resource, a
//    template and a prompt, in whichever era it claims; answers are always encodable and an
//    unknown or bad request is an error, never a crash. The first byte picks the page size.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/base/utf8.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/jsonrpc.hpp"
#include "agentkit/mcp/protocol.hpp"
#include "agentkit/wire/decode.hpp"
#include "mcp/payloads.hpp"
#include "mcp/server_core.hpp"

namespace {

using namespace agentkit;
using namespace agentkit::mcp::detail;

// What to_tool_result appends when it cuts: bounded, whatever the input.
constexpr std::size_t kNoteAllowance = 512;
constexpr std::size_t kCap = 64;

void require(bool ok) {
  if (!ok) std::abort();
}

void bind_as_client(const json::Value& v) {
  (void)wire::bind<ListToolsResult>(v, wire::UnknownFields::reject);
  (void)wire::bind<InitializeResult>(v, wire::UnknownFields::reject);
  (void)wire::bind<DiscoverResult>(v, wire::UnknownFields::reject);
  (void)wire::bind<InputRequiredResult>(v, wire::UnknownFields::reject);
  auto call = wire::bind<CallToolResult>(v, wire::UnknownFields::reject);
  if (!call) return;
  mcp::CallResult r;
  r.content = call->content;
  r.structured_content = call->structured_content;
  r.is_error = call->is_error.value_or(false);
  ToolResult seen = mcp::to_tool_result(r, kCap);
  require(seen.text.has_value());
  require(utf8::count_code_points(*seen.text).value_or(0) <= kCap + kNoteAllowance);
  require(seen.ok == !r.is_error);
}

mcp::ServerOptions options_with(std::size_t page_size) {
  mcp::ServerOptions options;
  options.page_size = page_size;
  return options;
}

void populate(ServerCore& core) {
  (void)core.add_tool({.name = "echo", .handler = [](const mcp::ToolCall& c) -> mcp::ToolOutcome {
                         return mcp::ServerToolResult::text(json::dump(c.arguments));
                       }});
  (void)core.add_tool({.name = "ask", .handler = [](const mcp::ToolCall& c) -> mcp::ToolOutcome {
                         if (!c.input_responses.empty()) return mcp::ServerToolResult::text("answered");
                         mcp::InputRequired asked;
                         asked.requests.emplace_back("k", mcp::elicitation_request("?", json::Value(json::Object{{"type", "object"}})));
                         return asked;
                       }});
  const auto reader = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
    return std::vector<mcp::ResourceContents>{{r.uri, "text/plain", "x", std::nullopt}};
  };
  (void)core.add_resource({.uri = "x://exact", .name = "exact", .read = reader});
  (void)core.add_resource_template({.uri_template = "x://items/{id}{?q}", .name = "item", .read = reader});
  (void)core.add_prompt({.name = "p", .arguments = {{.name = "a", .required = true}},
                         .get = [](const mcp::PromptGet&) -> Result<mcp::PromptResult> { return mcp::PromptResult{}; }});
}

void serve_line(ServerCore& core, LegacySession& session, std::string_view line) {
  auto msg = mcp::parse_message(line);
  if (!msg || msg->kind != mcp::MessageKind::request) return;
  const json::Value params = msg->params.value_or(json::Value());
  RequestScope scope;
  scope.notify = [](std::string_view method, const json::Value& p) { (void)mcp::encode_notification(method, &p); };
  Reply reply;
  switch (ServerCore::route(msg->method, params)) {
    case ServerCore::Route::discover:
      reply = core.discover(params);
      break;
    case ServerCore::Route::initialize:
      reply = core.initialize(params, session);
      break;
    case ServerCore::Route::modern:
      if (auto refused = core.admit_modern(params, scope)) {
        reply = *refused;
      } else if (msg->method == "subscriptions/listen") {
        if (auto f = core.parse_listen(params)) (void)core.acknowledged(*f);
        return;
      } else {
        reply = core.dispatch(msg->method, params, scope);
      }
      break;
    case ServerCore::Route::legacy:
      ServerCore::admit_legacy(session, params, scope);
      reply = core.dispatch(msg->method, params, scope);
      break;
  }
  const std::string out = reply.result ? mcp::encode_result(*msg->id, *reply.result) : mcp::encode_error(msg->id, reply.error);
  require(mcp::parse_message(out).has_value());
  (void)ServerCore::http_status(reply, scope.era);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (auto v = wire::decode(input)) bind_as_client(*v);
  if (auto h = mcp::decode_header_value(input)) {
    require(mcp::decode_header_value(mcp::encode_header_value(*h)).value() == *h);
  }
  ServerCore core(options_with(data[0] % 4));
  populate(core);
  LegacySession session;
  std::size_t start = 0;
  while (start <= input.size()) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    serve_line(core, session, input.substr(start, end - start));
    start = end + 1;
  }
  return 0;
}
