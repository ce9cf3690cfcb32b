#include "agentkit/tools/glob.hpp"

#include "pattern_program.hpp"

namespace agentkit::tools {
namespace {

using detail::PatternNode;
using Kind = PatternNode::Kind;

Error bad_glob(std::string_view pattern, std::size_t offset, std::string_view what) {
  return fail(Errc::invalid_argument, "invalid glob '" + std::string(pattern) + "': " +
                                          std::string(what) + " at offset " +
                                          std::to_string(offset))
      .with_detail("pattern", std::string(pattern))
      .with_detail("offset", std::to_string(offset));
}

// Recursive-descent parser of our dialect into a PatternNode tree.
class GlobParser {
 public:
  explicit GlobParser(std::string_view p) : p_(p) {}

  Result<PatternNode> parse() {
    auto seq = parse_sequence(0);
    if (!seq) return seq.error();
    if (i_ < p_.size()) return bad_glob(p_, i_, "unexpected '" + std::string(1, p_[i_]) + "'");
    return seq;
  }

 private:
  // A sequence ends at the end of input, or, inside braces, at ',' or '}'.
  Result<PatternNode> parse_sequence(int brace_depth) {
    PatternNode seq;
    while (i_ < p_.size()) {
      char c = p_[i_];
      if (brace_depth > 0 && (c == ',' || c == '}')) break;
      if (c == '}') return bad_glob(p_, i_, "'}' without a matching '{'");
      auto item = parse_item(brace_depth);
      if (!item) return item.error();
      seq.children.push_back(std::move(*item));
    }
    return seq;
  }

  Result<PatternNode> parse_item(int brace_depth) {
    char c = p_[i_];
    if (c == '*') return parse_stars();
    if (c == '?') {
      ++i_;
      return PatternNode{Kind::any_char};
    }
    if (c == '[') return parse_set();
    if (c == '{') return parse_braces(brace_depth);
    if (c == '\\') {
      if (i_ + 1 >= p_.size()) return bad_glob(p_, i_, "trailing '\\' escapes nothing");
      ++i_;
    }
    PatternNode lit{Kind::literal};
    lit.ch = detail::decode_utf8(p_, i_);
    return lit;
  }

  Result<PatternNode> parse_stars() {
    std::size_t start = i_;
    while (i_ < p_.size() && p_[i_] == '*') ++i_;
    if (i_ - start == 1) return PatternNode{Kind::star};
    bool segment_start = start == 0 || p_[start - 1] == '/';
    bool slash_follows = i_ < p_.size() && p_[i_] == '/';
    if (segment_start && slash_follows) {
      // "**/": zero or more whole folders.
      ++i_;
      PatternNode folders{Kind::optional};
      PatternNode body;
      body.children.push_back(PatternNode{Kind::globstar});
      PatternNode slash{Kind::literal};
      slash.ch = '/';
      body.children.push_back(std::move(slash));
      folders.children.push_back(std::move(body));
      return folders;
    }
    return PatternNode{Kind::globstar};
  }

  Result<PatternNode> parse_set() {
    std::size_t start = i_;
    PatternNode node{Kind::char_set};
    switch (detail::parse_bracket(p_, i_, /*utf8=*/true, node.set)) {
      case detail::BracketParse::ok: return node;
      case detail::BracketParse::unclosed: return bad_glob(p_, start, "unclosed '['");
      case detail::BracketParse::bad_class_name:
        return bad_glob(p_, start, "unknown character class name in '[...]'");
    }
    return bad_glob(p_, start, "bad '['");
  }

  Result<PatternNode> parse_braces(int brace_depth) {
    std::size_t open = i_++;
    PatternNode alt{Kind::alternation};
    while (true) {
      auto branch = parse_sequence(brace_depth + 1);
      if (!branch) return branch.error();
      alt.children.push_back(std::move(*branch));
      if (i_ >= p_.size()) return bad_glob(p_, open, "unclosed '{'");
      if (p_[i_++] == '}') return alt;
    }
  }

  std::string_view p_;
  std::size_t i_ = 0;
};

std::string_view strip_root_prefix(std::string_view p) {
  while (p.size() >= 2 && p[0] == '.' && p[1] == '/') p.remove_prefix(2);
  while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  return p;
}

}  // namespace

Result<Glob> Glob::compile(std::string_view pattern, const GlobOptions& options) {
  if (pattern.size() > options.max_pattern_bytes) {
    return bad_glob(pattern.substr(0, 64), options.max_pattern_bytes,
                    "pattern longer than " + std::to_string(options.max_pattern_bytes) + " bytes");
  }
  if (pattern.empty()) return bad_glob(pattern, 0, "empty pattern");
  std::string_view body = strip_root_prefix(pattern);
  GlobParser parser(body);
  auto tree = parser.parse();
  if (!tree) return tree.error();
  Glob g;
  g.pattern_ = std::string(pattern);
  g.base_name_only_ = body.find('/') == std::string_view::npos;
  g.program_ = std::make_shared<const detail::PatternProgram>(*tree, /*utf8=*/true,
                                                              options.case_insensitive);
  return g;
}

bool Glob::matches(std::string_view path) const {
  if (!program_) return false;
  if (base_name_only_) {
    std::size_t slash = path.rfind('/');
    if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  }
  return program_->matches(path);
}

}  // namespace agentkit::tools
