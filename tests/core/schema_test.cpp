// Schema combinators, the validator (every violation, with its JSON path, in document order) and
// the argument pipeline (drop optional nulls -> coerce -> validate).
#include <string>
#include <vector>

#include "agentkit/core/schema.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

json::Value parse(std::string_view text) { return json::parse(text).value(); }
std::string dump(const Schema& s) { return json::dump(s.json()); }
Schema from(std::string_view text) { return Schema::from_json(parse(text)).value(); }

std::vector<std::string> paths_of(const std::vector<SchemaViolation>& violations) {
  std::vector<std::string> out;
  for (const SchemaViolation& v : violations) out.push_back(v.path);
  return out;
}

std::vector<std::string> violation_paths(const Schema& s, std::string_view value) {
  return paths_of(find_violations(s, parse(value)));
}

bool valid(const Schema& s, std::string_view value) { return find_violations(s, parse(value)).empty(); }

std::string prepared(const Schema& s, std::string_view arguments) {
  Result<json::Value> r = prepare_arguments(s, parse(arguments));
  if (!r) return "error: " + r.error().message;
  return json::dump(*r);
}

Schema read_file_schema() {
  return schema::object({
      schema::required("path", schema::string().describe("File to read")),
      schema::optional("limit", schema::integer().minimum(1)),
      schema::optional("mode", schema::enumeration({"text", "bytes"})),
  });
}

Schema edit_schema() {
  return schema::object({
      schema::required("path", schema::string()),
      schema::required("edits", schema::array(schema::object({
                                     schema::required("old_string", schema::string()),
                                     schema::required("new_string", schema::string()),
                                 }))),
  });
}

}  // namespace

// ---- Combinators ----------------------------------------------------------------------------

TEST_CASE("an object combinator lists properties in declaration order, required names in order, and is closed") {
  const Schema s = schema::object({
      schema::required("b", schema::string()),
      schema::optional("c", schema::integer()),
      schema::required("a", schema::boolean()),
  });
  CHECK(dump(s) ==
        R"({"type":"object","properties":{"b":{"type":"string"},"c":{"type":"integer"},"a":{"type":"boolean"}},)"
        R"("required":["b","a"],"additionalProperties":false})");
}

TEST_CASE("an object with no required members has no required keyword") {
  CHECK(dump(schema::object({schema::optional("x", schema::number())})) ==
        R"({"type":"object","properties":{"x":{"type":"number"}},"additionalProperties":false})");
  CHECK(dump(schema::object({})) == R"({"type":"object","properties":{},"additionalProperties":false})");
}

TEST_CASE("a description goes right after the type whatever order the refinements came in") {
  CHECK(dump(schema::integer().minimum(1).maximum(10).describe("Lines")) ==
        R"({"type":"integer","description":"Lines","minimum":1,"maximum":10})");
  CHECK(dump(schema::string().describe("first").describe("second")) ==
        R"({"type":"string","description":"second"})");
  CHECK(dump(schema::any().describe("anything")) == R"({"description":"anything"})");
}

TEST_CASE("the scalar, array, enumeration and anyOf combinators build the expected documents") {
  CHECK(dump(schema::string()) == R"({"type":"string"})");
  CHECK(dump(schema::number()) == R"({"type":"number"})");
  CHECK(dump(schema::null()) == R"({"type":"null"})");
  CHECK(dump(schema::any()) == R"({})");
  CHECK(dump(schema::array(schema::integer()).min_items(1).max_items(3)) ==
        R"({"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3})");
  CHECK(dump(schema::enumeration({"text", "bytes"})) == R"({"type":"string","enum":["text","bytes"]})");
  CHECK(dump(schema::any_of({schema::string(), schema::null()})) ==
        R"({"anyOf":[{"type":"string"},{"type":"null"}]})");
  CHECK(dump(schema::string().min_length(2).max_length(5).default_value("ab")) ==
        R"({"type":"string","minLength":2,"maxLength":5,"default":"ab"})");
  CHECK(dump(schema::number().minimum(0.5)) == R"({"type":"number","minimum":0.5})");
}

