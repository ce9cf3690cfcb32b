// The non-template half of the binder: paths, error texts, the safe-integer rule and the
// source-span scanner used to hand json::Raw members their exact bytes.
#include <charconv>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "agentkit/base/charconv.hpp"
#include "agentkit/wire/binder.hpp"
#include "number_literal.hpp"

namespace agentkit::wire::detail {
namespace {

bool is_identifier(std::string_view key) {
  if (key.empty()) return false;
  const auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto tail = [&](char c) { return head(c) || (c >= '0' && c <= '9'); };
  if (!head(key.front())) return false;
  for (const char c : key.substr(1)) {
    if (!tail(c)) return false;
  }
  return true;
}

void append_path(std::string& out, const PathNode& at) {
  if (at.parent == nullptr) {
    out += '$';
    return;
  }
  append_path(out, *at.parent);
  if (at.is_index) {
    out += '[';
    out += std::to_string(at.index);
    out += ']';
  } else if (is_identifier(at.key)) {
    out += '.';
    out += at.key;
  } else {
    out += '[';  // JSONPath bracket form for keys that are not identifiers
    json::append_quoted(out, at.key);
    out += ']';
  }
}

Error error_at(Errc code, const std::string& path, std::string message) {
  return make_error(code, std::move(message)).with_detail("path", path);
}

std::string describe(const json::Value& value) {
  if (value.is_number()) return "the number " + std::string(value.number_text());
  return std::string(json::type_name(value.type()));
}

// What a number field was given, for an error message: the literal itself, shortened.
std::string quoted_literal(const json::Value& value) {
  constexpr std::size_t kShownDigits = 40;
  std::string_view text = value.number_text();
  std::string shown(text.substr(0, kShownDigits));
  if (text.size() > kShownDigits) shown += "...";
  return shown;
}

}  // namespace

std::string format_path(const PathNode& at) {
  std::string out;
  append_path(out, at);
  return out;
}

Error type_mismatch(const PathNode& at, std::string_view expected, const json::Value& got) {
  const std::string path = format_path(at);
  std::string message = "expected " + std::string(expected) + " at " + path + ", got " + describe(got);
  if (got.is_null()) message += " (null is not allowed for this field)";
  return error_at(Errc::validation_error, path, std::move(message))
      .with_detail("expected", std::string(expected))
      .with_detail("type", std::string(json::type_name(got.type())));
}

Error missing_member(const PathNode& at, std::string_view name) {
  const PathNode member{&at, name, 0, false};
  const std::string path = format_path(member);
  return error_at(Errc::validation_error, path,
                  "missing required member \"" + std::string(name) + "\" at " + format_path(at))
      .with_detail("member", std::string(name));
}

Error unknown_member(const PathNode& at, std::string_view name) {
  const PathNode member{&at, name, 0, false};
  const std::string path = format_path(member);
  return error_at(Errc::validation_error, path,
                  "unknown member " + path +
                      ": this payload rejects members its schema does not declare")
      .with_detail("member", std::string(name));
}

Error validation_failed(const PathNode& at, Error inner) {
  const std::string path = format_path(at);
  inner.message = "invalid value at " + path + ": " + inner.message;
  inner.detail.insert(inner.detail.begin(), ErrorDetail{"path", path});
  return inner;
}

Error integer_out_of_type(const PathNode& at, std::string_view type, const json::Value& got) {
  const std::string path = format_path(at);
  return error_at(Errc::validation_error, path,
                  "the integer " + quoted_literal(got) + " at " + path + " does not fit " +
                      std::string(type))
      .with_detail("expected", std::string(type));
}

Error source_mismatch(const PathNode& at) {
  const std::string path = format_path(at);
  return error_at(Errc::internal, path,
                  "the source bytes of " + path + " do not match the decoded value; please report this");
}

Result<std::int64_t> read_safe_integer(const json::Value& value, const PathNode& at) {
  if (!value.is_number()) return type_mismatch(at, "an integer", value);
  const NumberLiteral literal = NumberLiteral::read(value.number_text());
  auto n = literal.safe_integer();
  if (n) return *n;
  const std::string path = format_path(at);
  if (!literal.integral()) {
    return error_at(Errc::validation_error, path,
                    "expected an integer at " + path + ", got " + quoted_literal(value))
        .with_detail("expected", "an integer");
  }
  return error_at(Errc::validation_error, path,
                  "the integer " + quoted_literal(value) + " at " + path +
                      " is outside the safe range ±(2^53-1)")
      .with_detail("expected", "an integer within ±(2^53-1)");
}

Result<double> read_double(const json::Value& value, const PathNode& at) {
  if (!value.is_number()) return type_mismatch(at, "a number", value);
  const std::string_view text = value.number_text();
  double d = 0;
  const auto [end, ec] = agentkit::from_chars(text.data(), text.data() + text.size(), d);
  if (ec == std::errc() && end == text.data() + text.size()) return d;
  const std::string path = format_path(at);
  return error_at(Errc::validation_error, path,
                  "the number " + quoted_literal(value) + " at " + path +
                      " is outside the range of a double")
      .with_detail("expected", "a number within the range of a double");
}

// ---- Source spans --------------------------------------------------------------------------
// The text has already been accepted by the strict parser, so the scanner only has to find
// where each value ends; it still never reads past the end, and answers nullopt if the text
// does not look as promised.

namespace {

constexpr std::size_t kNotFound = std::string_view::npos;

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && is_json_space(text[i])) ++i;
  return i;
}

