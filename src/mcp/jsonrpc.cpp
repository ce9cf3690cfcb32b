// JSON-RPC 2.0 envelope: strict parsing on the bounded decoder and compact encoding.
#include "agentkit/mcp/jsonrpc.hpp"

#include <functional>

#include "agentkit/wire/binder.hpp"
#include "agentkit/wire/decode.hpp"

namespace agentkit::mcp {
namespace {

constexpr std::string_view kVersion = "2.0";

Error envelope_error(std::string message, std::int64_t code, const std::optional<RequestId>& id) {
  Error e = make_error(Errc::protocol_error, "malformed JSON-RPC message: " + std::move(message));
  e.with_detail("rpc_code", std::to_string(code));
  if (id) e.with_detail("id", id->to_text());
  return e;
}

// The id member when it is readable, so even a rejected request can be answered by id.
std::optional<RequestId> readable_id(const json::Object& object) {
  const json::Value* id = object.find("id");
  if (id == nullptr) return std::nullopt;
  auto parsed = RequestId::from_json(*id);
  if (!parsed) return std::nullopt;
  return *parsed;
}

bool is_envelope_member(std::string_view key) {
  return key == "jsonrpc" || key == "id" || key == "method" || key == "params" || key == "result" ||
         key == "error";
}

Result<RpcError> read_error_object(const json::Value& value, const std::optional<RequestId>& id) {
  const json::Object* object = value.get_object();
  if (object == nullptr) return envelope_error("\"error\" is not an object", rpc_code::invalid_request, id);
  RpcError out;
  bool have_code = false;
  bool have_message = false;
  for (const json::Member& m : *object) {
    if (m.key == "code") {
      auto code = wire::bind<std::int64_t>(m.value, wire::UnknownFields::reject);
      if (!code) return envelope_error("error.code is not an integer", rpc_code::invalid_request, id);
      out.code = *code;
      have_code = true;
    } else if (m.key == "message") {
      if (!m.value.is_string()) {
        return envelope_error("error.message is not a string", rpc_code::invalid_request, id);
      }
      out.message = m.value.as_string();
      have_message = true;
    } else if (m.key == "data") {
      out.data = m.value;
    } else {
      return envelope_error("unknown member \"" + m.key + "\" in the error object",
                            rpc_code::invalid_request, id);
    }
  }
  if (!have_code || !have_message) {
    return envelope_error("the error object needs \"code\" and \"message\"", rpc_code::invalid_request, id);
  }
  return out;
}

Result<RpcMessage> read_call(const json::Object& object, const std::optional<RequestId>& id) {
  RpcMessage msg;
  const json::Value* method = object.find("method");
  if (!method->is_string()) return envelope_error("\"method\" is not a string", rpc_code::invalid_request, id);
  if (object.contains("result") || object.contains("error")) {
    return envelope_error("a request carries \"result\" or \"error\"", rpc_code::invalid_request, id);
  }
  msg.method = method->as_string();
  if (const json::Value* params = object.find("params")) {
    // JSON-RPC allows by-position arrays; MCP params are always objects.
    if (!params->is_object()) return envelope_error("\"params\" is not an object", rpc_code::invalid_request, id);
    msg.params = *params;
  }
  if (const json::Value* raw_id = object.find("id")) {
    if (!id) return envelope_error("the request id is not a string or a safe integer", rpc_code::invalid_request, id);
    (void)raw_id;
    msg.kind = MessageKind::request;
    msg.id = id;
  } else {
    msg.kind = MessageKind::notification;
  }
  return msg;
}

Result<RpcMessage> read_response(const json::Object& object, const std::optional<RequestId>& id) {
  RpcMessage msg;
  const json::Value* result = object.find("result");
  const json::Value* error = object.find("error");
  if ((result == nullptr) == (error == nullptr)) {
    return envelope_error("a response needs exactly one of \"result\" and \"error\"", rpc_code::invalid_request, id);
  }
  if (object.contains("params")) return envelope_error("a response carries \"params\"", rpc_code::invalid_request, id);
  const json::Value* raw_id = object.find("id");
  if (result != nullptr) {
    if (!id) return envelope_error("a result without a usable id", rpc_code::invalid_request, id);
    // MCP results are always objects (EmptyResult is {}).
    if (!result->is_object()) return envelope_error("\"result\" is not an object", rpc_code::invalid_request, id);
    msg.kind = MessageKind::result;
    msg.result = *result;
    msg.id = id;
    return msg;
  }
  // An error may answer a message whose id could not be read: id null or absent.
  if (raw_id != nullptr && !raw_id->is_null() && !id) {
    return envelope_error("the response id is not a string or a safe integer", rpc_code::invalid_request, id);
  }
  auto err = read_error_object(*error, id);
  if (!err) return std::move(err).error();
  msg.kind = MessageKind::error;
  msg.error = std::move(*err);
  msg.id = id;
  return msg;
}

}  // namespace

json::Value RequestId::to_json() const {
  if (is_number()) return json::Value(static_cast<long long>(number()));
  return json::Value(string());
}

std::string RequestId::to_text() const { return json::dump(to_json()); }

Result<RequestId> RequestId::from_json(const json::Value& value) {
  if (const auto s = value.get_string()) return RequestId(std::string(*s));
  if (!value.is_number()) return fail(Errc::protocol_error, "a request id must be a string or an integer");
  auto n = wire::bind<std::int64_t>(value, wire::UnknownFields::reject);
  if (!n) return fail(Errc::protocol_error, "a numeric request id must be an integer within ±(2^53−1)");
  return RequestId(*n);
}

std::size_t RequestId::Hash::operator()(const RequestId& id) const noexcept {
  if (id.is_number()) return std::hash<std::int64_t>{}(id.number()) * 31U + 1U;
  return std::hash<std::string>{}(id.string()) * 31U + 2U;
}

json::Value RpcError::to_json() const {
  json::Object o;
  o.append_unique("code", json::Value(static_cast<long long>(code)));
  o.append_unique("message", message);
  if (data) o.append_unique("data", *data);
  return json::Value(std::move(o));
}

Result<RpcMessage> parse_message(std::string_view frame, const wire::Limits& limits) {
  auto doc = wire::decode(frame, limits);
  if (!doc) {
    Error e = std::move(doc).error();
    e.message = "malformed JSON-RPC frame: " + e.message;
    e.with_detail("rpc_code", std::to_string(rpc_code::parse_error));
    return e;
  }
  const json::Object* object = doc->get_object();
  if (object == nullptr) {
    const char* what = doc->is_array() ? "a batch (JSON array); MCP removed batches in 2025-06-18"
                                       : "not a JSON object";
    return envelope_error(what, rpc_code::invalid_request, std::nullopt);
  }
  const std::optional<RequestId> id = readable_id(*object);
  for (const json::Member& m : *object) {
    if (!is_envelope_member(m.key)) {
      return envelope_error("unknown member \"" + m.key + "\"", rpc_code::invalid_request, id);
    }
  }
  const json::Value* version = object->find("jsonrpc");
  if (version == nullptr || version->get_string() != std::optional<std::string_view>(kVersion)) {
    return envelope_error("\"jsonrpc\" must be \"2.0\"", rpc_code::invalid_request, id);
  }
  if (object->contains("method")) return read_call(*object, id);
  return read_response(*object, id);
}

std::pair<std::optional<RequestId>, RpcError> failure_reply(const Error& parse_failure) {
  RpcError err;
  err.code = rpc_code::parse_error;
  if (auto code = parse_failure.find_detail("rpc_code"); code && *code == std::to_string(rpc_code::invalid_request)) {
    err.code = rpc_code::invalid_request;
  }
  err.message = err.code == rpc_code::parse_error ? "Parse error" : "Invalid request";
  err.data = json::Value(json::Object{{"reason", parse_failure.message}});
  std::optional<RequestId> id;
  if (auto text = parse_failure.find_detail("id")) {
    if (auto v = json::parse(*text)) {
      if (auto parsed = RequestId::from_json(*v)) id = *parsed;
    }
  }
  return {std::move(id), std::move(err)};
}

std::string encode_request(const RequestId& id, std::string_view method, const json::Value* params) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  json::dump_to(out, id.to_json());
  out += R"(,"method":)";
  json::append_quoted(out, method);
  if (params != nullptr) {
    out += R"(,"params":)";
    json::dump_to(out, *params);
  }
  out += '}';
  return out;
}

std::string encode_notification(std::string_view method, const json::Value* params) {
  std::string out = R"({"jsonrpc":"2.0","method":)";
  json::append_quoted(out, method);
  if (params != nullptr) {
    out += R"(,"params":)";
    json::dump_to(out, *params);
  }
  out += '}';
  return out;
}

std::string encode_result(const RequestId& id, const json::Value& result) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  json::dump_to(out, id.to_json());
  out += R"(,"result":)";
  json::dump_to(out, result);
  out += '}';
  return out;
}

std::string encode_error(const std::optional<RequestId>& id, const RpcError& error) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  if (id) {
    json::dump_to(out, id->to_json());
  } else {
    out += "null";
  }
  out += R"(,"error":)";
  json::dump_to(out, error.to_json());
  out += '}';
  return out;
}

}  // namespace agentkit::mcp