TEST_CASE("allow_additional_properties opens an object and can close it again") {
  Schema s = schema::object({schema::required("a", schema::string())}).allow_additional_properties();
  CHECK(s.json().find("additionalProperties")->as_bool());
  CHECK(valid(s, R"({"a":"x","extra":1})"));
  s.allow_additional_properties(false);
  CHECK_FALSE(valid(s, R"({"a":"x","extra":1})"));
}

TEST_CASE("a property named twice keeps its first position, takes the later schema and is required once") {
  const Schema s = schema::object({schema::required("a", schema::string()), schema::required("b", schema::string()),
                                   schema::required("a", schema::integer())});
  CHECK(dump(s) == R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},)"
                   R"("required":["a","b"],"additionalProperties":false})");
}

// ---- from_json ------------------------------------------------------------------------------

TEST_CASE("an MCP-style input schema from from_json validates and prepares arguments") {
  // As published by the MCP reference "everything" server (draft-07, not closed).
  const Schema s = from(R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
      "properties":{"message":{"type":"string","description":"Message to echo"},
                    "count":{"type":"integer","minimum":1}},
      "required":["message"]})");
  CHECK(valid(s, R"({"message":"hi"})"));
  CHECK(valid(s, R"({"message":"hi","unlisted":true})"));  // not closed: additionalProperties absent
  CHECK(violation_paths(s, R"({"count":0})") == std::vector<std::string>{"$.message", "$.count"});
  CHECK(prepared(s, R"({"message":"hi","count":"3"})") == R"({"message":"hi","count":3})");
  CHECK(json::dump(s.json()).find("$schema") != std::string::npos);  // kept as received
}

TEST_CASE("a pydantic-style schema with $defs references and optional anyOf members works") {
  const Schema s = from(R"({"type":"object",
      "$defs":{"Point":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},
                        "required":["x","y"],"additionalProperties":false}},
      "properties":{"at":{"$ref":"#/$defs/Point"},
                    "limit":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null}},
      "required":["at"]})");
  CHECK(valid(s, R"({"at":{"x":1,"y":2}})"));
  CHECK(violation_paths(s, R"({"at":{"x":"a","z":1}})") == std::vector<std::string>{"$.at.y", "$.at.x", "$.at.z"});
  CHECK(prepared(s, R"({"at":{"x":"1","y":2},"limit":"5"})") == R"({"at":{"x":1,"y":2},"limit":5})");
}

TEST_CASE("from_json accepts boolean schemas and rejects documents that are not schemas") {
  CHECK(Schema::from_json(true).has_value());
  CHECK(Schema::from_json(false).has_value());
  CHECK_FALSE(valid(Schema::from_json(false).value(), "1"));
  CHECK(valid(Schema::from_json(true).value(), R"({"anything":[1]})"));
  const Result<Schema> not_schema = Schema::from_json(json::Value("string"));
  REQUIRE_FALSE(not_schema.has_value());
  CHECK(not_schema.error().code == Errc::invalid_argument);
}

