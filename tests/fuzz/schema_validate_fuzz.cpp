// The schema validator and the argument pipeline on arbitrary schemas and values.
// Input: a JSON Schema document, a newline, then a JSON value. Invariants:
// - nothing crashes, hangs or overflows the stack, whatever the schema says (cycles, fan-out);
// - find_violations and validate agree, and every violation has a "$"-rooted path;
// - a value prepare_arguments accepts is valid against the schema, and preparing it again
//   changes nothing (the pipeline is idempotent).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "agentkit/core/schema.hpp"

using namespace agentkit;

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

// Small inputs keep each execution fast; the interesting structure fits easily.
constexpr json::ParseOptions kParseOptions{.max_bytes = 1 << 16, .max_depth = 128};

void check_validation(const Schema& schema, const json::Value& value) {
  const std::vector<SchemaViolation> violations = find_violations(schema, value);
  for (const SchemaViolation& v : violations) require(!v.path.empty() && v.path.front() == '$');
  const Result<void> verdict = validate(schema, value);
  require(verdict.has_value() == violations.empty());
  if (!verdict) require(verdict.error().detail.size() == violations.size());
}

void check_pipeline(const Schema& schema, const json::Value& value) {
  const Result<json::Value> prepared = prepare_arguments(schema, value);
  if (!prepared) return;
  require(find_violations(schema, *prepared).empty());
  const Result<json::Value> again = prepare_arguments(schema, *prepared);
  require(again.has_value() && *again == *prepared);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\n');
  const std::string_view schema_text = input.substr(0, split);
  const std::string_view value_text = split == std::string_view::npos ? std::string_view("null") : input.substr(split + 1);

  Result<json::Value> schema_doc = json::parse(schema_text, kParseOptions);
  Result<json::Value> value = json::parse(value_text, kParseOptions);
  if (!value) return 0;
  Schema schema;  // {} when the schema text is not a usable schema: the value is still exercised
  if (schema_doc) {
    if (Result<Schema> s = Schema::from_json(std::move(*schema_doc))) schema = std::move(*s);
  }
  check_validation(schema, *value);
  check_pipeline(schema, *value);
  return 0;
}
