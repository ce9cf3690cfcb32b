#include "pattern_program.hpp"

namespace agentkit::tools::detail {

namespace {
constexpr std::uint32_t kSlash = '/';

// Case pairs where upper and lower differ by a fixed offset over a block. Sources: the Unicode
// UnicodeData.txt simple mappings for these blocks.
struct CaseBlock {
  std::uint32_t upper_first, upper_last;
  std::uint32_t offset;  // lower = upper + offset
};
constexpr CaseBlock kCaseBlocks[] = {
    {'A', 'Z', 0x20},        // ASCII
    {0xC0, 0xD6, 0x20},      // Latin-1 À..Ö
    {0xD8, 0xDE, 0x20},      // Latin-1 Ø..Þ (× U+00D7 has no case)
    {0x391, 0x3A1, 0x20},    // Greek Α..Ρ
    {0x3A3, 0x3AB, 0x20},    // Greek Σ..Ϋ
    {0x410, 0x42F, 0x20},    // Cyrillic А..Я
    {0x400, 0x40F, 0x50},    // Cyrillic Ѐ..Џ
};
// Latin Extended-A alternates upper/lower: even code point upper, odd lower, in these spans.
constexpr std::pair<std::uint32_t, std::uint32_t> kAlternatingSpans[] = {
    {0x100, 0x12F}, {0x132, 0x137}, {0x14A, 0x177}};
}  // namespace

std::uint32_t to_lower(std::uint32_t c) noexcept {
  for (const auto& b : kCaseBlocks) {
    if (c >= b.upper_first && c <= b.upper_last) return c + b.offset;
  }
  for (const auto& [first, last] : kAlternatingSpans) {
    if (c >= first && c <= last && (c - first) % 2 == 0) return c + 1;
  }
  return c;
}

std::uint32_t to_upper(std::uint32_t c) noexcept {
  for (const auto& b : kCaseBlocks) {
    if (c >= b.upper_first + b.offset && c <= b.upper_last + b.offset) return c - b.offset;
  }
  for (const auto& [first, last] : kAlternatingSpans) {
    if (c > first && c <= last && (c - first) % 2 == 1) return c - 1;
  }
  return c;
}

std::uint32_t decode_utf8(std::string_view text, std::size_t& i) noexcept {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  std::size_t len = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 <= 0xDF ? 2 : 0;
  if (len == 0 || i + len > text.size()) {
    ++i;
    return b0;
  }
  std::uint32_t cp = b0 & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return b0;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += len;
  return cp;
}

bool CharSet::contains(std::uint32_t c) const noexcept {
  bool in = false;
  for (const auto& [lo, hi] : ranges) {
    if (c >= lo && c <= hi) {
      in = true;
      break;
    }
  }
  return in != negated;
}

PatternProgram::PatternProgram(const PatternNode& root, bool utf8, bool case_insensitive)
    : utf8_(utf8), case_insensitive_(case_insensitive) {
  emit(root);
  add({Op::match});
}

std::uint32_t PatternProgram::add(Inst inst) {
  insts_.push_back(inst);
  return static_cast<std::uint32_t>(insts_.size() - 1);
}

void PatternProgram::emit(const PatternNode& node) {
  using K = PatternNode::Kind;
  switch (node.kind) {
    case K::sequence:
      for (const auto& c : node.children) emit(c);
      return;
    case K::literal:
      add({Op::literal, case_insensitive_ ? to_lower(node.ch) : node.ch});
      return;
    case K::any_char:
      add({Op::any_but_slash});
      return;
    case K::char_set:
      sets_.push_back(node.set);
      add({Op::set, static_cast<std::uint32_t>(sets_.size() - 1)});
      return;
    case K::never:
      // A set that contains nothing can never be stepped over.
      sets_.push_back(CharSet{});
      add({Op::set, static_cast<std::uint32_t>(sets_.size() - 1)});
      return;
    case K::star:
    case K::globstar: {
      // L: split L+1, END; L+1: any; jump L; END:
      std::uint32_t loop = add({Op::split});
      add({node.kind == K::star ? Op::any_but_slash : Op::any});
      add({Op::jump, loop});
      insts_[loop].a = loop + 1;
      insts_[loop].b = static_cast<std::uint32_t>(insts_.size());
      return;
    }
    case K::optional: {
      std::uint32_t split = add({Op::split});
      insts_[split].a = split + 1;
      for (const auto& c : node.children) emit(c);
      insts_[split].b = static_cast<std::uint32_t>(insts_.size());
      return;
    }
    case K::alternation: {
      if (node.children.empty()) return;
      std::vector<std::uint32_t> exits;
      for (std::size_t k = 0; k < node.children.size(); ++k) {
        bool last = k + 1 == node.children.size();
        std::uint32_t split = 0;
        if (!last) {
          split = add({Op::split});
          insts_[split].a = split + 1;
        }
        emit(node.children[k]);
        if (!last) {
          exits.push_back(add({Op::jump}));
          insts_[split].b = static_cast<std::uint32_t>(insts_.size());
        }
      }
      for (auto e : exits) insts_[e].a = static_cast<std::uint32_t>(insts_.size());
      return;
    }
  }
}

void PatternProgram::add_thread(std::vector<std::uint32_t>& list, std::vector<std::uint32_t>& mark,
                                std::uint32_t generation, std::uint32_t pc,
                                std::vector<std::uint32_t>& stack) const {
  stack.clear();
  stack.push_back(pc);
  while (!stack.empty()) {
    std::uint32_t p = stack.back();
    stack.pop_back();
    if (mark[p] == generation) continue;
    mark[p] = generation;
    const Inst& in = insts_[p];
    if (in.op == Op::jump) {
      stack.push_back(in.a);
    } else if (in.op == Op::split) {
      stack.push_back(in.b);
      stack.push_back(in.a);
    } else {
      list.push_back(p);
    }
  }
}

bool PatternProgram::step_accepts(const Inst& in, std::uint32_t c) const {
  switch (in.op) {
    case Op::literal:
      return (case_insensitive_ ? to_lower(c) : c) == in.a;
    case Op::any_but_slash:
      return c != kSlash;
    case Op::any:
      return true;
    case Op::set: {
      if (c == kSlash) return false;
      const CharSet& s = sets_[in.a];
      if (s.contains(c)) return true;
      return case_insensitive_ && (s.contains(to_lower(c)) || s.contains(to_upper(c)));
    }
    default:
      return false;
  }
}

bool PatternProgram::matches(std::string_view text) const {
  std::vector<std::uint32_t> current, next, stack;
  std::vector<std::uint32_t> mark(insts_.size(), 0);
  std::uint32_t generation = 1;
  add_thread(current, mark, generation, 0, stack);
  std::size_t i = 0;
  while (i < text.size() && !current.empty()) {
    std::uint32_t c = utf8_ ? decode_utf8(text, i) : static_cast<unsigned char>(text[i++]);
    ++generation;
    next.clear();
    for (std::uint32_t pc : current) {
      if (step_accepts(insts_[pc], c)) add_thread(next, mark, generation, pc + 1, stack);
    }
    current.swap(next);
  }
  if (i < text.size()) return false;
  for (std::uint32_t pc : current) {
    if (insts_[pc].op == Op::match) return true;
  }
  return false;
}

}  // namespace agentkit::tools::detail

