#include "walk.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace agentkit::tools::detail {
namespace fs = std::filesystem;

std::vector<DirEntry> read_folder(const fs::path& dir) {
  std::vector<DirEntry> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == ".." || name == ".git") continue;
    DirEntry de;
    de.name = std::string(name);
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::lstat((dir / de.name).c_str(), &st) != 0) continue;
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
    }
    de.is_dir = type == DT_DIR;
    de.is_symlink = type == DT_LNK;
    de.is_regular = type == DT_REG;
    out.push_back(std::move(de));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

namespace {
bool walk_folder(IgnoreTree& tree, const std::string& rel, const std::function<bool(const WalkEntry&)>& visit,
                 const agentkit::stop_token& stop) {
  if (stop.stop_requested()) return false;
  fs::path dir = rel.empty() ? tree.root() : tree.root() / rel;
  for (const auto& e : read_folder(dir)) {
    if (tree.is_ignored_entry(rel, e.name, e.is_dir)) continue;
    WalkEntry w{rel.empty() ? e.name : rel + "/" + e.name, e.is_dir, e.is_symlink, e.is_regular};
    if (!visit(w)) return false;
    if (e.is_dir && !walk_folder(tree, w.relative, visit, stop)) return false;
  }
  return true;
}
}  // namespace

bool walk(IgnoreTree& tree, const std::function<bool(const WalkEntry&)>& visit, agentkit::stop_token stop) {
  return walk_folder(tree, "", visit, stop);
}

}  // namespace agentkit::tools::detail
