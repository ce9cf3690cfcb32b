// json::parse_flat: one object of scalar members read without a tree. Its contract is held
// against json::parse itself: the same errors for the same bytes, the same members when it
// answers true, and "not flat" exactly for the documents it leaves to the tree.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "agentkit/json/value.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"
#include "support/alloc/alloc_counter.hpp"

using namespace agentkit;
namespace fs = std::filesystem;

namespace {

struct Seen {
  std::string key;
  json::Type type;
  std::string text;
};

Result<bool> flat(std::string_view text, std::vector<Seen>& seen,
                  const json::ParseOptions& options = {}) {
  seen.clear();
  return json::parse_flat(text, options, [&](const json::FlatMember& m) {
    seen.push_back({std::string(m.key), m.type, std::string(m.text)});
  });
}

// What a member's text is in parse_flat's terms, read from the tree json::parse built.
std::string text_of(const json::Value& v) {
  switch (v.type()) {
    case json::Type::string: return v.as_string();
    case json::Type::number: return std::string(v.number_text());
    case json::Type::boolean: return v.as_bool() ? "true" : "false";
    case json::Type::null: return "null";
    case json::Type::array: return "[]";
    default: return "{}";
  }
}

bool is_flat_tree(const json::Value& v) {
  const json::Object* o = v.get_object();
  if (o == nullptr || o->size() > 32) return false;
  for (const json::Member& m : *o) {
    if (const json::Array* a = m.value.get_array(); a != nullptr && !a->empty()) return false;
    if (const json::Object* inner = m.value.get_object(); inner != nullptr && !inner->empty())
      return false;
  }
  return true;
}

// The contract, for one document and one set of options.
void check_against_parse(std::string_view text, const json::ParseOptions& options = {}) {
  std::vector<Seen> seen;
  const Result<bool> f = flat(text, seen, options);
  const Result<json::Value> tree = json::parse(text, options);
  if (!f.has_value()) {
    REQUIRE_FALSE(tree.has_value());
    CHECK(f.error().to_string() == tree.error().to_string());
    CHECK(seen.empty());
    return;
  }
  if (!*f) {
    CHECK(seen.empty());
    // Left to the tree: it is not a flat object, or its error lies past where flat stopped.
    if (tree.has_value()) CHECK_FALSE(is_flat_tree(tree.value()));
    return;
  }
  REQUIRE(tree.has_value());
  const json::Object& object = tree.value().as_object();
  if (options.reject_duplicate_keys) REQUIRE(seen.size() == object.size());
  for (std::size_t i = 0; i < seen.size() && options.reject_duplicate_keys; ++i) {
    CHECK(seen[i].key == object.begin()[i].key);
    CHECK(seen[i].type == object.begin()[i].value.type());
    CHECK(seen[i].text == text_of(object.begin()[i].value));
  }
}

}  // namespace

TEST_CASE("a flat event's members are visited in order, decoded, without a tree") {
  const std::string event =
      R"({"type":"response.output_text.delta","delta":"caf\u00e9 \"ok\"","output_index":0,)"
      R"("content_index":1.5e2,"logprobs":[],"extra":{},"done":false,"more":true,"none":null})";
  std::vector<Seen> seen;
  REQUIRE(flat(event, seen).value());
  REQUIRE(seen.size() == 9);
  CHECK(seen[0].key == "type");
  CHECK(seen[0].text == "response.output_text.delta");
  CHECK(seen[1].text == "caf\xC3\xA9 \"ok\"");
  CHECK(seen[1].type == json::Type::string);
  CHECK(seen[3].text == "1.5e2");
  CHECK(seen[3].type == json::Type::number);
  CHECK(seen[4].type == json::Type::array);
  CHECK(seen[5].type == json::Type::object);
  CHECK(seen[6].type == json::Type::boolean);
  CHECK(seen[6].text == "false");
  CHECK(seen[8].type == json::Type::null);
  check_against_parse(event);
  CHECK(flat("{}", seen).value());
  CHECK(seen.empty());
}

TEST_CASE("a flat event is read with no allocation once one has been read") {
  const std::string event =
      R"({"type":"response.function_call_arguments.delta",)"
      R"("delta":"{\"text\":\"lorem ipsum dolor sit amet\"",)"
      R"("item_id":"fc_0123456789abcdef0123456789","output_index":0,"sequence_number":17})";
  std::size_t total = 0;
  auto read = [&] {
    return json::parse_flat(event, {}, [&](const json::FlatMember& m) { total += m.text.size(); });
  };
  REQUIRE(read().value());  // warms a pooled scratch
  std::size_t allocations = 0;
  {
    testing::AllocCounter counter;
    REQUIRE(read().value());
    allocations = counter.stats().count;
  }
  CHECK(allocations == 0);
  CHECK(total > 0);
}

TEST_CASE("a document that is not a flat object is left to the tree, with nothing visited") {
  std::vector<Seen> seen;
  for (const std::string doc : {R"({"a":1,"item":{"id":"x"}})", R"({"a":[1]})", R"([1,2])",
                                R"("text")", R"(42)", R"({"a":1,"b":{"c":}})"}) {
    INFO(doc);
    const Result<bool> f = flat(doc, seen);
    REQUIRE(f.has_value());
    CHECK_FALSE(*f);
    CHECK(seen.empty());
  }
  std::string wide = "{";
  for (int i = 0; i < 33; ++i)
    wide += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  wide += "}";
  CHECK_FALSE(flat(wide, seen).value());
  check_against_parse(wide);
}

