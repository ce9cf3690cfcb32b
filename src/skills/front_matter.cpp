// The front-matter reader: a line-oriented reader for the YAML subset skill files use. It follows
// PyYAML's results on that subset (tests/skills/front_matter_diff_test.cpp checks it against
// PyYAML's BaseLoader) and, where PyYAML would refuse a file other hosts accept, reads on and
// records a diagnostic instead.
#include "agentkit/skills/front_matter.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "agentkit/base/utf8.hpp"
#include "file_reader.hpp"

namespace agentkit::skills {

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line != 0) out += ":" + std::to_string(line);
  out += severity == Severity::error ? ": error: " : ": warning: ";
  out += message;
  out += " [";
  out += diagnostic_code_name(code);
  out += "]";
  return out;
}

std::string_view diagnostic_code_name(DiagnosticCode code) noexcept {
  switch (code) {
    case DiagnosticCode::yaml_leniency: return "yaml_leniency";
    case DiagnosticCode::front_matter_missing: return "front_matter_missing";
    case DiagnosticCode::front_matter_invalid: return "front_matter_invalid";
    case DiagnosticCode::unknown_key: return "unknown_key";
    case DiagnosticCode::name_missing: return "name_missing";
    case DiagnosticCode::name_invalid: return "name_invalid";
    case DiagnosticCode::name_mismatch: return "name_mismatch";
    case DiagnosticCode::description_missing: return "description_missing";
    case DiagnosticCode::description_too_long: return "description_too_long";
    case DiagnosticCode::compatibility_too_long: return "compatibility_too_long";
    case DiagnosticCode::field_not_text: return "field_not_text";
    case DiagnosticCode::file_unreadable: return "file_unreadable";
    case DiagnosticCode::file_too_large: return "file_too_large";
    case DiagnosticCode::path_escapes: return "path_escapes";
    case DiagnosticCode::skill_shadowed: return "skill_shadowed";
    case DiagnosticCode::scan_limit: return "scan_limit";
    case DiagnosticCode::untrusted_project: return "untrusted_project";
    case DiagnosticCode::prompt_budget: return "prompt_budget";
  }
  return "unknown";
}

const YamlValue* YamlValue::find(std::string_view key) const noexcept {
  if (kind != Kind::map) return nullptr;
  for (const auto& e : entries) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

namespace {

using detail::kBom;

struct Line {
  std::string_view text;  // without the line break (and without a trailing CR)
  std::size_t number = 0;
  std::size_t indent = 0;  // leading spaces
  bool blank = false;      // empty, whitespace or a comment only
};

bool is_fence(std::string_view line, std::string_view fence) {
  if (line.substr(0, 3) != fence) return false;
  return line.find_first_not_of(" \t", 3) == std::string_view::npos;
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Loops, not find_first_not_of: libstdc++ answers that with a memchr per character, and trimming
// is most of what a front-matter read does.
std::string_view trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// True when `s` is empty or only spaces and tabs.
bool all_space(std::string_view s) { return trim(s).empty(); }

// Where a plain scalar's comment starts (" #"), or npos.
std::size_t comment_start(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) return i;
  }
  return std::string_view::npos;
}

// The ':' that ends a plain key: followed by a space or the end of the line.
std::size_t key_colon(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == '#') return std::string_view::npos;
    if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ' || s[i + 1] == '\t')) return i;
  }
  return std::string_view::npos;
}

bool is_sequence_entry(std::string_view text) {
  return !text.empty() && text[0] == '-' && (text.size() == 1 || text[1] == ' ');
}

class Reader {
 public:
  Reader(std::vector<Line> lines, std::string_view file, std::vector<Diagnostic>& out,
         std::size_t max_depth)
      : lines_(std::move(lines)), file_(file), out_(out), max_depth_(max_depth) {}

  Result<YamlValue> read_document() {
    skip_blank();
    if (at_end()) {
      YamlValue empty;
      empty.kind = YamlValue::Kind::map;
      return empty;
    }
    const Line& first = lines_[pos_];
    if (is_sequence_entry(first.text.substr(first.indent))) {
      return fail(first.number, "front matter is a list, not a map of 'key: value' lines");
    }
    const std::size_t first_number = first.number;
    auto map = read_map(first.indent, 1);
    if (!map) return map;
    if (map->entries.empty()) {
      return fail(first_number, "front matter is not a map of 'key: value' lines");
    }
    skip_blank();
    if (!at_end()) {
      return fail(lines_[pos_].number, "unexpected indentation; expected a key at column 1");
    }
    return map;
  }

