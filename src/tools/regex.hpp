// Private: the native search backend's regular-expression engine.
//
// Why our own: std::regex is ECMAScript (not ripgrep's Rust syntax), backtracks (exponential on
// `(a*)*b`), and is slow. This engine parses the subset of ripgrep's default syntax listed in
// search.hpp into code point sets, compiles them to a byte-level NFA over UTF-8 sequences, and
// runs it as a lazily built DFA (states created on first use, cached, flushed when the cache
// fills), so matching is linear in the text and never backtracks. A pure literal, or a literal
// every match must contain, is found with a substring search first.
//
// The same parsed pattern is printed back in Rust syntax for ripgrep (`to_rust_syntax`), with
// case folding, `.`, `\w`, `\d`, `\s` and classes already expanded into explicit code point
// ranges, so both backends match exactly the same language whatever ripgrep's Unicode tables say.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::tools::detail {

struct RegexOptions {
  bool case_insensitive = false;
  // Bounds on what a pattern may cost to compile.
  std::size_t max_pattern_bytes = 8192;
  std::size_t max_repetition = 1000;
  std::size_t max_nfa_states = 200'000;
};

class Regex {
 public:
  static Result<Regex> compile(std::string_view pattern, const RegexOptions& options = {});

  // Copies share one lazy DFA cache, which matching fills in: a Regex is for one thread at a time.
  // This is an independent matcher (same program, its own empty cache) for another thread.
  Regex for_another_thread() const;

  // True when some part of `line` (no '\n' inside) matches.
  bool matches_line(std::string_view line) const;
  // Calls on_line(line_start_offset, line_end_offset) for each line of `text` that matches, in
  // order; stop early by returning false.
  template <class F>
  void for_each_matching_line(std::string_view text, F&& on_line) const;

  // The pattern in Rust regex syntax for ripgrep (see above).
  const std::string& rust_syntax() const noexcept;
  // True when the pattern holds an upper-case literal letter (for smart case).
  static Result<bool> has_uppercase_literal(std::string_view pattern);

  struct Program;

 private:
  std::shared_ptr<Program> program_;
  // Finds the next line at or after `from` that matches; returns its [start, end) or npos.
  std::pair<std::size_t, std::size_t> next_matching_line(std::string_view text, std::size_t from) const;
};

template <class F>
void Regex::for_each_matching_line(std::string_view text, F&& on_line) const {
  // A final '\n' ends the last line; it does not start an empty one (ripgrep's reading).
  std::size_t from = 0;
  while (from < text.size()) {
    auto [start, end] = next_matching_line(text, from);
    if (start == std::string_view::npos) return;
    if (!on_line(start, end)) return;
    from = end + 1;
  }
}

}  // namespace agentkit::tools::detail
