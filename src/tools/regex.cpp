#include "regex.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "agentkit/base/utf8.hpp"
#include "pattern_program.hpp"

namespace agentkit::tools::detail {
namespace {

constexpr std::uint32_t kMaxCodePoint = 0x10FFFF;
constexpr std::uint32_t kSurrogateFirst = 0xD800, kSurrogateLast = 0xDFFF;
constexpr std::uint32_t kUnbounded = std::numeric_limits<std::uint32_t>::max();
// Lazy DFA cache: flushed and rebuilt when it holds this many states (about 1 KiB each).
constexpr std::size_t kMaxDfaStates = 4096;

using Ranges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

void normalise(Ranges& r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (auto [lo, hi] : r) {
    if (!out.empty() && lo <= out.back().second + 1) out.back().second = std::max(out.back().second, hi);
    else out.emplace_back(lo, hi);
  }
  r.swap(out);
}

Ranges complement(const Ranges& r) {
  Ranges out;
  std::uint32_t next = 0;
  for (auto [lo, hi] : r) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
  return out;
}

void add_case_variants(Ranges& r) {
  Ranges extra;
  for (auto [lo, hi] : r) {
    // Every cased code point we fold lives below U+0500; larger ranges only need that prefix.
    constexpr std::uint32_t kCasedLimit = 0x500;
    for (std::uint32_t c = lo; c <= std::min(hi, kCasedLimit); ++c) {
      std::uint32_t l = to_lower(c), u = to_upper(c);
      if (l != c) extra.emplace_back(l, l);
      if (u != c) extra.emplace_back(u, u);
    }
  }
  r.insert(r.end(), extra.begin(), extra.end());
  normalise(r);
}

Ranges without_surrogates(const Ranges& r) {
  Ranges out;
  for (auto [lo, hi] : r) {
    if (hi < kSurrogateFirst || lo > kSurrogateLast) {
      out.emplace_back(lo, hi);
      continue;
    }
    if (lo < kSurrogateFirst) out.emplace_back(lo, kSurrogateFirst - 1);
    if (hi > kSurrogateLast) out.emplace_back(kSurrogateLast + 1, hi);
  }
  return out;
}

enum class AssertKind : std::uint8_t { line_start, line_end, word_boundary, not_word_boundary };

struct Node {
  enum class Kind : std::uint8_t { empty, set, concat, alternation, repeat, assertion };
  Kind kind = Kind::empty;
  Ranges set;
  bool from_literal = false;  // a literal character written in the pattern
  std::vector<Node> kids;
  std::uint32_t min = 0, max = 0;
  AssertKind assertion = AssertKind::line_start;
};

Node set_node(Ranges r, bool literal = false) {
  Node n;
  n.kind = Node::Kind::set;
  normalise(r);
  n.set = without_surrogates(r);
  n.from_literal = literal;
  return n;
}

Error bad_regex(std::string_view pattern, std::size_t offset, const std::string& what, Errc code = Errc::invalid_argument) {
  return fail(code, "invalid regex '" + std::string(pattern) + "': " + what + " at offset " + std::to_string(offset))
      .with_detail("pattern", std::string(pattern))
      .with_detail("offset", std::to_string(offset));
}

bool is_word_byte(unsigned char b) {
  return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_';
}

const Ranges& word_ranges() {
  static const Ranges r = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
  return r;
}
const Ranges& digit_ranges() {
  static const Ranges r = {{'0', '9'}};
  return r;
}
const Ranges& space_ranges() {
  static const Ranges r = {{'\t', '\r'}, {' ', ' '}};
  return r;
}

// ---- Parser (the subset of Rust regex syntax documented in search.hpp) ----------------------

class Parser {
 public:
  Parser(std::string_view p, const RegexOptions& o) : p_(p), o_(o), icase_(o.case_insensitive) {}

  Result<Node> parse() {
    auto n = parse_alternation(0);
    if (!n) return n;
    if (i_ < p_.size()) return bad_regex(p_, i_, "unmatched ')'");
    return n;
  }
  bool saw_uppercase() const { return uppercase_; }

 private:
  static constexpr int kMaxNesting = 200;

  Result<Node> parse_alternation(int depth) {
    if (depth > kMaxNesting) return bad_regex(p_, i_, "groups nested too deeply", Errc::limit_exceeded);
    Node alt;
    alt.kind = Node::Kind::alternation;
    while (true) {
      auto c = parse_concat(depth);
      if (!c) return c;
      alt.kids.push_back(std::move(*c));
      if (i_ < p_.size() && p_[i_] == '|') {
        ++i_;
        continue;
      }
      break;
    }
    if (alt.kids.size() == 1) return std::move(alt.kids[0]);
    return alt;
  }

