// json::parse: an iterative RFC 8259 parser. It never recurses (depth is bounded by
// ParseOptions::max_depth and held in an explicit stack), keeps number literals as text, checks
// UTF-8 and duplicate keys as it reads, and allocates each container once, exactly sized, when
// it closes: children wait on reusable stacks until then.
#include <cstring>
#include <string>
#include <vector>

#include "agentkit/json/value.hpp"
#include "object_access.hpp"
#include "text_scan.hpp"

namespace agentkit::json {
namespace {

// A \uXXXX escape is six bytes; a surrogate pair is two of them.
constexpr std::size_t kUnicodeEscapeLength = 6;
constexpr char32_t kHighSurrogateFirst = 0xD800, kLowSurrogateFirst = 0xDC00;
constexpr char32_t kSurrogateEnd = 0xE000;

struct Frame {
  bool is_object;
  std::size_t first;        // index of this container's first pending child in its stack
  std::size_t offset;       // byte offset of the opening bracket, for messages
};

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    const char bytes[] = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
    out.append(bytes, 2);
  } else if (cp < 0x10000) {
    const char bytes[] = {static_cast<char>(0xE0 | (cp >> 12)),
                          static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                          static_cast<char>(0x80 | (cp & 0x3F))};
    out.append(bytes, 3);
  } else {
    const char bytes[] = {static_cast<char>(0xF0 | (cp >> 18)),
                          static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
                          static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                          static_cast<char>(0x80 | (cp & 0x3F))};
    out.append(bytes, 4);
  }
}

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), options_(options) {}

  Result<Value> run();

 private:
  // Each step answers false after recording the error in error_.
  bool parse_scalar(Value& out);
  bool parse_string(std::string& out);
  bool parse_string_escapes(std::string& out, const char* run_start);
  bool parse_escape(std::string& out);
  bool parse_hex4(char32_t& out);
  bool parse_number(Value& out);
  bool parse_literal(std::string_view word);

  bool open_container(bool is_object, bool& empty);
  bool begin_member();
  bool is_duplicate_small(const Frame& frame) const;
  bool push_element(const Frame& frame, Value&& v);
  bool close_container(Value& out);

  void skip_whitespace() noexcept {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool syntax_error(const char* at, std::string reason);
  bool limit_error(const char* at, std::string_view limit, std::size_t max, std::string what);
  std::string describe_here(const char* at) const;

  const char* begin_;
  const char* p_;
  const char* end_;
  const ParseOptions& options_;
  std::vector<Frame> frames_;
  std::vector<Value> elements_;  // pending elements of every open array, innermost last
  std::vector<Member> members_;  // pending members of every open object, innermost last
  std::optional<Error> error_;
};

std::string Parser::describe_here(const char* at) const {
  if (at >= end_) return "the end of the input";
  const unsigned char c = static_cast<unsigned char>(*at);
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xF];
}

bool Parser::syntax_error(const char* at, std::string reason) {
  const std::size_t offset = static_cast<std::size_t>(at - begin_);
  error_ = make_error(Errc::parse_error, "invalid JSON at byte " + std::to_string(offset) + " (" +
                                             describe_here(at) + "): " + reason)
               .with_detail("offset", std::to_string(offset))
               .with_detail("reason", std::move(reason));
  return false;
}

bool Parser::limit_error(const char* at, std::string_view limit, std::size_t max, std::string what) {
  const std::size_t offset = static_cast<std::size_t>(at - begin_);
  error_ = make_error(Errc::limit_exceeded,
                      what + " at byte " + std::to_string(offset) + " exceeds the limit " +
                          std::string(limit) + " = " + std::to_string(max) +
                          "; raise ParseOptions::" + std::string(limit) + " if the input is trusted")
               .with_detail("limit", std::string(limit))
               .with_detail("max", std::to_string(max))
               .with_detail("offset", std::to_string(offset));
  return false;
}

