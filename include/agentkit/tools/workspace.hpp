// agentkit/tools/workspace.hpp — path containment for the built-in file tools.
//
//   auto ws = agentkit::tools::Workspace::open("/home/me/project").value();
//   auto p = ws.resolve("src/main.cpp");          // "/home/me/project/src/main.cpp"
//   auto bad = ws.resolve("../secrets.txt");      // Errc::permission_denied (path_not_allowed)
//   auto fresh = ws.resolve("new/dir/file.txt");  // fine: paths that do not exist yet resolve too
//
// A Workspace is a canonical root plus optional extra roots. `resolve` turns what a model typed
// into a canonical absolute path and refuses it unless it lies inside one of the roots:
//   1. normalisation first (the trap is checking before it): a leading `@` sigil is dropped,
//      `file://` is unwrapped, `~` / `~/x` expand to $HOME; a relative path is joined to the root;
//   2. every symbolic link on the way is resolved BEFORE the check, one component at a time with
//      lstat/readlink, so a dangling link, or a missing file under a linked folder, cannot point
//      the later write outside (std::filesystem::weakly_canonical treats a dangling link as a
//      plain name, which is exactly that escape);
//   3. containment compares whole path components, so `/ws-evil` is not inside `/ws`.
// Components after the first one that does not exist are taken lexically: they cannot be links.
// Linux file systems are case-sensitive; case folding (macOS, Windows) is not handled here.
// The check does not constrain `execute`/`run_command`: a shell can reach any path the process
// can, which is what the command policy (command_policy.hpp) and the embedder's interceptor are for.
//
// Thread safety: an immutable value after open(); resolve() may be called from any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::tools {

// The stable code put in Error::detail("code") when a path is refused.
inline constexpr std::string_view kPathNotAllowed = "path_not_allowed";

class Workspace {
 public:
  // Canonicalises `root` (it must exist and be a directory) and each extra root (each must
  // exist). Errors: not_found / invalid_argument naming the offending root.
  static Result<Workspace> open(const std::filesystem::path& root,
                                const std::vector<std::filesystem::path>& extra_roots = {});

  const std::filesystem::path& root() const noexcept { return root_; }
  const std::vector<std::filesystem::path>& extra_roots() const noexcept { return extra_; }

  // Normalises, resolves symlinks, then checks containment. The target need not exist.
  // Errors: permission_denied (detail code=path_not_allowed, path=<input>, resolved=<path>)
  // when the result is outside every root; invalid_argument for an empty path or one with a
  // NUL byte; io_error when a component cannot be examined; limit_exceeded on a symlink loop.
  Result<std::filesystem::path> resolve(std::string_view user_path) const;

  // True when `canonical` (already resolved) is the root or below it, or below an extra root.
  bool contains(const std::filesystem::path& canonical) const;

  // The path relative to the root, with '/' separators ("." for the root itself); for display.
  std::string relative(const std::filesystem::path& canonical) const;

 private:
  Workspace(std::filesystem::path root, std::vector<std::filesystem::path> extra)
      : root_(std::move(root)), extra_(std::move(extra)) {}

  std::filesystem::path root_;
  std::vector<std::filesystem::path> extra_;
};

// Resolves every symbolic link in an absolute path (lstat + readlink per component, at most
// 40 link hops like the kernel's ELOOP limit); components that do not exist are kept lexically.
// Exposed for the other engines and for tests.
Result<std::filesystem::path> resolve_symlinks(const std::filesystem::path& absolute);

}  // namespace agentkit::tools
