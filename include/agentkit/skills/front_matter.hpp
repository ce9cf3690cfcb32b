// agentkit/skills/front_matter.hpp — the YAML front matter of a SKILL.md, read leniently but
// never silently.
//
//   std::vector<agentkit::skills::Diagnostic> notes;
//   auto fm = agentkit::skills::read_front_matter("---\nname: pdf\n---\n# Body\n", "SKILL.md",
//                                                 notes);
//   if (fm && fm->present) {
//     const agentkit::skills::YamlValue* name = fm->fields.find("name");  // "pdf"
//     std::string_view body = std::string_view("...").substr(fm->body_offset);
//   }
//
// The reader covers the YAML subset skill files use: plain, single- and double-quoted scalars,
// literal and folded block scalars, flow and block sequences, nested maps, comments. It is lenient
// where other hosts are (an unquoted ": " inside a value is read as text, as a key splitter on the
// first ": " would) and reports every leniency as a Diagnostic with the file and line. Scalars stay
// text: `true`, `1.0` and dates are not typed, because every field of a skill is a string.
//
// Thread safety: plain values and a pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::skills {

enum class Severity {
  warning,  // read anyway; the text says what was assumed
  error,    // the file (or the skill it belongs to) was left out
};

// What a diagnostic is about, stable for programs (the message is for people).
enum class DiagnosticCode {
  yaml_leniency,           // the front matter is not strict YAML; read the way other hosts do
  front_matter_missing,    // SKILL.md does not open with '---'; the skill is left out
  front_matter_invalid,    // the front matter could not be read at all; the skill is left out
  unknown_key,             // a key outside the skill format; kept and reported
  name_missing,            // no name; the folder name is used
  name_invalid,            // not 1-64 of a-z, 0-9 and single inner hyphens; the folder name is used
  name_mismatch,           // the name differs from its folder; the declared name is used
  description_missing,     // no description; the skill is left out
  description_too_long,    // over 1024 characters; shortened
  compatibility_too_long,  // over 500 characters; kept
  field_not_text,          // a field that should be text (or a map of text) is not
  file_unreadable,         // a file or folder could not be read; it is left out
  file_too_large,          // over a byte cap; left out or truncated, as the message says
  path_escapes,            // a bundled file or symlink leads outside the skill; left out
  skill_shadowed,          // a skill of the same name from a tier of higher precedence won
  scan_limit,              // a depth or folder-count cap stopped a scan
  untrusted_project,       // project files were not read because the project is not trusted
  prompt_budget,           // the skills catalog was shortened to fit its token budget
};
// Short stable name of a code ("name_mismatch").
std::string_view diagnostic_code_name(DiagnosticCode code) noexcept;

// One finding about a file, for the person maintaining it.
struct Diagnostic {
  Severity severity = Severity::warning;
  DiagnosticCode code = DiagnosticCode::yaml_leniency;
  std::string file;      // the path as given to the reader
  std::size_t line = 0;  // 1-based; 0 when the finding concerns the whole file
  std::string message;
  // "skills/pdf/SKILL.md:3: warning: ... [name_mismatch]" (no line part when line is 0).
  std::string to_string() const;
  friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

struct YamlEntry;

// A front-matter value: a text scalar, a sequence or a map (entries in document order).
struct YamlValue {
  enum class Kind { scalar, sequence, map };
  Kind kind = Kind::scalar;
  std::string text;                // scalar only; an empty value is ""
  std::vector<YamlValue> items;    // sequence only
  std::vector<YamlEntry> entries;  // map only; a repeated key keeps its last value, as YAML does
  std::size_t line = 0;            // where the value starts, 1-based in the file

  // The value of `key` in a map, or nullptr (also for a non-map).
  const YamlValue* find(std::string_view key) const noexcept;
};

struct YamlEntry {
  std::string key;
  YamlValue value;
};

// Bounds for reading front matter. Safe to copy.
struct FrontMatterOptions {
  // Front matter longer than this (between the fences) is an error, not a parse.
  std::size_t max_bytes = 64 * 1024;
  // Deepest nesting of maps and sequences accepted; the skill format needs two.
  std::size_t max_depth = 8;
};

struct FrontMatter {
  bool present = false;         // the text opens with a "---" line (after an optional BOM)
  YamlValue fields;             // a map; empty when !present
  std::size_t body_offset = 0;  // where the Markdown body starts in the text given
  std::size_t body_line = 1;    // the body's first line number
};

// Reads the front matter at the start of `text`. Leniencies are appended to `diagnostics` with
// `file` and a line number. No opening fence is not an error (present == false, body_offset 0);
// an opening fence without a closing one, front matter that is not a map, or nesting deeper than
// max_depth is an Errc::parse_error (Errc::limit_exceeded for max_bytes) naming the line.
Result<FrontMatter> read_front_matter(std::string_view text, std::string_view file,
                                      std::vector<Diagnostic>& diagnostics,
                                      const FrontMatterOptions& options = {});

}  // namespace agentkit::skills