bool Parser::parse_literal(std::string_view word) {
  if (static_cast<std::size_t>(end_ - p_) >= word.size() &&
      std::memcmp(p_, word.data(), word.size()) == 0) {
    p_ += word.size();
    return true;
  }
  return syntax_error(p_, "expected a value");
}

bool Parser::parse_number(Value& out) {
  const detail::NumberScan scan = detail::scan_number(p_, end_);
  if (scan.reason != nullptr) return syntax_error(scan.where, scan.reason);
  out = Value::number_unchecked(std::string(p_, scan.end));
  p_ = scan.end;
  return true;
}

bool Parser::parse_hex4(char32_t& out) {
  // p_ points just past "\u".
  if (end_ - p_ < 4) return syntax_error(p_, "expected four hex digits after \\u");
  char32_t cp = 0;
  for (int i = 0; i < 4; ++i) {
    const int d = hex_digit(p_[i]);
    if (d < 0) return syntax_error(p_ + i, "expected four hex digits after \\u");
    cp = (cp << 4) | static_cast<char32_t>(d);
  }
  p_ += 4;
  out = cp;
  return true;
}

// p_ points at the backslash.
bool Parser::parse_escape(std::string& out) {
  const char* escape_start = p_;
  if (end_ - p_ < 2) return syntax_error(p_ + 1, "unterminated escape sequence");
  const char kind = p_[1];
  p_ += 2;
  switch (kind) {
    case '"': out.push_back('"'); return true;
    case '\\': out.push_back('\\'); return true;
    case '/': out.push_back('/'); return true;
    case 'b': out.push_back('\b'); return true;
    case 'f': out.push_back('\f'); return true;
    case 'n': out.push_back('\n'); return true;
    case 'r': out.push_back('\r'); return true;
    case 't': out.push_back('\t'); return true;
    case 'u': break;
    default: return syntax_error(escape_start, "unknown escape sequence");
  }
  char32_t cp = 0;
  if (!parse_hex4(cp)) return false;
  if (cp >= kLowSurrogateFirst && cp < kSurrogateEnd) {
    return syntax_error(escape_start, "a low surrogate escape without a high surrogate before it");
  }
  if (cp >= kHighSurrogateFirst && cp < kLowSurrogateFirst) {
    // A high surrogate must be followed at once by an escaped low surrogate: lone surrogates
    // cannot be written as UTF-8, and passing them on would hand peers invalid text.
    if (end_ - p_ < static_cast<std::ptrdiff_t>(kUnicodeEscapeLength) || p_[0] != '\\' || p_[1] != 'u') {
      return syntax_error(escape_start, "a high surrogate escape without a low surrogate after it");
    }
    p_ += 2;
    char32_t low = 0;
    if (!parse_hex4(low)) return false;
    if (low < kLowSurrogateFirst || low >= kSurrogateEnd) {
      return syntax_error(escape_start, "a high surrogate escape without a low surrogate after it");
    }
    cp = 0x10000 + ((cp - kHighSurrogateFirst) << 10) + (low - kLowSurrogateFirst);
  }
  append_utf8(out, cp);
  return true;
}

// p_ points at the opening quote. The common string has no escape: it is validated in place
// and copied once.
bool Parser::parse_string(std::string& out) {
  const char* run_start = ++p_;
  for (;;) {
    const char* q = detail::find_special_string_byte(p_, end_);
    if (q == end_) return syntax_error(end_, "unterminated string");
    const unsigned char c = static_cast<unsigned char>(*q);
    if (c == '"') {
      out.assign(run_start, q);
      p_ = q + 1;
      return true;
    }
    if (c == '\\') {
      p_ = q;
      return parse_string_escapes(out, run_start);
    }
    if (c < 0x20) return syntax_error(q, "a control character must be escaped inside a string");
    const std::size_t n = detail::utf8_sequence_length(q, end_);
    if (n == 0) return syntax_error(q, "invalid UTF-8");
    p_ = q + n;
  }
}

