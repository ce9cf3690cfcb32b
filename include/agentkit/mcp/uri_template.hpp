// agentkit/mcp/uri_template.hpp — RFC 6570 URI templates (levels 1–3), matched against concrete
// URIs so a `resources/read` can be routed to the template that serves it.
//
//   using namespace agentkit;
//   auto t = mcp::UriTemplate::parse("x://items/{id}").value();
//   auto vars = t.match("x://items/7");                   // {{"id", "7"}}
//   assert(vars && vars->front().second == "7");
//   assert(!t.match("x://items/7/extra"));                 // {var} never spans a '/'
//   auto deep = mcp::UriTemplate::parse("file:///{+path}").value();
//   assert(deep.match("file:///a/b.txt")->front().second == "a/b.txt");  // {+var} may
//   assert(t.expand({{"id", "a b"}}) == "x://items/a%20b");
//
// Supported expressions: {var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?var}, {&var}, each with
// one or more comma-separated variables; level-4 modifiers (`:n`, `*`) are refused at parse time.
// Matching rules (REQ-MCP-SERVER-05, seed mcp/resources.go): a simple {var} matches one non-empty
// path segment (no '/', '?' or '#'); {+var} may span '/' (RFC 6570 reserved expansion); the
// prefixed operators may be absent altogether (an undefined variable expands to nothing). When a
// URI could be split several ways, each expression takes the shortest value that lets the rest
// match. Values of {var}, {.var}, {/var}, {;var}, {?var} and {&var} are percent-decoded (and must
// decode to UTF-8); {+var} and {#var} values are returned as written. Matching is linear in the
// URI's length times the template's expression count, whatever the input (fuzzed).
//
// Thread safety: an immutable value after parse.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::mcp {

// The longest URI a template is matched against; longer never matches (a bound on work).
inline constexpr std::size_t kMaxMatchedUriBytes = 16 * 1024;

using UriVariables = std::vector<std::pair<std::string, std::string>>;

class UriTemplate {
 public:
  // Errc::invalid_argument naming the offset of the problem.
  static Result<UriTemplate> parse(std::string_view text);

  const std::string& text() const noexcept { return text_; }
  // The variable names, in order of appearance.
  std::vector<std::string> variable_names() const;
  // True when the template has no expression (it names exactly one URI).
  bool is_literal() const noexcept;
  // The variables a URI binds, in template order (absent optional variables omitted); nullopt
  // when the URI does not match.
  std::optional<UriVariables> match(std::string_view uri) const;
  // RFC 6570 expansion; variables not in `values` are undefined (their expression may vanish).
  std::string expand(const UriVariables& values) const;

 private:
  struct Part {
    bool literal = true;
    std::string text;                 // literal text
    char op = 0;                      // 0 (simple) or one of + # . / ; ? &
    std::vector<std::string> names;   // expression variables
  };
  std::string text_;
  std::vector<Part> parts_;

  std::optional<UriVariables> extract(std::string_view uri, const std::vector<std::vector<char>>& ok) const;
};

}  // namespace agentkit::mcp
