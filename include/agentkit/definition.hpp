// agentkit/definition.hpp — what an agent IS: instructions, skills and tools. Immutable once an
// Agent is built from it; a change means a new Agent (continuity comes from a SessionHandle).
//
//   agentkit::AgentDefinition def{
//       .instructions = "You are a careful assistant for this repository.",
//       .skills = {},
//       .tools = {.direct = {echo_tool}, .mcp = {}},
//   };
//
// Tool names form one flat namespace: direct tools, MCP tools (named `server__tool`) and the
// reserved `read_skill` (installed when there are skills) enter one registry when the agent is
// built; a duplicate fails make_agent with an error naming both owners.
//
// Thread safety: plain values.
#pragma once

#include <functional>
#include <memory>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/skill.hpp"
#include "agentkit/skills/context_file.hpp"
#include "agentkit/core/tool.hpp"

namespace agentkit {

// A server whose tools join the agent when it is built. `connect` is called once by make_agent and
// answers the server's tools with their server-local names; make_agent names them `name__tool`.
// The handlers it returns keep their connection alive; the connection closes when the last agent
// holding them closes. agentkit::mcp builds these from a server configuration.
struct McpToolSource {
  std::string name;
  std::function<Result<std::vector<ToolDefinition>>(agentkit::stop_token)> connect;
};

struct ToolSet {
  std::vector<ToolDefinition> direct;
  std::vector<McpToolSource> mcp;
};

struct AgentDefinition {
  std::string instructions;
  std::vector<Skill> skills;
  ToolSet tools;
  // Project instructions (AGENTS.md and the like, from skills::load_context_files), escaped into
  // the system prompt after the instructions, in this order.
  std::vector<skills::ContextFile> context_files;
};

// The name of the tool installed when a definition has skills; no other tool may use it.
inline constexpr std::string_view kReadSkillToolName = "read_skill";

}  // namespace agentkit