// The slow path, from the first backslash: copies runs between escapes into `out`.
bool Parser::parse_string_escapes(std::string& out, const char* run_start) {
  out.assign(run_start, p_);
  for (;;) {
    if (!parse_escape(out)) return false;
    for (;;) {
      const char* q = detail::find_special_string_byte(p_, end_);
      if (q == end_) return syntax_error(end_, "unterminated string");
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c == '"') {
        out.append(p_, q);
        p_ = q + 1;
        return true;
      }
      if (c == '\\') {
        out.append(p_, q);
        p_ = q;
        break;
      }
      if (c < 0x20) return syntax_error(q, "a control character must be escaped inside a string");
      const std::size_t n = detail::utf8_sequence_length(q, end_);
      if (n == 0) return syntax_error(q, "invalid UTF-8");
      out.append(p_, q + n);
      p_ = q + n;
    }
  }
}

bool Parser::parse_scalar(Value& out) {
  switch (*p_) {
    case '"': {
      std::string s;
      if (!parse_string(s)) return false;
      out = Value(std::move(s));
      return true;
    }
    case 't':
      out = Value(true);
      return parse_literal("true");
    case 'f':
      out = Value(false);
      return parse_literal("false");
    case 'n':
      out = Value();
      return parse_literal("null");
    default:
      if (*p_ == '-' || detail::is_digit(*p_)) return parse_number(out);
      return syntax_error(p_, "expected a value");
  }
}

// p_ points at '{' or '['. Pushes a frame unless the container is empty (then `empty` is set
// and p_ is past the closing bracket).
bool Parser::open_container(bool is_object, bool& empty) {
  // Depth is checked before the frame is pushed: the frame stack never outgrows max_depth.
  if (frames_.size() >= options_.max_depth) {
    return limit_error(p_, "max_depth", options_.max_depth, "nesting deeper than the limit");
  }
  const char* bracket = p_++;
  skip_whitespace();
  const char close = is_object ? '}' : ']';
  if (p_ != end_ && *p_ == close) {
    ++p_;
    empty = true;
    return true;
  }
  empty = false;
  frames_.push_back(Frame{is_object, is_object ? members_.size() : elements_.size(),
                          static_cast<std::size_t>(bracket - begin_)});
  return true;
}

bool Parser::is_duplicate_small(const Frame& frame) const {
  const std::string& key = members_.back().key;
  for (std::size_t i = frame.first; i + 1 < members_.size(); ++i) {
    if (members_[i].key.size() == key.size() && members_[i].key == key) return true;
  }
  return false;
}

// p_ points at a member's opening quote (whitespace skipped). Reads `"key" :` and leaves p_ at
// the value.
bool Parser::begin_member() {
  const Frame& frame = frames_.back();
  if (p_ == end_ || *p_ != '"') return syntax_error(p_, "expected a string key");
  const std::size_t count = members_.size() - frame.first;
  // Checked before the member stack grows for it.
  if (count >= options_.max_container) {
    return limit_error(p_, "max_container", options_.max_container, "an object with more members than the limit");
  }
  const char* key_start = p_;
  members_.emplace_back();
  if (!parse_string(members_.back().key)) return false;
  // Small objects are checked here, with the key's position at hand; larger ones are checked
  // through the hash index when they close (linear checking would be quadratic).
  if (options_.reject_duplicate_keys && count < detail::kIndexThreshold && is_duplicate_small(frame)) {
    return syntax_error(key_start, "duplicate key \"" + members_.back().key + "\" in the object opened at byte " +
                                       std::to_string(frame.offset));
  }
  skip_whitespace();
  if (p_ == end_ || *p_ != ':') return syntax_error(p_, "expected ':' after an object key");
  ++p_;
  skip_whitespace();
  return true;
}

bool Parser::push_element(const Frame& frame, Value&& v) {
  if (elements_.size() - frame.first >= options_.max_container) {
    return limit_error(p_, "max_container", options_.max_container, "an array with more elements than the limit");
  }
  elements_.push_back(std::move(v));
  return true;
}

