// agentkit/core/schema.hpp — JSON Schema for tool inputs: typed combinators, a validator whose
// errors carry JSON paths, and the argument pipeline a handler's input goes through.
//
//   using namespace agentkit;
//   Schema s = schema::object({
//       schema::required("path", schema::string().describe("File to read, relative to the workspace")),
//       schema::optional("limit", schema::integer().minimum(1)),
//       schema::optional("mode", schema::enumeration({"text", "bytes"})),
//   });
//   Result<json::Value> args = prepare_arguments(s, json::parse(R"({"path":"a.txt","limit":"20"})").value());
//   // -> {"path":"a.txt","limit":20}: "20" coerced to an integer, then validated
//
// A Schema is a JSON Schema document (json::Value). Combinators build the common subset; a schema
// received whole (an MCP server's inputSchema) is wrapped with Schema::from_json. The validator
// understands: type (incl. arrays of types), properties, required, additionalProperties (bool or
// schema; objects built by schema::object are closed by default), items (incl. the draft-07
// positional array), enum, const, minimum, maximum, exclusiveMinimum/Maximum (number, or the
// draft-04 boolean), minLength/maxLength (in code points), minItems, maxItems, anyOf, oneOf,
// allOf, and local references ("$ref": "#/$defs/X"). `pattern` and `format` are NOT enforced;
// they and every other unknown keyword (and non-local references) are ignored.
// "integer" is a whole number that fits 64 bits ("3.0" is one; "1e400" is not), "number" one a
// double can hold; bounds and enum/const compare numbers exactly by value, never via double.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit {

class Schema {
 public:
  // Accepts any value ({}).
  Schema();
  // Wraps a JSON Schema document as is. Fails unless it is an object (or a boolean schema).
  static Result<Schema> from_json(json::Value document);

  const json::Value& json() const noexcept { return doc_; }

  // Chainable refinements; each sets one keyword and returns *this.
  Schema& describe(std::string text);
  Schema& minimum(double v);
  Schema& maximum(double v);
  Schema& min_length(std::int64_t n);
  Schema& max_length(std::int64_t n);
  Schema& min_items(std::int64_t n);
  Schema& max_items(std::int64_t n);
  Schema& default_value(json::Value v);
  // For objects: allow members the schema does not list (closed by default).
  Schema& allow_additional_properties(bool allow = true);

  friend bool operator==(const Schema&, const Schema&) = default;

 private:
  explicit Schema(json::Value doc) : doc_(std::move(doc)) {}
  friend struct SchemaAccess;
  json::Value doc_;
};

namespace schema {

Schema string();
Schema integer();
Schema number();
Schema boolean();
Schema null();
Schema array(Schema items);
Schema any();
// A string restricted to the listed values.
Schema enumeration(std::vector<std::string> values);
// Accepts a value valid against any of the alternatives.
Schema any_of(std::vector<Schema> alternatives);

struct Property {
  std::string name;
  Schema schema;
  bool required = true;
};
Property required(std::string name, Schema s);
Property optional(std::string name, Schema s);
// An object with these properties in this order; additionalProperties: false unless allowed.
Schema object(std::vector<Property> properties);

}  // namespace schema

// One violation: where ("$.edits[1].old_string") and what.
struct SchemaViolation {
  std::string path;
  std::string message;
  friend bool operator==(const SchemaViolation&, const SchemaViolation&) = default;
};

// Every violation, in document order; empty when `value` is valid.
std::vector<SchemaViolation> find_violations(const Schema& schema, const json::Value& value);
// A schema whose keywords are read once, for validating many values against it (a typed answer
// on every turn, a tool's arguments on every call) without searching the schema's objects per
// value node. find_violations gives exactly what it gives for the plain Schema.
//
//   CompiledSchema compiled(verdict);                  // walks the document once
//   for (const json::Value& answer : answers) report(find_violations(compiled, answer));
//
// Thread safety: immutable once built; copies share the compiled form and may be used from any
// number of threads at once.
class CompiledSchema {
 public:
  explicit CompiledSchema(Schema schema);
  const Schema& schema() const noexcept;

 private:
  friend std::vector<SchemaViolation> find_violations(const CompiledSchema& schema,
                                                      const json::Value& value);
  friend json::Value drop_optional_nulls(const CompiledSchema& schema, json::Value value);
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};
std::vector<SchemaViolation> find_violations(const CompiledSchema& schema,
                                             const json::Value& value);

// Ok, or Errc::validation_error whose message lists the violations and whose details carry one
// "path" entry per violation.
Result<void> validate(const Schema& schema, const json::Value& value);

// `value` without the null members the schema does not require (step 1 of prepare_arguments
// alone): what a strict structured-output mode, which makes optional members nullable, sends for
// "absent". Nothing else is changed.
json::Value drop_optional_nulls(const Schema& schema, json::Value value);
// The same, reading the schema's sorted `required` lists from its compiled form.
json::Value drop_optional_nulls(const CompiledSchema& schema, json::Value value);

// The argument pipeline that runs before a tool handler, in this order:
//   1. drop members whose value is null when the schema does not require them (constrained
//      sampling emits null for every optional field);
//   2. coerce: a string where the schema wants an integer/number/boolean is parsed ("20" -> 20,
//      "true" -> true); a string holding a JSON array/object where the schema wants one is parsed
//      (some hosts send arrays as strings); nothing else is changed;
//   3. validate against the schema.
// Validating before coercing would fail every constrained-sampling call, hence the order.
Result<json::Value> prepare_arguments(const Schema& schema, json::Value arguments);

}  // namespace agentkit
