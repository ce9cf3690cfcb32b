// agentkit/skills/discovery.hpp — finding skills on disk: the project, the user's home, and
// folders the embedder names, in that order of precedence.
//
//   agentkit::skills::DiscoveryOptions options;
//   options.project_root = "/work/repo";
//   options.working_dir = "/work/repo/services/api";  // a monorepo subtree
//   options.trust_project = true;  // default false: a cloned repository is not trusted
//   agentkit::skills::SkillCatalog catalog = agentkit::skills::discover_skills(options);
//   definition.skills = catalog.definitions();
//   for (const auto& d : catalog.diagnostics) std::clog << d.to_string() << "\n";
//
// Tiers, highest precedence first: the project (<folder>/.agents/skills and <folder>/.claude/skills
// for every folder from the working folder up to the project root, the deepest first), the user
// (the same two under the home folder), then `folders`. A skill whose name an earlier tier
// already has is left out and reported with both paths. Project skills are read only when
// `trust_project` is true. Scans skip `.git` and `node_modules`, never visit a folder twice
// (symlink loops end), and stop at a depth and a folder-count cap.
//
// Thread safety: discover_skills touches only its arguments, the file system and (to find the
// home folder) the environment and the password database; call it from any thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/core/skill.hpp"
#include "agentkit/skills/front_matter.hpp"
#include "agentkit/skills/skill_folder.hpp"

namespace agentkit::skills {

enum class SkillTier { project, user, named_folder };
// "project", "user", "folder".
std::string_view skill_tier_name(SkillTier tier) noexcept;

// Where and how to look for skills. Safe to copy.
struct DiscoveryOptions {
  // The project (usually repository) root. Empty: no project tier.
  std::filesystem::path project_root;
  // The folder the agent works in. When it lies under project_root, each folder from it up to
  // the root contributes its skills folders. Empty: project_root.
  std::filesystem::path working_dir;
  // Read project skills at all. Default false: a repository would otherwise write prompt text
  // just by being the working folder.
  bool trust_project = false;
  // Search the user's home folder.
  bool user_tier = true;
  // The home folder. Empty: $HOME when it is absolute, else the password database's entry when
  // that is absolute; otherwise the user tier is skipped (never resolved against the working
  // folder, where a repository could impersonate it).
  std::filesystem::path home;
  // Further folders that hold skill folders, lowest precedence, searched in order.
  std::vector<std::filesystem::path> folders;
  // Skills folders relative to each project folder and to home, in precedence order.
  std::vector<std::filesystem::path> skill_dirs = {".agents/skills", ".claude/skills"};
  // Deepest folder searched below a skills folder (1: only its direct children).
  std::size_t max_depth = 4;
  // Most folders visited in one discovery; the rest are reported once as scan_limit.
  std::size_t max_folders = 10'000;
  // Caps for each skill folder.
  SkillFolderOptions folder;
};

struct DiscoveredSkill {
  LoadedSkill loaded;
  SkillTier tier = SkillTier::project;
};

// The result of a discovery. Plain values.
struct SkillCatalog {
  std::vector<DiscoveredSkill> skills;          // by name
  std::vector<Diagnostic> diagnostics;          // in discovery order
  std::vector<std::filesystem::path> searched;  // every skills folder that existed and was read

  // The skills as AgentDefinition::skills takes them.
  std::vector<Skill> definitions() const;
  // The loaded skills' names, for the audit record.
  std::vector<std::string> names() const;
};

SkillCatalog discover_skills(const DiscoveryOptions& options);

// $HOME when set and absolute, else the password database's home when absolute, else nullopt.
std::optional<std::filesystem::path> resolve_home();

}  // namespace agentkit::skills
