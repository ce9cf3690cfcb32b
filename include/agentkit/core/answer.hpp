// agentkit/core/answer.hpp — typed answers at the provider boundary: the answer format a Request
// carries and the lowering of its schema into what each wire's structured-output mode accepts.
//
//   using namespace agentkit;
//   Schema verdict = schema::object({schema::required("ok", schema::boolean()),
//                                    schema::optional("score", schema::integer().minimum(1))});
//   Result<LoweredSchema> sent = lower_schema(verdict.json(), SchemaDialect::openai_strict);
//   // sent->schema: "score" required and nullable, additionalProperties:false on every object;
//   // sent->removed lists keywords left out of what is sent (the validator still enforces them).
//
// The user writes one schema (Turn::answer, agentkit/turn.hpp). The loop validates answers with
// that full schema; lowering only shapes what a wire sends, so it never loosens the contract.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit {

// What a request asks of the final answer. Set on Request::answer by the loop when the model's
// native structured-output mode is used (catalog::answer_support says which).
struct AnswerFormat {
  // The format's name on the wire (OpenAI json_schema.name); [A-Za-z0-9_-], at most 64 bytes.
  std::string name = "answer";
  std::string description;
  // The user's full JSON Schema document; each wire lowers it with lower_schema().
  json::Value schema;
  // A hash of name, description and schema (answer_fingerprint), so a wire serialises the
  // lowered schema once per session and reuses the bytes (cache level 3).
  std::uint64_t fingerprint = 0;
};
std::uint64_t answer_fingerprint(const AnswerFormat& format);

// The subsets of JSON Schema the structured-output modes accept.
enum class SchemaDialect : std::uint8_t {
  // OpenAI strict (Responses text.format, Chat Completions response_format): the root is an
  // object; every object closed (additionalProperties:false) with every property required, the
  // optional ones made nullable; oneOf written as anyOf; arrays need one `items` schema.
  openai_strict,
  // Anthropic output_config.format: objects closed, `required` kept; oneOf as anyOf; string
  // formats outside the supported list, minItems above 1 and every other constraint keyword
  // moved into the description as text (as the vendor SDK does).
  anthropic,
  // Gemini responseJsonSchema: the keywords Gemini reads (oneOf included); the rest removed.
  gemini,
  // Ollama `format`: the schema as written (its grammar converter reads JSON Schema).
  ollama,
  // A final-answer tool's input schema (the fallback): as written, but the root must be an object.
  tool_input,
};
std::string_view to_string(SchemaDialect dialect) noexcept;

struct LoweredSchema {
  json::Value schema;
  // Keywords dropped from what is sent, as "<path>: <keyword>" ("$.properties.n: minimum").
  std::vector<std::string> removed;
};

// `schema` lowered for `dialect`. Fails (Errc::invalid_argument, message naming the dialect and
// the JSON path, detail "path") when the dialect cannot express it at all: a root that is not an
// object in the strict and tool dialects, an open object (additionalProperties true or a schema)
// in the strict ones, a tuple `items`, an array without `items` in openai_strict, a node with no
// type, enum, const or combinator in anthropic.
Result<LoweredSchema> lower_schema(const json::Value& schema, SchemaDialect dialect);

}  // namespace agentkit
