// agentkit/prompt.hpp — what an agent's system prompt is made of, for the embedder to inspect.
//
//   agentkit::skills::AssembledPrompt p = agentkit::system_prompt_record(agent->definition());
//   for (const auto& s : p.sections) {
//     std::clog << agentkit::skills::section_kind_name(s.kind) << " " << s.source << " "
//               << s.bytes << (s.truncated ? " (truncated)" : "") << "\n";
//   }
//
// make_agent assembles every turn's system prompt with skills::assemble_prompt from exactly these
// inputs, plus the guidelines of the tools that turn offers; system_prompt_record gives the prompt
// of a turn that offers all of the definition's direct tools (MCP tools join when connected).
//
// Thread safety: pure functions of their argument.
#pragma once

#include "agentkit/definition.hpp"
#include "agentkit/skills/prompt.hpp"

namespace agentkit {

// The instructions, context files and skills catalog of `definition` as prompt inputs (no tool
// guidelines: those depend on the tools a turn offers).
skills::PromptInputs prompt_inputs(const AgentDefinition& definition);

// The assembled prompt, with its sections and the skills it lists.
skills::AssembledPrompt system_prompt_record(const AgentDefinition& definition);

}  // namespace agentkit
