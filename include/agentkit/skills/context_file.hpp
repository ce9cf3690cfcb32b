// agentkit/skills/context_file.hpp — one project context file as it enters an agent's prompt.
//
//   agentkit::skills::ContextFiles found = agentkit::skills::load_context_files(options);
//   definition.context_files = std::move(found.files);  // each a ContextFile
//
// A plain value, kept apart from the loader (skills/context_files.hpp) so that the definition, and
// with it agentkit/agent.hpp, does not pull in the front-matter parser. Safe to copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace agentkit::skills {

struct ContextFile {
  std::filesystem::path path;  // absolute
  std::string body;            // without a leading BOM; cut at max_total_bytes when truncated
  std::uint64_t bytes = 0;     // the file's size on disk
  bool truncated = false;
  bool user_global = false;    // the home file rather than a project file
  std::size_t precedence = 0;  // position in the prompt, 0 first; a later file is more specific
};

}  // namespace agentkit::skills
