// The system-prompt assembler. Each section is appended through one function that records its
// provenance, so the record cannot drift from the text.
#include "agentkit/skills/prompt.hpp"

#include <algorithm>

#include "agentkit/base/utf8.hpp"

namespace agentkit::skills {

std::string_view section_kind_name(SectionKind kind) noexcept {
  switch (kind) {
    case SectionKind::instructions: return "instructions";
    case SectionKind::builtin: return "builtin";
    case SectionKind::context_file: return "context_file";
    case SectionKind::skills_catalog: return "skills_catalog";
    case SectionKind::tool_guidelines: return "tool_guidelines";
  }
  return "unknown";
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// A common estimate for English text and code; the budget is a bound, not a bill.
constexpr std::size_t kBytesPerToken = 4;
// Description lengths tried, in characters, before skills are left out.
constexpr std::size_t kDescriptionSteps[] = {512, 256, 128, 64};

constexpr std::string_view kContextIntro =
    "# Project context\n\nThese files hold instructions from the user and the project, the most "
    "specific last; where they disagree, the later file wins.";

class Builder {
 public:
  explicit Builder(AssembledPrompt& out) : out_(out) {}

  void add(SectionKind kind, std::string source, std::string_view text, bool truncated) {
    if (text.empty()) return;
    std::string piece = out_.text.empty() ? "" : "\n\n";
    piece += text;
    out_.text += piece;
    out_.sections.push_back(
        PromptSection{kind, std::move(source), piece.size(), truncated, out_.sections.size()});
  }

 private:
  AssembledPrompt& out_;
};

std::string context_block(const ContextFile& f) {
  std::string out = "<context_file path=\"" + xml_escape(f.path.string()) + "\">\n";
  out += xml_escape(f.body);
  if (!f.body.empty() && f.body.back() != '\n') out += '\n';
  out += "</context_file>";
  return out;
}

constexpr std::string_view kCatalogEnd = "</available_skills>";

std::string catalog_header(std::string_view reader) {
  const std::string r(reader);
  return "# Skills\n\n<available_skills>\n"
         "Each skill below has instructions in its SKILL.md. When a task matches a skill's "
         "description, read the skill with the " +
         r + " tool before acting: " + r +
         " takes the skill's name, and for a bundled file its path relative to the skill's "
         "folder. Relative paths inside a skill are relative to the skill's folder (the folder "
         "holding its SKILL.md): resolve them against that folder and use the absolute result in "
         "tool commands.\n";
}

// One skill's three lines. A skill given in memory has no file: its location says how to read it.
void append_entry(std::string& out, const CatalogEntry& s, std::string_view reader,
                  std::size_t max_description) {
  std::string_view d = utf8::truncate_code_points(s.description, max_description);
  out += "- name: ";
  out += xml_escape(s.name);
  out += "\n  description: ";
  out += xml_escape(d);
  if (d.size() < s.description.size()) out += "...";
  out += "\n  location: ";
  if (s.location.empty()) {
    out += "attached to the agent (no file); read it with ";
    out += reader;
  } else {
    out += xml_escape(s.location);
  }
  out += '\n';
}

std::string catalog_text(const std::vector<CatalogEntry>& skills, std::string_view reader,
                         std::size_t max_description) {
  std::string out = catalog_header(reader);
  for (const auto& s : skills) append_entry(out, s, reader, max_description);
  out += kCatalogEnd;
  return out;
}

// Fits the catalog to the budget: shorter descriptions first, then fewer skills (from the end).
std::string fitted_catalog(const PromptInputs& in, AssembledPrompt& out, bool& truncated) {
  const std::size_t budget = in.skills_token_budget * kBytesPerToken;
  std::size_t longest = 0;
  for (const auto& s : in.skills) longest = std::max(longest, s.description.size());
  std::string text = catalog_text(in.skills, in.skill_reader, longest);
  truncated = false;
  auto list_all = [&] {
    for (const auto& s : in.skills) out.skill_names.push_back(s.name);
  };
  if (text.size() <= budget) {
    list_all();
    return text;
  }
  truncated = true;
  for (std::size_t cap : kDescriptionSteps) {
    text = catalog_text(in.skills, in.skill_reader, cap);
    if (text.size() <= budget) {
      out.diagnostics.push_back(Diagnostic{
          Severity::warning, DiagnosticCode::prompt_budget, "skills catalog", 0,
          "descriptions shortened to " + std::to_string(cap) + " characters to fit the " +
              std::to_string(in.skills_token_budget) + "-token skills budget"});
      list_all();
      return text;
    }
  }
  // Keep the longest prefix of skills that fits: one pass over each entry's size.
  const std::size_t cap = kDescriptionSteps[std::size(kDescriptionSteps) - 1];
  std::size_t size = catalog_header(in.skill_reader).size() + kCatalogEnd.size();
  std::vector<CatalogEntry> kept;
  std::string left_out, entry;
  for (const auto& s : in.skills) {
    entry.clear();
    append_entry(entry, s, in.skill_reader, cap);
    if (left_out.empty() && size + entry.size() <= budget) {
      size += entry.size();
      kept.push_back(s);
    } else {
      left_out += (left_out.empty() ? "" : ", ") + s.name;
    }
  }
  text = catalog_text(kept, in.skill_reader, cap);
  out.diagnostics.push_back(Diagnostic{
      Severity::warning, DiagnosticCode::prompt_budget, "skills catalog", 0,
      "skills left out of the catalog to fit the " + std::to_string(in.skills_token_budget) +
          "-token skills budget (descriptions already shortened): " + left_out});
  for (const auto& s : kept) out.skill_names.push_back(s.name);
  return kept.empty() ? std::string() : text;
}

void add_guidelines(const PromptInputs& in, Builder& b) {
  std::vector<PromptBlock> merged;  // text -> the tools that gave it, first seen first
  for (const auto& g : in.tool_guidelines) {
    if (g.text.empty()) continue;
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const PromptBlock& m) { return m.text == g.text; });
    if (it == merged.end()) {
      merged.push_back(g);
    } else {
      it->source += ", " + g.source;
    }
  }
  if (merged.empty()) return;
  std::string text = "# Tool guidelines\n";
  std::string sources;
  for (const auto& m : merged) {
    text += "\n## " + m.source + "\n" + m.text + "\n";
    sources += (sources.empty() ? "" : "; ") + m.source;
  }
  text.pop_back();
  b.add(SectionKind::tool_guidelines, sources, text, false);
}

}  // namespace

AssembledPrompt assemble_prompt(const PromptInputs& in) {
  AssembledPrompt out;
  Builder b(out);
  b.add(SectionKind::instructions, "embedder", in.instructions, false);
  for (const auto& block : in.builtin) b.add(SectionKind::builtin, block.source, block.text, false);
  if (!in.context_files.empty()) {
    b.add(SectionKind::builtin, "context files introduction", kContextIntro, false);
    for (const auto& f : in.context_files) {
      b.add(SectionKind::context_file, f.path.string(), context_block(f), f.truncated);
    }
  }
  if (!in.skills.empty()) {
    bool truncated = false;
    std::string catalog = fitted_catalog(in, out, truncated);
    b.add(SectionKind::skills_catalog, "skills: " + std::to_string(out.skill_names.size()), catalog,
          truncated);
  }
  add_guidelines(in, b);
  return out;
}

}  // namespace agentkit::skills