  Result<Node> parse_concat(int depth) {
    Node cat;
    cat.kind = Node::Kind::concat;
    const bool saved_icase = icase_;  // (?i) lasts to the end of the enclosing group
    while (i_ < p_.size() && p_[i_] != '|' && p_[i_] != ')') {
      auto atom = parse_atom(depth);
      if (!atom) return atom;
      if (atom->kind == Node::Kind::empty && !atom->from_literal) continue;  // a flag group
      auto rep = parse_repetitions(std::move(*atom));
      if (!rep) return rep;
      cat.kids.push_back(std::move(*rep));
    }
    if (depth == 0) icase_ = saved_icase;
    if (cat.kids.size() == 1) return std::move(cat.kids[0]);
    if (cat.kids.empty()) {
      Node empty;
      empty.from_literal = true;  // a real (empty) branch, not a flag group
      return empty;
    }
    return cat;
  }

  Result<std::uint32_t> parse_number() {
    std::size_t start = i_;
    std::uint64_t v = 0;
    while (i_ < p_.size() && p_[i_] >= '0' && p_[i_] <= '9') {
      v = v * 10 + static_cast<std::uint64_t>(p_[i_++] - '0');
      if (v > o_.max_repetition) return bad_regex(p_, start, "repetition count over " + std::to_string(o_.max_repetition), Errc::limit_exceeded);
    }
    if (i_ == start) return bad_regex(p_, start, "expected a number in a {n,m} repetition");
    return static_cast<std::uint32_t>(v);
  }

  Result<Node> parse_repetitions(Node atom) {
    while (i_ < p_.size()) {
      char c = p_[i_];
      std::uint32_t min = 0, max = kUnbounded;
      std::size_t at = i_;
      if (c == '*') { ++i_; }
      else if (c == '+') { ++i_; min = 1; }
      else if (c == '?') { ++i_; max = 1; }
      else if (c == '{') {
        ++i_;
        auto lo = parse_number();
        if (!lo) return lo.error();
        min = max = *lo;
        if (i_ < p_.size() && p_[i_] == ',') {
          ++i_;
          max = kUnbounded;
          if (i_ < p_.size() && p_[i_] != '}') {
            auto hi = parse_number();
            if (!hi) return hi.error();
            max = *hi;
          }
        }
        if (i_ >= p_.size() || p_[i_] != '}') return bad_regex(p_, at, "unclosed '{' repetition");
        ++i_;
        if (max < min) return bad_regex(p_, at, "repetition {n,m} with m < n");
      } else {
        break;
      }
      if (atom.kind == Node::Kind::assertion) return bad_regex(p_, at, "repetition of an anchor");
      if (i_ < p_.size() && p_[i_] == '?') ++i_;  // lazy: same lines match
      Node rep;
      rep.kind = Node::Kind::repeat;
      rep.min = min;
      rep.max = max;
      rep.kids.push_back(std::move(atom));
      atom = std::move(rep);
    }
    return atom;
  }

  Node literal(std::uint32_t c) {
    if (to_lower(c) != c) uppercase_ = true;
    Ranges r{{c, c}};
    if (icase_) add_case_variants(r);
    return set_node(std::move(r), true);
  }

  Node assertion(AssertKind k) {
    Node n;
    n.kind = Node::Kind::assertion;
    n.assertion = k;
    return n;
  }

  Result<Node> parse_group(int depth) {
    std::size_t open = i_++;
    bool saved = icase_;
    if (i_ < p_.size() && p_[i_] == '?') {
      ++i_;
      if (i_ < p_.size() && (p_[i_] == '=' || p_[i_] == '!' || (p_[i_] == '<' && i_ + 1 < p_.size() && (p_[i_ + 1] == '=' || p_[i_ + 1] == '!')))) {
        return bad_regex(p_, open, "look-around is not supported (ripgrep's default engine has none either)", Errc::unsupported);
      }
      if (i_ < p_.size() && (p_[i_] == 'P' || p_[i_] == '<')) {  // named group: the name is irrelevant here
        std::size_t close = p_.find('>', i_);
        if (close == std::string_view::npos) return bad_regex(p_, open, "unclosed group name");
        i_ = close + 1;
      } else {
        bool negate = false, flags_only = false;
        while (i_ < p_.size() && p_[i_] != ':' && p_[i_] != ')') {
          char f = p_[i_++];
          if (f == '-') negate = true;
          else if (f == 'i') icase_ = !negate;
          else return bad_regex(p_, i_ - 1, std::string("unsupported flag '") + f + "' (only i is supported)", Errc::unsupported);
        }
        if (i_ >= p_.size()) return bad_regex(p_, open, "unclosed group");
        flags_only = p_[i_] == ')';
        ++i_;
        if (flags_only) {
          Node flag;  // empty, not from a literal: skipped by parse_concat; the flag persists
          return flag;
        }
      }
    }
    auto inner = parse_alternation(depth + 1);
    if (!inner) return inner;
    if (i_ >= p_.size() || p_[i_] != ')') return bad_regex(p_, open, "unclosed '('");
    ++i_;
    icase_ = saved;
    if (inner->kind == Node::Kind::empty) inner->from_literal = true;
    return inner;
  }

