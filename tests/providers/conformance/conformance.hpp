// The shared conformance fixtures: ONE set of logical turns, rendered in every wire's dialect and
// run through every wire, so each rule about "a provider" is stated once and checked on all five
// (the Go README's "four wires, one conformance suite").
//
// How a wire plugs in (nothing else to edit):
//   1. write tests/providers/conformance/<wire>_dialect.cpp defining
//        agentkit::conformance::WireDialect <wire>_dialect();
//      that fills every field of WireDialect below (render the logical replies as your vendor
//      would send them, and read your own request bodies back);
//   2. add one line to all_dialects() in dialects.cpp.
// The rules live in conformance_test.cpp; each TEST_CASE runs a DYNAMIC_SECTION per dialect, so a
// failure names the wire. "every built-in wire runs through the conformance fixtures" fails while
// a wire registered by register_defaults has no dialect.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/providers/wires.hpp"
#include "provider_test_support.hpp"

namespace agentkit::conformance {

// ---- Logical replies (what the model "said", before any dialect) ------------------------------

struct ScriptedCall {
  std::string id;                      // the wire's own call id (wires without ids ignore it)
  std::string name;
  std::vector<std::string> fragments;  // argument bytes as streamed; joined = the whole bytes
  std::string arguments() const;
};

// Canonical counts (message.hpp Usage): `input` EXCLUDES cached tokens, `output` INCLUDES
// reasoning. A dialect renders them the way its vendor reports them (OpenAI's prompt_tokens and
// Gemini's promptTokenCount include the cached ones; Gemini reports thoughts beside output).
struct ScriptedUsage {
  std::int64_t input = 0;
  std::int64_t cache_read = 0;
  std::int64_t cache_write = 0;
  std::int64_t output = 0;
  std::int64_t reasoning = 0;
};

// How the logical turn ended, in the vendor's vocabulary.
enum class LogicalStop : std::uint8_t {
  end_turn,    // a STOP-family reason (also when tool calls are present: REQ-LOOP-01's trap)
  max_tokens,  // the output limit
  tool_use,    // the vendor's tool-call reason, where it has one (else rendered as end_turn)
};

enum class ScriptedEnd : std::uint8_t {
  complete,     // the stream's terminal event arrives
  error_event,  // the vendor's in-stream error event after the content so far
  cut,          // the body ends without the terminal event
};

// Where an OpenAI-family usage object puts the cached count (REQ-PROV-05 rule 2).
enum class CachedPlace : std::uint8_t {
  standard,                 // the wire's own field (prompt_tokens_details.cached_tokens, ...)
  prompt_cache_hit_tokens,  // DeepSeek
  top_level_cached_tokens,  // Moonshot
};

struct ScriptedReply {
  std::vector<std::string> thinking;  // fragments of one leading thinking block; empty = none
  std::string thinking_signature;     // for wires that sign reasoning
  std::vector<std::string> text;      // fragments of one text block; empty = none
  std::vector<ScriptedCall> calls;
  LogicalStop stop = LogicalStop::end_turn;
  ScriptedUsage usage;
  std::string served_model;           // the model the reply names; empty = the requested id
  ScriptedEnd end = ScriptedEnd::complete;
  std::string error_message = "Overloaded";  // the vendor's text for ScriptedEnd::error_event
  CachedPlace cached_place = CachedPlace::standard;
};

// ---- What a request looks like on a wire -------------------------------------------------------------

// How a wire packs a run of N canonical tool results (REQ-LOOP-02).
enum class ToolResultPacking : std::uint8_t {
  one_message_n_blocks,   // Anthropic: one user message, N tool_result blocks
  n_messages_by_id,       // OpenAI Chat/Responses: N tool messages / items keyed by call id
  one_content_n_parts,    // Gemini: one user content, N functionResponse parts (positional)
  n_messages_by_position, // Ollama: N role:"tool" messages, no id (positional)
};

// One tool result (or one piece of non-result content that travels with a run of results) as it
// appears in an encoded request, in body order.
struct PackedItem {
  enum class Kind : std::uint8_t { result, image, text };
  Kind kind = Kind::result;
  std::size_t container = 0;  // index of the wire message/item/content holding it
  std::string call_id;        // results on id-keyed wires; empty on positional ones
  std::string tool_name;      // results on wires that name them; may be empty
  std::string text;           // the result text as sent (OpenAI's "Error: " prefix included)
};

// The sampling fields of a request body, as literal JSON text; nullopt = absent.
struct SamplingView {
  std::optional<std::string> temperature;
  std::optional<std::string> top_p;
  std::optional<std::string> max_tokens;
};

// Everything the shared fixtures need to know about one wire.
struct WireDialect {
  std::string api;