TEST_CASE("from_json names the path of a malformed keyword") {
  auto error_path = [](std::string_view text) {
    const Result<Schema> r = Schema::from_json(parse(text));
    REQUIRE_FALSE(r.has_value());
    return std::string(r.error().find_detail("path").value_or(""));
  };
  CHECK(error_path(R"({"type":"file"})") == "$.type");
  CHECK(error_path(R"({"properties":{"a":{"type":"integer","minimum":"1"}}})") == "$.properties.a.minimum");
  CHECK(error_path(R"({"required":"a"})") == "$.required");
  CHECK(error_path(R"({"anyOf":[]})") == "$.anyOf");
  CHECK(error_path(R"({"items":[{"type":"string"},3]})") == "$.items[1]");
  CHECK(error_path(R"({"minLength":-1})") == "$.minLength");
  CHECK(error_path(R"({"$ref":"#/$defs/Missing"})") == "$[\"$ref\"]");
  CHECK(error_path(R"({"properties":{"a b":{"type":7}}})") == R"($.properties["a b"].type)");
}

TEST_CASE("from_json reads a schema held as raw bytes") {
  const Result<Schema> s = Schema::from_json(json::Raw(R"({"type":"string"})"));
  REQUIRE(s.has_value());
  CHECK(dump(*s) == R"({"type":"string"})");
  CHECK_FALSE(Schema::from_json(json::Raw(R"({"type":)")).has_value());
}

// ---- Types ----------------------------------------------------------------------------------

TEST_CASE("an integer is a number whose value is whole and fits 64 bits") {
  const Schema s = schema::integer();
  CHECK(valid(s, "3"));
  CHECK(valid(s, "3.0"));
  CHECK(valid(s, "1e3"));
  CHECK(valid(s, "-0"));
  CHECK(valid(s, "9223372036854775807"));
  CHECK_FALSE(valid(s, "2.5"));
  CHECK_FALSE(valid(s, "9223372036854775808"));
  CHECK_FALSE(valid(s, "\"3\""));
  const std::vector<SchemaViolation> huge = find_violations(s, parse("1e400"));
  REQUIRE(huge.size() == 1);
  CHECK(huge[0].message.find("outside the signed 64-bit range") != std::string::npos);
}

TEST_CASE("a number too large for a double is reported, never a crash") {
  const Schema s = schema::number().maximum(10);
  CHECK(valid(s, "1e-400"));  // underflow rounds to zero like every JSON reader
  const std::vector<SchemaViolation> v = find_violations(s, parse("1e400"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message.find("beyond the range of a double") != std::string::npos);
  CHECK(valid(schema::any(), "1e99999999999999999999"));
}

TEST_CASE("a type array accepts any of its types") {
  const Schema s = from(R"({"type":["string","null"]})");
  CHECK(valid(s, R"("x")"));
  CHECK(valid(s, "null"));
  const std::vector<SchemaViolation> v = find_violations(s, parse("1"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message == "expected string or null, got number 1");
}

TEST_CASE("each scalar type accepts exactly its own values") {
  CHECK(valid(schema::boolean(), "false"));
  CHECK_FALSE(valid(schema::boolean(), "0"));
  CHECK(valid(schema::null(), "null"));
  CHECK_FALSE(valid(schema::null(), "false"));
  CHECK(valid(schema::string(), R"("")"));
  CHECK_FALSE(valid(schema::string(), "[]"));
  CHECK_FALSE(valid(schema::number(), R"("1")"));
  CHECK(valid(schema::any(), R"({"a":[null]})"));
}

// ---- Numbers, lengths, counts -------------------------------------------------------------

TEST_CASE("numeric bounds compare exactly, beyond double precision") {
  const Schema s = from(R"({"type":"integer","maximum":9007199254740992})");
  CHECK(valid(s, "9007199254740992"));
  CHECK_FALSE(valid(s, "9007199254740993"));  // equal as doubles, not as numbers
  const Schema tiny = from(R"({"type":"number","exclusiveMinimum":0.1})");
  CHECK_FALSE(valid(tiny, "0.1"));
  CHECK_FALSE(valid(tiny, "1e-1"));
  CHECK(valid(tiny, "0.10000000000000000001"));
}

TEST_CASE("minimum, maximum and the exclusive bounds each reject their own edge") {
  const Schema s = from(R"({"type":"number","minimum":-1.5,"maximum":2e1})");
  CHECK(valid(s, "-1.5"));
  CHECK(valid(s, "20"));
  CHECK(valid(s, "20.0"));
  CHECK_FALSE(valid(s, "-1.50001"));
  CHECK_FALSE(valid(s, "20.001"));
  const Schema exclusive = from(R"({"exclusiveMinimum":0,"exclusiveMaximum":1})");
  CHECK_FALSE(valid(exclusive, "0"));
  CHECK_FALSE(valid(exclusive, "-0.0"));
  CHECK_FALSE(valid(exclusive, "1"));
  CHECK(valid(exclusive, "0.5"));
  const Schema draft4 = from(R"({"minimum":0,"exclusiveMinimum":true,"maximum":1,"exclusiveMaximum":false})");
  CHECK_FALSE(valid(draft4, "0"));
  CHECK(valid(draft4, "1"));
}

TEST_CASE("string lengths count code points, not bytes") {
  const Schema s = schema::string().min_length(2).max_length(3);
  CHECK(valid(s, R"("éé")"));       // 4 bytes, 2 characters
  CHECK(valid(s, R"("😀😀😀")"));     // 12 bytes, 3 characters
  CHECK_FALSE(valid(s, R"("😀😀😀😀")"));
  CHECK_FALSE(valid(s, R"("é")"));
  const std::vector<SchemaViolation> v = find_violations(s, parse(R"("a")"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message == "has 1 characters, fewer than the minimum of 2");
}

TEST_CASE("array item counts are bounded by minItems and maxItems") {
  const Schema s = schema::array(schema::any()).min_items(1).max_items(2);
  CHECK_FALSE(valid(s, "[]"));
  CHECK(valid(s, "[1,2]"));
  CHECK_FALSE(valid(s, "[1,2,3]"));
}

TEST_CASE("enum and const compare JSON values, not their spelling") {
  const Schema e = from(R"({"enum":[1,"a",{"k":[true]}]})");
  CHECK(valid(e, "1.0"));
  CHECK(valid(e, "1e0"));
  CHECK(valid(e, R"("a")"));
  CHECK(valid(e, R"({"k":[true]})"));
  CHECK_FALSE(valid(e, R"("1")"));
  CHECK_FALSE(valid(e, "2"));
  const Schema c = from(R"({"const":{"a":1,"b":null}})");
  CHECK(valid(c, R"({"b":null,"a":1.00})"));  // member order does not matter
  CHECK_FALSE(valid(c, R"({"a":1})"));
  const std::vector<SchemaViolation> v = find_violations(schema::enumeration({"text", "bytes"}), parse(R"("json")"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message == R"(must be one of ["text","bytes"], got string "json")");
}

TEST_CASE("a const of null is a constraint, not an absent keyword") {
  const Schema s = from(R"({"const":null})");
  CHECK(valid(s, "null"));
  CHECK_FALSE(valid(s, "0"));
}

// ---- Objects and paths --------------------------------------------------------------------

TEST_CASE("closed objects reject unknown members and name the ones they accept") {
  const std::vector<SchemaViolation> v = find_violations(read_file_schema(), parse(R"({"path":"a","colour":"red"})"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].path == "$.colour");
  CHECK(v[0].message == "is not allowed: this object accepts only path, limit, mode");
}

TEST_CASE("additionalProperties may be a schema for the members not listed") {
  const Schema s = from(R"({"type":"object","properties":{"a":{}},"additionalProperties":{"type":"integer"}})");
  CHECK(valid(s, R"({"a":"x","b":1,"c":2})"));
  CHECK(violation_paths(s, R"({"a":"x","b":"one","c":2,"d":[]})") == std::vector<std::string>{"$.b", "$.d"});
}

TEST_CASE("a missing required member is reported at its own path") {
  const std::vector<SchemaViolation> v = find_violations(read_file_schema(), parse("{}"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].path == "$.path");
  CHECK(v[0].message == "is required but missing");
}

TEST_CASE("every violation is reported, not only the first") {
  const std::vector<SchemaViolation> v =
      find_violations(read_file_schema(), parse(R"({"path":7,"limit":0,"mode":"json","extra":true})"));
  CHECK(paths_of(v) == std::vector<std::string>{"$.path", "$.limit", "$.mode", "$.extra"});
  const Result<void> r = validate(read_file_schema(), parse(R"({"path":7,"limit":0,"mode":"json","extra":true})"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::validation_error);
  CHECK(r.error().message.rfind("4 schema violations: $.path: expected string, got number 7; ", 0) == 0);
  std::vector<std::string> detail_paths;
  for (const ErrorDetail& d : r.error().detail) {
    if (d.key == "path") detail_paths.push_back(d.value);
  }
  CHECK(detail_paths == paths_of(v));
}

TEST_CASE("paths are correct in nested arrays and objects") {
  const std::vector<SchemaViolation> v = find_violations(
      edit_schema(),
      parse(R"({"path":"f","edits":[{"old_string":"a","new_string":"b"},{"old_string":5,"new_string":"c"},{"new_string":1}]})"));
  CHECK(paths_of(v) ==
        std::vector<std::string>{"$.edits[1].old_string", "$.edits[2].old_string", "$.edits[2].new_string"});
}

TEST_CASE("violations come in the value's document order, not the schema's") {
  // The schema lists a before b; the value has b first: b's violation comes first.
  const Schema s = schema::object({schema::required("a", schema::integer()), schema::required("b", schema::integer())});
  CHECK(violation_paths(s, R"({"b":"x","a":"y"})") == std::vector<std::string>{"$.b", "$.a"});
  // Split across allOf, b is checked before a; the report still follows the value.
  const Schema split = from(R"({"properties":{"b":{"type":"integer"}},"allOf":[{"properties":{"a":{"type":"integer"}}}]})");
  CHECK(violation_paths(split, R"({"a":"x","b":"y"})") == std::vector<std::string>{"$.a", "$.b"});
}

TEST_CASE("member names that are not identifiers are quoted in paths") {
  const Schema s = from(R"({"properties":{"a b":{"type":"string"},"0":{"type":"string"},"q\"":{"type":"string"}}})");
  CHECK(violation_paths(s, R"({"a b":1,"0":2,"q\"":3})") ==
        std::vector<std::string>{R"($["a b"])", R"($["0"])", R"($["q\""])"});
}

TEST_CASE("draft-07 positional items validate each position") {
  const Schema s = from(R"({"type":"array","items":[{"type":"string"},{"type":"integer"}]})");
  CHECK(valid(s, R"(["a",1,{"any":"thing"}])"));
  CHECK(violation_paths(s, R"([1,"a"])") == std::vector<std::string>{"$[0]", "$[1]"});
}

// ---- Combinators in the validator ------------------------------------------------------------

TEST_CASE("anyOf accepts a value matching one alternative and explains a miss by the closest one") {
  const Schema s = from(R"({"anyOf":[{"type":"string"},
      {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}]})");
  CHECK(valid(s, R"("x")"));
  CHECK(valid(s, R"({"n":1})"));
  const std::vector<SchemaViolation> v = find_violations(s, parse(R"({"n":"one"})"));
  REQUIRE(v.size() == 2);
  CHECK(v[0].path == "$");
  CHECK(v[0].message == "matches none of the anyOf alternatives (string | object)");
  CHECK(v[1].path == "$.n");
  const std::vector<SchemaViolation> wrong_type = find_violations(s, parse("true"));
  REQUIRE(wrong_type.size() == 1);  // no alternative takes a boolean: nothing closer to explain
}

TEST_CASE("oneOf rejects a value that matches more than one alternative") {
  const Schema s = from(R"({"oneOf":[{"type":"integer"},{"type":"number"}]})");
  CHECK(valid(s, "1.5"));
  const std::vector<SchemaViolation> v = find_violations(s, parse("2"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message == "matches 2 of the oneOf alternatives (#1, #2); exactly one must match");
  CHECK_FALSE(valid(s, R"("2")"));
}

TEST_CASE("allOf reports the violations of every part, each once") {
  const Schema s = from(R"({"allOf":[{"type":"object","required":["a"]},{"required":["a","b"]},
                                      {"properties":{"c":{"type":"string"}}}]})");
  CHECK(violation_paths(s, R"({"c":1})") == std::vector<std::string>{"$.a", "$.b", "$.c"});
}

TEST_CASE("a reference cycle is reported, not followed forever") {
  const Schema s = from(R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})");
  const std::vector<SchemaViolation> v = find_violations(s, parse("1"));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message.find("cycle") != std::string::npos);
}

