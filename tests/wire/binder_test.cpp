#include "agentkit/wire/binder.hpp"

#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "agentkit/wire/sse_decoder.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace json = agentkit::json;
namespace wire = agentkit::wire;
using agentkit::Errc;
using agentkit::Result;
using wire::UnknownFields;

// ---- The structs under test ----------------------------------------------------------------

struct CallParams {
  std::string name;
  std::optional<json::Value> arguments;
  std::int64_t n = 0;
};
template <>
struct wire::Fields<CallParams> {
  static constexpr auto list = std::tuple{wire::field("name", &CallParams::name),
                                          wire::optional("arguments", &CallParams::arguments),
                                          wire::field("n", &CallParams::n)};
};

// MCP tools/call result (2025-11-25 / 2026-07-28 shape), enough of it to bind strictly.
struct ContentBlock {
  std::string type;
  std::optional<std::string> text;
};
template <>
struct wire::Fields<ContentBlock> {
  static constexpr auto list = std::tuple{wire::field("type", &ContentBlock::type),
                                          wire::optional("text", &ContentBlock::text)};
};
struct CallToolResult {
  std::vector<ContentBlock> content;
  std::optional<json::Value> structured_content;
  bool is_error = false;
};
template <>
struct wire::Fields<CallToolResult> {
  static constexpr auto list =
      std::tuple{wire::field("content", &CallToolResult::content),
                 wire::optional("structuredContent", &CallToolResult::structured_content),
                 wire::optional("isError", &CallToolResult::is_error)};
};
struct RpcResponse {
  std::string jsonrpc;
  json::Value id;
  CallToolResult result;
};
template <>
struct wire::Fields<RpcResponse> {
  static constexpr auto list = std::tuple{wire::field("jsonrpc", &RpcResponse::jsonrpc),
                                          wire::field("id", &RpcResponse::id),
                                          wire::field("result", &RpcResponse::result)};
  static Result<void> validate(const RpcResponse& r) {
    if (r.jsonrpc != "2.0") return agentkit::fail(Errc::validation_error, "jsonrpc must be \"2.0\"");
    return {};
  }
};

// A provider stream event (Anthropic's message_delta), bound tolerantly.
struct Delta {
  std::optional<std::string> stop_reason;
  std::optional<std::string> stop_sequence;
};
template <>
struct wire::Fields<Delta> {
  static constexpr auto list = std::tuple{wire::optional("stop_reason", &Delta::stop_reason),
                                          wire::optional("stop_sequence", &Delta::stop_sequence)};
};
struct Usage {
  std::int64_t output_tokens = 0;
};
template <>
struct wire::Fields<Usage> {
  static constexpr auto list = std::tuple{wire::field("output_tokens", &Usage::output_tokens)};
};
struct MessageDelta {
  std::string type;
  Delta delta;
  Usage usage;
};
template <>
struct wire::Fields<MessageDelta> {
  static constexpr auto list = std::tuple{wire::field("type", &MessageDelta::type),
                                          wire::field("delta", &MessageDelta::delta),
                                          wire::optional("usage", &MessageDelta::usage)};
};

// Validators at several depths, each checking its own struct.
struct Item {
  std::string name;
  std::int32_t qty = 0;
};
template <>
struct wire::Fields<Item> {
  static constexpr auto list = std::tuple{wire::field("name", &Item::name), wire::field("qty", &Item::qty)};
  static Result<void> validate(const Item& item) {
    if (item.qty < 1) return agentkit::fail(Errc::validation_error, "qty must be at least 1");
    return {};
  }
};
struct Order {
  std::vector<Item> items;
  std::string currency;
};
template <>
struct wire::Fields<Order> {
  static constexpr auto list =
      std::tuple{wire::field("items", &Order::items), wire::field("currency", &Order::currency)};
  static Result<void> validate(const Order& order) {
    if (order.currency != "EUR" && order.currency != "USD") {
      return agentkit::fail(Errc::validation_error, "currency must be \"EUR\" or \"USD\"");
    }
    return {};
  }
};
struct Envelope {
  Order params;
};
template <>
struct wire::Fields<Envelope> {
  static constexpr auto list = std::tuple{wire::field("params", &Envelope::params)};
};

