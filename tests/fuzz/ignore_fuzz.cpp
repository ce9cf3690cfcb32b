// Fuzzes the gitignore rule parser and matcher: any rules file parses (a line git would never
// match becomes a rule that matches nothing), and matching terminates. Input: the rules file;
// the paths matched are cut from the same bytes so rules and paths share characters.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agentkit/tools/ignore.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto rules = agentkit::tools::IgnoreFile::parse(in);
  std::size_t start = 0;
  int checked = 0;
  while (start < in.size() && checked < 16) {
    std::size_t nl = in.find('\n', start);
    std::string_view line = in.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!line.empty() && line.front() == '!') line.remove_prefix(1);
    for (bool dir : {false, true}) (void)rules.match(line, dir);
    (void)rules.match(std::string("a/") + std::string(line), false);
    ++checked;
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return 0;
}