TEST_CASE("a reference cycle through a combinator is still reported as a cycle") {
  for (std::string_view text : {R"({"allOf":[{"$ref":"#"}]})", R"({"anyOf":[{"$ref":"#"}]})"}) {
    const std::vector<SchemaViolation> v = find_violations(from(text), parse("1"));
    INFO(text);
    REQUIRE_FALSE(v.empty());
    CHECK(v.back().message.find("cycle") != std::string::npos);
  }
}

TEST_CASE("a value as deep as the parser allows is validated against a recursive schema") {
  constexpr int kDepth = 500;
  const std::string deep = std::string(kDepth, '[') + "1" + std::string(kDepth, ']');
  const Schema nested = from(R"({"type":["array","integer"],"items":{"$ref":"#"}})");
  CHECK(valid(nested, deep));
  const std::string bad = std::string(kDepth, '[') + "true" + std::string(kDepth, ']');
  const std::vector<SchemaViolation> v = find_violations(nested, parse(bad));
  REQUIRE(v.size() == 1);
  CHECK(v[0].path.size() == 1 + 3 * kDepth);  // "$" then "[0]" per level
}

TEST_CASE("exponential reference fan-out is cut off by the evaluation budget") {
  const Schema s = from(R"({"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"})");
  const std::vector<SchemaViolation> v = find_violations(s, parse("1"));
  REQUIRE_FALSE(v.empty());
  CHECK(v.front().message.find("too complex") != std::string::npos);
}

TEST_CASE("a recursive schema validates a recursive value") {
  const Schema tree = from(R"({"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},
      "kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"additionalProperties":false}},
      "$ref":"#/$defs/node"})");
  CHECK(valid(tree, R"({"v":1,"kids":[{"v":2,"kids":[{"v":3}]}]})"));
  CHECK(violation_paths(tree, R"({"v":1,"kids":[{"v":2,"kids":[{"v":"x","w":0}]}]})") ==
        std::vector<std::string>{"$.kids[0].kids[0].v", "$.kids[0].kids[0].w"});
}