 private:
  static constexpr std::size_t npos_ = std::string_view::npos;

  bool at_end() const { return pos_ >= lines_.size(); }
  void skip_blank() {
    while (!at_end() && lines_[pos_].blank) ++pos_;
  }
  std::size_t key_colon_of(const Line& l) const {
    std::string_view t = l.text.substr(l.indent);
    if (!t.empty() && (t[0] == '"' || t[0] == '\'')) {
      auto close = find_quote_end(t);
      if (close == npos_) return npos_;
      auto rest = t.substr(close + 1);
      auto colon = rest.find_first_not_of(" \t");
      if (colon != npos_ && rest[colon] == ':') return close + 1 + colon;
      return npos_;
    }
    return key_colon(t);
  }
  static std::size_t find_quote_end(std::string_view t) {
    const char q = t[0];
    for (std::size_t i = 1; i < t.size(); ++i) {
      if (q == '"' && t[i] == '\\') {
        ++i;
      } else if (t[i] == q) {
        if (q == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
          ++i;
        } else {
          return i;
        }
      }
    }
    return npos_;
  }

  Unexpected<Error> fail(std::size_t line, std::string why) const {
    return Unexpected(make_error(Errc::parse_error,
                                 std::string(file_) + ":" + std::to_string(line) + ": " + why));
  }
  void warn(std::size_t line, std::string why) {
    out_.push_back(Diagnostic{Severity::warning, DiagnosticCode::yaml_leniency, std::string(file_),
                              line, std::move(why)});
  }

  Result<YamlValue> read_map(std::size_t indent, std::size_t depth) {
    if (depth > max_depth_) return fail(lines_[pos_].number, "nesting deeper than the limit");
    YamlValue map;
    map.kind = YamlValue::Kind::map;
    map.line = lines_[pos_].number;
    if (depth == 1) map.entries.reserve(8);  // the skill format has six keys
    for (skip_blank(); !at_end(); skip_blank()) {
      const Line line = lines_[pos_];
      if (line.indent < indent) break;
      if (line.indent > indent) { return fail(line.number, "unexpected indentation inside a map"); }
      std::string_view t = line.text.substr(indent);
      if (is_sequence_entry(t)) break;
      auto colon = key_colon_of(line);
      if (colon == npos_) {
        warn(line.number, "line is not 'key: value'; it was skipped");
        ++pos_;
        continue;
      }
      std::string key = read_key(t.substr(0, colon), line.number);
      std::string_view rest = t.substr(colon + 1);
      ++pos_;
      auto value = read_value(rest, line, indent, depth);
      if (!value) return Unexpected(std::move(value).error());
      add_entry(map, std::move(key), std::move(*value), line.number);
    }
    return map;
  }

  void add_entry(YamlValue& map, std::string key, YamlValue value, std::size_t line) {
    for (auto& e : map.entries) {
      if (e.key == key) {
        warn(line, "key '" + key + "' repeats an earlier one; the later value is used");
        e.value = std::move(value);
        return;
      }
    }
    map.entries.push_back(YamlEntry{std::move(key), std::move(value)});
  }

  std::string read_key(std::string_view raw, std::size_t line) {
    raw = trim(raw);
    if (!raw.empty() && (raw[0] == '"' || raw[0] == '\'')) {
      std::size_t end = find_quote_end(raw);
      // Only a tab-indented line gets here with its quote open (key_colon_of skips tabs).
      if (end == npos_) {
        warn(line, "a quoted key is not closed; it was read as text");
        return std::string(raw);
      }
      return unquote(raw.substr(0, end + 1), line);
    }
    return std::string(raw);
  }

  Result<YamlValue> read_sequence(std::size_t indent, std::size_t depth) {
    if (depth > max_depth_) return fail(lines_[pos_].number, "nesting deeper than the limit");
    YamlValue seq;
    seq.kind = YamlValue::Kind::sequence;
    seq.line = lines_[pos_].number;
    for (skip_blank(); !at_end(); skip_blank()) {
      Line& line = lines_[pos_];
      if (line.indent != indent || !is_sequence_entry(line.text.substr(indent))) break;
      std::string_view after = line.text.substr(indent + 1);
      std::size_t pad = after.find_first_not_of(' ');
      if (pad != npos_ && after[pad] != '#' && key_colon(after.substr(pad)) != npos_ &&
          after[pad] != '"' && after[pad] != '\'' && after[pad] != '[' && after[pad] != '{') {
        // "- key: value": a map whose column is that of its first key.
        line.indent = indent + 1 + pad;
        auto item = read_map(line.indent, depth + 1);
        if (!item) return item;
        seq.items.push_back(std::move(*item));
        continue;
      }
      const Line copy = line;
      ++pos_;
      auto item = read_value(after, copy, indent, depth);
      if (!item) return item;
      seq.items.push_back(std::move(*item));
    }
    return seq;
  }

