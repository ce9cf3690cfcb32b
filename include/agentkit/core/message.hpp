// agentkit/core/message.hpp — the canonical transcript: content blocks, messages, stop reasons, usage.
//
//   using namespace agentkit;
//   Message user = UserMessage{{TextBlock{"list the files"}}};
//   AssistantMessage reply;
//   reply.content.push_back(ToolUseBlock{"call_1", "list_files", json::Raw(R"({"path":"."})")});
//   reply.stop_reason = StopReason::stop;        // a "stop" next to a tool call still runs it
//   assert(has_tool_use(reply));
//   Message result = ToolResultMessage{.tool_use_id = "call_1", .tool_name = "list_files",
//                                      .content = {TextBlock{"a.txt"}}};
//
// Every wire (Anthropic, OpenAI Chat/Responses, Gemini, Ollama) encodes from and decodes into these
// types; nothing wire-specific lives here. One ToolResultMessage per tool call, keyed by the
// tool-use id; how results are packed into a request is each wire's business.
// Tool-call arguments are kept as the exact bytes the model produced (json::Raw), so a replayed
// call is byte-identical. Opaque provider payloads (thinking signatures, encrypted
// reasoning, Gemini thought signatures) are stored and replayed, never inspected.
//
// Thread safety: plain values.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit {

using Timestamp = std::chrono::system_clock::time_point;

// ---- Content blocks ---------------------------------------------------------------------------

struct TextBlock {
  std::string text;
  friend bool operator==(const TextBlock&, const TextBlock&) = default;
};

// Model reasoning. `signature` is the provider's opaque integrity token (Anthropic's signature,
// OpenAI Responses' encrypted_content); it may be empty after an aborted stream. `redacted` marks
// reasoning the provider returned only in encrypted form (the bytes are in `signature`).
// `id` is the provider's item id where one exists (OpenAI Responses reasoning items).
struct ThinkingBlock {
  std::string thinking;
  std::string signature;
  bool redacted = false;
  std::string id;
  friend bool operator==(const ThinkingBlock&, const ThinkingBlock&) = default;
};

// A tool call. `input` holds the argument bytes exactly as the model produced them (normalised to
// "{}" when empty); parse_input() is the parsed view. `thought_signature` is Gemini's opaque
// per-call token. `id` may be synthesised by a wire that carries none (Gemini, Ollama).
struct ToolUseBlock {
  std::string id;
  std::string name;
  json::Raw input{"{}"};
  std::string thought_signature;

  // The arguments as a JSON value; fails when the bytes are not valid JSON (a truncated call).
  Result<json::Value> parse_input() const { return input.parse(); }
  friend bool operator==(const ToolUseBlock&, const ToolUseBlock&) = default;
};

// An image as base64 text with its MIME type (image/png, image/jpeg, image/gif, image/webp).
struct ImageBlock {
  std::string mime_type;
  std::string data_base64;
  friend bool operator==(const ImageBlock&, const ImageBlock&) = default;
};

// A block this build does not model, kept verbatim so a round trip through the codec (a session
// snapshot) loses nothing. Wires drop it when encoding a request.
struct UnknownBlock {
  std::string type;
  json::Value raw;
  friend bool operator==(const UnknownBlock&, const UnknownBlock&) = default;
};

using ContentBlock = std::variant<TextBlock, ThinkingBlock, ToolUseBlock, ImageBlock, UnknownBlock>;

// ---- Stop reasons ---------------------------------------------------------------------------

// Why one assistant message ended. It never decides whether the loop iterates: the presence of
// tool-use blocks does. Only `error` and `aborted` end a turn before tools run.
enum class StopReason : std::uint8_t {
  stop,            // the model finished
  length,          // the output-token limit cut it off (tool calls in it are not executed)
  tool_use,        // the model asked for tools
  stop_sequence,   // a caller stop sequence matched
  refusal,         // the provider refused (safety)
  error,           // the request failed; error_message says why
  aborted,         // cancelled; the partial content is kept
  deferred,        // submitted for later (batch) processing
};

// Why a whole run ended: a message's reason, or a loop-level one.
enum class RunStopReason : std::uint8_t {
  stop,
  length,
  tool_use,  // only when a stop policy ends the run on a tool turn
  stop_sequence,
  refusal,
  error,
  aborted,
  deferred,
  max_turns,       // RuntimeConfig's max_turns, or stop_after_turns()
  stop_policy,     // a stop policy (budget, predicate) ended the run
  tool_terminate,  // every call of the last batch voted to terminate
  invalid_answer,  // the final answer still broke the turn's answer schema after the repair turns
  awaiting_approval,  // a call of the last batch waits for a person (RunResult::pending_approvals)
  budget_exhausted,   // LoopConfig::budget (tokens, USD or wall time) ran out: what the run has
};

