// RFC 6570 (levels 1–3) parsing, expansion, and linear-time matching of concrete URIs.
//
// Matching works backwards over the URI once per template part: ok[i][p] says whether parts
// i.. can match uri[p..]. An expression's "some end e reachable through allowed characters"
// is a running OR, so no input makes the matcher backtrack (the fuzz target checks this bound).
#include "agentkit/mcp/uri_template.hpp"

#include <string>

#include "agentkit/base/utf8.hpp"

namespace agentkit::mcp {
namespace {

constexpr std::string_view kOperators = "+#./;?&";

bool is_unreserved(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

bool is_reserved(char c) noexcept {
  return std::string_view(":/?#[]@!$&'()*+,;=").find(c) != std::string_view::npos;
}

bool is_varname_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// RFC 6570 §2.1: literals exclude CTL, SP, DQUOTE, "'", "%" (outside pct-encoding), "<", ">",
// "\", "^", "`", "{", "|", "}".
bool is_literal_char(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  if (u <= 0x20 || u == 0x7F) return false;
  return std::string_view("\"'<>\\^`{|}").find(c) == std::string_view::npos;
}

char prefix_of(char op) noexcept {
  switch (op) {
    case '#': case '.': case '/': case ';': case '?': case '&': return op;
    default: return 0;
  }
}

bool allowed_in(char op, std::size_t var_count, char c) noexcept {
  switch (op) {
    case 0: return c != '/' && c != '?' && c != '#';
    case '+': case '#': return true;
    case '/': return c != '?' && c != '#' && (var_count > 1 || c != '/');
    case '.': case ';': return c != '/' && c != '?' && c != '#';
    default: return c != '#';  // ? and &
  }
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return std::nullopt;
    const int hi = hex_value(in[i + 1]);
    const int lo = hex_value(in[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (!utf8::is_valid(out)) return std::nullopt;
  return out;
}

void percent_encode(std::string& out, std::string_view value, bool allow_reserved) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    const bool keep_pct = allow_reserved && c == '%' && i + 2 < value.size() && hex_value(value[i + 1]) >= 0 &&
                          hex_value(value[i + 2]) >= 0;
    if (is_unreserved(c) || (allow_reserved && is_reserved(c)) || keep_pct) {
      out += c;
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    out += '%';
    out += kHex[u >> 4];
    out += kHex[u & 0xF];
  }
}

std::vector<std::string_view> split_on(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool decodes_values(char op) noexcept { return op != '+' && op != '#'; }

// Assigns the body of one matched expression to its variables.
bool bind_expression(char op, const std::vector<std::string>& names, std::string_view body, UriVariables& out) {
  const auto assign = [&](const std::string& name, std::string_view raw) {
    if (!decodes_values(op)) {
      out.emplace_back(name, std::string(raw));
      return true;
    }
    auto value = percent_decode(raw);
    if (!value) return false;
    out.emplace_back(name, std::move(*value));
    return true;
  };
  if (op == ';' || op == '?' || op == '&') {
    for (std::string_view pair : split_on(body, op == ';' ? ';' : '&')) {
      const std::size_t eq = pair.find('=');
      const std::string_view key = pair.substr(0, eq);
      const std::string_view raw = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      for (const auto& name : names) {
        if (name == key && !assign(name, raw)) return false;
      }
    }
    return true;
  }
  const char separator = (op == '.' || op == '/') ? op : ',';
  const auto pieces = names.size() == 1 ? std::vector<std::string_view>{body} : split_on(body, separator);
  for (std::size_t i = 0; i < pieces.size() && i < names.size(); ++i) {
    if (!assign(names[i], pieces[i])) return false;
  }
  return true;
}

}  // namespace

Result<UriTemplate> UriTemplate::parse(std::string_view text) {
  UriTemplate t;
  t.text_ = std::string(text);
  std::size_t i = 0;
  const auto error = [&](std::string what) {
    Error e = make_error(Errc::invalid_argument, "URI template '" + std::string(text) + "': " + what);
    e.with_detail("offset", std::to_string(i));
    return e;
  };
  while (i < text.size()) {
    if (text[i] == '}') return error("an unmatched '}'");
    if (text[i] != '{') {
      if (!is_literal_char(text[i])) return error("a character a template literal cannot hold");
      if (t.parts_.empty() || !t.parts_.back().literal) t.parts_.push_back(Part{});
      t.parts_.back().text += text[i++];
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) return error("an unterminated expression");
    std::string_view body = text.substr(i + 1, close - i - 1);
    Part part;
    part.literal = false;
    if (!body.empty() && kOperators.find(body.front()) != std::string_view::npos) {
      part.op = body.front();
      body.remove_prefix(1);
    }
    for (std::string_view name : split_on(body, ',')) {
      if (name.empty()) return error("an empty variable name");
      for (char c : name) {
        if (c == ':' || c == '*') return error("level-4 modifiers (':n', '*') are not supported");
        if (!is_varname_char(c)) return error("a variable name holding '" + std::string(1, c) + "'");
      }
      part.names.emplace_back(name);
    }
    t.parts_.push_back(std::move(part));
    i = close + 1;
  }
  return t;
}

std::vector<std::string> UriTemplate::variable_names() const {
  std::vector<std::string> out;
  for (const auto& p : parts_) {
    for (const auto& n : p.names) out.push_back(n);
  }
  return out;
}

bool UriTemplate::is_literal() const noexcept {
  for (const auto& p : parts_) {
    if (!p.literal) return false;
  }
  return true;
}

std::optional<UriVariables> UriTemplate::match(std::string_view uri) const {
  if (uri.size() > kMaxMatchedUriBytes) return std::nullopt;
  const std::size_t n = uri.size();
  const std::size_t count = parts_.size();
  // ok[i][p]: parts i.. match uri[p..]. One row per part plus the end row.
  std::vector<std::vector<char>> ok(count + 1, std::vector<char>(n + 1, 0));
  ok[count][n] = 1;
  std::vector<char> reach(n + 2, 0);
  for (std::size_t idx = count; idx-- > 0;) {
    const Part& part = parts_[idx];
    const auto& next = ok[idx + 1];
    auto& row = ok[idx];
    if (part.literal) {
      for (std::size_t p = 0; p <= n; ++p) {
        row[p] = uri.substr(p).starts_with(part.text) && next[p + part.text.size()] ? 1 : 0;
      }
      continue;
    }
    // reach[q]: some e >= q with uri[q, e) all allowed and next[e].
    reach[n] = next[n];
    for (std::size_t q = n; q-- > 0;) {
      reach[q] = next[q] || (allowed_in(part.op, part.names.size(), uri[q]) && reach[q + 1]) ? 1 : 0;
    }
    const char prefix = prefix_of(part.op);
    for (std::size_t p = 0; p <= n; ++p) {
      const std::size_t q = prefix ? p + 1 : p;
      const bool prefix_ok = !prefix || (p < n && uri[p] == prefix);
      // Present: the prefix, then at least one allowed character, then the rest.
      const bool present = prefix_ok && q < n && allowed_in(part.op, part.names.size(), uri[q]) && reach[q + 1];
      // An operator expression whose variables are all undefined expands to nothing.
      row[p] = present || (prefix && next[p]) ? 1 : 0;
    }
  }
  if (!ok[0][0]) return std::nullopt;
  return extract(uri, ok);
}

std::optional<UriVariables> UriTemplate::extract(std::string_view uri,
                                                 const std::vector<std::vector<char>>& ok) const {
  UriVariables out;
  std::size_t p = 0;
  for (std::size_t idx = 0; idx < parts_.size(); ++idx) {
    const Part& part = parts_[idx];
    const auto& next = ok[idx + 1];
    if (part.literal) {
      p += part.text.size();
      continue;
    }
    const char prefix = prefix_of(part.op);
    const std::size_t q = prefix ? p + 1 : p;
    std::optional<std::size_t> end;
    if (!prefix || (p < uri.size() && uri[p] == prefix)) {
      // The shortest non-empty body of allowed characters after which the rest matches.
      for (std::size_t e = q + 1; e <= uri.size(); ++e) {
        if (!allowed_in(part.op, part.names.size(), uri[e - 1])) break;
        if (next[e]) {
          end = e;
          break;
        }
      }
    }
    if (!end) continue;  // absent: the rest matched from p itself (checked by ok)
    if (!bind_expression(part.op, part.names, uri.substr(q, *end - q), out)) return std::nullopt;
    p = *end;
  }
  return out;
}

std::string UriTemplate::expand(const UriVariables& values) const {
  std::string out;
  for (const Part& part : parts_) {
    if (part.literal) {
      out += part.text;
      continue;
    }
    const bool allow_reserved = part.op == '+' || part.op == '#';
    const bool named = part.op == ';' || part.op == '?' || part.op == '&';
    const char first = part.op == '+' ? 0 : prefix_of(part.op);
    const char separator = (part.op == 0 || part.op == '+' || part.op == '#') ? ',' : (part.op == '?' ? '&' : part.op);
    bool any = false;
    for (const auto& name : part.names) {
      const std::string* value = nullptr;
      for (const auto& [k, v] : values) {
        if (k == name) value = &v;
      }
      if (value == nullptr) continue;
      if (!any && first) out += first;
      if (any) out += separator;
      any = true;
      if (named) {
        out += name;
        if (value->empty() && part.op == ';') continue;
        out += '=';
      }
      percent_encode(out, *value, allow_reserved);
    }
  }
  return out;
}

}  // namespace agentkit::mcp
