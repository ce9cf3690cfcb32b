#include "agentkit/tools/ignore.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "agentkit/tools/process.hpp"
#include "pattern_program.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;

namespace detail {
struct IgnorePattern {
  PatternProgram program;
  bool negated = false;
  bool dir_only = false;
  bool base_name = false;  // no '/' in the pattern: compare the last component only
};
}  // namespace detail

namespace {

using detail::PatternNode;
using Kind = PatternNode::Kind;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::string_view kGitDir = ".git";
// `git config` answers in milliseconds; a hung one must not hang a listing.
constexpr std::chrono::milliseconds kGitConfigTimeout{5000};

// git's trim_trailing_spaces: drop the unescaped run of ' ' at the end.
std::string_view trim_trailing_spaces(std::string_view line) {
  std::size_t end = line.size();
  while (end > 0 && line[end - 1] == ' ') {
    std::size_t backslashes = 0;
    for (std::size_t k = end - 1; k > 0 && line[k - 1] == '\\'; --k) ++backslashes;
    if (backslashes % 2 == 1) break;  // "\ " keeps this space
    --end;
  }
  return line.substr(0, end);
}

// Compiles a pattern body (after `!`, the trailing '/' and the leading '/' are removed) with
// wildmatch's rules under WM_PATHNAME.
PatternNode compile_wildmatch(std::string_view p) {
  PatternNode seq;
  std::size_t i = 0;
  while (i < p.size()) {
    char c = p[i];
    if (c == '*') {
      std::size_t start = i;
      while (i < p.size() && p[i] == '*') ++i;
      bool whole_segment = i - start >= 2 && (start == 0 || p[start - 1] == '/') &&
                           (i == p.size() || p[i] == '/');
      if (!whole_segment) {
        seq.children.push_back(PatternNode{Kind::star});
      } else if (i == p.size()) {
        seq.children.push_back(PatternNode{Kind::globstar});
      } else {
        ++i;  // "**/" : zero or more folders
        PatternNode body;
        body.children.push_back(PatternNode{Kind::globstar});
        PatternNode slash{Kind::literal};
        slash.ch = '/';
        body.children.push_back(slash);
        PatternNode opt{Kind::optional};
        opt.children.push_back(std::move(body));
        seq.children.push_back(std::move(opt));
      }
      continue;
    }
    if (c == '?') {
      seq.children.push_back(PatternNode{Kind::any_char});
      ++i;
      continue;
    }
    if (c == '[') {
      PatternNode set{Kind::char_set};
      if (detail::parse_bracket(p, i, /*utf8=*/false, set.set) != detail::BracketParse::ok) {
        return PatternNode{Kind::never};  // git aborts the whole match (WM_ABORT_ALL)
      }
      seq.children.push_back(std::move(set));
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= p.size()) return PatternNode{Kind::never};  // escapes nothing: never matches
      ++i;
    }
    PatternNode lit{Kind::literal};
    lit.ch = static_cast<unsigned char>(p[i++]);
    seq.children.push_back(lit);
  }
  return seq;
}

std::optional<detail::IgnorePattern> parse_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line.front() == '#') return std::nullopt;
  line = trim_trailing_spaces(line);
  bool negated = false;
  if (!line.empty() && line.front() == '!') {
    negated = true;
    line.remove_prefix(1);
  }
  if (line.empty()) return std::nullopt;
  bool dir_only = false;
  if (line.back() == '/') {
    dir_only = true;
    line.remove_suffix(1);
  }
  bool base_name = line.find('/') == std::string_view::npos;
  if (!base_name && line.front() == '/') line.remove_prefix(1);
  if (line.empty()) return std::nullopt;  // "/" alone
  return detail::IgnorePattern{
      detail::PatternProgram(compile_wildmatch(line), /*utf8=*/false, /*case_insensitive=*/false),
      negated, dir_only, base_name};
}

std::string read_rules_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return {};
  std::string text(IgnoreFile::kMaxRulesFileBytes, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(f.gcount()));
  return text;
}

bool has_git_entry(const fs::path& dir) {
  struct stat st {};
  return ::lstat((dir / kGitDir).c_str(), &st) == 0;
}

