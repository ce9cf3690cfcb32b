// Fuzzes the glob compiler and matcher: any bytes compile or fail cleanly, and matching a
// compiled glob terminates in linear time (the NFA simulation never backtracks).
// Input: pattern, then '\n', then the path to match.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agentkit/tools/glob.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t nl = in.find('\n');
  std::string_view pattern = in.substr(0, nl);
  std::string_view path = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
  for (bool icase : {false, true}) {
    agentkit::tools::GlobOptions o;
    o.case_insensitive = icase;
    auto g = agentkit::tools::Glob::compile(pattern, o);
    if (!g) continue;
    (void)g->matches(path);
    (void)g->matches(pattern);
  }
  return 0;
}
