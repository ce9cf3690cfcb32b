// JSON-RPC framing on arbitrary bytes: parse_message never crashes; a rejection always maps to
// -32700 or -32600 (with the id only when one was readable); an accepted message re-encodes to one
// line that parses back to the same kind, id, method and payload.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/mcp/jsonrpc.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

std::string reencode(const agentkit::mcp::RpcMessage& m) {
  using agentkit::mcp::MessageKind;
  switch (m.kind) {
    case MessageKind::request:
      return agentkit::mcp::encode_request(*m.id, m.method, m.params ? &*m.params : nullptr);
    case MessageKind::notification:
      return agentkit::mcp::encode_notification(m.method, m.params ? &*m.params : nullptr);
    case MessageKind::result:
      return agentkit::mcp::encode_result(*m.id, m.result);
    case MessageKind::error:
      return agentkit::mcp::encode_error(m.id, m.error);
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view frame(reinterpret_cast<const char*>(data), size);
  auto msg = agentkit::mcp::parse_message(frame);
  if (!msg) {
    auto [id, err] = agentkit::mcp::failure_reply(msg.error());
    require(err.code == agentkit::mcp::rpc_code::parse_error || err.code == agentkit::mcp::rpc_code::invalid_request);
    // The answer to a rejected frame is itself a valid frame.
    require(agentkit::mcp::parse_message(agentkit::mcp::encode_error(id, err)).has_value());
    return 0;
  }
  const std::string again = reencode(*msg);
  require(again.find('\n') == std::string::npos);
  auto back = agentkit::mcp::parse_message(again);
  require(back.has_value());
  require(back->kind == msg->kind && back->id == msg->id && back->method == msg->method);
  require(back->params == msg->params && back->result == msg->result && back->error == msg->error);
  if (msg->id) {
    auto id = agentkit::mcp::RequestId::from_json(msg->id->to_json());
    require(id.has_value() && *id == *msg->id);
  }
  return 0;
}