// Every supported field type in one struct.
struct Everything {
  bool flag = false;
  std::string text;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  double real = 0;
  json::Value any;
  json::Raw raw;
  json::Object object;
  json::Array array;
  std::optional<std::int64_t> maybe;
  std::vector<std::string> list;
  wire::Map<std::int64_t> map;
  std::optional<json::Raw> maybe_raw;
  std::vector<json::Raw> raws;
};
template <>
struct wire::Fields<Everything> {
  static constexpr auto list = std::tuple{
      wire::optional("flag", &Everything::flag),     wire::optional("text", &Everything::text),
      wire::optional("i32", &Everything::i32),       wire::optional("i64", &Everything::i64),
      wire::optional("u64", &Everything::u64),       wire::optional("real", &Everything::real),
      wire::optional("any", &Everything::any),       wire::optional("raw", &Everything::raw),
      wire::optional("object", &Everything::object), wire::optional("array", &Everything::array),
      wire::optional("maybe", &Everything::maybe),   wire::optional("list", &Everything::list),
      wire::optional("map", &Everything::map),       wire::optional("maybe_raw", &Everything::maybe_raw),
      wire::optional("raws", &Everything::raws)};
};

struct Required {
  std::string text;
  std::int64_t n = 0;
  json::Value any;
  std::optional<std::string> nullable;
};
template <>
struct wire::Fields<Required> {
  static constexpr auto list =
      std::tuple{wire::field("text", &Required::text), wire::field("n", &Required::n),
                 wire::field("any", &Required::any), wire::field("nullable", &Required::nullable)};
};

// A recursive type: a tree of nodes with raw payloads.
struct Node {
  std::string name;
  std::vector<Node> children;
  std::optional<json::Raw> payload;
};
template <>
struct wire::Fields<Node> {
  static constexpr auto list = std::tuple{wire::field("name", &Node::name),
                                          wire::optional("children", &Node::children),
                                          wire::optional("payload", &Node::payload)};
};

struct OneInt {
  std::int64_t n = 0;
};
template <>
struct wire::Fields<OneInt> {
  static constexpr auto list = std::tuple{wire::field("n", &OneInt::n)};
};

namespace {

json::Value parse(std::string_view text) { return json::parse(text).value(); }

template <class T>
Result<T> bind_text(std::string_view text, UnknownFields unknown = UnknownFields::reject) {
  return wire::bind<T>(parse(text), unknown);
}

std::optional<std::string_view> path_of(const agentkit::Error& e) { return e.find_detail("path"); }

Result<std::int64_t> bind_int(std::string_view literal) {
  auto r = bind_text<OneInt>("{\"n\":" + std::string(literal) + "}");
  if (!r) return r.error();
  return r->n;
}

}  // namespace

// ---- REQ-SEC-12 ----------------------------------------------------------------------------

TEST_CASE("the documented example binds, with absent optional members left unset") {
  auto r = bind_text<CallParams>(R"({"name":"grep","n":3})");
  REQUIRE(r);
  CHECK(r->name == "grep");
  CHECK_FALSE(r->arguments.has_value());
  CHECK(r->n == 3);
  auto with_args = bind_text<CallParams>(R"({"name":"grep","arguments":{"q":"x"},"n":3})");
  REQUIRE(with_args);
  REQUIRE(with_args->arguments);
  CHECK(json::dump(*with_args->arguments) == R"({"q":"x"})");
}

TEST_CASE("an MCP tools/call result with an extra member is rejected under reject") {
  const std::string_view body =
      R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi","smuggled":1}]}})";
  auto r = wire::decode_as<RpcResponse>(body, UnknownFields::reject);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::validation_error);
  CHECK(path_of(r.error()) == std::optional<std::string_view>("$.result.content[0].smuggled"));
  CHECK(r.error().message.find("unknown member $.result.content[0].smuggled") != std::string::npos);

  auto top = wire::decode_as<RpcResponse>(
      R"({"jsonrpc":"2.0","id":7,"result":{"content":[]},"extra":true})", UnknownFields::reject);
  REQUIRE_FALSE(top);
  CHECK(path_of(top.error()) == std::optional<std::string_view>("$.extra"));

  auto clean = wire::decode_as<RpcResponse>(
      R"({"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"hi"}],"isError":false}})",
      UnknownFields::reject);
  REQUIRE(clean);
  CHECK(clean->result.content.at(0).text == "hi");
  CHECK(clean->id == json::Value("a"));
}