TEST_CASE("parse_flat refuses malformed bytes with json::parse's own error") {
  for (const std::string doc : {"",
                                " ",
                                "{",
                                "{\"a\"",
                                "{\"a\":",
                                "{\"a\":1",
                                "{\"a\":1,}",
                                "{\"a\" 1}",
                                "{a:1}",
                                "{\"a\":1}x",
                                "{\"a\":01}",
                                "{\"a\":-}",
                                "{\"a\":1.}",
                                "{\"a\":tru}",
                                "{\"a\":nul}",
                                "{\"a\":\"\\x\"}",
                                "{\"a\":\"\xFF\"}",
                                "{\"a\":\"\x01\"}",
                                "{\"a\":\"\\ud800\"}",
                                "{\"a\":1,\"a\":2}",
                                "{\"a\":1,\"b\":\"x\",\"\\u0061\":3}",
                                "{\"a\":[}",
                                "{\"a\":{]}",
                                "{\"a\":1 \"b\":2}",
                                "{\"a\":\"unterminated"}) {
    INFO(doc);
    std::vector<Seen> seen;
    const Result<bool> f = flat(doc, seen);
    if (f.has_value()) {
      CHECK_FALSE(*f);  // only an error past a nested container may be left to the tree
    }
    check_against_parse(doc);
  }
}

TEST_CASE("parse_flat applies every ParseOptions bound exactly as json::parse does") {
  const std::string doc = R"({"a":1,"b":[],"c":{},"d":"x"})";
  json::ParseOptions options;
  for (std::size_t depth : {0, 1, 2}) {
    options = {};
    options.max_depth = depth;
    INFO("max_depth " << depth);
    check_against_parse(doc, options);
    check_against_parse(R"({"a":[1]})", options);
  }
  for (std::size_t members : {0, 1, 3, 4, 5}) {
    options = {};
    options.max_container = members;
    INFO("max_container " << members);
    check_against_parse(doc, options);
  }
  options = {};
  options.max_bytes = doc.size() - 1;
  check_against_parse(doc, options);
  options = {};
  options.reject_duplicate_keys = false;
  std::vector<Seen> seen;
  REQUIRE(flat(R"({"a":1,"a":2})", seen, options).value());
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].text == "2");  // the one json::parse keeps is visited last
}

TEST_CASE("a visitor may parse again while it is visited") {
  const std::string doc =
      R"({"a":"x\ny","b":"\u00e9\u00e9\u00e9 long enough to leave the short path"})";
  std::vector<std::string> texts;
  REQUIRE(json::parse_flat(doc, {}, [&](const json::FlatMember& m) {
            REQUIRE(json::parse(R"({"nested":"z\tz","k":[1,2,{"q":"\u00e8"}]})").has_value());
            REQUIRE(json::parse_flat(R"({"inner":"w\tw"})", {}, [](const json::FlatMember&) {
                    }).value());
            texts.emplace_back(m.text);
          }).value());
  REQUIRE(texts.size() == 2);
  CHECK(texts[0] == "x\ny");
  CHECK(texts[1] == "\xC3\xA9\xC3\xA9\xC3\xA9 long enough to leave the short path");
}

TEST_CASE("random flat objects and their corruptions get parse_flat's answer from json::parse") {
  std::mt19937_64 rng(18);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const std::vector<std::string> values = {"0",
                                           "-1.5e-3",
                                           "12345678901234567890",
                                           "true",
                                           "false",
                                           "null",
                                           "[]",
                                           "{}",
                                           "[ ]",
                                           "{ }",
                                           "\"\"",
                                           "\"plain text of some length, longer than a block\"",
                                           "\"esc\\\"aped\\\\ \\n\\u00e9\\ud83d\\ude00\"",
                                           "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 utf-8\"",
                                           "[1]",
                                           "{\"n\":1}"};
  const std::string noise = "{}[]\",:\\ \x01\x80\xFFtn0-.e";
  for (int i = 0; i < 4000; ++i) {
    std::string doc = "{";
    const int members = pick(6);
    for (int m = 0; m < members; ++m) {
      if (m) doc += pick(4) ? "," : " , ";
      doc += "\"k" + std::to_string(pick(8)) + (pick(5) ? "" : "\\u0041") + "\"" +
             (pick(3) ? ":" : " : ");
      doc += values[static_cast<std::size_t>(pick(static_cast<int>(values.size())))];
    }
    doc += pick(4) ? "}" : "} ";
    for (int flips = i % 3; flips > 0 && !doc.empty(); --flips) {  // a third stay well-formed
      doc[static_cast<std::size_t>(pick(static_cast<int>(doc.size())))] =
          noise[static_cast<std::size_t>(pick(static_cast<int>(noise.size())))];
    }
    INFO(doc);
    check_against_parse(doc);
  }
}

TEST_CASE("every JSONTestSuite document gets parse_flat's answer from json::parse") {
  AGENTKIT_SHARED_TESTDATA(suite, "JSONTestSuite/test_parsing");
  std::size_t documents = 0;
  for (const auto& entry : fs::directory_iterator(suite)) {
    INFO(entry.path().filename().string());
    check_against_parse(testing::read_file(entry.path()));
    ++documents;
  }
  CHECK(documents == 318);
}