  // The value after "key:" or "- " on `line`; `indent` is the column of that key or dash.
  Result<YamlValue> read_value(std::string_view rest, const Line& line, std::size_t indent,
                               std::size_t depth) {
    std::string_view v = trim(rest);
    YamlValue out;
    out.line = line.number;
    if (v.empty() || v[0] == '#') return read_nested(indent, depth, out);
    switch (v[0]) {
      case '|':
      case '>': return read_block_scalar(v, line, indent);
      case '"':
      case '\'': return read_quoted(v, line);
      case '[':
      case '{': return read_flow_value(v, line, depth);
      default: return read_plain(v, line, indent);
    }
  }

  Result<YamlValue> read_nested(std::size_t indent, std::size_t depth, YamlValue empty) {
    skip_blank();
    if (at_end()) return empty;
    const Line& next = lines_[pos_];
    std::string_view t = next.text.substr(std::min(next.indent, next.text.size()));
    if (next.indent > indent) {
      if (is_sequence_entry(t)) return read_sequence(next.indent, depth + 1);
      if (key_colon_of(next) != npos_) return read_map(next.indent, depth + 1);
      const Line copy = next;  // the value itself starts on the next line
      ++pos_;
      return read_value(t, copy, indent, depth);
    }
    if (next.indent == indent && is_sequence_entry(t)) return read_sequence(indent, depth + 1);
    return empty;  // an empty value, which YAML reads as null; a skill field reads it as ""
  }

  Result<YamlValue> read_plain(std::string_view v, const Line& line, std::size_t indent) {
    YamlValue out;
    out.line = line.number;
    if (std::string_view("&*!%@`").find(v[0]) != npos_) {
      warn(line.number, std::string("'") + v[0] +
                            "' starts a YAML anchor, alias, tag or reserved token, which this "
                            "reader does not support; the value is read as text");
    }
    std::string text = std::string(strip_comment(v));
    bool colon_noted = false;
    note_colon(text, line.number, colon_noted);
    if (comment_start(v) != npos_) {  // a comment ends a plain scalar
      out.text = std::move(text);
      return out;
    }
    // Continuation lines: more indented than the key, folded with one space (a blank line is a
    // line break), as a YAML plain scalar spans lines.
    std::size_t breaks = 0;
    while (!at_end()) {
      const Line& next = lines_[pos_];
      if (all_space(next.text)) {
        ++breaks;
        ++pos_;
        continue;
      }
      if (next.indent <= indent || next.blank) break;
      std::string_view part = strip_comment(trim(next.text));
      if (part.empty()) break;
      note_colon(part, next.number, colon_noted);
      text += breaks == 0 ? std::string(" ") : std::string(breaks, '\n');
      text += part;
      breaks = 0;
      ++pos_;
      if (comment_start(trim(next.text)) != npos_) break;
    }
    if (breaks > 0) rewind_blank(breaks);
    out.text = std::move(text);
    return out;
  }

  void rewind_blank(std::size_t n) { pos_ -= n; }

  static std::string_view strip_comment(std::string_view v) {
    auto c = comment_start(v);
    return c == npos_ ? trim(v) : trim(v.substr(0, c));
  }

  void note_colon(std::string_view part, std::size_t line, bool& noted) {
    if (noted) return;
    if (key_colon(part) != npos_ && part.back() != ':') {
      warn(line,
           "an unquoted ': ' inside a value is read as text; quote the value so every YAML "
           "reader agrees");
      noted = true;
    } else if (!part.empty() && part.back() == ':') {
      warn(line,
           "a value ending in ':' is read as text; quote the value so every YAML reader "
           "agrees");
      noted = true;
    }
  }

  // --- quoted scalars ----------------------------------------------------------------------------

