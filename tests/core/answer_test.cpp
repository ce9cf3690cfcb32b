// Lowering an answer schema per structured-output dialect (core/answer.hpp).
#include "agentkit/core/answer.hpp"
#include "agentkit/core/schema.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

json::Value doc(std::string_view text) { return json::parse(text).value(); }
std::string lowered(std::string_view text, SchemaDialect d) {
  auto r = lower_schema(doc(text), d);
  REQUIRE(r);
  return json::dump(r->schema);
}

}  // namespace

TEST_CASE("openai strict lowering requires every property and makes the optional ones nullable") {
  Schema s = schema::object({schema::required("a", schema::string()),
                             schema::optional("b", schema::integer()),
                             schema::optional("c", schema::enumeration({"x", "y"}))});
  auto r = lower_schema(s.json(), SchemaDialect::openai_strict);
  REQUIRE(r);
  CHECK(json::dump(r->schema) ==
        R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},)"
        R"("c":{"type":["string","null"],"enum":["x","y",null]}},"requi)"
        R"(red":["a","b","c"],"additionalProperties":false})");
}

TEST_CASE(
    "openai strict lowering closes nested objects, rewrites oneOf as anyOf and wraps untyped "
    "optionals") {
  CHECK(lowered(R"({"type":"object","properties":{"p":{"type":"object","propert)"
                R"(ies":{"q":{"oneOf":[{"type":"string"},{"type":"integer"}]}}})"
                R"(},"required":["p"]})",
                SchemaDialect::openai_strict) ==
        R"({"type":"object","properties":{"p":{"type":"object","propert)"
        R"(ies":{"q":{"anyOf":[{"type":"string"},{"type":"integer"},{"t)"
        R"(ype":"null"}]}},)"
        R"("additionalProperties":false,"required":["q"]}},"required":[)"
        R"("p"],"additionalProperties":false})");
}

TEST_CASE("openai strict lowering removes what strict mode rejects and says where") {
  auto r = lower_schema(doc(R"({"type":"object","properties":{"s":{"type":"string","minLeng)"
                            R"(th":2,"default":"x"}},"required":["s"]})"),
                        SchemaDialect::openai_strict);
  REQUIRE(r);
  CHECK(json::dump(r->schema).find("minLength") == std::string::npos);
  CHECK(r->removed ==
        std::vector<std::string>{"$.properties.s: minLength", "$.properties.s: default"});
}

TEST_CASE("a schema a strict dialect cannot express is an error naming the dialect and the path") {
  auto open = lower_schema(doc(R"({"type":"object","properties":{"m":{"type":"object","additio)"
                               R"(nalProperties":{"type":"string"}}}})"),
                           SchemaDialect::openai_strict);
  REQUIRE_FALSE(open);
  CHECK(open.error().code == Errc::invalid_argument);
  CHECK(open.error().find_detail("path") == "$.properties.m");
  CHECK(open.error().message.find("openai_strict") != std::string::npos);
  auto scalar_root = lower_schema(doc(R"({"type":"string"})"), SchemaDialect::anthropic);
  REQUIRE_FALSE(scalar_root);
  CHECK(scalar_root.error().find_detail("path") == "$");
  auto tuple = lower_schema(
      doc(R"({"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}]}}})"),
      SchemaDialect::openai_strict);
  REQUIRE_FALSE(tuple);
  auto no_items = lower_schema(doc(R"({"type":"object","properties":{"t":{"type":"array"}}})"),
                               SchemaDialect::openai_strict);
  REQUIRE_FALSE(no_items);
  auto untyped =
      lower_schema(doc(R"({"type":"object","properties":{"x":{}}})"), SchemaDialect::anthropic);
  REQUIRE_FALSE(untyped);
  CHECK(untyped.error().find_detail("path") == "$.properties.x");
  auto tool_root =
      lower_schema(doc(R"({"type":"array","items":{"type":"string"}})"), SchemaDialect::tool_input);
  REQUIRE_FALSE(tool_root);
}

TEST_CASE(
    "anthropic lowering keeps required as written and moves unsupported bounds into the "
    "description") {
  CHECK(lowered(R"({"type":"object","properties":{"n":{"type":"integer","minimu)"
                R"(m":1,"description":"count"},)"
                R"("f":{"type":"string","format":"email"},"g":{"type":"string","format":"color"},)"
                R"("l":{"type":"array","items":{"type":"string"},"minItems":3}},"required":["n"]})",
                SchemaDialect::anthropic) ==
        R"({"type":"object","properties":{"n":{"type":"integer","descri)"
        R"(ption":"count\n\n{minimum: 1}"},)"
        R"("f":{"type":"string","format":"email"},"g":{"type":"string",)"
        R"("description":"{format: \"color\"}"},)"
        R"("l":{"type":"array","items":{"type":"string"},"description":)"
        R"("{minItems: 3}"}},"additionalProperties":false,"required":[")"
        R"(n"]})");
}

TEST_CASE("gemini lowering keeps its keywords, oneOf included, and drops const") {
  auto r = lower_schema(doc(R"({"type":"object","properties":{"k":{"const":"v"},"u":{"oneOf)"
                            R"(":[{"type":"string"}]}},"additionalProperties":false})"),
                        SchemaDialect::gemini);
  REQUIRE(r);
  CHECK(json::dump(r->schema) == R"({"type":"object","properties":{"k":{},"u":{"oneOf":[{"type":)"
                                 R"("string"}]}},"additionalProperties":false})");
  CHECK(r->removed == std::vector<std::string>{"$.properties.k: const"});
}

TEST_CASE("ollama and tool-input lowering send the schema as written") {
  const std::string text =
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]})";
  CHECK(lowered(text, SchemaDialect::ollama) == text);
  CHECK(lowered(text, SchemaDialect::tool_input) == text);
}

TEST_CASE("the answer fingerprint changes with the schema, the name and the description") {
  AnswerFormat a;
  a.schema = doc(R"({"type":"object"})");
  AnswerFormat b = a;
  CHECK(answer_fingerprint(a) == answer_fingerprint(b));
  b.name = "other";
  CHECK(answer_fingerprint(a) != answer_fingerprint(b));
  b = a;
  b.description = "d";
  CHECK(answer_fingerprint(a) != answer_fingerprint(b));
  b = a;
  b.schema = doc(R"({"type":"object","properties":{}})");
  CHECK(answer_fingerprint(a) != answer_fingerprint(b));
}