TEST_CASE("a provider SSE event with a new field is accepted under tolerate") {
  wire::SseDecoder sse;
  sse.feed(
      "event: message_delta\n"
      "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
      "\"brand_new\":1},\"usage\":{\"output_tokens\":15,\"new_counter\":2},\"added_later\":{}}\n\n");
  auto event = sse.next();
  REQUIRE(event);
  REQUIRE(*event);
  CHECK((*event)->type == "message_delta");
  auto r = wire::decode_as<MessageDelta>((*event)->data, UnknownFields::tolerate);
  REQUIRE(r);
  CHECK(r->delta.stop_reason == "end_turn");
  CHECK_FALSE(r->delta.stop_sequence.has_value());
  CHECK(r->usage.output_tokens == 15);
  // The same event is a rejection under the protocol policy.
  CHECK_FALSE(wire::decode_as<MessageDelta>((*event)->data, UnknownFields::reject));
}

TEST_CASE("a provider body with two stop_reason members is rejected even under tolerate") {
  auto r = wire::decode_as<MessageDelta>(
      R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_reason":"tool_use"}})",
      UnknownFields::tolerate);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::parse_error);
  CHECK(r.error().message.find("duplicate key \"stop_reason\"") != std::string::npos);
}

TEST_CASE("an integer field takes 3.0 but refuses 9007199254740992.0 and 1.5") {
  CHECK(bind_int("3.0") == 3);
  auto too_big = bind_int("9007199254740992.0");
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().message.find("outside the safe range") != std::string::npos);
  CHECK(path_of(too_big.error()) == std::optional<std::string_view>("$.n"));
  auto fraction = bind_int("1.5");
  REQUIRE_FALSE(fraction);
  CHECK(fraction.error().message.find("expected an integer at $.n, got 1.5") != std::string::npos);
}

TEST_CASE("the safe-integer bound is exact at 2^53-1 on both sides and in every spelling") {
  CHECK(bind_int("9007199254740991") == 9007199254740991);
  CHECK(bind_int("-9007199254740991") == -9007199254740991);
  CHECK(bind_int("9007199254740991.000") == 9007199254740991);
  CHECK(bind_int("90071992547409.91e2") == 9007199254740991);
  CHECK_FALSE(bind_int("9007199254740992"));
  CHECK_FALSE(bind_int("-9007199254740992"));
  CHECK_FALSE(bind_int("9007199254740993"));
  CHECK_FALSE(bind_int("18446744073709551616"));
  CHECK_FALSE(bind_int("1e16"));
  CHECK_FALSE(bind_int("1E400"));
  CHECK(bind_int("1e2") == 100);
  CHECK(bind_int("12.50e1") == 125);
  CHECK(bind_int("-0") == 0);
  CHECK(bind_int("0.0e-99999999999999999999") == 0);
  CHECK_FALSE(bind_int("1e-1"));
  CHECK_FALSE(bind_int("0.1e1000000000000000000000"));  // 10^(huge): far outside, never overflows
  CHECK(bind_int("100e-2") == 1);
  CHECK_FALSE(bind_int("\"3\""));
  CHECK_FALSE(bind_int("true"));
}

TEST_CASE("a narrower integer field also checks its own range") {
  auto big = bind_text<Everything>(R"({"i32":3000000000})");
  REQUIRE_FALSE(big);
  CHECK(big.error().message.find("does not fit int32") != std::string::npos);
  CHECK(bind_text<Everything>(R"({"i32":-2147483648})")->i32 == -2147483648);
  auto negative = bind_text<Everything>(R"({"u64":-1})");
  REQUIRE_FALSE(negative);
  CHECK(negative.error().message.find("does not fit uint64") != std::string::npos);
  CHECK(bind_text<Everything>(R"({"u64":9007199254740991})")->u64 == 9007199254740991u);
}