// i is at the opening quote; answers the index just past the closing one.
std::size_t skip_string(std::string_view text, std::size_t i) {
  ++i;
  while (true) {
    i = text.find_first_of("\"\\", i);
    if (i == kNotFound) return kNotFound;
    if (text[i] == '"') return i + 1;
    i += 2;  // an escape: the next byte cannot close the string
  }
}

// i is at the first byte of a value; answers the index just past it.
std::size_t skip_value(std::string_view text, std::size_t i) {
  if (i >= text.size()) return kNotFound;
  const char first = text[i];
  if (first == '"') return skip_string(text, i);
  if (first != '{' && first != '[') {
    while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
           !is_json_space(text[i])) {
      ++i;
    }
    return i;
  }
  std::size_t depth = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
      if (i == kNotFound) return kNotFound;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    ++i;
  }
  return kNotFound;
}

// Splits a container's text into its values; `keyed` for an object (skip "key" : first).
std::optional<std::vector<std::string_view>> value_spans(std::string_view text, char open,
                                                         char close, bool keyed) {
  std::vector<std::string_view> spans;
  if (text.size() < 2 || text.front() != open) return std::nullopt;
  std::size_t i = skip_space(text, 1);
  if (i < text.size() && text[i] == close) return spans;
  while (i < text.size()) {
    if (keyed) {
      if (text[i] != '"') return std::nullopt;
      i = skip_space(text, skip_string(text, i));
      if (i >= text.size() || text[i] != ':') return std::nullopt;
      i = skip_space(text, i + 1);
    }
    const std::size_t end = skip_value(text, i);
    if (end == kNotFound) return std::nullopt;
    spans.push_back(text.substr(i, end - i));
    i = skip_space(text, end);
    if (i >= text.size()) return std::nullopt;
    if (text[i] == close) return spans;
    if (text[i] != ',') return std::nullopt;
    i = skip_space(text, i + 1);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::string_view>> member_spans(std::string_view text) {
  return value_spans(text, '{', '}', true);
}

std::optional<std::vector<std::string_view>> element_spans(std::string_view text) {
  return value_spans(text, '[', ']', false);
}

std::string_view trim_json_space(std::string_view text) {
  while (!text.empty() && is_json_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_json_space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace agentkit::wire::detail
