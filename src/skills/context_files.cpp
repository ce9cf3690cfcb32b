// Context files: the user-global file, then an ancestor walk root first, one file per folder.
#include "agentkit/skills/context_files.hpp"

#include <system_error>

#include "agentkit/base/utf8.hpp"
#include "agentkit/skills/discovery.hpp"
#include "file_reader.hpp"

namespace agentkit::skills {
namespace fs = std::filesystem;
namespace {

using detail::kBom;

bool has_git(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / ".git", ec);
}

// A linked worktree's `.git` is a file whose first line is "gitdir: <path>".
bool is_linked_worktree(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / ".git", ec)) return false;
  auto head = detail::read_capped(dir / ".git", 4096);
  return head && head->bytes.rfind("gitdir:", 0) == 0;
}

// The folders of the walk, root first.
std::vector<fs::path> walk_folders(const ContextFileOptions& options) {
  std::error_code ec;
  fs::path wd = options.working_dir.empty() ? fs::current_path(ec) : options.working_dir;
  wd = fs::absolute(wd, ec).lexically_normal();
  if (!wd.empty() && wd.filename().empty()) wd = wd.parent_path();  // drop a trailing '/'
  fs::path root = options.project_root.empty() ? fs::path() : fs::absolute(options.project_root);
  root = root.lexically_normal();
  if (!root.empty() && root.filename().empty()) root = root.parent_path();
  std::vector<fs::path> up;  // deepest first
  for (fs::path dir = wd;; dir = dir.parent_path()) {
    up.push_back(dir);
    // Stop at the given root, else at the nearest folder holding .git; a linked worktree nested
    // inside the given root ends the walk too, or the main checkout's files would load twice.
    if (root.empty() ? has_git(dir) : (dir == root || is_linked_worktree(dir))) break;
    if (dir == dir.parent_path()) {
      if (root.empty()) return {wd};  // no repository above: the working folder alone
      break;
    }
  }
  return {up.rbegin(), up.rend()};
}

class Loader {
 public:
  Loader(const ContextFileOptions& options, ContextFiles& out) : options_(options), out_(out) {}

  // Takes the first usable candidate in `dir`; true when one was taken.
  bool from_folder(const fs::path& dir) {
    for (const auto* list : {&options_.names, &options_.fallbacks}) {
      for (const auto& name : *list) {
        if (take(dir / name, false)) return true;
      }
    }
    return false;
  }

  bool take(const fs::path& path, bool user_global) {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status) || fs::is_directory(status)) return false;
    const std::size_t room = options_.max_total_bytes - used_;
    if (room == 0) {
      note(DiagnosticCode::file_too_large, path,
           "left out: the context files before it filled the " +
               std::to_string(options_.max_total_bytes) + "-byte cap");
      return true;
    }
    auto bytes = detail::read_capped(path, room + kBom.size());
    if (!bytes) {
      note(DiagnosticCode::file_unreadable, path, bytes.error().message);
      return false;
    }
    std::string body = std::move(bytes->bytes);
    if (std::string_view(body).substr(0, kBom.size()) == kBom) body.erase(0, kBom.size());
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) return false;  // empty: next
    ContextFile file{path, std::move(body), bytes->size, false, user_global, out_.files.size()};
    if (file.body.size() > room) {
      file.body = std::string(utf8::truncate_bytes(file.body, room));
      file.truncated = true;
    }
    file.truncated = file.truncated || bytes->truncated;
    if (file.truncated) {
      note(DiagnosticCode::file_too_large, path,
           std::to_string(file.bytes) + " bytes; truncated to " + std::to_string(file.body.size()) +
               " to stay within the " + std::to_string(options_.max_total_bytes) +
               "-byte cap for context files");
    }
    used_ += file.body.size();
    out_.files.push_back(std::move(file));
    return true;
  }

  void note(DiagnosticCode code, const fs::path& path, std::string message) {
    out_.diagnostics.push_back(
        Diagnostic{Severity::warning, code, path.string(), 0, std::move(message)});
  }

 private:
  const ContextFileOptions& options_;
  ContextFiles& out_;
  std::size_t used_ = 0;
};

bool any_candidate(const std::vector<fs::path>& folders, const ContextFileOptions& options) {
  std::error_code ec;
  for (const auto& dir : folders) {
    for (const auto* list : {&options.names, &options.fallbacks}) {
      for (const auto& name : *list) {
        if (fs::exists(dir / name, ec)) return true;
      }
    }
  }
  return false;
}

}  // namespace

ContextFiles load_context_files(const ContextFileOptions& options) {
  ContextFiles out;
  Loader loader(options, out);
  if (options.user_tier) {
    auto home = options.home.empty() ? resolve_home() : std::optional<fs::path>(options.home);
    if (home && home->is_absolute()) loader.take(*home / options.user_file, true);
  }
  const auto folders = walk_folders(options);
  if (!options.trust_project) {
    if (any_candidate(folders, options)) {
      loader.note(DiagnosticCode::untrusted_project, folders.back(),
                  "project context files were not read because the project is not trusted");
    }
    return out;
  }
  for (const auto& dir : folders) loader.from_folder(dir);
  return out;
}

}  // namespace agentkit::skills