  Result<YamlValue> read_quoted(std::string_view v, const Line& line) {
    // Gather the raw text up to the closing quote, across lines.
    std::string raw(v);
    std::size_t end = find_quote_end(raw);
    while (end == npos_) {
      if (at_end()) return fail(line.number, "a quoted value is not closed");
      raw += '\n';
      raw += lines_[pos_].text;
      ++pos_;
      end = find_quote_end(raw);
    }
    std::string_view after = trim(std::string_view(raw).substr(end + 1));
    if (!after.empty() && after[0] != '#') {
      warn(line.number, "text after the closing quote was ignored: '" + std::string(after) + "'");
    }
    YamlValue out;
    out.line = line.number;
    out.text = unquote(std::string_view(raw).substr(0, end + 1), line.number);
    return out;
  }

  static bool is_empty(const Line& l) { return all_space(l.text); }

  // `q` includes both quotes. Folds line breaks the YAML way: one break is a space, n breaks are
  // n-1 newlines, and white space around a break is dropped.
  std::string unquote(std::string_view q, std::size_t line) {
    const bool dq = q[0] == '"';
    std::string_view body = q.substr(1, q.size() - 2);
    std::string out;
    std::size_t i = 0;
    while (i < body.size()) {
      char c = body[i];
      if (c == '\n' || ((c == ' ' || c == '\t') && break_follows(body, i))) {
        fold_break(body, i, out);
        continue;
      }
      if (!dq && c == '\'' && i + 1 < body.size() && body[i + 1] == '\'') {
        out += '\'';
        i += 2;
        continue;
      }
      if (dq && c == '\\' && i + 1 < body.size()) {
        i = unescape(body, i + 1, out, line);
        continue;
      }
      out += c;
      ++i;
    }
    return out;
  }

  static bool break_follows(std::string_view s, std::size_t i) {
    while (i < s.size() && is_space(s[i])) ++i;
    return i < s.size() && s[i] == '\n';
  }

