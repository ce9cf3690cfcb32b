// agentkit/tools/search.hpp — search_files, find_files and list_files, with their caps.
//
//   using namespace agentkit::tools;
//   SearchRequest q;
//   q.pattern = R"(fn\s+main)";
//   q.file_glob = "**/*.{rs,toml}";
//   q.context_lines = 2;
//   auto r = search_files(workspace, q);          // rg --json when on PATH, else native
//   for (const auto& m : r->matches) std::cout << m.file << ':' << m.line << ' ' << m.text << '\n';
//   auto f = find_files(workspace, {.pattern = "*.cpp"});
//   auto l = list_files(workspace, {.path = "src"});
//
// One contract, two backends:
// - Files: our own walk picks them — the ignore engine of ignore.hpp (no git repository needed),
//   `.git` skipped, hidden files included, symbolic links not followed, siblings in byte order
//   of their names (depth first), then `file_glob` in our glob dialect (glob.hpp) matched
//   against the path relative to the searched folder. Files over max_file_bytes are skipped.
// - Matching: ripgrep (`rg --json`, an internal call that does not pass through any command
//   policy) or the native engine. ripgrep is handed our file list and our pattern re-printed in
//   its syntax with case folding and classes already expanded, so both backends match the same
//   lines; a parity test on generated trees holds them to identical results.
// - Binary files (a NUL byte anywhere) are skipped by both.
// - Case: `case_sensitive` unset means smart case — insensitive unless the pattern has an upper
//   case literal letter.
// - Ordering is deterministic: files in walk order, lines in file order. Truncation keeps the
//   first max_matches matches (default 100) and the first 50 KB of text; the result then ends
//   with a marker naming the follow-up call.
// - Every match carries up to context_lines lines before and after it, taken from the file, so a
//   match one line after another still shows it as context (ripgrep prints each line once; we
//   rebuild both contexts). Lines are cut to 500 characters (code points).
// - files_searched counts the files examined to produce the result (binary ones included), in
//   result order, up to the file where truncation stopped the search.
// Regex syntax (both backends; the native engine's subset of ripgrep's default syntax):
//   literals, `.`, `[...]` with ranges, negation and [:posix:] names, `\d \D \w \W \s \S` (ASCII
//   classes), `\b \B` (ASCII word boundaries), `^ $` (line anchors), `\A \z`, groups `(...)`,
//   `(?:...)`, `(?P<name>...)`, alternation `|`, `* + ? {n} {n,} {n,m}` (lazy forms accepted),
//   the `(?i)` flag, escapes `\n \t \r \f \v \a \x41 \x{263A}` and escaped punctuation.
//   Not supported (an error that says so): look-around, backreferences (ripgrep has neither),
//   `\p{...}` Unicode classes, nested classes and class set operations. Case-insensitive
//   matching folds ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic letters.
//
// Thread safety: reentrant; each call builds its own state (the native backend's worker threads
// are started and joined inside the call).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/tools/ignore.hpp"
#include "agentkit/tools/workspace.hpp"

namespace agentkit::tools {

enum class SearchBackend : std::uint8_t {
  automatic,  // ripgrep when `rg` is on PATH, else native
  native,
  ripgrep,    // an error when rg is missing
};

struct SearchRequest {
  std::string pattern;
  // Folder (or single file) to search, relative to the workspace root.
  std::string path = ".";
  // Lines of context before and after each match.
  std::size_t context_lines = 0;
  // Only files whose path relative to `path` matches this glob (our dialect).
  std::optional<std::string> file_glob;
  // nullopt: smart case.
  std::optional<bool> case_sensitive;
  // Matches returned at most (100).
  std::size_t max_matches = 100;
};

struct SearchOptions {
  SearchBackend backend = SearchBackend::automatic;
  IgnoreOptions ignore;
  // 500 characters per line, 50 KB per result.
  std::size_t max_line_chars = 500;
  std::size_t max_result_bytes = 50 * 1024;
  // Larger files are not searched (the native engine reads a file whole).
  std::uint64_t max_file_bytes = 64u << 20;
  // The ripgrep program; empty: `rg` on PATH.
  std::filesystem::path ripgrep;
  // Threads the native backend reads and matches files on (results are assembled in walk order
  // whatever the count). 0: std::thread::hardware_concurrency(), at most 8.
  std::size_t threads = 0;
};

struct SearchMatch {
  std::string file;  // relative to the workspace root
  std::size_t line = 0;
  std::string text;
  std::vector<std::string> before;
  std::vector<std::string> after;
  friend bool operator==(const SearchMatch&, const SearchMatch&) = default;
};

struct SearchResult {
  std::vector<SearchMatch> matches;
  bool truncated = false;
  std::optional<std::string> truncated_by;  // "matches" or "bytes"
  std::size_t files_searched = 0;
  std::size_t files_with_matches = 0;
  std::string backend;  // "ripgrep" or "native"
  std::string marker;   // the continuation marker when truncated
};

// Errors: permission_denied (path outside the workspace); not_found; invalid_argument for a bad
// pattern or glob (the message says where); unsupported for a construct the engine lacks, or
// backend=ripgrep without rg; cancelled when `stop` fires.
Result<SearchResult> search_files(const Workspace& workspace, const SearchRequest& request,
                                  const SearchOptions& options = {}, agentkit::stop_token stop = {});

enum class FileType : std::uint8_t { file, directory, any };

struct FindRequest {
  std::string pattern;       // our glob dialect
  std::string path = ".";
  FileType file_type = FileType::file;
  std::size_t limit = 1000;
};

struct FindResult {
  std::vector<std::string> files;  // relative to the workspace root, walk order; never null
  bool truncated = false;
  std::string marker;  // "[1000 results limit reached. Use limit=2000 for more, or refine pattern]"
};

Result<FindResult> find_files(const Workspace& workspace, const FindRequest& request,
                              const IgnoreOptions& ignore = {}, agentkit::stop_token stop = {});

struct ListRequest {
  std::string path = ".";
  std::size_t limit = 500;
};

struct ListResult {
  // The folder's entries that are not ignored, in byte order of their names; folders end in '/'.
  std::vector<std::string> entries;
  bool truncated = false;
  std::string marker;  // "[500 entries limit reached. Use limit=1000 for more]"
};

Result<ListResult> list_files(const Workspace& workspace, const ListRequest& request,
                              const IgnoreOptions& ignore = {});

}  // namespace agentkit::tools
