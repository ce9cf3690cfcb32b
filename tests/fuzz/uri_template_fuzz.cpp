// RFC 6570 templates and the matcher on arbitrary input: the first byte splits the input into a
// template and a URI. Parsing never crashes and re-parses its own text; matching never crashes, binds
// only declared variables, and stays linear (the fuzzer's timeout catches a backtracking matcher);
// expansion of whatever matched never crashes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/mcp/uri_template.hpp"

namespace {
void require(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t split = std::min<std::size_t>(data[0], size - 1);
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string_view text = rest.substr(0, split);
  const std::string_view uri = rest.substr(split);
  auto t = agentkit::mcp::UriTemplate::parse(text);
  if (!t) return 0;
  require(agentkit::mcp::UriTemplate::parse(t->text()).has_value());
  const auto names = t->variable_names();
  auto vars = t->match(uri);
  if (vars) {
    for (const auto& [name, value] : *vars) {
      require(std::find(names.begin(), names.end(), name) != names.end());
    }
    (void)t->expand(*vars);
  }
  // Expanding with the URI itself as every variable's value must not crash either.
  agentkit::mcp::UriVariables all;
  for (const auto& n : names) all.emplace_back(n, std::string(uri));
  (void)t->expand(all);
  return 0;
}