  // -- the client --
  // A model row for this wire served from `base_url` (no catalog lookup): vendor, id, pricing,
  // thinking levels (with a thinking_level_map in compat when the wire maps levels), image input.
  std::function<Model(const std::string& base_url)> model;
  std::function<std::shared_ptr<providers::WireClient>(const providers::WireOptions&)> make_client;
  // Another model of the same catalog vendor, priced differently, that a reply may name as the
  // one that served it (REQ-PROV-05 rule 5); empty when the wire never reports the served model.
  std::string served_model_alternative;

  // -- rendering replies --
  std::function<std::string(const ScriptedReply&)> whole_body;               // application/json
  std::function<std::vector<std::string>(const ScriptedReply&)> stream_events;  // one string per event
  std::string stream_content_type;  // "text/event-stream" or "application/x-ndjson"
  bool carries_call_ids = true;     // false: ids are synthesised per response (Gemini, Ollama)
  // Places the dialect can render a cached count in; empty = the wire reports no cached tokens.
  std::vector<CachedPlace> cached_places = {CachedPlace::standard};

  // -- reading requests back (body = the parsed request JSON) --
  ToolResultPacking packing = ToolResultPacking::one_message_n_blocks;
  std::function<std::vector<PackedItem>(const json::Value& body)> packed_items;
  // How argument bytes appear verbatim in the request body text (an object spliced as-is, or the
  // JSON string holding them).
  std::function<std::string(std::string_view argument_bytes)> argument_text_in_body;
  std::function<SamplingView(const json::Value& body)> sampling;
  bool stop_sequences_on_wire = true;  // false: reported unsupported (an ErrorEvent), not sent
  std::function<std::vector<std::string>(const json::Value& body)> stop_sequences;
  // The reasoning level/budget value the body carries, in the catalog's thinking-map vocabulary
  // (what catalog::thinking_wire_value answers); nullopt when the body has none.
  std::function<std::optional<json::Value>(const json::Value& body)> thinking_value;
  std::function<std::size_t(const json::Value& body)> image_count;
  // Every text the body sends to the model (system, messages, results), concatenated.
  std::function<std::string(const json::Value& body)> all_text;
  std::function<std::vector<std::string>(const json::Value& body)> tool_names;
  // Level 0: the body's prompt-cache key, on wires that have one; nullptr elsewhere.
  std::function<std::optional<std::string>(const json::Value& body)> prompt_cache_key;
};

// Every wire with a dialect (dialects.cpp).
std::vector<WireDialect> all_dialects();

// ---- Running a fixture ---------------------------------------------------------------------------

// Wire options for tests: a fixed environment that holds a key for every vendor (never the
// process environment) and a fresh meter.
providers::WireOptions test_wire_options();

// One call of a wire against a loopback server that answers with a rendered reply.
struct Exchange {
  AssistantMessage message;           // stream().result()
  std::vector<Event> events;          // every event, in order
  std::vector<testing::ReceivedRequest> requests;
  std::shared_ptr<providers::CacheMeter> meter;
};

struct ExchangeOptions {
  bool streamed = true;
  // Each event is cut into pieces of at most this many bytes (exercises reassembly); 0 = whole.
  std::size_t piece_bytes = 0;
  // After the last piece the server holds the connection open (for cancel and timeout).
  bool stall = false;
  std::optional<std::chrono::milliseconds> timeout;
  // Fires this long after the call starts; nullopt = never.
  std::optional<std::chrono::milliseconds> cancel_after;
  int http_status = 200;
  std::string error_body;  // with a non-200 status
};

// The request every fixture starts from: one user message, no tools.
struct FixtureRequest {
  std::shared_ptr<Model> model;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  Request request;  // spans pointing into the vectors above, refreshed by bind()
  void bind();
};
FixtureRequest basic_request(const WireDialect& d, const std::string& base_url);

// Runs `reply` through `d` (a fresh server and client each time).
Exchange exchange(const WireDialect& d, const ScriptedReply& reply, const ExchangeOptions& options = {},
                  const std::function<void(FixtureRequest&)>& adjust = {});
// Sends `request` to a server that answers with `reply` and returns the captured request body.
struct Captured {
  std::string body_text;
  json::Value body;
  http::Headers headers;
  std::vector<Event> events;
  AssistantMessage message;
};
Captured capture(const WireDialect& d, const std::function<void(FixtureRequest&)>& adjust,
                 const providers::WireOptions& options = test_wire_options());

// A ToolSpec with its fingerprint computed.
ToolSpec tool_spec(std::string name, std::string description, json::Value schema);
// The canonical transcript REQ-LOOP-02 is stated on: one assistant turn with three calls and
// their three results, the second result carrying an extra image.
std::vector<Message> three_results_transcript(const Model& model);

}  // namespace agentkit::conformance