TEST_CASE("the safe-integer rule agrees with Python's exact rationals on random literals") {
  std::mt19937 rng(20260728);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto digits = [&](int n, bool leading_zero_ok) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>('0' + (i == 0 && !leading_zero_ok ? pick(1, 9) : pick(0, 9)));
    return s;
  };
  std::vector<std::string> literals = {"9007199254740991", "9007199254740992", "-9007199254740991.0",
                                       "900719925474099.1e1", "9.007199254740991e15", "0", "-0.0e5"};
  for (int i = 0; i < 4000; ++i) {
    std::string s = pick(0, 1) ? "-" : "";
    s += pick(0, 4) == 0 ? "0" : digits(pick(1, 18), false);
    if (pick(0, 1)) s += "." + (pick(0, 1) ? std::string(pick(1, 4), '0') : digits(pick(1, 6), true));
    if (pick(0, 1)) s += std::string(pick(0, 1) ? "e" : "E") + (pick(0, 2) == 0 ? "-" : pick(0, 1) ? "+" : "") + digits(pick(1, 2), true);
    literals.push_back(s);
  }
  std::string input;
  for (const auto& s : literals) input += s + "\n";
  const auto out = agentkit::testing::run_program(
      {"python3", "-c",
       "import sys\nfrom fractions import Fraction\n"
       "for line in sys.stdin.read().split():\n"
       "  f = Fraction(line)\n"
       "  ok = f.denominator == 1 and abs(f) <= 2**53 - 1\n"
       "  print(f.numerator if ok else 'no')\n"},
      input);
  REQUIRE(out.exit_code == 0);  // python3 is a test peer (CI installs it); its absence is a failure
  std::istringstream answers(out.out);
  std::size_t agreed = 0;
  for (const auto& literal : literals) {
    std::string expected;
    REQUIRE(answers >> expected);
    INFO(literal);
    auto mine = bind_int(literal);
    if (expected == "no") {
      CHECK_FALSE(mine);
    } else {
      REQUIRE(mine);
      CHECK(std::to_string(*mine) == expected);
    }
    ++agreed;
  }
  CHECK(agreed == literals.size());
}

TEST_CASE("a double field takes integers and refuses literals beyond the double range") {
  CHECK(bind_text<Everything>(R"({"real":3})")->real == 3.0);
  CHECK(bind_text<Everything>(R"({"real":-2.5e3})")->real == -2500.0);
  auto huge = bind_text<Everything>(R"({"real":1e400})");
  REQUIRE_FALSE(huge);
  CHECK(huge.error().message.find("outside the range of a double") != std::string::npos);
  CHECK_FALSE(bind_text<Everything>(R"({"real":"1"})"));
}

TEST_CASE("an explicit null in an untyped field is a value, not a crash") {
  auto r = bind_text<Required>(R"({"text":"t","n":1,"any":null,"nullable":null})");
  REQUIRE(r);
  CHECK(r->any.is_null());
  CHECK_FALSE(r->nullable.has_value());
  auto e = bind_text<Everything>(R"({"any":null,"raw":null,"maybe":null,"maybe_raw":null})");
  REQUIRE(e);
  CHECK(e->any.is_null());
  CHECK(e->raw.str() == "null");
  CHECK_FALSE(e->maybe.has_value());
  CHECK_FALSE(e->maybe_raw.has_value());
  auto args = bind_text<CallParams>(R"({"name":"x","arguments":null,"n":0})");
  REQUIRE(args);
  CHECK_FALSE(args->arguments.has_value());
}

TEST_CASE("null for a required field that cannot hold null is a clear error") {
  auto r = bind_text<Required>(R"({"text":null,"n":1,"any":1,"nullable":"x"})");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::validation_error);
  CHECK(r.error().message == "expected a string at $.text, got null (null is not allowed for this field)");
  auto n = bind_text<Required>(R"({"text":"","n":null,"any":1,"nullable":"x"})");
  REQUIRE_FALSE(n);
  CHECK(path_of(n.error()) == std::optional<std::string_view>("$.n"));
}

TEST_CASE("null for an optional field that cannot hold null leaves the member as it was") {
  auto r = bind_text<Everything>(
      R"({"flag":null,"text":null,"i64":null,"real":null,"object":null,"list":null,"map":null})");
  REQUIRE(r);
  CHECK_FALSE(r->flag);
  CHECK(r->text.empty());
  CHECK(r->list.empty());
}

TEST_CASE("a missing required member is named with its path") {
  auto r = bind_text<Envelope>(R"({"params":{"items":[{"name":"a"}],"currency":"EUR"}})");
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "missing required member \"qty\" at $.params.items[0]");
  CHECK(path_of(r.error()) == std::optional<std::string_view>("$.params.items[0].qty"));
  auto nullable = bind_text<Required>(R"({"text":"t","n":1,"any":1})");
  REQUIRE_FALSE(nullable);  // a required std::optional may be null, not absent
  CHECK(nullable.error().find_detail("member") == std::optional<std::string_view>("nullable"));
}

