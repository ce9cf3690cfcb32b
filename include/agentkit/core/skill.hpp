// agentkit/core/skill.hpp — a skill: named instructions plus bundled files, disclosed progressively.
//
//   agentkit::Skill review{
//       .name = "code-review",
//       .description = "How this team reviews C++ changes",
//       .body = "# Review checklist\n...",
//       .files = {{"checklists/cpp.md", "- RAII everywhere\n"}},
//   };
//
// The system prompt lists each skill by name and description only (a few lines per skill); the
// model reads a body or one bundled file on demand through the reserved `read_skill` tool, one file
// per call, so a large skill costs nothing until it is needed.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

namespace agentkit {

struct SkillFile {
  std::string path;     // relative, '/'-separated, e.g. "reference/api.md"
  std::string content;  // bytes; need not be UTF-8 (read_skill answers base64 then)
  friend bool operator==(const SkillFile&, const SkillFile&) = default;
};

struct Skill {
  std::string name;
  std::string description;
  std::string body;  // the SKILL.md text
  std::vector<SkillFile> files;
  friend bool operator==(const Skill&, const Skill&) = default;
};

}  // namespace agentkit
