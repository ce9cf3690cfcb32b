#include "agentkit/tools/workspace.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>

namespace agentkit::tools {
namespace fs = std::filesystem;

namespace {

// The kernel gives up after 40 link hops (MAXSYMLINKS, ELOOP); so do we.
constexpr int kMaxSymlinkHops = 40;
constexpr std::string_view kFileScheme = "file://";

Error refused(std::string_view input, const fs::path& resolved) {
  return fail(Errc::permission_denied,
              "path '" + std::string(input) + "' resolves to '" + resolved.string() +
                  "', which is outside the workspace; use a path inside the workspace root")
      .with_detail("code", std::string(kPathNotAllowed))
      .with_detail("path", std::string(input))
      .with_detail("resolved", resolved.string());
}

void push_components_front(std::deque<std::string>& queue, const fs::path& p) {
  std::vector<std::string> parts;
  for (const auto& c : p.relative_path()) parts.push_back(c.string());
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) queue.push_front(*it);
}

Result<std::string> read_link(const fs::path& link) {
  std::string target(PATH_MAX, '\0');
  ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
  if (n < 0) {
    return errno_error(Errc::io_error, "cannot read symbolic link '" + link.string() + "'", errno);
  }
  target.resize(static_cast<std::size_t>(n));
  return target;
}

bool is_within(const fs::path& canonical, const fs::path& root) {
  auto c = canonical.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++c) {
    if (r->empty()) continue;  // a trailing separator on the root
    if (c == canonical.end() || *c != *r) return false;
  }
  return true;
}

// Step 1 of resolve(): sigil, scheme and tilde normalisation, then anchoring at the root.
Result<fs::path> normalise_input(std::string_view input, const fs::path& root) {
  if (input.empty()) return fail(Errc::invalid_argument, "empty path; pass a file or folder path");
  if (input.find('\0') != std::string_view::npos) {
    return fail(Errc::invalid_argument, "path contains a NUL byte");
  }
  std::string text(input);
  if (text.front() == '@') text.erase(0, 1);  // "@src/a.c": an editor-style mention sigil
  if (text.rfind(kFileScheme, 0) == 0) text.erase(0, kFileScheme.size());
  if (text == "~" || text.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') {
      return fail(Errc::invalid_argument, "path '" + std::string(input) +
                                              "' starts with '~' but HOME is not set");
    }
    text = std::string(home) + text.substr(1);
  }
  if (text.empty()) return fail(Errc::invalid_argument, "empty path; pass a file or folder path");
  fs::path p(text);
  return p.is_absolute() ? p : root / p;
}

}  // namespace

Result<fs::path> resolve_symlinks(const fs::path& absolute) {
  std::deque<std::string> pending;
  push_components_front(pending, absolute);
  fs::path out = "/";
  int hops = 0;
  bool missing = false;  // once a component is missing, the rest cannot be links
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      out = out.parent_path();
      continue;
    }
    fs::path candidate = out / part;
    struct stat st {};
    if (missing || ::lstat(candidate.c_str(), &st) != 0) {
      if (!missing && errno != ENOENT && errno != ENOTDIR) {
        return errno_error(Errc::io_error, "cannot examine '" + candidate.string() + "'", errno);
      }
      missing = true;
      out = std::move(candidate);
      continue;
    }
    if (!S_ISLNK(st.st_mode)) {
      out = std::move(candidate);
      continue;
    }
    if (++hops > kMaxSymlinkHops) {
      return fail(Errc::limit_exceeded, "too many symbolic links while resolving '" +
                                            absolute.string() + "' (a loop?)");
    }
    auto target = read_link(candidate);
    if (!target) return target.error();
    fs::path t(*target);
    if (t.is_absolute()) out = "/";
    push_components_front(pending, t);
  }
  return out;
}

Result<Workspace> Workspace::open(const fs::path& root, const std::vector<fs::path>& extra_roots) {
  auto canonical_dir = [](const fs::path& p, std::string_view what) -> Result<fs::path> {
    std::error_code ec;
    fs::path c = fs::canonical(fs::absolute(p, ec), ec);
    if (ec) {
      return fail(Errc::not_found, std::string(what) + " '" + p.string() +
                                       "' cannot be opened: " + ec.message());
    }
    if (!fs::is_directory(c, ec)) {
      return fail(Errc::invalid_argument, std::string(what) + " '" + p.string() +
                                              "' is not a directory");
    }
    return c;
  };
  auto r = canonical_dir(root, "workspace root");
  if (!r) return r.error();
  std::vector<fs::path> extra;
  for (const auto& e : extra_roots) {
    auto c = canonical_dir(e, "allowed root");
    if (!c) return c.error();
    extra.push_back(std::move(*c));
  }
  return Workspace(std::move(*r), std::move(extra));
}

bool Workspace::contains(const fs::path& canonical) const {
  if (is_within(canonical, root_)) return true;
  for (const auto& e : extra_) {
    if (is_within(canonical, e)) return true;
  }
  return false;
}

Result<fs::path> Workspace::resolve(std::string_view user_path) const {
  auto anchored = normalise_input(user_path, root_);
  if (!anchored) return anchored.error();
  auto resolved = resolve_symlinks(*anchored);
  if (!resolved) return resolved.error();
  if (!contains(*resolved)) return refused(user_path, *resolved);
  return resolved;
}

std::string Workspace::relative(const fs::path& canonical) const {
  fs::path rel = canonical.lexically_relative(root_);
  if (rel.empty()) return canonical.string();
  return rel.generic_string();
}

}  // namespace agentkit::tools
