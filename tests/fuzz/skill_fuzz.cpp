// Fuzzes the SKILL.md reader (front matter, then the skill fields): any bytes parse or fail with
// an Error, every diagnostic names the file, and no read goes past the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/skills/skill_folder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<agentkit::skills::Diagnostic> notes;
  agentkit::skills::SkillFolderOptions options;
  options.front_matter.max_depth = 4;
  auto skill =
      agentkit::skills::parse_skill_file(in, "fuzz-skill", "fuzz/SKILL.md", notes, options);
  for (const auto& d : notes) {
    if (d.file != "fuzz/SKILL.md") __builtin_trap();
  }
  if (skill && skill->skill.body.size() > in.size()) __builtin_trap();
  return 0;
}
