// Fuzzes the edit matcher (exact pass, folded pass, rejection rules, BOM/CRLF restore).
// Input: original, then NUL-separated old/new pairs. Properties checked:
// - success never returns the input unchanged (rule 5);
// - a single exact edit on a plain LF file equals a hand-made splice of the one occurrence.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/tools/edit.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (parts.size() < 9) {
    std::size_t z = in.find('\0', start);
    parts.push_back(in.substr(start, z == std::string_view::npos ? std::string_view::npos : z - start));
    if (z == std::string_view::npos) break;
    start = z + 1;
  }
  std::string_view original = parts[0];
  std::vector<agentkit::tools::Edit> edits;
  for (std::size_t k = 1; k + 1 < parts.size(); k += 2) edits.push_back({std::string(parts[k]), std::string(parts[k + 1])});
  auto r = agentkit::tools::apply_edits(original, edits);
  if (!r) return 0;
  if (r->content == original) std::abort();
  bool plain = original.find('\r') == std::string_view::npos && !original.starts_with("\xEF\xBB\xBF");
  if (plain && edits.size() == 1 && r->match == agentkit::tools::EditMatch::exact) {
    std::size_t at = original.find(edits[0].old_string);
    std::string expected = std::string(original.substr(0, at)) + edits[0].new_string +
                           std::string(original.substr(at + edits[0].old_string.size()));
    if (expected != r->content) std::abort();
  }
  return 0;
}
