// Stop-reason names, usage arithmetic and the message helpers of message.hpp.
#include <string>
#include <vector>

#include "agentkit/core/message.hpp"
#include "support/catch.hpp"

using namespace agentkit;

TEST_CASE("every stop reason has a stable name that parses back to itself") {
  const std::vector<std::pair<StopReason, std::string>> golden = {
      {StopReason::stop, "stop"},         {StopReason::length, "length"},
      {StopReason::tool_use, "tool_use"}, {StopReason::stop_sequence, "stop_sequence"},
      {StopReason::refusal, "refusal"},   {StopReason::error, "error"},
      {StopReason::aborted, "aborted"},   {StopReason::deferred, "deferred"},
  };
  for (const auto& [reason, name] : golden) {
    CHECK(to_string(reason) == name);
    CHECK(parse_stop_reason(name) == reason);
  }
}

TEST_CASE("every run stop reason has a stable name that parses back to itself") {
  const std::vector<std::pair<RunStopReason, std::string>> golden = {
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
  };
  for (const auto& [reason, name] : golden) {
    CHECK(to_string(reason) == name);
    CHECK(parse_run_stop_reason(name) == reason);
  }
}

TEST_CASE("an unknown or differently cased stop reason does not parse") {
  CHECK_FALSE(parse_stop_reason("end_turn").has_value());
  CHECK_FALSE(parse_stop_reason("Stop").has_value());
  CHECK_FALSE(parse_stop_reason("").has_value());
  CHECK_FALSE(parse_stop_reason("max_turns").has_value());  // run-level only
  CHECK_FALSE(parse_run_stop_reason("stop ").has_value());
}

TEST_CASE("a message stop reason maps to the run stop reason of the same name") {
  for (StopReason r : {StopReason::stop, StopReason::length, StopReason::tool_use, StopReason::stop_sequence,
                       StopReason::refusal, StopReason::error, StopReason::aborted, StopReason::deferred}) {
    CHECK(to_string(to_run_stop_reason(r)) == to_string(r));
  }
}

TEST_CASE("adding usage sums every count and every cost part") {
  Usage a;
  a.input_tokens = 10;
  a.output_tokens = 20;
  a.cache_read_tokens = 3;
  a.cache_write_tokens = 4;
  a.cache_write_1h_tokens = 1;
  a.reasoning_tokens = 5;
  a.cost = Cost{0.5, 1.0, 0.25, 0.125, 1.875};
  Usage b = a;
  b.input_tokens = 1;
  a += b;
  CHECK(a.input_tokens == 11);
  CHECK(a.output_tokens == 40);
  CHECK(a.cache_read_tokens == 6);
  CHECK(a.cache_write_tokens == 8);
  CHECK(a.cache_write_1h_tokens == 2);
  CHECK(a.reasoning_tokens == 10);
  CHECK(a.cost == Cost{1.0, 2.0, 0.5, 0.25, 3.75});
  CHECK(a.total_tokens() == 11 + 40 + 6 + 8);
}

TEST_CASE("adding usage keeps the left billed model and fills it only when empty") {
  Usage left;
  left.billed_model = "model-a";
  Usage right;
  right.billed_model = "model-b";
  left += right;
  CHECK(left.billed_model == "model-a");
  Usage empty;
  empty += right;
  CHECK(empty.billed_model == "model-b");
}

TEST_CASE("user_text builds a user message holding one text block") {
  const UserMessage m = user_text("hello");
  REQUIRE(m.content.size() == 1);
  CHECK(std::get<TextBlock>(m.content[0]).text == "hello");
}

TEST_CASE("text_of concatenates only the text blocks, in order") {
  AssistantMessage m;
  m.content = {TextBlock{"a"}, ThinkingBlock{"hidden", "", false, ""}, ToolUseBlock{"1", "t", json::Raw("{}"), ""},
               TextBlock{"b"}, ImageBlock{"image/png", "AAAA"}, TextBlock{"c"}};
  CHECK(text_of(m) == "abc");
  CHECK(text_of(std::vector<ContentBlock>{}) == "");
}

TEST_CASE("has_tool_use is true for a tool call whatever the stop reason says") {
  AssistantMessage m;
  m.stop_reason = StopReason::stop;
  CHECK_FALSE(has_tool_use(m));
  m.content.push_back(TextBlock{"thinking out loud"});
  CHECK_FALSE(has_tool_use(m));
  m.content.push_back(ToolUseBlock{"call_1", "list_files", json::Raw(R"({"path":"."})"), ""});
  CHECK(has_tool_use(m));
}

TEST_CASE("tool_uses answers the tool-use blocks in call order") {
  AssistantMessage m;
  m.content = {ToolUseBlock{"a", "first", json::Raw("{}"), ""}, TextBlock{"between"},
               ToolUseBlock{"b", "second", json::Raw("{}"), ""}};
  const std::vector<const ToolUseBlock*> calls = tool_uses(m);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]->id == "a");
  CHECK(calls[1]->id == "b");
  CHECK(calls[0] == &std::get<ToolUseBlock>(m.content[0]));  // views, not copies
}

TEST_CASE("role_of names each message kind") {
  CHECK(role_of(Message(UserMessage{})) == "user");
  CHECK(role_of(Message(AssistantMessage{})) == "assistant");
  CHECK(role_of(Message(ToolResultMessage{})) == "tool_result");
}
