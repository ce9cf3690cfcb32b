#include "our_view.hpp"

#include <string>
#include <variant>

namespace agentkit::difftest {

namespace {

json::Value tool_call_view(const ToolUseBlock& call) {
  json::Object o{{"id", call.id}, {"name", call.name}};
  // The parsed arguments keep their number literals (agentkit_json), so "1.0" stays "1.0"; bytes
  // that do not parse (a truncated call) are shown as the string they are.
  Result<json::Value> parsed = call.parse_input();
  o.append_unique("arguments", parsed ? std::move(*parsed) : json::Value(call.input.str()));
  o.append_unique("arguments_bytes", call.input.str());
  return o;
}

json::Value usage_view(const Usage& u) {
  return json::Object{{"input_tokens", u.input_tokens},
                      {"output_tokens", u.output_tokens},
                      {"cache_read_tokens", u.cache_read_tokens},
                      {"cache_write_tokens", u.cache_write_tokens},
                      {"reasoning_tokens", u.reasoning_tokens}};
}

}  // namespace

json::Value view_of(const AssistantMessage& message) {
  std::string text;
  std::string thinking;
  json::Array calls;
  for (const ContentBlock& block : message.content) {
    if (const auto* t = std::get_if<TextBlock>(&block)) text += t->text;
    else if (const auto* th = std::get_if<ThinkingBlock>(&block)) thinking += th->thinking;
    else if (const auto* call = std::get_if<ToolUseBlock>(&block)) calls.push_back(tool_call_view(*call));
  }
  json::Object view{{"text", text}, {"thinking", thinking}, {"tool_calls", std::move(calls)}};
  view.append_unique("stop_reason", message.raw_stop_reason);
  view.append_unique("usage", usage_view(message.usage));
  view.append_unique("error", message.stop_reason == StopReason::error);
  return view;
}

}  // namespace agentkit::difftest