  Result<std::uint32_t> parse_hex_escape(std::size_t at) {
    std::uint32_t v = 0;
    if (i_ < p_.size() && p_[i_] == '{') {
      std::size_t close = p_.find('}', i_);
      if (close == std::string_view::npos || close == i_ + 1 || close - i_ > 7) return bad_regex(p_, at, "bad \\x{...} escape");
      for (std::size_t k = i_ + 1; k < close; ++k) {
        int d = hex_digit(p_[k]);
        if (d < 0) return bad_regex(p_, at, "bad \\x{...} escape");
        v = v * 16 + static_cast<std::uint32_t>(d);
      }
      i_ = close + 1;
    } else {
      if (i_ + 2 > p_.size()) return bad_regex(p_, at, "bad \\x escape");
      for (int k = 0; k < 2; ++k) {
        int d = hex_digit(p_[i_++]);
        if (d < 0) return bad_regex(p_, at, "bad \\x escape");
        v = v * 16 + static_cast<std::uint32_t>(d);
      }
    }
    if (v > kMaxCodePoint || (v >= kSurrogateFirst && v <= kSurrogateLast)) return bad_regex(p_, at, "escape is not a Unicode scalar value");
    return v;
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // An escape: a class (\d \w \s and negations), an assertion, or one character.
  struct Escape {
    enum class Kind : std::uint8_t { character, set, assertion } kind = Kind::character;
    std::uint32_t ch = 0;
    Ranges set;
    AssertKind assertion = AssertKind::line_start;
  };

  Result<Escape> parse_escape() {
    std::size_t at = i_++;
    if (i_ >= p_.size()) return bad_regex(p_, at, "trailing '\\'");
    char c = p_[i_++];
    Escape e;
    auto cls = [&](const Ranges& r, bool negated) {
      e.kind = Escape::Kind::set;
      e.set = negated ? complement(r) : r;
      return e;
    };
    auto as = [&](AssertKind k) {
      e.kind = Escape::Kind::assertion;
      e.assertion = k;
      return e;
    };
    auto ch = [&](std::uint32_t v) {
      e.ch = v;
      return e;
    };
    switch (c) {
      case 'd': return cls(digit_ranges(), false);
      case 'D': return cls(digit_ranges(), true);
      case 'w': return cls(word_ranges(), false);
      case 'W': return cls(word_ranges(), true);
      case 's': return cls(space_ranges(), false);
      case 'S': return cls(space_ranges(), true);
      case 'b': return as(AssertKind::word_boundary);
      case 'B': return as(AssertKind::not_word_boundary);
      case 'A': return as(AssertKind::line_start);
      case 'z': return as(AssertKind::line_end);
      case 'n': return ch('\n');
      case 't': return ch('\t');
      case 'r': return ch('\r');
      case 'f': return ch('\f');
      case 'v': return ch('\v');
      case 'a': return ch('\a');
      case 'x': {
        auto v = parse_hex_escape(at);
        if (!v) return v.error();
        return ch(*v);
      }
      case 'p': case 'P':
        return bad_regex(p_, at, "Unicode property classes (\\p{...}) are not supported by the native search engine", Errc::unsupported);
      default: break;
    }
    if (c >= '1' && c <= '9') return bad_regex(p_, at, "backreferences are not supported (ripgrep's default engine has none either)", Errc::unsupported);
    if ((c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E) || c == ' ') {
      return ch(static_cast<unsigned char>(c));
    }
    return bad_regex(p_, at, std::string("unknown escape '\\") + c + "'");
  }

  Result<Node> parse_class() {
    std::size_t open = i_++;
    bool negated = false;
    if (i_ < p_.size() && p_[i_] == '^') {
      negated = true;
      ++i_;
    }
    Ranges r;
    bool first = true;
    while (true) {
      if (i_ >= p_.size()) return bad_regex(p_, open, "unclosed '['");
      char c = p_[i_];
      if (c == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      if (c == '[' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
        std::size_t close = p_.find(":]", i_ + 2);
        if (close == std::string_view::npos) return bad_regex(p_, i_, "unclosed [:class:]");
        bool neg = p_[i_ + 2] == '^';
        std::string_view name = p_.substr(i_ + 2 + (neg ? 1 : 0), close - i_ - 2 - (neg ? 1 : 0));
        CharSet tmp;
        std::string probe = "[[:" + std::string(name) + ":]]";
        std::size_t k = 0;
        if (parse_bracket(probe, k, false, tmp) != BracketParse::ok) return bad_regex(p_, i_, "unknown class [:" + std::string(name) + ":]");
        Ranges named(tmp.ranges.begin(), tmp.ranges.end());
        normalise(named);
        if (neg) named = complement(named);
        r.insert(r.end(), named.begin(), named.end());
        i_ = close + 2;
        continue;
      }
      if (c == '[' || (c == '&' && i_ + 1 < p_.size() && p_[i_ + 1] == '&') ||
          (c == '-' && i_ + 1 < p_.size() && p_[i_ + 1] == '-') || (c == '~' && i_ + 1 < p_.size() && p_[i_ + 1] == '~')) {
        return bad_regex(p_, i_, "nested classes and class set operations are not supported", Errc::unsupported);
      }
      std::uint32_t lo;
      if (c == '\\') {
        auto e = parse_escape();
        if (!e) return e.error();
        if (e->kind == Escape::Kind::set) {
          r.insert(r.end(), e->set.begin(), e->set.end());
          continue;
        }
        if (e->kind == Escape::Kind::assertion) return bad_regex(p_, i_ - 2, "an anchor inside a class");
        lo = e->ch;
      } else {
        lo = decode_utf8(p_, i_);
      }
      std::uint32_t hi = lo;
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        ++i_;
        if (p_[i_] == '\\') {
          auto e = parse_escape();
          if (!e) return e.error();
          if (e->kind != Escape::Kind::character) return bad_regex(p_, i_, "a class cannot end a range");
          hi = e->ch;
        } else {
          hi = decode_utf8(p_, i_);
        }
        if (hi < lo) return bad_regex(p_, i_, "class range out of order");
      }
      for (std::uint32_t x : {lo, hi}) {
        if (to_lower(x) != x) uppercase_ = true;
      }
      r.emplace_back(lo, hi);
    }
    normalise(r);
    if (icase_) add_case_variants(r);
    if (negated) r = complement(r);
    return set_node(std::move(r));
  }

  Result<Node> parse_atom(int depth) {
    std::size_t at = i_;
    char c = p_[i_];
    switch (c) {
      case '(': return parse_group(depth);
      case '[': return parse_class();
      case '.': {
        ++i_;
        return set_node(Ranges{{0, '\n' - 1}, {'\n' + 1, kMaxCodePoint}});
      }
      case '^': ++i_; return assertion(AssertKind::line_start);
      case '$': ++i_; return assertion(AssertKind::line_end);
      case '*': case '+': case '?': case '{':
        return bad_regex(p_, at, std::string("repetition operator '") + c + "' has nothing to repeat");
      case '\\': {
        auto e = parse_escape();
        if (!e) return e.error();
        if (e->kind == Escape::Kind::assertion) return assertion(e->assertion);
        if (e->kind == Escape::Kind::set) {
          Ranges r = e->set;
          return set_node(std::move(r));
        }
        return literal(e->ch);
      }
      default:
        return literal(decode_utf8(p_, i_));
    }
  }

  std::string_view p_;
  RegexOptions o_;  // a copy: has_uppercase_literal passes a temporary (ASan: stack-use-after-scope)
  std::size_t i_ = 0;
  bool icase_;
  bool uppercase_ = false;
};

// ---- UTF-8 sequences of a code point range (the classic split: equal lengths, then aligned
// continuation-byte blocks, so each piece is a product of byte ranges). ------------------------

using ByteSeq = std::vector<std::pair<std::uint8_t, std::uint8_t>>;

std::size_t utf8_length(std::uint32_t c) { return utf8::encoded_length(c); }

// Surrogate range ends are encoded too: a byte-range split must cover every 3-byte pattern.
void encode(std::uint32_t c, std::uint8_t out[utf8::max_encoded_length]) {
  char bytes[utf8::max_encoded_length];
  const char* end = utf8::encode_unchecked(c, bytes);
  std::memcpy(out, bytes, static_cast<std::size_t>(end - bytes));
}

void utf8_sequences(std::uint32_t lo, std::uint32_t hi, std::vector<ByteSeq>& out) {
  for (std::uint32_t boundary : {0x7Fu, 0x7FFu, 0xFFFFu}) {
    if (lo <= boundary && hi > boundary) {
      utf8_sequences(lo, boundary, out);
      utf8_sequences(boundary + 1, hi, out);
      return;
    }
  }
  const std::size_t n = utf8_length(lo);
  for (std::size_t level = 1; level < n; ++level) {
    std::uint32_t mask = (1u << (6 * level)) - 1;
    if ((lo & ~mask) != (hi & ~mask)) {
      if ((lo & mask) != 0) {
        utf8_sequences(lo, lo | mask, out);
        utf8_sequences((lo | mask) + 1, hi, out);
        return;
      }
      if ((hi & mask) != mask) {
        utf8_sequences(lo, (hi & ~mask) - 1, out);
        utf8_sequences(hi & ~mask, hi, out);
        return;
      }
    }
  }
  std::uint8_t a[4], b[4];
  encode(lo, a);
  encode(hi, b);
  ByteSeq seq;
  for (std::size_t k = 0; k < n; ++k) seq.emplace_back(a[k], b[k]);
  out.push_back(std::move(seq));
}

// ---- Rust-syntax printer ---------------------------------------------------------------------

void print_code_point(std::string& out, std::uint32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\x{%X}", c);
  out += buf;
}

void print_rust(const Node& n, std::string& out) {
  switch (n.kind) {
    case Node::Kind::empty: out += "(?:)"; return;
    case Node::Kind::set:
      if (n.set.size() == 1 && n.set[0].first == n.set[0].second) {
        print_code_point(out, n.set[0].first);
        return;
      }
      if (n.set.empty()) {
        out += "[^\\x{0}-\\x{10FFFF}]";
        return;
      }
      out += '[';
      for (auto [lo, hi] : n.set) {
        print_code_point(out, lo);
        if (hi != lo) {
          out += '-';
          print_code_point(out, hi);
        }
      }
      out += ']';
      return;
    case Node::Kind::concat:
      for (const auto& k : n.kids) print_rust(k, out);
      return;
    case Node::Kind::alternation:
      out += "(?:";
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        if (k) out += '|';
        print_rust(n.kids[k], out);
      }
      out += ')';
      return;
    case Node::Kind::repeat:
      out += "(?:";
      print_rust(n.kids[0], out);
      out += "){" + std::to_string(n.min) + ",";
      if (n.max != kUnbounded) out += std::to_string(n.max);
      out += '}';
      return;
    case Node::Kind::assertion:
      switch (n.assertion) {
        case AssertKind::line_start: out += "(?m:^)"; return;
        case AssertKind::line_end: out += "(?m:$)"; return;
        case AssertKind::word_boundary: out += "(?-u:\\b)"; return;
        case AssertKind::not_word_boundary: out += "(?-u:\\B)"; return;
      }
  }
}

// A run of bytes every match must contain. A folded byte (an ASCII letter under case-insensitive
// matching, stored in lower case) also matches its upper-case form: (?i) and smart case keep the
// substring prefilter instead of running the automaton over every byte.
struct RequiredLiteral {
  std::string bytes;
  std::vector<std::uint8_t> folded;  // one flag per byte
  bool pure = false;                 // the whole pattern is this literal
};

// Appends the bytes `n` stands for when it is one literal character (or an ASCII letter with its
// other case and nothing else); false otherwise.
bool append_literal(const Node& n, RequiredLiteral& out) {
  if (n.kind != Node::Kind::set || !n.from_literal) return false;
  const Ranges& r = n.set;
  if (r.size() == 1 && r[0].first == r[0].second) {
    if (r[0].first == '\n') return false;  // lines hold no '\n': such a pattern never matches
    std::uint8_t b[4];
    encode(r[0].first, b);
    const std::size_t len = utf8_length(r[0].first);
    out.bytes.append(reinterpret_cast<const char*>(b), len);
    out.folded.insert(out.folded.end(), len, 0);
    return true;
  }
  constexpr std::uint32_t kCaseBit = 0x20;
  const bool ascii_case_pair = r.size() == 2 && r[0].first == r[0].second && r[1].first == r[1].second &&
                               r[0].first >= 'A' && r[0].first <= 'Z' && r[1].first == (r[0].first | kCaseBit);
  if (!ascii_case_pair) return false;
  out.bytes += static_cast<char>(r[1].first);
  out.folded.push_back(1);
  return true;
}

// The longest run of literal characters every match must contain.
RequiredLiteral required_literal(const Node& root) {
  RequiredLiteral best;
  if (append_literal(root, best)) {
    best.pure = true;
    return best;
  }
  if (root.kind != Node::Kind::concat) return {};
  RequiredLiteral run;
  bool all = true;
  for (const auto& k : root.kids) {
    if (append_literal(k, run)) continue;
    all = false;
    if (run.bytes.size() > best.bytes.size()) best = run;
    run = {};
  }
  if (run.bytes.size() > best.bytes.size()) best = run;
  best.pure = all;
  return best;
}

}  // namespace

// ---- NFA + lazy DFA ---------------------------------------------------------------------------

struct Regex::Program {
  enum class Op : std::uint8_t { byte_range, split, jump, match, assertion };
  struct Inst {
    Op op;
    std::uint8_t lo = 0, hi = 0;
    AssertKind assertion = AssertKind::line_start;
    std::uint32_t x = 0, y = 0;
  };
  std::vector<Inst> insts;
  std::string rust;
  RequiredLiteral literal;
  // The byte memchr looks for first: an exact (unfolded) one when the literal has one.
  std::size_t anchor = 0;
  std::size_t max_states = 0;
  bool overflow = false;