namespace agentkit::tools::detail {
namespace {

bool add_posix_class(std::string_view name, CharSet& out) {
  auto add = [&](std::uint32_t lo, std::uint32_t hi) { out.ranges.emplace_back(lo, hi); };
  if (name == "alnum") { add('0', '9'); add('A', 'Z'); add('a', 'z'); }
  else if (name == "alpha") { add('A', 'Z'); add('a', 'z'); }
  else if (name == "blank") { add(' ', ' '); add('\t', '\t'); }
  else if (name == "cntrl") { add(0, 0x1F); add(0x7F, 0x7F); }
  else if (name == "digit") { add('0', '9'); }
  else if (name == "graph") { add(0x21, 0x7E); }
  else if (name == "lower") { add('a', 'z'); }
  else if (name == "print") { add(0x20, 0x7E); }
  else if (name == "punct") { add(0x21, 0x2F); add(0x3A, 0x40); add(0x5B, 0x60); add(0x7B, 0x7E); }
  else if (name == "space") { add('\t', '\r'); add(' ', ' '); }
  else if (name == "upper") { add('A', 'Z'); }
  else if (name == "xdigit") { add('0', '9'); add('A', 'F'); add('a', 'f'); }
  else return false;
  return true;
}

std::uint32_t next_char(std::string_view p, std::size_t& i, bool utf8) {
  if (utf8) return decode_utf8(p, i);
  return static_cast<unsigned char>(p[i++]);
}

}  // namespace

BracketParse parse_bracket(std::string_view p, std::size_t& i, bool utf8, CharSet& out) {
  std::size_t j = i + 1;
  if (j < p.size() && (p[j] == '!' || p[j] == '^')) {
    out.negated = true;
    ++j;
  }
  bool first = true;
  while (j < p.size()) {
    if (p[j] == ']' && !first) {
      i = j + 1;
      return BracketParse::ok;
    }
    first = false;
    if (p[j] == '[' && j + 1 < p.size() && p[j + 1] == ':') {
      std::size_t close = p.find(']', j + 2);
      if (close == std::string_view::npos) return BracketParse::unclosed;
      if (close >= j + 3 && p[close - 1] == ':') {
        if (!add_posix_class(p.substr(j + 2, close - j - 3), out)) return BracketParse::bad_class_name;
        j = close + 1;
        continue;
      }
      // No ":]": the '[' is an ordinary member (git's rule).
    }
    if (p[j] == '\\') {
      ++j;
      if (j >= p.size()) return BracketParse::unclosed;
    }
    std::uint32_t lo = next_char(p, j, utf8);
    if (j + 1 < p.size() && p[j] == '-' && p[j + 1] != ']') {
      ++j;
      if (p[j] == '\\') {
        ++j;
        if (j >= p.size()) return BracketParse::unclosed;
      }
      std::uint32_t hi = next_char(p, j, utf8);
      if (hi >= lo) out.ranges.emplace_back(lo, hi);
    } else {
      out.ranges.emplace_back(lo, lo);
    }
  }
  return BracketParse::unclosed;
}

}  // namespace agentkit::tools::detail
