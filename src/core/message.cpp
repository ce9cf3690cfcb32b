// Stop-reason names, usage arithmetic and the small message helpers of message.hpp.
#include <array>
#include <string>
#include <utility>

#include "agentkit/core/message.hpp"

namespace agentkit {

namespace {

// The spellings are part of the session snapshot format and the event stream: never rename one.
constexpr std::array<std::pair<StopReason, std::string_view>, 8> kStopReasonNames{{
    {StopReason::stop, "stop"},
    {StopReason::length, "length"},
    {StopReason::tool_use, "tool_use"},
    {StopReason::stop_sequence, "stop_sequence"},
    {StopReason::refusal, "refusal"},
    {StopReason::error, "error"},
    {StopReason::aborted, "aborted"},
    {StopReason::deferred, "deferred"},
}};

constexpr std::array kRunStopReasonNames =
    std::to_array<std::pair<RunStopReason, std::string_view>>({
        {RunStopReason::stop, "stop"},
        {RunStopReason::length, "length"},
        {RunStopReason::tool_use, "tool_use"},
        {RunStopReason::stop_sequence, "stop_sequence"},
        {RunStopReason::refusal, "refusal"},
        {RunStopReason::error, "error"},
        {RunStopReason::aborted, "aborted"},
        {RunStopReason::deferred, "deferred"},
        {RunStopReason::max_turns, "max_turns"},
        {RunStopReason::stop_policy, "stop_policy"},
        {RunStopReason::tool_terminate, "tool_terminate"},
        {RunStopReason::invalid_answer, "invalid_answer"},
        {RunStopReason::awaiting_approval, "awaiting_approval"},
        {RunStopReason::budget_exhausted, "budget_exhausted"},
    });

template <class Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) noexcept {
  for (const auto& [candidate, name] : table) {
    if (candidate == value) return name;
  }
  return "unknown";  // only reachable through a value cast from outside the enum's range
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
                             std::string_view name) noexcept {
  for (const auto& [candidate, candidate_name] : table) {
    if (candidate_name == name) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(StopReason r) noexcept { return name_of(kStopReasonNames, r); }
std::string_view to_string(RunStopReason r) noexcept { return name_of(kRunStopReasonNames, r); }

std::optional<StopReason> parse_stop_reason(std::string_view s) noexcept {
  return value_of(kStopReasonNames, s);
}
std::optional<RunStopReason> parse_run_stop_reason(std::string_view s) noexcept {
  return value_of(kRunStopReasonNames, s);
}

RunStopReason to_run_stop_reason(StopReason r) noexcept {
  switch (r) {
    case StopReason::stop: return RunStopReason::stop;
    case StopReason::length: return RunStopReason::length;
    case StopReason::tool_use: return RunStopReason::tool_use;
    case StopReason::stop_sequence: return RunStopReason::stop_sequence;
    case StopReason::refusal: return RunStopReason::refusal;
    case StopReason::error: return RunStopReason::error;
    case StopReason::aborted: return RunStopReason::aborted;
    case StopReason::deferred: return RunStopReason::deferred;
  }
  return RunStopReason::error;  // a value cast from outside the enum: treat it as a failure
}

Cost& Cost::operator+=(const Cost& o) noexcept {
  input += o.input;
  output += o.output;
  cache_read += o.cache_read;
  cache_write += o.cache_write;
  total += o.total;
  return *this;
}

Usage& Usage::operator+=(const Usage& o) noexcept {
  input_tokens += o.input_tokens;
  output_tokens += o.output_tokens;
  cache_read_tokens += o.cache_read_tokens;
  cache_write_tokens += o.cache_write_tokens;
  cache_write_1h_tokens += o.cache_write_1h_tokens;
  reasoning_tokens += o.reasoning_tokens;
  cost += o.cost;
  // Assigning a std::string may allocate, which cannot be reported from a noexcept operator;
  // running out of memory here terminates, like any other allocation failure in a noexcept path.
  if (billed_model.empty()) billed_model = o.billed_model;
  return *this;
}

UserMessage user_text(std::string text) {
  UserMessage m;
  m.content.emplace_back(TextBlock{std::move(text)});
  return m;
}

std::string text_of(const std::vector<ContentBlock>& content) {
  std::string out;
  for (const ContentBlock& block : content) {
    if (const auto* text = std::get_if<TextBlock>(&block)) out += text->text;
  }
  return out;
}

std::string text_of(const AssistantMessage& m) { return text_of(m.content); }

bool has_tool_use(const AssistantMessage& m) noexcept {
  for (const ContentBlock& block : m.content) {
    if (std::holds_alternative<ToolUseBlock>(block)) return true;
  }
  return false;
}

std::vector<const ToolUseBlock*> tool_uses(const AssistantMessage& m) {
  std::vector<const ToolUseBlock*> out;
  for (const ContentBlock& block : m.content) {
    if (const auto* call = std::get_if<ToolUseBlock>(&block)) out.push_back(call);
  }
  return out;
}

std::string_view role_of(const Message& m) noexcept {
  if (std::holds_alternative<UserMessage>(m)) return "user";
  if (std::holds_alternative<AssistantMessage>(m)) return "assistant";
  return "tool_result";
}

}  // namespace agentkit