std::string join(std::string_view parent, std::string_view name) {
  if (parent.empty()) return std::string(name);
  std::string out(parent);
  out += '/';
  out += name;
  return out;
}

}  // namespace

// ---- IgnoreFile ----------------------------------------------------------------------------

IgnoreFile::IgnoreFile() = default;
IgnoreFile::~IgnoreFile() = default;
IgnoreFile::IgnoreFile(const IgnoreFile&) = default;
IgnoreFile::IgnoreFile(IgnoreFile&&) noexcept = default;
IgnoreFile& IgnoreFile::operator=(const IgnoreFile&) = default;
IgnoreFile& IgnoreFile::operator=(IgnoreFile&&) noexcept = default;

IgnoreFile IgnoreFile::parse(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) text = text.substr(0, max_bytes);
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());
  IgnoreFile out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (auto rule = parse_line(line)) {
      out.rules_.push_back(std::make_shared<const detail::IgnorePattern>(std::move(*rule)));
    }
  }
  return out;
}

std::size_t IgnoreFile::size() const noexcept { return rules_.size(); }

std::optional<bool> IgnoreFile::match(std::string_view path, bool is_dir) const {
  std::string_view base = path;
  if (std::size_t slash = path.rfind('/'); slash != std::string_view::npos) {
    base = path.substr(slash + 1);
  }
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    const detail::IgnorePattern& rule = **it;
    if (rule.dir_only && !is_dir) continue;
    if (rule.program.matches(rule.base_name ? base : path)) return !rule.negated;
  }
  return std::nullopt;
}

// ---- Global excludes -----------------------------------------------------------------------

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

namespace {
std::optional<fs::path> configured_excludes_file(const fs::path& repo, const EnvLookup& env) {
  ProcessOptions po;
  po.cwd = repo;
  po.timeout = kGitConfigTimeout;
  po.spill = false;
  po.environment = reduced_environment(env);
  for (const char* name : {"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"}) {
    if (auto v = env(name)) po.environment->push_back(std::string(name) + "=" + *v);
  }
  auto r = run_command({"git", "config", "--path", "--get", "core.excludesFile"}, po);
  if (!r || r->outcome != Outcome::exited || r->exit_code != 0) return std::nullopt;
  std::string out = r->output;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return std::nullopt;
  fs::path p(out);
  return p.is_absolute() ? p : repo / p;
}
}  // namespace

std::optional<fs::path> find_global_excludes(const fs::path& repo, const EnvLookup& env) {
  if (auto configured = configured_excludes_file(repo, env)) return configured;
  fs::path candidate;
  if (auto xdg = env("XDG_CONFIG_HOME"); xdg && !xdg->empty()) {
    candidate = fs::path(*xdg) / "git" / "ignore";
  } else if (auto home = env("HOME"); home && !home->empty()) {
    candidate = fs::path(*home) / ".config" / "git" / "ignore";
  } else {
    return std::nullopt;
  }
  std::error_code ec;
  if (!fs::is_regular_file(candidate, ec)) return std::nullopt;
  return candidate;
}

// ---- IgnoreTree ----------------------------------------------------------------------------

struct IgnoreTree::Scope {
  IgnoreFile info_exclude;
};

struct IgnoreTree::Folder {
  std::shared_ptr<const Scope> scope;
  // This folder's path from its repository root, "" or ending in '/'.
  std::string from_scope_root;
  // Rule files from the repository root down to this folder, each with its folder's path from
  // the repository root ("" or ending in '/').
  std::vector<std::pair<std::string, std::shared_ptr<const IgnoreFile>>> layers;
};

