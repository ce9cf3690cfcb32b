// Shared fixtures for the agent tests: an agent over the faux provider, tool builders and an
// event recorder that checks every item opens and closes exactly once.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"

namespace agentkit::testing {

// A tool that answers `reply` (or runs `body`) and counts its calls.
struct CountingTool {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  ToolDefinition definition;
};
CountingTool counting_tool(std::string name, std::string reply = "ok");
ToolDefinition tool_with(std::string name, ToolHandler handler,
                         ExecutionMode mode = ExecutionMode::parallel);

struct FauxAgent {
  std::shared_ptr<providers::FauxProvider> faux;
  Agent agent;
};
// An agent whose model is the faux provider with `script`.
FauxAgent faux_agent(std::vector<providers::FauxResponse> script, std::vector<ToolDefinition> tools = {},
                     RuntimeConfig runtime = {}, std::vector<Skill> skills = {});

// Records every event of a session (observer) and checks the open/close invariant.
class EventLog {
 public:
  std::function<void(const Event&)> observer();
  std::vector<Event> events() const;
  std::vector<std::string> names() const;
  int count(std::string_view name) const;
  // Empty when every message, block and tool execution opened and closed exactly once and
  // agent_start/agent_end pair up; otherwise a description of the first violation.
  std::string check_balanced() const;

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

// Reads `events` until an event named `name` arrives (true) or the stream ends (false).
bool wait_for_event(EventStream& events, std::string_view name);

// The last message of a recorded request.
const Message& last_message(const providers::RecordedRequest& r);
std::string text_of_message(const Message& m);

}  // namespace agentkit::testing
