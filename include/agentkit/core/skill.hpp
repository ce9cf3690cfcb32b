// agentkit/core/skill.hpp — a skill: named instructions plus bundled files, disclosed progressively.
//
//   agentkit::Skill review{
//       .name = "code-review",
//       .description = "How this team reviews C++ changes",
//       .body = "# Review checklist\n...",
//       .files = {{"checklists/cpp.md", "- RAII everywhere\n"}},
//   };
//
// The system prompt lists each skill by name, description and location only (three lines per
// skill); the model reads a body or one bundled file on demand through the reserved `read_skill`
// tool, one file per call, so a large skill costs nothing until it is needed. A skill read from
// disk (skills::load_skill_folder, skills::discover_skills) has a `location` and no `files`: its
// bundled files are listed and read from its folder when the model asks, within caps.
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
  std::vector<SkillFile> files;  // bundled files held in memory
  // The absolute path of the skill's SKILL.md when it was read from disk; empty for a skill built
  // in memory. read_skill lists and reads bundled files under its folder on demand, and the
  // catalog shows it as the skill's location. (The `= {}` keeps four-value initialisers free of
  // -Wmissing-field-initializers.)
  std::string location = {};
  friend bool operator==(const Skill&, const Skill&) = default;
};

}  // namespace agentkit