std::string_view to_string(StopReason r) noexcept;
std::string_view to_string(RunStopReason r) noexcept;
std::optional<StopReason> parse_stop_reason(std::string_view s) noexcept;
std::optional<RunStopReason> parse_run_stop_reason(std::string_view s) noexcept;
RunStopReason to_run_stop_reason(StopReason r) noexcept;

// ---- Usage ----------------------------------------------------------------------------------

// Cost in US dollars, broken down the way providers bill.
struct Cost {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
  double total = 0;
  Cost& operator+=(const Cost& o) noexcept;
  friend bool operator==(const Cost&, const Cost&) = default;
};

// Token counts. `input_tokens` excludes cached tokens (each wire nets them out exactly once);
// `reasoning_tokens` is included in `output_tokens`; `cache_write_1h_tokens` is included in
// `cache_write_tokens`.
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  std::int64_t cache_write_1h_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  Cost cost;
  // The model the provider says served the request (cost is priced against it), when known.
  std::string billed_model;

  std::int64_t total_tokens() const noexcept {
    return input_tokens + output_tokens + cache_read_tokens + cache_write_tokens;
  }
  // Adds counts and costs (billed_model keeps the left side unless it is empty).
  Usage& operator+=(const Usage& o) noexcept;
  friend bool operator==(const Usage&, const Usage&) = default;
};

// ---- Messages --------------------------------------------------------------------------------

struct UserMessage {
  std::vector<ContentBlock> content;
  Timestamp timestamp{};
  friend bool operator==(const UserMessage&, const UserMessage&) = default;
};

struct AssistantMessage {
  std::vector<ContentBlock> content;
  StopReason stop_reason = StopReason::stop;
  // The provider's own stop/finish reason string, verbatim; never drives control flow.
  std::string raw_stop_reason;
  // Set when stop_reason is error or aborted (and may be set on aborted with partial content).
  std::string error_message;
  Usage usage;
  Timestamp timestamp{};
  // Provenance: who produced this message. A transcript may mix providers, and replaying one
  // vendor's signatures or ids to another is a 400, so send-time repair reads these.
  std::string provider;        // vendor, e.g. "anthropic"
  std::string api;             // wire, e.g. "anthropic-messages"
  std::string model;           // the model id requested
  std::string response_model;  // the model id the provider reported, when different
  std::string response_id;
  friend bool operator==(const AssistantMessage&, const AssistantMessage&) = default;
};

struct ToolResultMessage {
  std::string tool_use_id;
  std::string tool_name;
  std::vector<ContentBlock> content;  // text and images, in order
  bool is_error = false;
  Timestamp timestamp{};
  // Facts about the execution (truncation, spill file, exit code, duration). Persisted and
  // evented, never sent to a model.
  json::Object metadata;
  // Tools first offered to the model after this point, recorded for replay.
  std::vector<std::string> added_tool_names;
  friend bool operator==(const ToolResultMessage&, const ToolResultMessage&) = default;
};

using Message = std::variant<UserMessage, AssistantMessage, ToolResultMessage>;

// ---- Helpers ----------------------------------------------------------------------------------

// A user message holding one text block.
UserMessage user_text(std::string text);
// The concatenation of the text blocks, in order.
std::string text_of(const std::vector<ContentBlock>& content);
std::string text_of(const AssistantMessage& m);
// True when the message holds at least one tool-use block (the loop's continuation test).
bool has_tool_use(const AssistantMessage& m) noexcept;
// The tool-use blocks in order.
std::vector<const ToolUseBlock*> tool_uses(const AssistantMessage& m);
// "user", "assistant" or "tool_result".
std::string_view role_of(const Message& m) noexcept;

// ---- JSON codec (lossless; used by session snapshots and events) -------------------------------

json::Value to_json(const ContentBlock& block);
json::Value to_json(const Message& message);
json::Value to_json(const Usage& usage);
Result<ContentBlock> content_block_from_json(const json::Value& v);
Result<Message> message_from_json(const json::Value& v);
Result<Usage> usage_from_json(const json::Value& v);
// Appends the message's JSON text to `out`: byte for byte json::dump(to_json(message)), written
// without building the tree (a quarter of the time; the session log writes messages with it).
void append_json_text(std::string& out, const Message& message);

}  // namespace agentkit
