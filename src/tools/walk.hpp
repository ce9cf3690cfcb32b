// Private: the tree walk shared by find_files, list_files and both search backends.
#pragma once

#include <filesystem>
#include <functional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <vector>

#include "agentkit/tools/ignore.hpp"

namespace agentkit::tools::detail {

struct DirEntry {
  std::string name;
  bool is_dir = false;
  bool is_symlink = false;
  bool is_regular = false;
};

// The entries of one folder (".", ".." and ".git" excluded), sorted by name bytes.
std::vector<DirEntry> read_folder(const std::filesystem::path& dir);

struct WalkEntry {
  std::string relative;  // to the walk root, '/' separators
  bool is_dir = false;
  bool is_symlink = false;
  bool is_regular = false;
};

// Depth-first walk below `tree.root()`, siblings in name order, ignored entries and their
// subtrees skipped, symbolic links reported but never followed. `visit` returns false to stop.
// Answers false when stopped (by visit or by `stop`).
bool walk(IgnoreTree& tree, const std::function<bool(const WalkEntry&)>& visit, agentkit::stop_token stop = {});

}  // namespace agentkit::tools::detail