  // DFA cache.
  static constexpr std::int32_t kUnknown = -1, kMatch = -2;
  struct State {
    std::vector<std::uint32_t> pcs;
    bool at_start = false, prev_word = false;
    std::int8_t end_match = -1;
  };
  std::vector<State> states;
  std::vector<std::int32_t> trans;  // states.size() * 256
  std::map<std::tuple<std::vector<std::uint32_t>, bool, bool>, std::int32_t> index;
  std::int32_t start = -1;

  std::uint32_t emit(Inst i) {
    if (insts.size() >= max_states) overflow = true;
    insts.push_back(i);
    return static_cast<std::uint32_t>(insts.size() - 1);
  }

  void compile_set(const Ranges& set) {
    std::vector<ByteSeq> seqs;
    for (auto [lo, hi] : set) utf8_sequences(lo, hi, seqs);
    if (seqs.empty()) {  // matches nothing: a range no byte satisfies is not expressible; use a
      std::uint32_t s = emit({Op::split});  // split whose both arms lead nowhere (past the end)
      insts[s].x = insts[s].y = std::numeric_limits<std::uint32_t>::max();
      return;
    }
    std::vector<std::uint32_t> exits;
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      bool last = k + 1 == seqs.size();
      std::uint32_t split = 0;
      if (!last) split = emit({Op::split});
      if (!last) insts[split].x = split + 1;
      for (auto [lo, hi] : seqs[k]) {
        std::uint32_t at = emit({Op::byte_range, lo, hi});
        insts[at].x = at + 1;
      }
      if (!last) {
        exits.push_back(emit({Op::jump}));
        insts[split].y = static_cast<std::uint32_t>(insts.size());
      }
    }
    for (auto e : exits) insts[e].x = static_cast<std::uint32_t>(insts.size());
  }

