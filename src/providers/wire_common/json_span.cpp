#include "json_span.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace agentkit::providers::detail {
namespace {

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A cursor over validated JSON text that can skip whole values without building them.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  void skip_space() {
    while (at_ < text_.size() && is_space(text_[at_])) ++at_;
  }
  bool eat(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip_space();
    return at_ < text_.size() && text_[at_] == c;
  }
  std::size_t position() const noexcept { return at_; }
  std::string_view slice(std::size_t from) const { return text_.substr(from, at_ - from); }

  // Reads a string literal; answers its raw contents (escapes not decoded) or nullopt.
  std::optional<std::string_view> string() {
    skip_space();
    if (at_ >= text_.size() || text_[at_] != '"') return std::nullopt;
    const std::size_t begin = ++at_;
    while (at_ < text_.size() && text_[at_] != '"') at_ += text_[at_] == '\\' ? 2 : 1;
    if (at_ >= text_.size()) return std::nullopt;
    return text_.substr(begin, at_++ - begin);
  }

  // Skips one value of any kind. Nesting is tracked with a counter, never by recursion.
  bool skip_value() {
    skip_space();
    std::size_t depth = 0;
    do {
      if (at_ >= text_.size()) return false;
      const char c = text_[at_];
      if (c == '"') {
        if (!string()) return false;
      } else if (c == '{' || c == '[') {
        ++depth;
        ++at_;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return false;
        --depth;
        ++at_;
      } else if (c == ',' || c == ':' || is_space(c)) {
        if (depth == 0) return false;
        ++at_;
      } else {
        while (at_ < text_.size() && !is_space(text_[at_]) && text_[at_] != ',' && text_[at_] != '}' &&
               text_[at_] != ']') {
          ++at_;
        }
      }
      skip_space();
    } while (depth > 0);
    return true;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

Error malformed(std::string_view what) { return make_error(Errc::parse_error, "malformed JSON while locating " + std::string(what)); }

}  // namespace

Result<std::string_view> member_span(std::string_view object_text, std::string_view key) {
  Cursor c(object_text);
  if (!c.eat('{')) return malformed("a member (not an object)");
  if (c.eat('}')) return make_error(Errc::not_found, "no member '" + std::string(key) + "'");
  for (;;) {
    auto name = c.string();
    if (!name || !c.eat(':')) return malformed("a member name");
    c.skip_space();
    const std::size_t begin = c.position();
    if (!c.skip_value()) return malformed("a member value");
    // Keys here are plain ASCII names; an escaped spelling of the same key is not matched.
    if (*name == key) {
      std::string_view value = c.slice(begin);
      while (!value.empty() && is_space(value.back())) value.remove_suffix(1);
      return value;
    }
    if (c.eat('}')) break;
    if (!c.eat(',')) return malformed("the next member");
  }
  return make_error(Errc::not_found, "no member '" + std::string(key) + "'");
}

Result<std::vector<std::string_view>> element_spans(std::string_view array_text) {
  Cursor c(array_text);
  std::vector<std::string_view> out;
  if (!c.eat('[')) return malformed("an element (not an array)");
  if (c.eat(']')) return out;
  for (;;) {
    c.skip_space();
    const std::size_t begin = c.position();
    if (!c.skip_value()) return malformed("an element");
    std::string_view value = c.slice(begin);
    while (!value.empty() && is_space(value.back())) value.remove_suffix(1);
    out.push_back(value);
    if (c.eat(']')) break;
    if (!c.eat(',')) return malformed("the next element");
  }
  return out;
}

}  // namespace agentkit::providers::detail
