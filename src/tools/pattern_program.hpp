// Private: the small automaton shared by the glob dialect (glob.cpp) and gitignore patterns
// (ignore_rules.cpp). Patterns compile to a Thompson NFA and are run by simulating every state at
// once (Pike's method without captures), so matching is O(text × pattern) whatever the pattern:
// a backtracking matcher goes exponential on inputs like `*a*a*a*a*b`, which a fuzzer finds in
// seconds and a model can type by accident.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::tools::detail {

// A set of code points (or bytes, for the byte-oriented gitignore dialect).
struct CharSet {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // inclusive
  bool negated = false;
  bool contains(std::uint32_t c) const noexcept;
};

// The syntax tree both dialects parse into.
struct PatternNode {
  enum class Kind : std::uint8_t {
    sequence,     // children in order
    alternation,  // one of the children
    literal,      // one character
    any_char,     // one character except '/'
    char_set,     // one character of `set`, never '/'
    star,         // any run without '/'
    globstar,     // any run, '/' included
    optional,     // children[0] or nothing
    never,        // matches nothing (a pattern git would abort on)
  };
  PatternNode() = default;
  explicit PatternNode(Kind k) : kind(k) {}

  Kind kind = Kind::sequence;
  std::uint32_t ch = 0;
  CharSet set;
  std::vector<PatternNode> children;
};

class PatternProgram {
 public:
  // utf8: decode the text as UTF-8 (one code point per step) rather than as bytes.
  PatternProgram(const PatternNode& root, bool utf8, bool case_insensitive);

  // True when the whole text matches.
  bool matches(std::string_view text) const;
  std::size_t size() const noexcept { return insts_.size(); }

 private:
  enum class Op : std::uint8_t { literal, any_but_slash, any, set, split, jump, match };
  struct Inst {
    Op op;
    std::uint32_t a = 0;
    std::uint32_t b = 0;
  };
  void emit(const PatternNode& node);
  std::uint32_t add(Inst inst);
  void add_thread(std::vector<std::uint32_t>& list, std::vector<std::uint32_t>& mark,
                  std::uint32_t generation, std::uint32_t pc,
                  std::vector<std::uint32_t>& stack) const;
  bool step_accepts(const Inst& inst, std::uint32_t c) const;

  std::vector<Inst> insts_;
  std::vector<CharSet> sets_;
  bool utf8_;
  bool case_insensitive_;
};

// Unicode simple case folding for the scripts most source text uses (ASCII, Latin-1,
// Latin Extended-A, Greek, Cyrillic). Other code points fold to themselves.
std::uint32_t to_lower(std::uint32_t c) noexcept;
std::uint32_t to_upper(std::uint32_t c) noexcept;
// Decodes one UTF-8 sequence at text[i]; an invalid byte decodes as itself (0x80..0xFF) and
// advances one byte, so arbitrary bytes never stop a match.
std::uint32_t decode_utf8(std::string_view text, std::size_t& i) noexcept;

}  // namespace agentkit::tools::detail

namespace agentkit::tools::detail {

enum class BracketParse : std::uint8_t { ok, unclosed, bad_class_name };

// Parses a bracket expression starting at pattern[i] == '['; on success `i` is just past the
// closing ']'. Shared by both dialects: `!` or `^` negate, a leading `]` is a member, `a-z`
// ranges (a reversed range is empty, as in git), `\` escapes, POSIX `[:alpha:]` names.
BracketParse parse_bracket(std::string_view pattern, std::size_t& i, bool utf8, CharSet& out);

}  // namespace agentkit::tools::detail
