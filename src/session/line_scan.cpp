// The loader's validating scan of one line: JSON grammar without a tree. Checked against
// json::parse by tests/fuzz/session_log_fuzz.cpp (the two must accept exactly the same lines).
#include "line_scan.hpp"

#include <cstdint>
#include <bit>
#include <cstring>

namespace agentkit::session::detail {
namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kLows = 0x7F7F7F7F7F7F7F7FULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// Bit 7 set in each byte of `x` equal to `c` (exact for every byte).
constexpr std::uint64_t equal_bytes(std::uint64_t x, unsigned char c) noexcept {
  const std::uint64_t t = x ^ (kOnes * c);
  return ~(((t & kLows) + kLows) | t) & kHighs;
}
// Bit 7 set in each byte below 0x20 (exact for every byte).
constexpr std::uint64_t control_bytes(std::uint64_t x) noexcept {
  return ~(((x & kLows) + kOnes * (0x80 - 0x20)) | x) & kHighs;
}

bool is_digit(char c) noexcept { return static_cast<unsigned char>(c - '0') < 10; }

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Scanner {
 public:
  Scanner(const char* p, const char* end) : p_(p), end_(end) {}

  const char* p_;
  const char* end_;

  // Lines we write have no whitespace at all: one comparison answers the common case.
  void skip_whitespace() noexcept {
    if (p_ != end_ && static_cast<unsigned char>(*p_) > ' ') return;
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  // p_ at the opening quote; leaves p_ past the closing one.
  bool string(bool& escaped) noexcept {
    ++p_;
    for (;;) {
      // Plain bytes eight at a time: stop at a quote, a backslash or a control byte.
      while (end_ - p_ >= 8) {
        std::uint64_t x;
        std::memcpy(&x, p_, 8);
        std::uint64_t stops = equal_bytes(x, '"') | equal_bytes(x, '\\') | control_bytes(x);
        if (stops != 0) {
          p_ += std::countr_zero(stops) / 8;
          break;
        }
        p_ += 8;
      }
      if (p_ == end_) return false;
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        ++p_;
        continue;
      }
      escaped = true;
      if (!escape()) return false;
    }
  }

  // p_ at a backslash.
  bool escape() noexcept {
    if (end_ - p_ < 2) return false;
    char k = p_[1];
    p_ += 2;
    switch (k) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't': return true;
      case 'u': break;
      default: return false;
    }
    int unit = hex4();
    if (unit < 0) return false;
    if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a lone low surrogate
    if (unit < 0xD800 || unit > 0xDBFF) return true;
    // A high surrogate must be followed by an escaped low one.
    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
    p_ += 2;
    int low = hex4();
    return low >= 0xDC00 && low <= 0xDFFF;
  }

  int hex4() noexcept {
    if (end_ - p_ < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      int h = hex_value(p_[i]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    p_ += 4;
    return v;
  }

  // RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  bool number() noexcept {
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ == end_ || !is_digit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    return true;
  }

  bool literal(std::string_view word) noexcept {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // Any value; `depth` counts the containers already open around it.
  bool value(std::size_t depth) noexcept {
    if (p_ == end_) return false;
    bool escaped = false;
    switch (*p_) {
      case '"': return string(escaped);
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }

  bool object(std::size_t depth) noexcept {
    if (depth > kMaxLineDepth) return false;
    ++p_;
    skip_whitespace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    for (;;) {
      bool escaped = false;
      if (p_ == end_ || *p_ != '"' || !string(escaped)) return false;
      skip_whitespace();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_whitespace();
      if (!value(depth)) return false;
      skip_whitespace();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      skip_whitespace();
    }
  }

  bool array(std::size_t depth) noexcept {
    if (depth > kMaxLineDepth) return false;
    ++p_;
    skip_whitespace();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      if (!value(depth)) return false;
      skip_whitespace();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      skip_whitespace();
    }
  }
};

}  // namespace

bool scan_object_line(std::string_view line, std::vector<ScannedMember>& members) {
  members.clear();
  Scanner s(line.data(), line.data() + line.size());
  s.skip_whitespace();
  if (s.p_ == s.end_ || *s.p_ != '{') return false;
  ++s.p_;
  s.skip_whitespace();
  if (s.p_ != s.end_ && *s.p_ == '}') {
    ++s.p_;
  } else {
    for (;;) {
      ScannedMember m;
      if (s.p_ == s.end_ || *s.p_ != '"') return false;
      const char* key_start = s.p_;
      if (!s.string(m.key_escaped)) return false;
      m.key = std::string_view(key_start + 1, static_cast<std::size_t>(s.p_ - key_start - 2));
      s.skip_whitespace();
      if (s.p_ == s.end_ || *s.p_ != ':') return false;
      ++s.p_;
      s.skip_whitespace();
      const char* value_start = s.p_;
      if (!s.value(1)) return false;
      m.value = std::string_view(value_start, static_cast<std::size_t>(s.p_ - value_start));
      members.push_back(m);
      s.skip_whitespace();
      if (s.p_ == s.end_) return false;
      if (*s.p_ == '}') {
        ++s.p_;
        break;
      }
      if (*s.p_ != ',') return false;
      ++s.p_;
      s.skip_whitespace();
    }
  }
  s.skip_whitespace();
  return s.p_ == s.end_;
}

bool has_escape(std::string_view quoted) noexcept {
  return quoted.find('\\') != std::string_view::npos;
}

}  // namespace agentkit::session::detail
