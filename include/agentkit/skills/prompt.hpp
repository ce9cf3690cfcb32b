// agentkit/skills/prompt.hpp — the one system-prompt assembler, and its record of what went in.
//
//   agentkit::skills::PromptInputs in;
//   in.instructions = "You review C++ changes.";
//   in.skills = {{"pdf", "Fill PDF forms", "/repo/.agents/skills/pdf/SKILL.md"}};
//   in.context_files = agentkit::skills::load_context_files(ctx_options).files;
//   agentkit::skills::AssembledPrompt p = agentkit::skills::assemble_prompt(in);
//   for (const auto& s : p.sections) std::clog << s.source << " " << s.bytes << "\n";
//
// Sections, in order: the embedder's instructions, the built-in blocks (kept under a custom
// prompt, never replaced by it), the project context files, the skills catalog, then the tool
// guidelines (deduplicated, first seen first). The catalog carries only each skill's name,
// description and location, three lines per skill, inside <available_skills>, after a paragraph
// naming the reader tool and the rule for relative paths; when it would pass
// its token budget, descriptions are shortened first, then skills are left out, each step a
// diagnostic. Every interpolated path, name, description and context body is XML-escaped, so a
// file cannot close the element that holds it.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/skills/context_files.hpp"
#include "agentkit/skills/front_matter.hpp"

namespace agentkit::skills {

// One skill as the catalog lists it.
struct CatalogEntry {
  std::string name;
  std::string description;
  // The absolute path of its SKILL.md. Empty for a skill given in memory (no file): the location
  // line then says the skill is attached and names the reader tool.
  std::string location;
};

// Text the library adds, with where it came from.
struct PromptBlock {
  std::string source;  // e.g. "built-in: file tools" or a tool's name
  std::string text;
};

// What goes into a system prompt. Safe to copy.
struct PromptInputs {
  std::string instructions;                 // the embedder's own system prompt, verbatim
  std::vector<PromptBlock> builtin;         // kept after the instructions, in order
  std::vector<ContextFile> context_files;   // in prompt order (load_context_files)
  std::vector<CatalogEntry> skills;         // in catalog order
  std::string skill_reader = "read_skill";  // the tool the catalog tells the model to use
  // Largest catalog, in estimated tokens (bytes / 4); about 30 skills at full length.
  std::size_t skills_token_budget = 8'000;
  std::vector<PromptBlock> tool_guidelines;  // source = tool name; identical texts merge
};

enum class SectionKind { instructions, builtin, context_file, skills_catalog, tool_guidelines };
// "instructions", "builtin", "context_file", "skills_catalog", "tool_guidelines".
std::string_view section_kind_name(SectionKind kind) noexcept;

// Where one part of the prompt came from.
struct PromptSection {
  SectionKind kind = SectionKind::instructions;
  std::string source;          // a path, tool names, or "embedder"
  std::size_t bytes = 0;       // bytes this section added to the prompt
  bool truncated = false;      // the source was cut (a context file at its cap, a short catalog)
  std::size_t precedence = 0;  // position in the prompt, 0 first
};

struct AssembledPrompt {
  std::string text;
  std::vector<PromptSection> sections;
  std::vector<std::string> skill_names;  // the skills the catalog lists, for the audit record
  std::vector<Diagnostic> diagnostics;   // prompt_budget findings
};

AssembledPrompt assemble_prompt(const PromptInputs& inputs);

// `&`, `<`, `>`, `"` and `'` as XML entities.
std::string xml_escape(std::string_view text);

}  // namespace agentkit::skills
