// agentkit/mcp/jsonrpc.hpp — JSON-RPC 2.0 messages as MCP uses them, on the strict decoder.
//
//   using namespace agentkit;
//   auto msg = mcp::parse_message(R"({"jsonrpc":"2.0","id":"5","method":"ping"})");
//   if (!msg) return tear_down(msg.error());        // malformed: the connection is poisoned
//   assert(msg->kind == mcp::MessageKind::request);
//   assert(msg->id == mcp::RequestId("5"));           // a string id ...
//   assert(msg->id != mcp::RequestId(5));             // ... is never the number 5
//   std::string reply = mcp::encode_result(*msg->id, json::Object{});
//
// Parsing goes through agentkit::wire::decode (16 MiB, depth 64, 1,000,000 members,
// duplicate keys and invalid UTF-8 rejected) and then checks the envelope strictly:
// an unknown top-level member, a missing or wrong "jsonrpc", a null id on a request, params that
// are not an object, a response with both or neither of result/error, or an error object with an
// unknown member are all rejections. Batches (a JSON array) are rejected: MCP removed them in
// 2025-06-18. A failed parse carries the JSON-RPC code to answer with in detail "rpc_code"
// (-32700 when the bytes are not acceptable JSON, -32600 when the envelope is wrong) and, when the
// id could still be read, the id in detail "id" (as JSON text); see failure_reply().
//
// Thread safety: pure functions over values.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/wire/limits.hpp"

namespace agentkit::mcp {

// JSON-RPC and MCP error codes (JSON-RPC 2.0 §5.1; MCP 2025-11-25 and 2026-07-28).
namespace rpc_code {
inline constexpr std::int64_t parse_error = -32700;
inline constexpr std::int64_t invalid_request = -32600;
inline constexpr std::int64_t method_not_found = -32601;
inline constexpr std::int64_t invalid_params = -32602;
inline constexpr std::int64_t internal_error = -32603;
// Legacy era only (retired in 2026-07-28, where resource-not-found is -32602).
inline constexpr std::int64_t resource_not_found_legacy = -32002;
// 2026-07-28: the routing headers disagree with the body.
inline constexpr std::int64_t header_mismatch = -32020;
// 2026-07-28: handling needs a client capability the request did not declare.
inline constexpr std::int64_t missing_client_capability = -32021;
// 2026-07-28: the request names a protocol version the receiver does not speak.
inline constexpr std::int64_t unsupported_protocol_version = -32022;
}  // namespace rpc_code

// A request id: an integer or a string. The two kinds never compare equal, so the string "5" and
// the number 5 are different requests; 0 is a valid id.
class RequestId {
 public:
  RequestId() = default;
  // Any integer type (so RequestId(0) is the number 0, never a null string pointer).
  template <class I>
    requires std::is_integral_v<I> && (!std::is_same_v<I, bool>)
  explicit RequestId(I n) : value_(static_cast<std::int64_t>(n)) {}
  explicit RequestId(std::string s) : value_(std::move(s)) {}
  explicit RequestId(const char* s) : value_(std::string(s)) {}

  bool is_number() const noexcept { return value_.index() == 0; }
  bool is_string() const noexcept { return value_.index() == 1; }
  // Preconditions: is_number() / is_string().
  std::int64_t number() const noexcept { return *std::get_if<0>(&value_); }
  const std::string& string() const noexcept { return *std::get_if<1>(&value_); }

  json::Value to_json() const;
  // The id as JSON text: 5 or "5". Unambiguous, so usable as a map key or in a log line.
  std::string to_text() const;
  // Reads an id from JSON: a string, or an integral number within ±(2^53−1).
  static Result<RequestId> from_json(const json::Value& value);

  friend bool operator==(const RequestId&, const RequestId&) = default;
  friend std::strong_ordering operator<=>(const RequestId& a, const RequestId& b) {
    if (a.value_.index() != b.value_.index()) return a.value_.index() <=> b.value_.index();
    if (a.is_number()) return a.number() <=> b.number();
    return a.string().compare(b.string()) <=> 0;
  }

  // Hashes the kind as well as the value, so 5 and "5" land apart.
  struct Hash {
    std::size_t operator()(const RequestId& id) const noexcept;
  };

 private:
  std::variant<std::int64_t, std::string> value_{std::int64_t{0}};
};

// The error object of a JSON-RPC error response.
struct RpcError {
  std::int64_t code = 0;
  std::string message;
  std::optional<json::Value> data;

  json::Value to_json() const;
  friend bool operator==(const RpcError&, const RpcError&) = default;
};

enum class MessageKind : std::uint8_t { request, notification, result, error };

// One JSON-RPC message.
struct RpcMessage {
  MessageKind kind = MessageKind::notification;
  // Requests and responses. An error response whose id was null or absent has none.
  std::optional<RequestId> id;
  // Requests and notifications.
  std::string method;
  // Requests and notifications: the params object, or nullopt when the member was absent.
  std::optional<json::Value> params;
  // MessageKind::result: the result object.
  json::Value result;
  // MessageKind::error.
  RpcError error;
};

// Parses one frame (an NDJSON line, an HTTP body, an SSE event's data).
Result<RpcMessage> parse_message(std::string_view frame, const wire::Limits& limits = {});

// The id and error to answer a frame that parse_message rejected with: -32700 or -32600, with
// the request's id when it could be read (null otherwise).
std::pair<std::optional<RequestId>, RpcError> failure_reply(const Error& parse_failure);

// Compact encodings (no newline inside, so each is one NDJSON line). `params` may be null for
// "no params member".
std::string encode_request(const RequestId& id, std::string_view method, const json::Value* params);
std::string encode_notification(std::string_view method, const json::Value* params);
std::string encode_result(const RequestId& id, const json::Value& result);
// `id` nullopt encodes "id":null (the answer to a frame whose id could not be read).
std::string encode_error(const std::optional<RequestId>& id, const RpcError& error);

}  // namespace agentkit::mcp
