// agentkit/skills/skill_folder.hpp — one Agent Skills folder: SKILL.md plus bundled files.
//
//   std::vector<agentkit::skills::Diagnostic> notes;
//   auto loaded = agentkit::skills::load_skill_folder("/repo/.agents/skills/pdf", notes);
//   if (loaded) definition.skills.push_back(loaded->skill);  // skill.location: its SKILL.md
//   for (const auto& d : notes) std::clog << d.to_string() << "\n";
//   // Later, when the model asks for a bundled file (read_skill does this):
//   auto listed = agentkit::skills::list_bundled_files(loaded->folder, notes);
//   auto text = agentkit::skills::read_bundled_file(loaded->folder, "references/api.md");
//
// SKILL.md is YAML front matter then a Markdown body. `description` is the only field whose
// absence leaves the skill out; every other departure from the format (a name that does not match
// its folder, a description over 1024 characters, keys the format does not define) is a warning
// and the skill loads, because other hosts load such skills too. Loading reads SKILL.md only:
// bundled files (scripts/, references/, assets/, anything else under the folder) are listed and
// read on demand, within byte caps, and nothing outside the folder is ever read (".." segments,
// absolute paths and symlinks that resolve outside are refused).
//
// Thread safety: plain values and functions that touch only their arguments and the file system.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/skill.hpp"
#include "agentkit/skills/front_matter.hpp"

namespace agentkit::skills {

// A skill as read from disk: what the agent gets (`skill`) plus the fields the agent does not use.
struct LoadedSkill {
  Skill skill;                       // name, description, body, location (files stay empty)
  std::filesystem::path folder;      // absolute, as found (not symlink-resolved)
  std::filesystem::path skill_file;  // folder / "SKILL.md"
  std::string license;
  std::string compatibility;
  std::vector<std::pair<std::string, std::string>> metadata;  // in file order
  std::vector<std::string> allowed_tools;  // a list, or a string split on spaces and commas
  std::vector<std::string> unknown_keys;   // kept in `extra`, reported as unknown_key
  std::vector<YamlEntry> extra;            // the unknown keys' values
};

// Bounds for reading a skill folder. Safe to copy.
struct SkillFolderOptions {
  // A SKILL.md larger than this is left out with a file_too_large diagnostic (a 10 MB body would
  // otherwise be held in memory for every agent built from it).
  std::size_t max_skill_file_bytes = 1024 * 1024;
  // A bundled file larger than this is not listed, and reading it is Errc::limit_exceeded.
  std::size_t max_bundled_file_bytes = 256 * 1024;
  // At most this many bundled files are listed; the rest are reported once.
  std::size_t max_bundled_files = 64;
  // Deepest sub-folder searched for bundled files, counted from the skill folder.
  std::size_t max_bundled_depth = 4;
  FrontMatterOptions front_matter;
};

// The Error detail key whose value names the DiagnosticCode of a skill that was left out.
inline constexpr std::string_view kDiagnosticDetail = "diagnostic";

// Parses the text of a SKILL.md. `folder_name` is the name of its folder (for the name rules) and
// `file` the path used in diagnostics. Errors (no front matter, unreadable front matter, no
// description) are Errc::parse_error or Errc::invalid_argument with the reason; warnings are
// appended to `diagnostics`. Bundled files are not read here.
Result<LoadedSkill> parse_skill_file(std::string_view text, std::string_view folder_name,
                                     std::string_view file, std::vector<Diagnostic>& diagnostics,
                                     const SkillFolderOptions& options = {});

// Reads `folder`/SKILL.md and sets skill.location to its absolute path; bundled files are not
// read (see list_bundled_files). Errors as parse_skill_file, plus Errc::not_found,
// Errc::io_error or Errc::limit_exceeded for the file itself.
Result<LoadedSkill> load_skill_folder(const std::filesystem::path& folder,
                                      std::vector<Diagnostic>& diagnostics,
                                      const SkillFolderOptions& options = {});

// A file that came with a skill, as listed (not read).
struct BundledFile {
  std::string path;         // relative to the skill folder, '/'-separated
  std::uint64_t bytes = 0;  // its size on disk
  friend bool operator==(const BundledFile&, const BundledFile&) = default;
};

// The files beneath `folder` that belong to its skill, in path order: every regular file but
// SKILL.md itself, not under `.git` or `node_modules`, and not under a sub-folder that holds its
// own SKILL.md (a separate skill). Left out, each with a diagnostic: symlinks that resolve outside
// the folder (path_escapes), files over max_bundled_file_bytes (file_too_large), FIFOs, devices
// and unreadable entries (file_unreadable), folders past max_bundled_depth and files past
// max_bundled_files (scan_limit).
std::vector<BundledFile> list_bundled_files(const std::filesystem::path& folder,
                                            std::vector<Diagnostic>& diagnostics,
                                            const SkillFolderOptions& options = {});

// Reads one bundled file on demand. `path` is relative to `folder` ('/' or '\\' separated); the
// file must be one list_bundled_files would list, except for the count cap. Errors, each naming
// the folder and the path: Errc::invalid_argument for an absolute path, a NUL byte, a ".."
// segment, `.git`/`node_modules`, a file of a nested skill, a symlink that resolves outside
// (detail "diagnostic": "path_escapes") or a FIFO or device; Errc::not_found;
// Errc::limit_exceeded over max_bundled_file_bytes; Errc::permission_denied or Errc::io_error.
Result<std::string> read_bundled_file(const std::filesystem::path& folder, std::string_view path,
                                      const SkillFolderOptions& options = {});

// True when `name` follows the skill format: 1-64 characters of a-z, 0-9 and '-', with no hyphen
// at either end and no two in a row.
bool is_valid_skill_name(std::string_view name) noexcept;

}  // namespace agentkit::skills