  static void fold_break(std::string_view s, std::size_t& i, std::string& out) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;  // trailing white space
    std::size_t breaks = 0;
    while (i < s.size() && (s[i] == '\n' || s[i] == ' ' || s[i] == '\t')) {
      if (s[i] == '\n') ++breaks;
      ++i;
    }
    if (breaks == 1) {
      out += ' ';
    } else {
      out.append(breaks - 1, '\n');
    }
  }

  // Decodes the escape whose letter is at s[i]; returns the index after it.
  std::size_t unescape(std::string_view s, std::size_t i, std::string& out, std::size_t line) {
    const char c = s[i];
    static constexpr std::string_view kFrom = "0abtnvfre \"/\\N_LP\t";
    static constexpr std::string_view kTo[] = {std::string_view("\0", 1),
                                               "\a",
                                               "\b",
                                               "\t",
                                               "\n",
                                               "\v",
                                               "\f",
                                               "\r",
                                               "\x1b",
                                               " ",
                                               "\"",
                                               "/",
                                               "\\",
                                               "\xC2\x85",
                                               "\xC2\xA0",
                                               "\xE2\x80\xA8",
                                               "\xE2\x80\xA9",
                                               "\t"};
    if (auto k = kFrom.find(c); k != npos_) {
      out += kTo[k];
      return i + 1;
    }
    if (c == '\n') {  // an escaped line break joins the lines with nothing between
      ++i;
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      return i;
    }
    const std::size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (digits != 0) {
      std::uint32_t cp = 0;
      bool ok = i + digits < s.size();
      for (std::size_t k = 0; ok && k < digits; ++k) {
        char h = s[i + 1 + k];
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        ok = d >= 0;
        cp = cp * 16 + static_cast<std::uint32_t>(d < 0 ? 0 : d);
      }
      if (ok && utf8::append(out, static_cast<char32_t>(cp))) return i + 1 + digits;
    }
    warn(line, std::string("unknown escape '\\") + c + "' in a double-quoted value kept as text");
    out += '\\';
    return i;
  }

  // --- block scalars -----------------------------------------------------------------------------

  Result<YamlValue> read_block_scalar(std::string_view header, const Line& line,
                                      std::size_t indent) {
    const bool folded = header[0] == '>';
    int chomp = 0;  // -1 strip, 0 clip, +1 keep
    std::size_t explicit_indent = 0;
    std::size_t i = 1;
    for (; i < header.size() && i < 3; ++i) {
      if (header[i] == '-') chomp = -1;
      else if (header[i] == '+') chomp = 1;
      else if (header[i] >= '1' && header[i] <= '9') explicit_indent = header[i] - '0';
      else break;
    }
    std::string_view tail = trim(header.substr(i));
    if (!tail.empty() && tail[0] != '#') {
      warn(line.number, "text after a block scalar indicator was ignored");
    }
    std::size_t content_indent = explicit_indent != 0 ? indent + explicit_indent : 0;
    if (content_indent == 0) {
      for (std::size_t k = pos_; k < lines_.size(); ++k) {
        if (is_empty(lines_[k])) continue;
        content_indent = std::max(lines_[k].indent, indent + 1);
        break;
      }
    }
    YamlValue out;
    out.line = line.number;
    if (content_indent == 0) {  // nothing but blank lines follow
      while (!at_end()) ++pos_;
      return out;
    }
    out.text = gather_block(content_indent, folded, chomp);
    return out;
  }

  // PyYAML's scan_block_scalar, line by line.
  std::string gather_block(std::size_t content_indent, bool folded, int chomp) {
    std::string text;
    std::string breaks;
    bool have_line = false;
    bool prev_leading_space = false;
    auto take_breaks = [&] {
      breaks.clear();
      while (!at_end() && is_empty(lines_[pos_]) && lines_[pos_].text.size() <= content_indent) {
        breaks += '\n';
        ++pos_;
      }
    };
    take_breaks();
    while (!at_end() && lines_[pos_].indent >= content_indent) {
      std::string_view content = lines_[pos_].text.substr(content_indent);
      const bool leading_space = !content.empty() && (content[0] == ' ' || content[0] == '\t');
      if (have_line) {
        if (folded && !prev_leading_space && !leading_space && breaks.empty()) {
          text += ' ';
        } else if (!(folded && !prev_leading_space && !leading_space)) {
          text += '\n';
        }
      }
      text += breaks;
      text += content;
      have_line = true;
      prev_leading_space = leading_space;
      ++pos_;
      take_breaks();
    }
    if (chomp >= 0 && have_line) text += '\n';
    if (chomp > 0) text += breaks;
    // A less-indented blank run before the next key belongs to nobody; give it back.
    return text;
  }

  // --- flow collections --------------------------------------------------------------------------

  Result<YamlValue> read_flow_value(std::string_view v, const Line& line, std::size_t depth) {
    std::string raw(v);
    while (!flow_balanced(raw)) {
      if (at_end()) return fail(line.number, "a '[' or '{' list is not closed");
      raw += ' ';
      raw += trim(lines_[pos_].text);
      ++pos_;
    }
    FlowParser p{raw, *this, line.number, depth};
    auto value = p.value();
    if (!value) return value;
    p.skip_space();
    if (p.i < raw.size() && raw[p.i] != '#') {
      warn(line.number, "text after a closed list was ignored");
    }
    return value;
  }

  static bool flow_balanced(std::string_view s) {
    int level = 0;
    char quote = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (quote != 0) {
        if (quote == '"' && c == '\\') ++i;
        else if (c == quote) quote = 0;
        continue;
      }
      if (c == '"' || c == '\'') quote = c;
      else if (c == '[' || c == '{') ++level;
      else if (c == ']' || c == '}') --level;
      else if (c == '#' && i > 0 && s[i - 1] == ' ') return level <= 0;
      if (level == 0) return true;
    }
    return level <= 0 && quote == 0;
  }

  struct FlowParser {
    std::string_view s;
    Reader& r;
    std::size_t line;
    std::size_t depth;
    std::size_t i = 0;

    void skip_space() {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    }
    Result<YamlValue> value() {
      skip_space();
      if (i >= s.size()) return scalar("");
      if (s[i] == '[' || s[i] == '{') {
        if (depth + 1 > r.max_depth_) return r.fail(line, "nesting deeper than the limit");
        ++depth;
        auto v = s[i] == '[' ? sequence() : map();
        --depth;
        return v;
      }
      if (s[i] == '"' || s[i] == '\'') {
        std::size_t end = find_quote_end(s.substr(i));
        if (end == npos_) return r.fail(line, "a quoted value in a list is not closed");
        auto v = scalar(r.unquote(s.substr(i, end + 1), line));
        i += end + 1;
        return v;
      }
      std::size_t start = i;
      while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}' &&
             !(s[i] == ':' && (i + 1 >= s.size() || s[i + 1] == ' '))) {
        ++i;
      }
      return scalar(std::string(trim(s.substr(start, i - start))));
    }
    YamlValue scalar(std::string text) {
      YamlValue v;
      v.line = line;
      v.text = std::move(text);
      return v;
    }
    Result<YamlValue> sequence() {
      YamlValue seq;
      seq.kind = YamlValue::Kind::sequence;
      seq.line = line;
      ++i;
      for (;;) {
        skip_space();
        if (i >= s.size()) return r.fail(line, "a '[' list is not closed");
        if (s[i] == ']') {
          ++i;
          return seq;
        }
        auto item = value();
        if (!item) return item;
        seq.items.push_back(std::move(*item));
        skip_space();
        if (i < s.size() && s[i] == ',') ++i;
        else if (i < s.size() && s[i] != ']') return r.fail(line, "expected ',' or ']' in a list");
      }
    }
    Result<YamlValue> map() {
      YamlValue m;
      m.kind = YamlValue::Kind::map;
      m.line = line;
      ++i;
      for (;;) {
        skip_space();
        if (i >= s.size()) return r.fail(line, "a '{' map is not closed");
        if (s[i] == '}') {
          ++i;
          return m;
        }
        auto key = value();
        if (!key) return key;
        if (key->kind != YamlValue::Kind::scalar) return r.fail(line, "a map key is not text");
        skip_space();
        YamlValue val = scalar("");
        if (i < s.size() && s[i] == ':') {
          ++i;
          auto v = value();
          if (!v) return v;
          val = std::move(*v);
        }
        r.add_entry(m, std::move(key->text), std::move(val), line);
        skip_space();
        if (i < s.size() && s[i] == ',') ++i;
        else if (i < s.size() && s[i] != '}') return r.fail(line, "expected ',' or '}' in a map");
      }
    }
  };

  std::vector<Line> lines_;
  std::size_t pos_ = 0;
  std::string_view file_;
  std::vector<Diagnostic>& out_;
  std::size_t max_depth_;
};

