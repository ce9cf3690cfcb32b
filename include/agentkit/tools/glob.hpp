// agentkit/tools/glob.hpp — AgentKit's glob dialect, for find_files' `pattern` and search_files'
// `file_glob`. Compiled once, matched many times.
//
//   auto g = agentkit::tools::Glob::compile("src/**/*.{cpp,h{,pp}}").value();
//   g.matches("src/a/b/x.hpp");   // true
//   g.matches("src/x.cpp");       // true: "**/" also matches no folder at all
//   auto name = agentkit::tools::Glob::compile("*.md").value();
//   name.matches("docs/guide.md"); // true: a pattern without '/' matches the base name
//
// The dialect (ours, not ripgrep's and not the shell's; documented in docs/):
//   *        any run of characters except '/'
//   ?        one character (one UTF-8 code point) except '/'
//   **       any run of characters including '/'; as a whole segment (`**/x`, `a/**/b`, `a/**`)
//            it spans whole folders, and `**/` may also match no folder at all
//   [abc] [a-z] [!x] [^x] [[:alpha:]]
//            one character from (or, with ! or ^, not from) the set; never '/'; a leading ']'
//            is a member; a reversed range is empty
//   {a,b,c}  any of the comma-separated alternatives; nests (`{a,{b,c}d}`); may be empty (`{,x}`)
//   \c       the character c itself
// A pattern with no '/' is matched against the last path component, anywhere in the tree; a
// pattern with '/' is matched against the whole path relative to the search root (a leading
// '/' or './' is dropped). Matching is case-sensitive unless GlobOptions says otherwise.
// An unclosed '[' or '{', a stray '}', a trailing '\' or an unknown [:class:] is an error that
// says where. Matching runs an NFA simulation: time is linear in the path for a given pattern,
// whatever the pattern (no exponential backtracking).
//
// Thread safety: an immutable value; matches() may be called from any number of threads.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::tools {

namespace detail {
class PatternProgram;
}

struct GlobOptions {
  // Compare letters without regard to case (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic).
  bool case_insensitive = false;
  // Largest accepted pattern in bytes; longer is invalid_argument (bounds compile work).
  std::size_t max_pattern_bytes = 4096;
};

class Glob {
 public:
  // Errors: invalid_argument with details "pattern" and "offset".
  static Result<Glob> compile(std::string_view pattern, const GlobOptions& options = {});

  // `path` is relative to the search root with '/' separators ("src/a.cpp").
  bool matches(std::string_view path) const;
  // True when the pattern has no '/', so only the base name is compared.
  bool matches_base_name_only() const noexcept { return base_name_only_; }
  const std::string& pattern() const noexcept { return pattern_; }

 private:
  Glob() = default;
  std::string pattern_;
  bool base_name_only_ = false;
  std::shared_ptr<const detail::PatternProgram> program_;
};

}  // namespace agentkit::tools
