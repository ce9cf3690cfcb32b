// Skill discovery: tiers in precedence order, each skills folder scanned depth-first with a
// visited set (so a symlink loop ends), the first skill of a name winning.
#include "agentkit/skills/discovery.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "skill_loader.hpp"

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

// In a skill folder these hold the skill's own files (the Agent Skills layout), so discovery does
// not search them for further skills; any other sub-folder may hold a nested skill.
bool is_bundle_folder(std::string_view name) {
  return name == "scripts" || name == "references" || name == "assets";
}

// The sub-folders of `d` (opened on `fd`), by name, without .git and node_modules (nor the bundle
// folders when `in_skill`). d_type answers for most entries; a symlink, or a file system without
// d_type, costs one fstatat.
Result<std::vector<std::string>> child_folders(DIR* d, int fd, bool in_skill) {
  std::vector<std::string> out;
  for (;;) {
    errno = 0;  // readdir reports an error only through errno
    const dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno == 0) break;
      return Unexpected(make_error(Errc::io_error, std::system_category().message(errno)));
    }
    std::string_view name = e->d_name;
    if (name == "." || name == ".." || name == ".git" || name == "node_modules") continue;
    if (in_skill && is_bundle_folder(name)) continue;
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) {
      struct stat st {};
      is_dir = ::fstatat(fd, e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
    }
    if (is_dir) out.emplace_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Scans each folder through a descriptor held open while its children are scanned, so every
// open, stat and listing is one path component from its parent, never a full path again.
class Scanner {
 public:
  Scanner(const DiscoveryOptions& options, SkillCatalog& out) : options_(options), out_(out) {}

  void scan_root(const fs::path& root, SkillTier tier) {
    std::error_code ec;
    fs::path abs = fs::absolute(root, ec).lexically_normal();
    if (!abs.empty() && abs.filename().empty()) abs = abs.parent_path();
    const int fd = ::open(abs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;  // missing, or not a folder
    out_.searched.push_back(root);
    std::string dir = abs.native();
    if (dir == "/") dir.clear();  // children are dir + "/" + name
    scan(fd, dir, tier, 0);
  }

  // By name: an order of indices, then one move per skill (a LoadedSkill is large to swap).
  void finish() {
    auto& skills = out_.skills;
    std::vector<std::size_t> order(skills.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return skills[a].loaded.skill.name < skills[b].loaded.skill.name;
    });
    std::vector<DiscoveredSkill> sorted;
    sorted.reserve(skills.size());
    for (std::size_t i : order) sorted.push_back(std::move(skills[i]));
    skills = std::move(sorted);
  }

 private:
  // Takes ownership of `fd`, an open folder whose absolute path is `dir` (a string: building a
  // std::filesystem::path per folder cost more than the system calls).
  void scan(int fd, const std::string& dir, SkillTier tier, std::size_t depth) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !visited_.insert({st.st_dev, st.st_ino}).second) {
      ::close(fd);
      return;  // seen already: a symlink loop or a second path to the same folder
    }
    if (++folders_ > options_.max_folders) {
      if (folders_ == options_.max_folders + 1) {
        note(Severity::warning, DiagnosticCode::scan_limit, dir,
             "more than " + std::to_string(options_.max_folders) +
                 " folders searched for skills; the rest were not searched");
      }
      ::close(fd);
      return;
    }
    const bool is_skill = depth > 0 && load(fd, dir, tier);
    if (depth >= options_.max_depth) {
      ::close(fd);
      return;
    }
    // Children open relative to this folder, which stays open (with its listing) meanwhile.
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      const std::string why = std::system_category().message(errno);
      note(Severity::warning, DiagnosticCode::file_unreadable, dir,
           "cannot list this folder: " + why);
      ::close(fd);
      return;
    }
    auto children = child_folders(d, fd, is_skill);
    if (!children) {
      note(Severity::warning, DiagnosticCode::file_unreadable, dir,
           "cannot list this folder: " + children.error().message);
    } else {
      for (const auto& name : *children) {
        const int child = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (child >= 0) scan(child, dir + "/" + name, tier, depth + 1);
      }
    }
    ::closedir(d);  // closes fd
  }

  // True when `dir` holds a SKILL.md, loaded or not.
  bool load(int fd, const std::string& dir, SkillTier tier) {
    auto loaded = detail::load_skill_at(fd, dir, out_.diagnostics, options_.folder);
    if (!loaded) {
      if (loaded.error().code == Errc::not_found) return false;  // no SKILL.md: not a skill
      note(Severity::error, code_from_error(loaded.error()), dir + "/SKILL.md",
           loaded.error().message + "; the skill was not loaded");
      return true;
    }
    if (auto it = by_name_.find(loaded->skill.name); it != by_name_.end()) {
      const DiscoveredSkill& s = out_.skills[it->second];
      note(Severity::warning, DiagnosticCode::skill_shadowed, loaded->skill.location,
           "skill '" + s.loaded.skill.name + "' is already loaded from " +
               s.loaded.skill_file.string() + " (" + std::string(skill_tier_name(s.tier)) +
               " tier), which takes precedence; this copy was not loaded");
      return true;
    }
    by_name_.emplace(loaded->skill.name, out_.skills.size());
    out_.skills.push_back(DiscoveredSkill{std::move(*loaded), tier});
    return true;
  }

  void note(Severity severity, DiagnosticCode code, std::string file, std::string message) {
    out_.diagnostics.push_back(Diagnostic{severity, code, std::move(file), 0, std::move(message)});
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
