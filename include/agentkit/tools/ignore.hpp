// agentkit/tools/ignore.hpp — the gitignore engine behind list_files, find_files and the native
// search backend.
//
//   using namespace agentkit::tools;
//   auto tree = IgnoreTree::open("/home/me/project").value();
//   tree.is_ignored("node_modules/x/index.js", /*is_dir=*/false);   // true with "node_modules/"
//
//   IgnoreFile rules = IgnoreFile::parse("*.log\n!keep.log\n");
//   rules.match("a/keep.log", false);   // std::optional<bool>{false}: re-included by the negation
//
// Sources, lowest precedence first; the last matching rule wins, so a deeper file overrides a
// shallower one and a `!` rule re-includes what an earlier rule excluded:
//   1. the global excludes file: `git config --path --get core.excludesFile`, else
//      $XDG_CONFIG_HOME/git/ignore (when XDG_CONFIG_HOME is set and not empty), else
//      $HOME/.config/git/ignore;
//   2. <repository root>/.git/info/exclude;
//   3. every .gitignore from the repository root down to the folder holding the path.
// Pattern syntax is git's (gitignore(5)): blank lines and `#` comments skipped, `\#` and `\!`
// escape, unescaped trailing spaces dropped (`\ ` keeps one), `!` negates, a trailing `/` limits
// the rule to folders, a `/` at the start or in the middle anchors the rule to the folder of its
// file (otherwise it matches the base name at any depth), `*` `?` `[...]` never match '/', and
// `**` spans folders only as a whole segment (`**/x`, `a/**`, `a/**/b`). A file below an
// excluded folder stays excluded: a negation cannot re-include it (git's rule; the walk never
// enters the folder). A leading UTF-8 BOM in a rules file is skipped.
// Repository roots: the nearest folder at or above the opened root that holds `.git` (folder or
// file) is the first root; no git repository is required (without one, the opened root acts as
// the repository root and there is no info/exclude). A folder below it that holds its own `.git`
// is a nested repository: it is its own root, the outer .gitignore files and the outer
// info/exclude never apply inside it, and its own rules never leak out. The global excludes file
// applies in every repository, as it does for git.
// The `.git` folder itself is never listed.
//
// Thread safety: IgnoreFile is an immutable value. IgnoreTree caches the rule files it has read
// and is not safe for concurrent use; give each thread its own.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::tools {

namespace detail {
struct IgnorePattern;
}

// Reads an environment variable (nullopt when unset). Injected so tests can pin HOME and XDG.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
// The process environment.
EnvLookup process_env();

// The rules of one file (a .gitignore, info/exclude, or the global excludes file).
class IgnoreFile {
 public:
  IgnoreFile();
  ~IgnoreFile();
  IgnoreFile(const IgnoreFile&);
  IgnoreFile(IgnoreFile&&) noexcept;
  IgnoreFile& operator=(const IgnoreFile&);
  IgnoreFile& operator=(IgnoreFile&&) noexcept;

  // Never fails: a line git would ignore or never match (a trailing lone `\`, an unclosed `[`)
  // becomes a rule that matches nothing, as in git. Input larger than max_bytes is cut there.
  static IgnoreFile parse(std::string_view text, std::size_t max_bytes = kMaxRulesFileBytes);

  // The verdict of the last rule matching `path` (relative to the rules file's folder, '/'
  // separators): true = ignored, false = re-included by `!`, nullopt = no rule matched.
  std::optional<bool> match(std::string_view path, bool is_dir) const;
  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }

  // Rules files past this size are read only up to it (a 100 MB .gitignore is an attack, not
  // a configuration).
  static constexpr std::size_t kMaxRulesFileBytes = 8u << 20;

 private:
  std::vector<std::shared_ptr<const detail::IgnorePattern>> rules_;
};

struct IgnoreOptions {
  // The global excludes file to use; nullopt means find it as described above.
  std::optional<std::filesystem::path> global_excludes;
  // When false, no global excludes file is read at all.
  bool use_global_excludes = true;
  // Where HOME and XDG_CONFIG_HOME come from (default: the process environment). The same
  // lookup's HOME/XDG values are handed to `git config`.
  EnvLookup env;
};

// Finds the global excludes file for the repository at `repo` (the resolution order above).
// Answers nullopt when none is configured or the file does not exist.
std::optional<std::filesystem::path> find_global_excludes(const std::filesystem::path& repo,
                                                          const EnvLookup& env);

// The ignore state of one tree: repository roots, nested repositories, cached rule files.
class IgnoreTree {
 public:
  // `root` must be an existing folder (canonical, absolute). Reads the global excludes file and
  // the .gitignore files between the repository root and `root`.
  static Result<IgnoreTree> open(const std::filesystem::path& root, const IgnoreOptions& options = {});

  const std::filesystem::path& root() const noexcept { return root_; }

  // Whether `relative` (to root(), '/' separators) is ignored, counting its parent folders:
  // a path below an ignored folder is ignored.
  bool is_ignored(std::string_view relative, bool is_dir);

  // For walkers that have already checked the parents: the verdict for one entry whose parent
  // folder (relative to root(), "" for root itself) is not ignored.
  bool is_ignored_entry(std::string_view parent, std::string_view name, bool is_dir);

  // True when `relative` is a folder holding its own `.git` (a nested repository root).
  bool is_repository_root(std::string_view relative);

 private:
  struct Scope;
  struct Folder;
  IgnoreTree() = default;
  const Folder& folder(std::string_view relative);

  std::filesystem::path root_;
  std::shared_ptr<const IgnoreFile> global_;
  std::vector<std::shared_ptr<Scope>> scopes_;
  std::map<std::string, std::shared_ptr<Folder>, std::less<>> folders_;
};

}  // namespace agentkit::tools