// Builds the innermost container from its pending children (p_ is past its closing bracket).
bool Parser::close_container(Value& out) {
  const Frame frame = frames_.back();
  frames_.pop_back();
  if (!frame.is_object) {
    const auto first = elements_.begin() + static_cast<std::ptrdiff_t>(frame.first);
    Array array(std::make_move_iterator(first), std::make_move_iterator(elements_.end()));
    elements_.erase(first, elements_.end());
    out = Value(std::move(array));
    return true;
  }
  const auto first = members_.begin() + static_cast<std::ptrdiff_t>(frame.first);
  Object object;
  if (!options_.reject_duplicate_keys) {
    // Duplicates allowed: the last one wins (at the first one's position), as most readers do.
    object.reserve(static_cast<std::size_t>(members_.end() - first));
    for (auto it = first; it != members_.end(); ++it) object.set(std::move(it->key), std::move(it->value));
    members_.erase(first, members_.end());
    out = Value(std::move(object));
    return true;
  }
  std::vector<Member> members(std::make_move_iterator(first), std::make_move_iterator(members_.end()));
  members_.erase(first, members_.end());
  const std::size_t duplicate = detail::ObjectAccess::adopt(object, std::move(members));
  if (duplicate != detail::ObjectAccess::kNoDuplicate) {
    return syntax_error(begin_ + frame.offset, "duplicate key \"" + object.begin()[static_cast<std::ptrdiff_t>(duplicate)].key +
                                                   "\" in the object opened here");
  }
  out = Value(std::move(object));
  return true;
}

Result<Value> Parser::run() {
  skip_whitespace();
  Value value;
  for (;;) {
    // Read one value into `value`: a scalar, an empty container, or the opening of a container
    // (then loop to read its first child).
    if (p_ == end_) {
      syntax_error(p_, frames_.empty() ? "the input is empty" : "expected a value");
      return std::move(*error_);
    }
    if (*p_ == '{' || *p_ == '[') {
      const bool is_object = *p_ == '{';
      bool empty = false;
      if (!open_container(is_object, empty)) return std::move(*error_);
      if (!empty) {
        if (is_object && !begin_member()) return std::move(*error_);
        continue;
      }
      value = is_object ? Value(Object()) : Value(Array());
    } else if (!parse_scalar(value)) {
      return std::move(*error_);
    }

    // Hand the value to its container; close containers for as long as their bracket follows.
    for (;;) {
      if (frames_.empty()) {
        skip_whitespace();
        if (p_ != end_) {
          syntax_error(p_, "unexpected data after the JSON value");
          return std::move(*error_);
        }
        return value;
      }
      const Frame& frame = frames_.back();
      if (frame.is_object) {
        members_.back().value = std::move(value);
      } else if (!push_element(frame, std::move(value))) {
        return std::move(*error_);
      }
      skip_whitespace();
      const char close = frame.is_object ? '}' : ']';
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        skip_whitespace();
        if (frame.is_object && !begin_member()) return std::move(*error_);
        break;  // read the next child
      }
      if (p_ != end_ && *p_ == close) {
        ++p_;
        if (!close_container(value)) return std::move(*error_);
        continue;  // the closed container is now a value for its parent
      }
      syntax_error(p_, frame.is_object ? "expected ',' or '}' after an object member"
                                        : "expected ',' or ']' after an array element");
      return std::move(*error_);
    }
  }
}

}  // namespace

Result<Value> parse(std::string_view text, const ParseOptions& options) {
  // Checked before anything is read or allocated.
  if (text.size() > options.max_bytes) {
    return make_error(Errc::limit_exceeded,
                      "JSON input of " + std::to_string(text.size()) + " bytes exceeds the limit max_bytes = " +
                          std::to_string(options.max_bytes) +
                          "; raise ParseOptions::max_bytes if the input is trusted")
        .with_detail("limit", "max_bytes")
        .with_detail("max", std::to_string(options.max_bytes))
        .with_detail("size", std::to_string(text.size()));
  }
  Parser parser(text, options);
  return parser.run();
}

}  // namespace agentkit::json