TEST_CASE("a value holding raw bytes is validated by what the bytes parse to") {
  const Schema s = schema::object({schema::required("n", schema::integer())});
  CHECK(find_violations(s, json::Raw(R"({"n":1})")).empty());
  CHECK(paths_of(find_violations(s, json::Raw(R"({"n":"x"})"))) == std::vector<std::string>{"$.n"});
  CHECK(paths_of(find_violations(s, json::Raw(R"({"n":)"))) == std::vector<std::string>{"$"});
}

TEST_CASE("long string values are quoted truncated in messages") {
  const std::string long_value(200, 'x');
  const std::vector<SchemaViolation> v = find_violations(schema::integer(), json::Value(long_value));
  REQUIRE(v.size() == 1);
  CHECK(v[0].message == "expected integer, got string \"" + std::string(40, 'x') + "...\"");
}

// ---- The argument pipeline -------------------------------------------------------------------

TEST_CASE("validating before coercing would reject \"20\" for an integer; the pipeline accepts it") {
  const json::Value arguments = parse(R"({"path":"a.txt","limit":"20"})");
  CHECK_FALSE(validate(read_file_schema(), arguments).has_value());  // the wrong order fails
  const Result<json::Value> r = prepare_arguments(read_file_schema(), arguments);
  REQUIRE(r.has_value());
  CHECK(json::dump(*r) == R"({"path":"a.txt","limit":20})");
}

