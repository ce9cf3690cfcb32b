// JSON-RPC 2.0 framing on the strict decoder (REQ-SEC-11/12, REQ-GO-06).
#include <unordered_set>

#include "agentkit/mcp/jsonrpc.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using mcp::MessageKind;
using mcp::RequestId;

TEST_CASE("a string request id and a numeric one are different ids, in equality and in hashing") {
  CHECK(RequestId("5") != RequestId(5));
  CHECK(RequestId(5) == RequestId(5));
  CHECK(RequestId(0).to_text() == "0");
  CHECK(RequestId("5").to_text() == "\"5\"");
  std::unordered_set<RequestId, RequestId::Hash> ids{RequestId(5)};
  CHECK(ids.count(RequestId("5")) == 0);
  CHECK(ids.count(RequestId(5)) == 1);
}

TEST_CASE("the four message kinds are told apart") {
  auto request = mcp::parse_message(R"({"jsonrpc":"2.0","id":0,"method":"tools/list","params":{}})");
  REQUIRE(request);
  CHECK(request->kind == MessageKind::request);
  CHECK(request->id == RequestId(0));
  auto note = mcp::parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  REQUIRE(note);
  CHECK(note->kind == MessageKind::notification);
  CHECK(!note->params);
  auto result = mcp::parse_message(R"({"result":{},"jsonrpc":"2.0","id":"a"})");  // any member order
  REQUIRE(result);
  CHECK(result->kind == MessageKind::result);
  CHECK(result->id == RequestId("a"));
  auto error = mcp::parse_message(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
  REQUIRE(error);
  CHECK(error->kind == MessageKind::error);
  CHECK(!error->id);
  CHECK(error->error.code == -32700);
}

TEST_CASE("a duplicate key in a frame is a rejection, not a resolution") {
  auto msg = mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"id":2,"result":{}})");
  REQUIRE(!msg);
  CHECK(msg.error().find_detail("rpc_code") == std::optional<std::string_view>("-32700"));
  auto nested = mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}})");
  CHECK(!nested);
}

TEST_CASE("an unknown envelope member is refused with -32600 and the id kept for the answer") {
  auto msg = mcp::parse_message(R"({"jsonrpc":"2.0","id":7,"method":"ping","smuggled":true})");
  REQUIRE(!msg);
  auto [id, err] = mcp::failure_reply(msg.error());
  CHECK(err.code == mcp::rpc_code::invalid_request);
  REQUIRE(id);
  CHECK(*id == RequestId(7));
}

TEST_CASE("envelope rules: version, id types, params shape, result/error exclusivity, batches") {
  CHECK(!mcp::parse_message(R"({"jsonrpc":"1.0","id":1,"method":"ping"})"));
  CHECK(!mcp::parse_message(R"({"id":1,"method":"ping"})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":null,"method":"ping"})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":9007199254740992,"method":"ping"})"));
  CHECK(mcp::parse_message(R"({"jsonrpc":"2.0","id":9007199254740991,"method":"ping"})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"result":[]})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","extra":0}})"));
  CHECK(!mcp::parse_message(R"({"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}})"));
  auto batch = mcp::parse_message(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  REQUIRE(!batch);
  CHECK(batch.error().message.find("batch") != std::string::npos);
}

TEST_CASE("a frame over the size limit is refused before it is parsed") {
  wire::Limits small;
  small.max_message_bytes = 64;
  const std::string frame = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" + std::string(100, 'x') + "\"}}";
  auto msg = mcp::parse_message(frame, small);
  REQUIRE(!msg);
  CHECK(msg.error().code == Errc::limit_exceeded);
  CHECK(mcp::failure_reply(msg.error()).second.code == mcp::rpc_code::parse_error);
}

TEST_CASE("encodings are single lines that parse back to what was encoded") {
  json::Value params(json::Object{{"text", "line one\nline two"}});
  const std::string request = mcp::encode_request(RequestId("r-1"), "tools/call", &params);
  CHECK(request.find('\n') == std::string::npos);
  auto back = mcp::parse_message(request);
  REQUIRE(back);
  CHECK(back->method == "tools/call");
  CHECK(back->params->find("text")->as_string() == "line one\nline two");
  auto err = mcp::parse_message(mcp::encode_error(std::nullopt, {-32600, "bad", json::Value(1)}));
  REQUIRE(err);
  CHECK(!err->id);
  CHECK(err->error.data == json::Value(1));
  CHECK(mcp::encode_notification("notifications/initialized", nullptr) ==
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}
