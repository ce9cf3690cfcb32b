#include "harness.hpp"

#include <map>
#include <stdexcept>

namespace agentkit::testing {

CountingTool counting_tool(std::string name, std::string reply) {
  CountingTool t;
  auto calls = t.calls;
  t.definition.name = std::move(name);
  t.definition.description = "test tool";
  t.definition.input_schema = Schema();
  t.definition.handler = [calls, reply](const json::Value&, const ToolContext&) {
    ++*calls;
    return ToolResult::text_result(reply);
  };
  return t;
}

ToolDefinition tool_with(std::string name, ToolHandler handler, ExecutionMode mode) {
  ToolDefinition t;
  t.name = std::move(name);
  t.description = "test tool";
  t.handler = std::move(handler);
  t.execution_mode = mode;
  return t;
}

FauxAgent faux_agent(std::vector<providers::FauxResponse> script, std::vector<ToolDefinition> tools,
                     RuntimeConfig runtime, std::vector<Skill> skills) {
  auto faux = std::make_shared<providers::FauxProvider>(std::move(script));
  if (runtime.model.spec.empty() && !runtime.model.descriptor) runtime.model.spec = "faux/test";
  runtime.providers.add("faux", faux);
  AgentDefinition def;
  def.instructions = "You are a test agent.";
  def.tools.direct = std::move(tools);
  def.skills = std::move(skills);
  auto agent = make_agent(std::move(def), std::move(runtime));
  if (!agent) throw std::runtime_error("faux_agent: " + agent.error().to_string());
  return FauxAgent{faux, std::move(*agent)};
}

std::function<void(const Event&)> EventLog::observer() {
  return [this](const Event& e) {
    std::lock_guard lock(mu_);
    events_.push_back(e);
  };
}

std::vector<Event> EventLog::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

std::vector<std::string> EventLog::names() const {
  std::vector<std::string> out;
  for (const auto& e : events()) out.emplace_back(event_name(e));
  return out;
}

int EventLog::count(std::string_view name) const {
  int n = 0;
  for (const auto& e : events()) n += event_name(e) == name ? 1 : 0;
  return n;
}

std::string EventLog::check_balanced() const {
  std::map<std::string, int> open;  // key -> open count
  auto opened = [&](const std::string& key) -> std::string {
    if (open[key]++ != 0) return "opened twice: " + key;
    return {};
  };
  auto closed = [&](const std::string& key) -> std::string {
    if (open[key]-- != 1) return "closed without being open (or twice): " + key;
    return {};
  };
  int message_seq = 0;
  std::string problem;
  for (const auto& e : events()) {
    std::string_view n = event_name(e);
    if (n == "agent_start") problem = opened("agent");
    if (n == "agent_end") problem = closed("agent");
    if (n == "turn_start") problem = opened("turn " + std::to_string(std::get<TurnStartEvent>(e).turn_index));
    if (n == "turn_end") problem = closed("turn " + std::to_string(std::get<TurnEndEvent>(e).turn_index));
    if (n == "message_start") problem = opened("message " + std::to_string(message_seq));
    if (n == "message_end") problem = closed("message " + std::to_string(message_seq++));
    if (n == "block_start") problem = opened("block " + std::to_string(message_seq) + "." + std::to_string(std::get<BlockStartEvent>(e).block_index));
    if (n == "block_end") problem = closed("block " + std::to_string(message_seq) + "." + std::to_string(std::get<BlockEndEvent>(e).block_index));
    if (n == "tool_execution_start") problem = opened("tool " + std::get<ToolExecutionStartEvent>(e).tool_use_id);
    if (n == "tool_execution_end") problem = closed("tool " + std::get<ToolExecutionEndEvent>(e).tool_use_id);
    if (!problem.empty()) return problem;
  }
  for (const auto& [key, n] : open) {
    if (n != 0) return "never closed: " + key;
  }
  return {};
}

bool wait_for_event(EventStream& events, std::string_view name) {
  while (auto ev = events.next()) {
    if (event_name(*ev) == name) return true;
  }
  return false;
}

const Message& last_message(const providers::RecordedRequest& r) { return r.messages.back(); }

std::string text_of_message(const Message& m) {
  return std::visit([](const auto& msg) { return text_of(msg.content); }, m);
}

}  // namespace agentkit::testing