TEST_CASE("validating before dropping nulls would reject an optional null; the pipeline drops it") {
  const json::Value arguments = parse(R"({"path":"a","limit":null,"mode":null})");
  CHECK_FALSE(validate(read_file_schema(), arguments).has_value());  // the wrong order fails
  CHECK(prepared(read_file_schema(), R"({"path":"a","limit":null,"mode":null})") == R"({"path":"a"})");
}

TEST_CASE("a null for a required member is kept and reported, never dropped") {
  const Result<json::Value> r = prepare_arguments(read_file_schema(), parse(R"({"path":null})"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().find_detail("path") == "$.path");
  CHECK(r.error().message.find("expected string, got null") != std::string::npos);
}

TEST_CASE("optional nulls are dropped at every depth the schema describes") {
  const Schema s = schema::object({
      schema::required("edits", schema::array(schema::object({
                                    schema::required("old", schema::string()),
                                    schema::optional("count", schema::integer()),
                                }))),
      schema::optional("options", schema::object({schema::optional("deep", schema::boolean())})),
  });
  CHECK(prepared(s, R"({"edits":[{"old":"a","count":null},{"count":null,"old":"b"}],"options":{"deep":null}})") ==
        R"({"edits":[{"old":"a"},{"old":"b"}],"options":{}})");
}

TEST_CASE("a null for a member the schema does not list is not dropped, so a closed object rejects it") {
  CHECK(prepared(read_file_schema(), R"({"path":"a","unknown":null})") ==
        "error: 1 schema violation: $.unknown: is not allowed: this object accepts only path, limit, mode");
}

TEST_CASE("strings are coerced to integers, numbers and booleans where the schema says so") {
  const Schema s = schema::object({
      schema::optional("i", schema::integer()),
      schema::optional("n", schema::number()),
      schema::optional("b", schema::boolean()),
      schema::optional("s", schema::string()),
  });
  CHECK(prepared(s, R"({"i":"20","n":"2.50","b":"true","s":"7"})") == R"({"i":20,"n":2.50,"b":true,"s":"7"})");
  CHECK(prepared(s, R"({"i":" 3.0 ","b":"false"})") == R"({"i":3.0,"b":false})");
}

TEST_CASE("a string that does not read as the wanted type is left for the validator to report") {
  const Schema s = schema::object({
      schema::optional("i", schema::integer()),
      schema::optional("b", schema::boolean()),
  });
  CHECK(prepared(s, R"({"i":"2.5"})") == R"(error: 1 schema violation: $.i: expected integer, got string "2.5")");
  CHECK(prepared(s, R"({"i":"0x10"})").rfind("error: 1 schema violation: $.i", 0) == 0);
  CHECK(prepared(s, R"({"b":"yes"})").rfind("error: 1 schema violation: $.b", 0) == 0);
  CHECK(prepared(s, R"({"b":"True"})").rfind("error: 1 schema violation: $.b", 0) == 0);
}

TEST_CASE("a string holding a JSON array or object is parsed where the schema wants one") {
  const Schema s = edit_schema();
  CHECK(prepared(s, R"({"path":"f","edits":"[{\"old_string\":\"a\",\"new_string\":\"b\"}]"})") ==
        R"({"path":"f","edits":[{"old_string":"a","new_string":"b"}]})");
  const Schema wants_object = schema::object({schema::required("o", schema::object({schema::optional("k", schema::integer())}))});
  CHECK(prepared(wants_object, R"({"o":"{\"k\":\"4\"}"})") == R"({"o":{"k":4}})");
  CHECK(prepared(wants_object, R"({"o":"{\"k\":null}"})") == R"({"o":{}})");  // step 1 applied inside
}

TEST_CASE("nothing else is coerced") {
  const Schema s = schema::object({
      schema::optional("s", schema::string()),
      schema::optional("i", schema::integer()),
      schema::optional("a", schema::array(schema::string())),
      schema::optional("u", schema::any_of({schema::integer(), schema::string()})),
  });
  // number -> string, scalar -> one-element array, and strings where a string is acceptable stay.
  CHECK(prepared(s, R"({"s":5})") == R"(error: 1 schema violation: $.s: expected string, got number 5)");
  CHECK(prepared(s, R"({"a":"x"})").rfind("error: 1 schema violation: $.a: expected array", 0) == 0);
  CHECK(prepared(s, R"({"u":"12"})") == R"({"u":"12"})");
  CHECK(prepared(s, R"({"i":true})").rfind("error: 1 schema violation: $.i", 0) == 0);
}

TEST_CASE("coercion follows anyOf alternatives and references") {
  const Schema s = from(R"({"type":"object","$defs":{"n":{"type":"integer"}},
      "properties":{"a":{"anyOf":[{"$ref":"#/$defs/n"},{"type":"null"}]},"b":{"$ref":"#/$defs/n"}}})");
  CHECK(prepared(s, R"({"a":"1","b":"2"})") == R"({"a":1,"b":2})");
}

TEST_CASE("null arguments for an object schema with nothing required become the empty object") {
  const Schema none_required = schema::object({schema::optional("x", schema::string())});
  CHECK(prepared(none_required, "null") == "{}");
  const Result<json::Value> r = prepare_arguments(read_file_schema(), nullptr);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message == "1 schema violation: $: expected object, got null");
}

TEST_CASE("the pipeline reports every violation with its path in the error detail") {
  const Result<json::Value> r = prepare_arguments(read_file_schema(), parse(R"({"limit":"zero","mode":1})"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::validation_error);
  std::vector<std::string> paths;
  for (const ErrorDetail& d : r.error().detail) paths.push_back(d.key + "=" + d.value);
  CHECK(paths == std::vector<std::string>{"path=$.path", "path=$.limit", "path=$.mode"});
}

TEST_CASE("the pipeline keeps the model's member order") {
  CHECK(prepared(read_file_schema(), R"({"mode":"text","limit":"5","path":"a"})") ==
        R"({"mode":"text","limit":5,"path":"a"})");
}

TEST_CASE("arguments held as raw bytes are parsed first, and broken bytes are a violation") {
  const Result<json::Value> ok = prepare_arguments(read_file_schema(), json::Raw(R"({"path":"a","limit":"2"})"));
  REQUIRE(ok.has_value());
  CHECK(json::dump(*ok) == R"({"path":"a","limit":2})");
  const Result<json::Value> broken = prepare_arguments(read_file_schema(), json::Raw(R"({"path":"a)"));
  REQUIRE_FALSE(broken.has_value());
  CHECK(broken.error().code == Errc::validation_error);
  CHECK(broken.error().find_detail("path") == "$");
}

// CompiledSchema reads every subschema's keywords once; it must find exactly what the plain
// Schema finds, including through references (to $defs and to a non-subschema position), the
// combinators, bounds and lengths, and it must drop the same optional nulls.
TEST_CASE("a compiled schema finds exactly the violations the plain schema finds") {
  const Schema s = Schema::from_json(parse(R"({
    "type": "object",
    "properties": {
      "n": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
      "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2},
      "point": {"$ref": "#/$defs/point"},
      "either": {"anyOf": [{"type": "string"}, {"type": "number", "minimum": 0}]},
      "one": {"oneOf": [{"const": 1}, {"enum": [1, 2]}]},
      "raw": {"$ref": "#/properties/n"},
      "opt": {"type": ["string", "null"]}
    },
    "required": ["n", "point"],
    "additionalProperties": false,
    "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}},
                        "required": ["x"], "additionalProperties": {"type": "boolean"}}}
  })"))
                       .value();
  const CompiledSchema compiled(s);
  const char* values[] = {
      R"({"n": 5, "point": {"x": 1}})",
      R"({"n": 0, "point": {"x": "a", "y": 3}, "tags": ["abcd", "b", "c"], "extra": 1})",
      R"({"n": 10.0, "point": {}, "either": -1, "one": 1, "raw": 3.5, "opt": 7})",
      R"({"n": 1e400, "point": {"x": 1, "z": true}, "either": true, "one": 3})",
      R"([1, 2])",
      R"({"point": null, "opt": null})",
  };
  for (const char* text : values) {
    CAPTURE(text);
    const json::Value v = parse(text);
    CHECK(find_violations(compiled, v) == find_violations(s, v));
    CHECK(drop_optional_nulls(compiled, v) == drop_optional_nulls(s, v));
  }
  CHECK_FALSE(find_violations(compiled, parse(values[1])).empty());
  CHECK(find_violations(compiled, parse(values[0])).empty());
}
