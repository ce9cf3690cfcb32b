// ParseOptions::skip_members: members json::parse checks but does not build. What is skipped reads
// as null, and everything else, every error included, is what json::parse says without skipping.
#include <string>
#include <vector>

#include "agentkit/json/value.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using json::Value;

namespace {

Result<Value> parse_skipping(std::string_view text, std::vector<std::string_view> pointers) {
  json::ParseOptions options;
  options.skip_members = pointers;
  return json::parse(text, options);
}

// `text` parsed whole, with the member at each of `path` (keys from the top) set to null.
Value nulled(std::string_view text, const std::vector<std::vector<std::string>>& paths) {
  Value v = json::parse(text).value();
  for (const auto& path : paths) {
    Value* at = &v;
    for (const std::string& key : path) at = at && at->is_object() ? at->find(key) : nullptr;
    if (at != nullptr) *at = Value();
  }
  return v;
}

const std::string kEvent =
    R"({"type":"response.completed","response":{"id":"resp_1","output":[{"type":"function_call",)"
    R"("arguments":"{\"text\":\"a long text that the reader never needs twice over\"}"}],)"
    R"("tools":[{"name":"read","parameters":{"type":"object"}}],"usage":{"input_tokens":5}},)"
    R"("sequence_number":9})";

}  // namespace

TEST_CASE("a skipped member reads as null and is not built; its neighbours are") {
  const auto skipped = parse_skipping(kEvent, {"/response/output", "/response/tools"});
  REQUIRE(skipped);
  CHECK(*skipped == nulled(kEvent, {{"response", "output"}, {"response", "tools"}}));
  CHECK(skipped->find("response")->find("output")->is_null());
  CHECK(skipped->find("response")->find("usage")->find("input_tokens")->to_int64().value() == 5);
  std::size_t whole = 0;
  std::size_t without = 0;
  {
    testing::AllocCounter counter;
    REQUIRE(json::parse(kEvent));
    whole = counter.stats().count;
  }
  {
    testing::AllocCounter counter;
    REQUIRE(parse_skipping(kEvent, {"/response/output", "/response/tools"}));
    without = counter.stats().count;
  }
  // At least the output array, its item, the item's arguments, the tools array and the tool.
  CHECK(whole - without >= 5);
}

TEST_CASE("a pointer names one path of object members, with RFC 6901's escapes") {
  const std::string doc = R"({"a/b":{"m~n":[1],"x":2},"output":3,"list":[{"output":4}]})";
  auto only = [&](std::vector<std::string_view> pointers) {
    return parse_skipping(doc, std::move(pointers)).value();
  };
  CHECK(only({"/a~1b/m~0n"}) == nulled(doc, {{"a/b", "m~n"}}));
  CHECK(only({"/a~1b"}) == nulled(doc, {{"a/b"}}));
  CHECK(only({"/output"}) == nulled(doc, {{"output"}}));      // the top-level one only
  CHECK(only({"/list/output"}) == json::parse(doc).value());  // arrays are never crossed
  CHECK(only({"/list/0/output"}) == json::parse(doc).value());
  CHECK(only({"/list/list/output"}) == json::parse(doc).value());  // an array has no key
  CHECK(only({"", "output", "/a~1b/m~0n/extra", "/a~2b"}) == json::parse(doc).value());
}

TEST_CASE("a skipped value is checked as parse checks it: every error is parse's own") {
  // Every prefix of the event, and every byte of it replaced by one that breaks something, fails
  // with exactly the error parse gives, wherever the break falls (inside the skipped members too).
  const std::vector<std::string_view> pointers = {"/response/output", "/response/tools"};
  std::size_t compared = 0;
  auto same_answer = [&](const std::string& text) {
    const auto whole = json::parse(text);
    const auto skipped = parse_skipping(text, pointers);
    REQUIRE(whole.has_value() == skipped.has_value());
    if (!whole) {
      CHECK(whole.error().to_string() == skipped.error().to_string());
      ++compared;
    }
  };
  for (std::size_t n = 0; n < kEvent.size(); ++n) same_answer(kEvent.substr(0, n));
  for (std::size_t at = 0; at < kEvent.size(); ++at) {
    for (const char c : {'}', ']', ',', ':', '"', '\\', 'x', '\x80', '\x01', '[', '{', '-'}) {
      std::string broken = kEvent;
      broken[at] = c;
      same_answer(broken);
    }
  }
  CHECK(compared > kEvent.size());
}

TEST_CASE("nesting inside a skipped value counts toward max_depth") {
  json::ParseOptions options;
  options.max_depth = 4;
  const std::vector<std::string_view> pointers = {"/a"};
  options.skip_members = pointers;
  const auto fits = json::parse(R"({"a":[[{"b":1}]]})", options);  // depth 4
  CHECK(fits.has_value());
  const auto deep = json::parse(R"({"a":[[[{"b":1}]]]})", options);
  REQUIRE_FALSE(deep.has_value());
  CHECK(deep.error().code == Errc::limit_exceeded);
  CHECK(deep.error().to_string() ==
        json::parse(R"({"a":[[[{"b":1}]]]})", json::ParseOptions{.max_depth = 4})
            .error()
            .to_string());
}

TEST_CASE("only what is built is checked for duplicate keys: not inside a skipped value") {
  const std::string inside = R"({"a":{"k":1,"k":2},"b":1})";
  CHECK_FALSE(json::parse(inside).has_value());
  const auto skipped = parse_skipping(inside, {"/a"});
  REQUIRE(skipped);
  CHECK(skipped->find("a")->is_null());
  // The skipped member's own key is still a key of its object.
  CHECK_FALSE(parse_skipping(R"({"a":1,"a":[2]})", {"/a"}).has_value());
}
