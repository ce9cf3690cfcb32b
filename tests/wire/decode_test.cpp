#include "agentkit/wire/decode.hpp"

#include <string>

#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::testing::AllocCounter;
using agentkit::wire::decode;
using agentkit::wire::Limits;

namespace {
std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}
}  // namespace

TEST_CASE("a well-formed message decodes to an ordered value with numbers kept as written") {
  auto doc = decode(R"({"jsonrpc":"2.0","id":1.0,"params":{"b":1,"a":2}})");
  REQUIRE(doc);
  CHECK(doc->find("id")->number_text() == "1.0");
  CHECK(agentkit::json::dump(*doc->find("params")) == R"({"b":1,"a":2})");
}

TEST_CASE("a duplicate key is a rejection, not a resolution") {
  auto r = decode(R"({"a":1,"a":2})");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::parse_error);
  CHECK(r.error().message.find("duplicate key") != std::string::npos);
  CHECK(r.error().message.find("untrusted JSON message rejected") != std::string::npos);
  CHECK_FALSE(decode(R"({"x":{"stop_reason":"end","stop_reason":"tool_use"}})"));
}

TEST_CASE("keys differing only in case are distinct and neither shadows the other") {
  auto doc = decode(R"({"id":1,"Id":2})");
  REQUIRE(doc);
  CHECK(doc->find("id")->number_text() == "1");
  CHECK(doc->find("Id")->number_text() == "2");
  CHECK(doc->find("ID") == nullptr);
}

TEST_CASE("invalid UTF-8 is a rejection") {
  for (std::string_view bad : {"\"\xC3\"", "\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"\xF5\x80\x80\x80\"",
                               "{\"\xFF\":1}", "\"\\ud800\""}) {
    INFO(bad);
    auto r = decode(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::parse_error);
  }
  CHECK(decode("\"h\xC3\xA9llo \xF0\x9F\x98\x80\""));
}

TEST_CASE("a 65-deep document fails with a depth error naming the limit; 64 deep is fine") {
  CHECK(decode(nested_arrays(64)));
  auto r = decode(nested_arrays(65));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::limit_exceeded);
  CHECK(r.error().find_detail("limit") == std::optional<std::string_view>("max_depth"));
  CHECK(r.error().find_detail("max") == std::optional<std::string_view>("64"));
  CHECK(r.error().find_detail("offset") == std::optional<std::string_view>("64"));
  CHECK(r.error().message.find("wire::Limits::max_depth") != std::string::npos);
  CHECK(r.error().message.find("ParseOptions") == std::string::npos);
}

TEST_CASE("deep nesting far past the limit is refused without recursion") {
  auto r = decode(nested_arrays(1'000'000));
  REQUIRE_FALSE(r);
  CHECK(r.error().find_detail("limit") == std::optional<std::string_view>("max_depth"));
}

TEST_CASE("a 16 MiB + 1 message fails before a buffer of its size is allocated") {
  const std::string big(agentkit::wire::kDefaultMaxMessageBytes + 1, ' ');
  AllocCounter counter;
  auto r = decode(big);
  const agentkit::testing::AllocStats stats = counter.stats();  // before a reporter allocates
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::limit_exceeded);
  CHECK(r.error().find_detail("limit") == std::optional<std::string_view>("max_message_bytes"));
  constexpr std::size_t kErrorTextOnly = 4096;
  CHECK(stats.largest < kErrorTextOnly);
  CHECK(stats.bytes < kErrorTextOnly);
}

TEST_CASE("a message of exactly max_message_bytes is accepted") {
  Limits limits;
  limits.max_message_bytes = 8;
  CHECK(decode("[1,2,33]", limits));
  CHECK_FALSE(decode("[1,2,333]", limits));
}

TEST_CASE("a 1,000,001-element array is rejected and a 1,000,000-element one accepted") {
  std::string at_limit = "[";
  for (std::size_t i = 0; i < agentkit::wire::kDefaultMaxContainer; ++i) at_limit += "0,";
  at_limit.back() = ']';
  CHECK(decode(at_limit));
  std::string over = at_limit;
  over.back() = ',';
  over += "0]";
  auto r = decode(over);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::limit_exceeded);
  CHECK(r.error().find_detail("limit") == std::optional<std::string_view>("max_container"));
}

TEST_CASE("the container limit counts object members too, and is configurable") {
  Limits limits;
  limits.max_container = 2;
  CHECK(decode(R"({"a":1,"b":2})", limits));
  auto r = decode(R"({"a":1,"b":2,"c":3})", limits);
  REQUIRE_FALSE(r);
  CHECK(r.error().find_detail("limit") == std::optional<std::string_view>("max_container"));
  CHECK(r.error().find_detail("max") == std::optional<std::string_view>("2"));
}

TEST_CASE("trailing bytes, comments and a second document are rejections") {
  for (std::string_view bad : {"{} {}", "{}x", "[1,]", "{\"a\":1,}", "// c\n{}", "", "NaN", "01"}) {
    INFO(bad);
    CHECK_FALSE(decode(bad));
  }
}

TEST_CASE("decode_flat gives decode's errors under the same limits and visits a flat message") {
  auto errors_match = [](std::string_view bytes, const Limits& limits) {
    int visits = 0;
    auto flat = agentkit::wire::decode_flat(bytes, limits,
                                            [&](const agentkit::json::FlatMember&) { ++visits; });
    auto tree = decode(bytes, limits);
    REQUIRE_FALSE(flat);
    REQUIRE_FALSE(tree);
    CHECK(flat.error().to_string() == tree.error().to_string());
    CHECK(visits == 0);
  };
  Limits limits;
  errors_match(R"({"a":1,"a":2})", limits);
  errors_match("{\"a\":\"\xFF\"}", limits);
  limits.max_container = 1;
  errors_match(R"({"a":1,"b":2})", limits);
  limits = {};
  limits.max_message_bytes = 8;
  errors_match(R"({"delta":"123456"})", limits);
  limits = {};
  limits.max_depth = 1;
  errors_match(R"({"logprobs":[]})", limits);

  std::string delta;
  auto flat = agentkit::wire::decode_flat(R"({"type":"x","delta":"d\u00e9"})", {},
                                          [&](const agentkit::json::FlatMember& m) {
                                            if (m.key == "delta") delta = m.text;
                                          });
  REQUIRE(flat);
  CHECK(*flat);
  CHECK(delta == "d\xC3\xA9");
  CHECK_FALSE(agentkit::wire::decode_flat(R"({"item":{"id":1}})", {}, [](const auto&) {}).value());
}