TEST_CASE("every error names the JSON path of the offending value") {
  auto r = bind_text<Envelope>(
      R"({"params":{"items":[{"name":"a","qty":1},{"name":"b","qty":2},{"name":7,"qty":3}],"currency":"EUR"}})");
  REQUIRE_FALSE(r);
  CHECK(path_of(r.error()) == std::optional<std::string_view>("$.params.items[2].name"));
  CHECK(r.error().message == "expected a string at $.params.items[2].name, got the number 7");

  auto not_object = bind_text<Envelope>(R"({"params":[1]})");
  REQUIRE_FALSE(not_object);
  CHECK(not_object.error().message == "expected an object at $.params, got array");
  auto not_array = bind_text<Envelope>(R"({"params":{"items":{},"currency":"EUR"}})");
  REQUIRE_FALSE(not_array);
  CHECK(path_of(not_array.error()) == std::optional<std::string_view>("$.params.items"));
}

TEST_CASE("keys that are not identifiers are quoted in paths") {
  auto r = bind_text<Everything>(R"({"map":{"ok":1,"a b":"x"}})");
  REQUIRE_FALSE(r);
  CHECK(path_of(r.error()) == std::optional<std::string_view>(R"($.map["a b"])"));
  auto unknown = bind_text<OneInt>(R"({"n":1,"\"quoted\"":2})");
  REQUIRE_FALSE(unknown);
  CHECK(path_of(unknown.error()) == std::optional<std::string_view>(R"($["\"quoted\""])"));
}

TEST_CASE("a validator runs after its struct is filled and reports at that struct's own path") {
  auto bad_item = bind_text<Envelope>(
      R"({"params":{"items":[{"name":"a","qty":1},{"name":"b","qty":0}],"currency":"EUR"}})");
  REQUIRE_FALSE(bad_item);
  CHECK(path_of(bad_item.error()) == std::optional<std::string_view>("$.params.items[1]"));
  CHECK(bad_item.error().message == "invalid value at $.params.items[1]: qty must be at least 1");
  CHECK(bad_item.error().code == Errc::validation_error);

  auto bad_order = bind_text<Envelope>(R"({"params":{"items":[],"currency":"GBP"}})");
  REQUIRE_FALSE(bad_order);
  CHECK(path_of(bad_order.error()) == std::optional<std::string_view>("$.params"));

  auto bad_root = bind_text<RpcResponse>(R"({"jsonrpc":"1.0","id":null,"result":{"content":[]}})");
  REQUIRE_FALSE(bad_root);
  CHECK(path_of(bad_root.error()) == std::optional<std::string_view>("$"));

  CHECK(bind_text<Envelope>(R"({"params":{"items":[{"name":"a","qty":2}],"currency":"USD"}})"));
}

TEST_CASE("tolerate ignores undeclared members but not type errors in declared ones") {
  CHECK(bind_text<OneInt>(R"({"n":1,"x":{"deep":[1,2]}})", UnknownFields::tolerate));
  auto r = bind_text<OneInt>(R"({"x":1,"n":"1"})", UnknownFields::tolerate);
  REQUIRE_FALSE(r);
  CHECK(path_of(r.error()) == std::optional<std::string_view>("$.n"));
}

TEST_CASE("a Raw member bound from bytes keeps the member's exact bytes") {
  const std::string_view body =
      "{ \"raw\" : {\"b\": 1.0, \"a\" :[ \"\\u00e9\\\"}\" ] } , \"raws\":[ 1e2 ,\"x\\\\\",{ } ],"
      "\"maybe_raw\":  -0.0 ,\"list\":[\"]\"]}";
  auto r = wire::decode_as<Everything>(body, UnknownFields::reject);
  REQUIRE(r);
  CHECK(r->raw.str() == "{\"b\": 1.0, \"a\" :[ \"\\u00e9\\\"}\" ] }");
  REQUIRE(r->raws.size() == 3);
  CHECK(r->raws[0].str() == "1e2");
  CHECK(r->raws[1].str() == "\"x\\\\\"");
  CHECK(r->raws[2].str() == "{ }");
  REQUIRE(r->maybe_raw);
  CHECK(r->maybe_raw->str() == "-0.0");
  CHECK(r->list == std::vector<std::string>{"]"});
}