  void compile(const Node& n) {
    if (overflow) return;
    switch (n.kind) {
      case Node::Kind::empty: return;
      case Node::Kind::set: compile_set(n.set); return;
      case Node::Kind::concat:
        for (const auto& k : n.kids) compile(k);
        return;
      case Node::Kind::assertion: {
        std::uint32_t at = emit({Op::assertion});
        insts[at].assertion = n.assertion;
        insts[at].x = at + 1;
        return;
      }
      case Node::Kind::alternation: {
        std::vector<std::uint32_t> exits;
        for (std::size_t k = 0; k < n.kids.size(); ++k) {
          bool last = k + 1 == n.kids.size();
          std::uint32_t split = 0;
          if (!last) {
            split = emit({Op::split});
            insts[split].x = split + 1;
          }
          compile(n.kids[k]);
          if (!last) {
            exits.push_back(emit({Op::jump}));
            insts[split].y = static_cast<std::uint32_t>(insts.size());
          }
        }
        for (auto e : exits) insts[e].x = static_cast<std::uint32_t>(insts.size());
        return;
      }
      case Node::Kind::repeat: {
        for (std::uint32_t k = 0; k < n.min && !overflow; ++k) compile(n.kids[0]);
        if (n.max == kUnbounded) {
          std::uint32_t loop = emit({Op::split});
          insts[loop].x = loop + 1;
          compile(n.kids[0]);
          std::uint32_t back = emit({Op::jump});
          insts[back].x = loop;
          insts[loop].y = static_cast<std::uint32_t>(insts.size());
          return;
        }
        std::vector<std::uint32_t> skips;
        for (std::uint32_t k = n.min; k < n.max && !overflow; ++k) {
          std::uint32_t split = emit({Op::split});
          insts[split].x = split + 1;
          skips.push_back(split);
          compile(n.kids[0]);
        }
        for (auto s : skips) insts[s].y = static_cast<std::uint32_t>(insts.size());
        return;
      }
    }
  }

