#include <string>

#include "catch.hpp"
#include "compare.hpp"

using namespace agentkit;
using namespace agentkit::difftest;

namespace {

json::Value doc(const std::string& text) { return json::parse(text).value(); }

Comparison cmp(const std::string& ref, const std::string& ours, CompareOptions o = {}) {
  return compare_documents(doc(ref), doc(ours), o);
}

}  // namespace

TEST_CASE("a number written 1.0 differs from one written 1") {
  Comparison c = cmp(R"({"t":1.0})", R"({"t":1})");
  REQUIRE(c.divergences.size() == 1);
  CHECK(c.divergences[0].path == "$.t");
  CHECK(c.divergences[0].kind == DivergenceKind::value);
  CHECK(c.divergences[0].reference == "1.0");
  CHECK(c.divergences[0].ours == "1");
}

TEST_CASE("numbers too long for a double are compared by their text") {
  CHECK(cmp(R"([12345678901234567890123])", R"([12345678901234567890124])").divergences.size() == 1);
  CHECK(cmp(R"([1e2])", R"([100])").divergences.size() == 1);
  CHECK(cmp(R"([0.1])", R"([0.1])").identical());
}

TEST_CASE("a null member is not an absent member") {
  Comparison c = cmp(R"({"a":null,"b":1})", R"({"b":1})");
  REQUIRE(c.divergences.size() == 1);
  CHECK(c.divergences[0].path == "$.a");
  CHECK(c.divergences[0].kind == DivergenceKind::only_reference);
  Comparison back = cmp(R"({"b":1})", R"({"b":1,"a":null})");
  REQUIRE(back.divergences.size() == 1);
  CHECK(back.divergences[0].kind == DivergenceKind::only_ours);
}

TEST_CASE("null against a value is a type divergence") {
  Comparison c = cmp(R"({"content":null})", R"({"content":""})");
  REQUIRE(c.divergences.size() == 1);
  CHECK(c.divergences[0].kind == DivergenceKind::type);
}

TEST_CASE("reordered members pass and are noted on the side channel") {
  Comparison c = cmp(R"({"a":1,"b":{"x":1,"y":2}})", R"({"b":{"y":2,"x":1},"a":1})");
  CHECK(c.identical());
  REQUIRE(c.order_notes.size() == 2);
  CHECK(format_order_note(c.order_notes[0]) == "$.b\tx,y\ty,x");
  CHECK(format_order_note(c.order_notes[1]) == "$\ta,b\tb,a");
}

TEST_CASE("an order-sensitive path turns a reordering into a divergence") {
  Comparison c = cmp(R"({"p":{"x":1,"y":2}})", R"({"p":{"y":2,"x":1}})", CompareOptions{{"$.p"}});
  REQUIRE(c.divergences.size() == 1);
  CHECK(c.divergences[0].kind == DivergenceKind::order);
  CHECK(c.divergences[0].path == "$.p");
}

TEST_CASE("arrays are compared in order, never sorted") {
  Comparison c = cmp(R"([1,2])", R"([2,1])");
  CHECK(c.divergences.size() == 2);
}

TEST_CASE("extra array elements are reported one by one on the side that has them") {
  Comparison c = cmp(R"({"m":[1,2,3]})", R"({"m":[1]})");
  REQUIRE(c.divergences.size() == 2);
  CHECK(c.divergences[0].path == "$.m[1]");
  CHECK(c.divergences[0].kind == DivergenceKind::only_reference);
  CHECK(c.divergences[1].path == "$.m[2]");
}

TEST_CASE("string escapes and whitespace are normalised away") {
  CHECK(cmp(R"({"s":"\u00e9\/"})", "{ \"s\" : \"\xC3\xA9/\" }").identical());
}

TEST_CASE("keys that are not plain names are quoted in paths") {
  Comparison c = cmp(R"({"a.b":1,"x y":2})", R"({"a.b":2,"x y":3})");
  REQUIRE(c.divergences.size() == 2);
  CHECK(c.divergences[0].path == R"($["a.b"])");
  CHECK(c.divergences[1].path == R"($["x y"])");
  CHECK(member_path("$.headers", "x-stainless-os") == "$.headers.x-stainless-os");
}

TEST_CASE("glob patterns match any run of characters at a star") {
  CHECK(glob_match("*", ""));
  CHECK(glob_match("$.headers.x-stainless-*", "$.headers.x-stainless-os"));
  CHECK(glob_match("$.tool_calls[*].id", "$.tool_calls[12].id"));
  CHECK_FALSE(glob_match("$.tool_calls[*].id", "$.tool_calls[0].name"));
  CHECK_FALSE(glob_match("request/*", "response/x"));
  CHECK(glob_match("a*b*c", "aXbYbZc"));
}

TEST_CASE("short renderings cut long values on a character boundary") {
  std::string s = render_short(json::Value(std::string(100, 'a') + "\xC3\xA9"), 10);
  CHECK(s == "\"aaaaaaaaa...");
}
