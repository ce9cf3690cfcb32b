// Skill discovery: tiers in precedence order, each skills folder scanned depth-first with a
// visited set (so a symlink loop ends), the first skill of a name winning.
#include "agentkit/skills/discovery.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <system_error>

namespace agentkit::skills {
namespace fs = std::filesystem;

std::string_view skill_tier_name(SkillTier tier) noexcept {
  switch (tier) {
    case SkillTier::project: return "project";
    case SkillTier::user: return "user";
    case SkillTier::named_folder: return "folder";
  }
  return "unknown";
}

std::vector<Skill> SkillCatalog::definitions() const {
  std::vector<Skill> out;
  out.reserve(skills.size());
  for (const auto& s : skills) out.push_back(s.loaded.skill);
  return out;
}

std::vector<std::string> SkillCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& s : skills) out.push_back(s.loaded.skill.name);
  return out;
}

std::optional<fs::path> resolve_home() {
  if (const char* env = std::getenv("HOME"); env != nullptr && fs::path(env).is_absolute()) {
    return fs::path(env);
  }
  // getpwuid_r, not getpwuid: the latter's static buffer is shared between threads.
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::string buf(size > 0 ? static_cast<std::size_t>(size) : 16384, '\0');
  struct passwd pw {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr && fs::path(found->pw_dir).is_absolute()) {
    return fs::path(found->pw_dir);
  }
  return std::nullopt;
}

namespace {

DiagnosticCode code_from_error(const Error& e) {
  auto name = e.find_detail(kDiagnosticDetail);
  for (int c = 0; c <= static_cast<int>(DiagnosticCode::prompt_budget); ++c) {
    auto code = static_cast<DiagnosticCode>(c);
    if (name && *name == diagnostic_code_name(code)) return code;
  }
  return DiagnosticCode::file_unreadable;
}

class Scanner {
 public:
  Scanner(const DiscoveryOptions& options, SkillCatalog& out) : options_(options), out_(out) {}

  void scan_root(const fs::path& root, SkillTier tier) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    out_.searched.push_back(root);
    scan(root, tier, 0);
  }

  void finish() {
    std::sort(out_.skills.begin(), out_.skills.end(), [](const auto& a, const auto& b) {
      return a.loaded.skill.name < b.loaded.skill.name;
    });
  }

 private:
  void scan(const fs::path& dir, SkillTier tier, std::size_t depth) {
    std::error_code ec;
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !visited_.insert({st.st_dev, st.st_ino}).second) {
      return;  // gone, or seen already: a symlink loop or a second path to the same folder
    }
    if (++folders_ > options_.max_folders) {
      if (folders_ == options_.max_folders + 1) {
        note(Severity::warning, DiagnosticCode::scan_limit, dir,
             "more than " + std::to_string(options_.max_folders) +
                 " folders searched for skills; the rest were not searched");
      }
      return;
    }
    if (depth > 0 && fs::exists(dir / "SKILL.md", ec)) load(dir, tier);
    if (depth >= options_.max_depth) return;
    std::vector<fs::path> children;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name == ".git" || name == "node_modules") continue;
      std::error_code dir_ec;
      if (it->is_directory(dir_ec)) children.push_back(it->path());
    }
    if (ec) {
      note(Severity::warning, DiagnosticCode::file_unreadable, dir,
           "cannot list this folder: " + ec.message());
    }
    std::sort(children.begin(), children.end());
    for (const auto& child : children) scan(child, tier, depth + 1);
  }

  void load(const fs::path& dir, SkillTier tier) {
    auto loaded = load_skill_folder(dir, out_.diagnostics, options_.folder);
    if (!loaded) {
      note(Severity::error, code_from_error(loaded.error()), dir / "SKILL.md",
           loaded.error().message + "; the skill was not loaded");
      return;
    }
    if (auto it = by_name_.find(loaded->skill.name); it != by_name_.end()) {
      const DiscoveredSkill& s = out_.skills[it->second];
      note(Severity::warning, DiagnosticCode::skill_shadowed, loaded->skill_file,
           "skill '" + s.loaded.skill.name + "' is already loaded from " +
               s.loaded.skill_file.string() + " (" + std::string(skill_tier_name(s.tier)) +
               " tier), which takes precedence; this copy was not loaded");
      return;
    }
    by_name_.emplace(loaded->skill.name, out_.skills.size());
    out_.skills.push_back(DiscoveredSkill{std::move(*loaded), tier});
  }

  void note(Severity severity, DiagnosticCode code, const fs::path& file, std::string message) {
    out_.diagnostics.push_back(Diagnostic{severity, code, file.string(), 0, std::move(message)});
  }

  const DiscoveryOptions& options_;
  SkillCatalog& out_;
  std::set<std::pair<dev_t, ino_t>> visited_;   // (device, inode): a folder seen by any path
  std::map<std::string, std::size_t> by_name_;  // skill name -> index in out_.skills
  std::size_t folders_ = 0;
};

// The project folders, deepest first: the working folder and its ancestors up to the root. A
// working folder outside the root contributes only the root.
std::vector<fs::path> project_folders(const DiscoveryOptions& options) {
  const fs::path root = fs::absolute(options.project_root).lexically_normal();
  fs::path dir =
      options.working_dir.empty() ? root : fs::absolute(options.working_dir).lexically_normal();
  auto rel = dir.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return {root};
  std::vector<fs::path> out;
  for (;; dir = dir.parent_path()) {
    out.push_back(dir);
    if (dir == root || dir == dir.parent_path()) break;
  }
  return out;
}

}  // namespace

SkillCatalog discover_skills(const DiscoveryOptions& options) {
  SkillCatalog out;
  Scanner scanner(options, out);
  if (!options.project_root.empty()) {
    for (const auto& folder : project_folders(options)) {
      for (const auto& sub : options.skill_dirs) {
        std::error_code ec;
        if (!options.trust_project) {
          if (fs::is_directory(folder / sub, ec)) {
            out.diagnostics.push_back(Diagnostic{
                Severity::warning, DiagnosticCode::untrusted_project, (folder / sub).string(), 0,
                "project skills were not read because the project is not trusted"});
          }
          continue;
        }
        scanner.scan_root(folder / sub, SkillTier::project);
      }
    }
  }
  if (options.user_tier) {
    std::optional<fs::path> home =
        options.home.empty() ? resolve_home() : std::optional<fs::path>(options.home);
    if (home && home->is_absolute()) {
      for (const auto& sub : options.skill_dirs) scanner.scan_root(*home / sub, SkillTier::user);
    }
  }
  for (const auto& folder : options.folders) scanner.scan_root(folder, SkillTier::named_folder);
  scanner.finish();
  return out;
}

}  // namespace agentkit::skills