Result<IgnoreTree> IgnoreTree::open(const fs::path& root, const IgnoreOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return fail(Errc::not_found, "cannot list '" + root.string() + "': not a folder");
  }
  IgnoreTree tree;
  tree.root_ = root;
  EnvLookup env = options.env ? options.env : process_env();

  fs::path repo = root;
  while (!has_git_entry(repo) && repo.has_parent_path() && repo.parent_path() != repo) {
    repo = repo.parent_path();
  }
  if (!has_git_entry(repo)) repo = root;  // no repository: the opened folder acts as its root

  if (options.use_global_excludes) {
    auto global = options.global_excludes ? options.global_excludes : find_global_excludes(repo, env);
    tree.global_ = std::make_shared<const IgnoreFile>(
        global ? IgnoreFile::parse(read_rules_file(*global)) : IgnoreFile{});
  } else {
    tree.global_ = std::make_shared<const IgnoreFile>();
  }

  auto scope = std::make_shared<Scope>();
  scope->info_exclude = IgnoreFile::parse(read_rules_file(repo / kGitDir / "info" / "exclude"));
  auto top = std::make_shared<Folder>();
  top->scope = scope;
  // The .gitignore files of the folders between the repository root and the opened root.
  fs::path rel = root.lexically_relative(repo);
  fs::path dir = repo;
  std::string from_repo;
  for (const auto& part : rel) {
    if (part == ".") continue;
    auto rules = IgnoreFile::parse(read_rules_file(dir / ".gitignore"));
    if (!rules.empty()) top->layers.emplace_back(from_repo, std::make_shared<const IgnoreFile>(std::move(rules)));
    dir /= part;
    from_repo += part.string() + "/";
  }
  top->from_scope_root = from_repo;
  auto own = IgnoreFile::parse(read_rules_file(root / ".gitignore"));
  if (!own.empty()) top->layers.emplace_back(from_repo, std::make_shared<const IgnoreFile>(std::move(own)));
  tree.scopes_.push_back(scope);
  tree.folders_.emplace("", std::move(top));
  return tree;
}

bool IgnoreTree::is_repository_root(std::string_view relative) {
  return has_git_entry(root_ / fs::path(std::string(relative)));
}

const IgnoreTree::Folder& IgnoreTree::folder(std::string_view relative) {
  if (auto it = folders_.find(relative); it != folders_.end()) return *it->second;
  std::size_t slash = relative.rfind('/');
  std::string_view parent_rel = slash == std::string_view::npos ? std::string_view{} : relative.substr(0, slash);
  std::string_view name = slash == std::string_view::npos ? relative : relative.substr(slash + 1);
  const Folder& parent = folder(parent_rel);

  fs::path abs = root_ / fs::path(std::string(relative));
  auto f = std::make_shared<Folder>();
  if (has_git_entry(abs)) {
    // A nested repository: its own root; nothing from outside reaches in.
    auto scope = std::make_shared<Scope>();
    scope->info_exclude = IgnoreFile::parse(read_rules_file(abs / kGitDir / "info" / "exclude"));
    scopes_.push_back(scope);
    f->scope = scope;
  } else {
    f->scope = parent.scope;
    f->layers = parent.layers;
    f->from_scope_root = parent.from_scope_root + std::string(name) + "/";
  }
  auto own = IgnoreFile::parse(read_rules_file(abs / ".gitignore"));
  if (!own.empty()) f->layers.emplace_back(f->from_scope_root, std::make_shared<const IgnoreFile>(std::move(own)));
  auto [it, inserted] = folders_.emplace(std::string(relative), std::move(f));
  return *it->second;
}

bool IgnoreTree::is_ignored_entry(std::string_view parent, std::string_view name, bool is_dir) {
  if (name == kGitDir) return true;
  const Folder& f = folder(parent);
  std::string path = f.from_scope_root + std::string(name);
  for (auto it = f.layers.rbegin(); it != f.layers.rend(); ++it) {
    std::string_view rel = std::string_view(path).substr(it->first.size());
    if (auto verdict = it->second->match(rel, is_dir)) return *verdict;
  }
  if (auto verdict = f.scope->info_exclude.match(path, is_dir)) return *verdict;
  if (auto verdict = global_->match(path, is_dir)) return *verdict;
  return false;
}

bool IgnoreTree::is_ignored(std::string_view relative, bool is_dir) {
  std::string parent;
  while (!relative.empty()) {
    std::size_t slash = relative.find('/');
    std::string_view name = relative.substr(0, slash);
    bool last = slash == std::string_view::npos;
    if (!name.empty() && name != ".") {
      if (is_ignored_entry(parent, name, last ? is_dir : true)) return true;
      parent = join(parent, name);
    }
    if (last) break;
    relative.remove_prefix(slash + 1);
  }
  return false;
}

}  // namespace agentkit::tools
