// What discovery needs from the skill-folder reader beyond the public header.
#pragma once

#include <string_view>
#include <vector>

#include "agentkit/skills/skill_folder.hpp"

namespace agentkit::skills::detail {

// load_skill_folder for a folder the caller already holds open as `dir_fd`, whose absolute,
// normal path (no trailing '/') is `abs`: SKILL.md is opened relative to the descriptor, so a
// scan resolves no path twice. No SKILL.md is Errc::not_found.
Result<LoadedSkill> load_skill_at(int dir_fd, std::string_view abs,
                                  std::vector<Diagnostic>& diagnostics,
                                  const SkillFolderOptions& options);

}  // namespace agentkit::skills::detail