TEST_CASE("a Raw member bound from a Value holds the compact dump") {
  auto r = wire::bind<Everything>(parse(R"({"raw" : {"b": 1.0, "a":[true]}})"), UnknownFields::reject);
  REQUIRE(r);
  CHECK(r->raw.str() == R"({"b":1.0,"a":[true]})");
}

TEST_CASE("a recursive type binds, with raw payloads at every depth from bytes") {
  const std::string_view body =
      R"({"name":"root","payload":{ "k" : 1 },"children":[{"name":"a","children":[{"name":"a1","payload":[ 2 ]}]},{"name":"b"}]})";
  auto r = wire::decode_as<Node>(body, UnknownFields::reject);
  REQUIRE(r);
  CHECK(r->payload->str() == R"({ "k" : 1 })");
  REQUIRE(r->children.size() == 2);
  CHECK(r->children[0].children.at(0).payload->str() == "[ 2 ]");
  CHECK_FALSE(r->children[1].payload);
  auto bad = wire::decode_as<Node>(R"({"name":"r","children":[{"name":"a","children":[{"nam":"x"}]}]})",
                                   UnknownFields::reject);
  REQUIRE_FALSE(bad);
  CHECK(path_of(bad.error()) == std::optional<std::string_view>("$.children[0].children[0].nam"));
}

TEST_CASE("every supported field type binds from one document") {
  auto r = bind_text<Everything>(
      R"({"flag":true,"text":"t","i32":-5,"i64":42,"u64":7,"real":0.5,"any":[1,{"x":null}],)"
      R"("raw":"r","object":{"z":1,"a":2},"array":[3,"4"],"maybe":9,"list":["a","b"],)"
      R"("map":{"z":1,"a":2},"maybe_raw":{"x":1},"raws":[]})");
  REQUIRE(r);
  CHECK(r->flag);
  CHECK(r->text == "t");
  CHECK(r->i32 == -5);
  CHECK(r->i64 == 42);
  CHECK(r->u64 == 7u);
  CHECK(r->real == 0.5);
  CHECK(json::dump(r->any) == R"([1,{"x":null}])");
  CHECK(r->raw.str() == "\"r\"");
  CHECK(r->object.begin()->key == "z");
  CHECK(r->array.size() == 2);
  CHECK(r->maybe == 9);
  CHECK(r->list == std::vector<std::string>{"a", "b"});
  REQUIRE(r->map.entries.size() == 2);
  CHECK(r->map.entries[0].first == "z");
  CHECK(r->map.find("a") != nullptr);
  CHECK(*r->map.find("a") == 2);
  CHECK(r->maybe_raw->str() == R"({"x":1})");
}

TEST_CASE("wrong scalar types are rejected with the expected type named") {
  CHECK(bind_text<Everything>(R"({"flag":1})").error().message == "expected a boolean at $.flag, got the number 1");
  CHECK(bind_text<Everything>(R"({"text":[]})").error().message == "expected a string at $.text, got array");
  CHECK(bind_text<Everything>(R"({"object":[]})").error().message == "expected an object at $.object, got array");
  CHECK(bind_text<Everything>(R"({"array":{}})").error().message == "expected an array at $.array, got object");
  CHECK_FALSE(bind_text<Everything>(R"({"list":[1]})"));
  CHECK_FALSE(wire::bind<OneInt>(json::Value("not an object"), UnknownFields::tolerate));
}

TEST_CASE("decode_as applies the decoder's bounds before binding") {
  wire::Limits limits;
  limits.max_depth = 2;
  auto deep = wire::decode_as<Everything>(R"({"any":[[1]]})", UnknownFields::reject, limits);
  REQUIRE_FALSE(deep);
  CHECK(deep.error().find_detail("limit") == std::optional<std::string_view>("max_depth"));
  limits.max_depth = wire::kDefaultMaxDepth;
  limits.max_message_bytes = 4;
  CHECK_FALSE(wire::decode_as<OneInt>(R"({"n":1})", UnknownFields::reject, limits));
  CHECK_FALSE(wire::decode_as<OneInt>(R"({"n":1,"n":1})", UnknownFields::tolerate));
}