  // Follows epsilon edges from `pending` under the context; collects byte-consuming states.
  bool closure(const State& s, int next, std::vector<std::uint32_t>& consuming, std::vector<std::uint8_t>& seen,
               std::vector<std::uint32_t>& stack) const {
    std::fill(seen.begin(), seen.end(), 0);
    consuming.clear();
    stack.assign(s.pcs.rbegin(), s.pcs.rend());
    bool next_word = next >= 0 && is_word_byte(static_cast<unsigned char>(next));
    bool matched = false;
    while (!stack.empty()) {
      std::uint32_t pc = stack.back();
      stack.pop_back();
      if (pc >= insts.size() || seen[pc]) continue;
      seen[pc] = 1;
      const Inst& in = insts[pc];
      switch (in.op) {
        case Op::match: matched = true; break;
        case Op::jump: stack.push_back(in.x); break;
        case Op::split: stack.push_back(in.y); stack.push_back(in.x); break;
        case Op::byte_range: consuming.push_back(pc); break;
        case Op::assertion: {
          bool ok = false;
          switch (in.assertion) {
            case AssertKind::line_start: ok = s.at_start; break;
            case AssertKind::line_end: ok = next < 0; break;
            case AssertKind::word_boundary: ok = s.prev_word != next_word; break;
            case AssertKind::not_word_boundary: ok = s.prev_word == next_word; break;
          }
          if (ok) stack.push_back(in.x);
          break;
        }
      }
    }
    return matched;
  }