// Splits the text into lines (LF or CRLF), from `offset`, until the closing fence.
struct Split {
  std::vector<Line> lines;
  std::size_t body_offset = 0;
  std::size_t body_line = 0;
  bool closed = false;
};

Split split_front_matter(std::string_view text, std::size_t offset, std::size_t max_bytes) {
  Split out;
  out.lines.reserve(32);  // a skill's front matter is a dozen lines or so
  std::size_t number = 2;
  std::size_t start = offset;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const std::size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    if (is_fence(l, "---") || is_fence(l, "...")) {
      out.closed = true;
      out.body_offset = next;
      out.body_line = number + 1;
      return out;
    }
    if (start - offset > max_bytes) return out;
    Line line;
    line.text = l;
    line.number = number++;
    while (line.indent < l.size() && l[line.indent] == ' ') ++line.indent;
    std::string_view rest = l.substr(line.indent);
    line.blank = all_space(rest) || rest.front() == '#';
    out.lines.push_back(line);
    start = next;
  }
  return out;
}

}  // namespace

Result<FrontMatter> read_front_matter(std::string_view text, std::string_view file,
                                      std::vector<Diagnostic>& diagnostics,
                                      const FrontMatterOptions& options) {
  FrontMatter fm;
  fm.fields.kind = YamlValue::Kind::map;
  std::size_t offset = text.substr(0, kBom.size()) == kBom ? kBom.size() : 0;
  std::size_t nl = text.find('\n', offset);
  std::string_view first =
      text.substr(offset, (nl == std::string_view::npos ? text.size() : nl) - offset);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  if (!is_fence(first, "---") || nl == std::string_view::npos) return fm;
  fm.present = true;
  Split split = split_front_matter(text, nl + 1, options.max_bytes);
  if (!split.closed) {
    if (text.size() - nl > options.max_bytes) {
      return Unexpected(make_error(Errc::limit_exceeded, std::string(file) +
                                                             ": front matter is longer than " +
                                                             std::to_string(options.max_bytes) +
                                                             " bytes (or never closed)"));
    }
    return Unexpected(make_error(Errc::parse_error,
                                 std::string(file) + ":1: front matter opened with '---' is never "
                                                     "closed by a second '---' line"));
  }
  for (const Line& l : split.lines) {
    if (!l.text.empty() && l.text[0] == '\t') {
      diagnostics.push_back(Diagnostic{Severity::warning, DiagnosticCode::yaml_leniency,
                                       std::string(file), l.number,
                                       "a tab in indentation; YAML allows only spaces, so "
                                       "the line may be read differently elsewhere"});
      break;
    }
  }
  Reader reader(std::move(split.lines), file, diagnostics, options.max_depth);
  auto fields = reader.read_document();
  if (!fields) return Unexpected(std::move(fields).error());
  fm.fields = std::move(*fields);
  fm.body_offset = split.body_offset;
  fm.body_line = split.body_line;
  return fm;
}

}  // namespace agentkit::skills