  std::int32_t intern(std::vector<std::uint32_t> pcs, bool at_start, bool prev_word) {
    auto key = std::make_tuple(pcs, at_start, prev_word);
    if (auto it = index.find(key); it != index.end()) return it->second;
    if (states.size() >= kMaxDfaStates) {
      states.clear();
      trans.clear();
      index.clear();
      start = -1;
    }
    states.push_back(State{std::move(pcs), at_start, prev_word, -1});
    trans.resize(states.size() * 256, kUnknown);
    auto id = static_cast<std::int32_t>(states.size() - 1);
    index.emplace(std::move(key), id);
    return id;
  }

  std::int32_t start_state() {
    if (start < 0) start = intern({0}, true, false);
    return start;
  }

  std::int32_t step(std::int32_t s, std::uint8_t b) {
    std::vector<std::uint32_t> consuming, stack;
    std::vector<std::uint8_t> seen(insts.size(), 0);
    const State snapshot = states[static_cast<std::size_t>(s)];
    std::int32_t result;
    if (closure(snapshot, b, consuming, seen, stack)) {
      result = kMatch;
    } else {
      std::vector<std::uint32_t> next;
      for (std::uint32_t pc : consuming) {
        if (b >= insts[pc].lo && b <= insts[pc].hi) next.push_back(insts[pc].x);
      }
      next.push_back(0);  // the unanchored search restarts at every position
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      std::size_t before = states.size();
      result = intern(std::move(next), false, is_word_byte(b));
      if (states.size() < before) return result;  // the cache was flushed: do not store
    }
    trans[static_cast<std::size_t>(s) * 256 + b] = result;
    return result;
  }

  bool end_matches(std::int32_t s) {
    State& st = states[static_cast<std::size_t>(s)];
    if (st.end_match < 0) {
      std::vector<std::uint32_t> consuming, stack;
      std::vector<std::uint8_t> seen(insts.size(), 0);
      st.end_match = closure(st, -1, consuming, seen, stack) ? 1 : 0;
    }
    return st.end_match == 1;
  }

  bool literal_at(std::string_view text, std::size_t at) const {
    constexpr unsigned char kCaseBit = 0x20;
    for (std::size_t i = 0; i < literal.bytes.size(); ++i) {
      auto b = static_cast<unsigned char>(text[at + i]);
      if (literal.folded[i]) b |= kCaseBit;  // folded bytes are ASCII letters, stored lower-case
      if (b != static_cast<unsigned char>(literal.bytes[i])) return false;
    }
    return true;
  }

  // The first occurrence of the literal at or after `from`, or npos. memmem for an exact literal;
  // otherwise memchr on an exact anchor byte (or a scan for a folded one), then a check in place.
  std::size_t find_literal(std::string_view text, std::size_t from) const {
    constexpr auto npos = std::string_view::npos;
    const std::size_t n = literal.bytes.size();
    if (text.size() < n || from > text.size() - n) return npos;
    const bool any_folded = std::find(literal.folded.begin(), literal.folded.end(), 1) != literal.folded.end();
    if (!any_folded) {
      const void* hit = ::memmem(text.data() + from, text.size() - from, literal.bytes.data(), n);
      return hit == nullptr ? npos : static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    }
    constexpr unsigned char kCaseBit = 0x20;
    const auto a = static_cast<unsigned char>(literal.bytes[anchor]);
    const bool fold_anchor = literal.folded[anchor] != 0;
    const std::size_t last = text.size() - n + anchor;  // the last place the anchor may sit
    for (std::size_t pos = from + anchor; pos <= last;) {
      std::size_t hit = pos;
      if (!fold_anchor) {
        const void* p = std::memchr(text.data() + pos, a, last - pos + 1);
        if (p == nullptr) return npos;
        hit = static_cast<std::size_t>(static_cast<const char*>(p) - text.data());
      } else {
        while (hit <= last && (static_cast<unsigned char>(text[hit]) | kCaseBit) != a) ++hit;
        if (hit > last) return npos;
      }
      if (literal_at(text, hit - anchor)) return hit - anchor;
      pos = hit + 1;
    }
    return npos;
  }

  bool run(std::string_view line) {
    std::int32_t s = start_state();
    for (unsigned char b : line) {
      std::int32_t t = trans[static_cast<std::size_t>(s) * 256 + b];
      if (t == kUnknown) t = step(s, b);
      if (t == kMatch) return true;
      s = t;
    }
    return end_matches(s);
  }
};

Result<Regex> Regex::compile(std::string_view pattern, const RegexOptions& options) {
  if (pattern.size() > options.max_pattern_bytes) {
    return bad_regex(pattern.substr(0, 64), 0, "pattern longer than " + std::to_string(options.max_pattern_bytes) + " bytes", Errc::limit_exceeded);
  }
  if (pattern.find('\n') != std::string_view::npos) {
    return bad_regex(pattern, pattern.find('\n'), "a pattern cannot contain a line break (search matches one line at a time)");
  }
  Parser parser(pattern, options);
  auto tree = parser.parse();
  if (!tree) return tree.error();
  auto prog = std::make_shared<Program>();
  prog->max_states = options.max_nfa_states;
  // Slot 0: the unanchored prefix loop is expressed by re-adding state 0 at every step, so the
  // program proper starts at 0.
  prog->compile(*tree);
  prog->emit({Program::Op::match});
  if (prog->overflow) {
    return bad_regex(pattern, 0, "pattern too large once repetitions are expanded (over " + std::to_string(options.max_nfa_states) + " states)", Errc::limit_exceeded);
  }
  print_rust(*tree, prog->rust);
  prog->literal = required_literal(*tree);
  const auto& folded = prog->literal.folded;
  auto exact = std::find(folded.begin(), folded.end(), std::uint8_t{0});
  prog->anchor = exact == folded.end() ? 0 : static_cast<std::size_t>(exact - folded.begin());
  Regex r;
  r.program_ = std::move(prog);
  return r;
}

Regex Regex::for_another_thread() const {
  auto copy = std::make_shared<Program>();
  copy->insts = program_->insts;
  copy->rust = program_->rust;
  copy->literal = program_->literal;
  copy->anchor = program_->anchor;
  copy->max_states = program_->max_states;
  Regex r;
  r.program_ = std::move(copy);
  return r;
}

Result<bool> Regex::has_uppercase_literal(std::string_view pattern) {
  Parser parser(pattern, RegexOptions{});
  auto tree = parser.parse();
  if (!tree) return tree.error();
  return parser.saw_uppercase();
}

const std::string& Regex::rust_syntax() const noexcept { return program_->rust; }

bool Regex::matches_line(std::string_view line) const { return program_->run(line); }

std::pair<std::size_t, std::size_t> Regex::next_matching_line(std::string_view text, std::size_t from) const {
  constexpr auto npos = std::string_view::npos;
  Program& p = *program_;
  auto line_at = [&](std::size_t pos) {
    std::size_t nl = pos == 0 ? npos : text.rfind('\n', pos - 1);
    std::size_t start = nl == npos ? 0 : nl + 1;
    if (start < from) start = from;
    std::size_t end = text.find('\n', pos);
    return std::make_pair(start, end == npos ? text.size() : end);
  };
  if (!p.literal.bytes.empty()) {
    while (from < text.size()) {
      std::size_t hit = p.find_literal(text, from);
      if (hit == npos) return {npos, npos};
      auto [start, end] = line_at(hit);
      if (p.literal.pure || p.run(text.substr(start, end - start))) return {start, end};
      from = end + 1;
    }
    return {npos, npos};
  }
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == npos) end = text.size();
    if (p.run(text.substr(from, end - from))) return {from, end};
    if (end == text.size()) break;
    from = end + 1;
  }
  return {npos, npos};
}

}  // namespace agentkit::tools::detail
