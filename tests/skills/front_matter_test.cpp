// The front-matter reader: the YAML subset, its leniencies (each a diagnostic with file and line)
// and its bounds.
#include "agentkit/skills/front_matter.hpp"

#include <algorithm>
#include <string>

#include "skills_test_support.hpp"
#include "support/catch.hpp"

using namespace agentkit::skills;
using agentkit::Errc;
using agentkit::skills::testing::canonical_json;
using agentkit::skills::testing::count_code;

namespace {

FrontMatter read_ok(const std::string& text, std::vector<Diagnostic>& notes) {
  auto fm = read_front_matter(text, "s/SKILL.md", notes);
  REQUIRE(fm);
  return *fm;
}

}  // namespace

TEST_CASE("the scalar forms skill files use all read as text") {
  std::vector<Diagnostic> notes;
  auto fm = read_ok(
      "---\n"
      "name: pdf  # trailing comment\n"
      "single: 'it''s: fine # not a comment'\n"
      "double: \"tab\\there \\u00e9\"\n"
      "literal: |-\n  one\n\n  two\n"
      "folded: >\n  one\n  two\n\n  three\n"
      "flow: ['Azure MCP/docs', Read, \"a, b\"]\n"
      "block:\n  - Read\n  - Grep\n"
      "metadata:\n  version: \"1.1\"\n  short: text\n"
      "requires: {mcp: [rube]}\n"
      "---\nBody\n",
      notes);
  CHECK(notes.empty());
  CHECK(canonical_json(fm.fields) ==
        R"({"block":["Read","Grep"],"double":"tab\there é",)"
        R"("flow":["Azure MCP/docs","Read","a, b"],)"
        R"("folded":"one two\nthree\n","literal":"one\n\ntwo","metadata":{"short":"text",)"
        R"("version":"1.1"},"name":"pdf","requires":{"mcp":["rube"]},)"
        R"("single":"it's: fine # not a comment"})");
}

TEST_CASE("an unquoted colon inside a value is read as text with a diagnostic naming the line") {
  std::vector<Diagnostic> notes;
  auto fm = read_ok("---\nname: wispr\ndescription: writes \"fix: X -> Y\" to notes\n---\n", notes);
  CHECK(fm.fields.find("description")->text == "writes \"fix: X -> Y\" to notes");
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].code == DiagnosticCode::yaml_leniency);
  CHECK(notes[0].line == 3);
  CHECK(notes[0].file == "s/SKILL.md");
}

TEST_CASE("a repeated key keeps the later value and says so") {
  std::vector<Diagnostic> notes;
  auto fm = read_ok("---\nname: a\nname: b\n---\n", notes);
  CHECK(fm.fields.find("name")->text == "b");
  CHECK(count_code(notes, DiagnosticCode::yaml_leniency) == 1);
}

TEST_CASE("text without an opening fence has no front matter and a body from the start") {
  std::vector<Diagnostic> notes;
  auto fm = read_ok("# Just markdown\n---\n", notes);
  CHECK_FALSE(fm.present);
  CHECK(fm.body_offset == 0);
}

TEST_CASE("a BOM and CRLF line endings are accepted and the body offset skips the fence") {
  std::vector<Diagnostic> notes;
  const std::string text = "\xEF\xBB\xBF---\r\nname: x\r\ndescription: y\r\n---\r\nBody\r\n";
  auto fm = read_ok(text, notes);
  CHECK(fm.present);
  CHECK(fm.fields.find("name")->text == "x");
  CHECK(text.substr(fm.body_offset) == "Body\r\n");
  CHECK(fm.body_line == 5);
}

TEST_CASE("front matter that is never closed is a parse error on line 1") {
  std::vector<Diagnostic> notes;
  auto fm = read_front_matter("---\nname: x\n", "s/SKILL.md", notes);
  REQUIRE_FALSE(fm);
  CHECK(fm.error().code == Errc::parse_error);
  CHECK(fm.error().message.find("s/SKILL.md:1") != std::string::npos);
}

TEST_CASE("front matter that is a list or bare text is refused with its line") {
  std::vector<Diagnostic> notes;
  auto list = read_front_matter("---\n- a\n- b\n---\n", "f", notes);
  REQUIRE_FALSE(list);
  CHECK(list.error().message.find("f:2") != std::string::npos);
  auto text = read_front_matter("---\njust words\n---\n", "f", notes);
  REQUIRE_FALSE(text);
}

TEST_CASE("an unclosed quote or list is a parse error, not a guess") {
  std::vector<Diagnostic> notes;
  CHECK_FALSE(read_front_matter("---\ndescription: \"open\nname: x\n---\n", "f", notes));
  CHECK_FALSE(read_front_matter("---\ntools: [a, b\n---\n", "f", notes));
}

TEST_CASE("front matter over the byte cap is limit_exceeded before it is parsed") {
  std::vector<Diagnostic> notes;
  FrontMatterOptions options;
  options.max_bytes = 64;
  std::string text = "---\n";
  for (int i = 0; i < 20; ++i) text += "k" + std::to_string(i) + ": value\n";
  text += "---\n";
  auto fm = read_front_matter(text, "f", notes, options);
  REQUIRE_FALSE(fm);
  CHECK(fm.error().code == Errc::limit_exceeded);
}

TEST_CASE("nesting deeper than max_depth is refused") {
  std::vector<Diagnostic> notes;
  FrontMatterOptions options;
  options.max_depth = 2;
  CHECK(read_front_matter("---\na:\n  b: c\n---\n", "f", notes, options));
  CHECK_FALSE(read_front_matter("---\na:\n  b:\n    c: d\n---\n", "f", notes, options));
  CHECK_FALSE(read_front_matter("---\na: [[[x]]]\n---\n", "f", notes, options));
}

TEST_CASE("a diagnostic prints as file, line, severity, message and code") {
  Diagnostic d{Severity::warning, DiagnosticCode::name_mismatch, "a/SKILL.md", 2, "differs"};
  CHECK(d.to_string() == "a/SKILL.md:2: warning: differs [name_mismatch]");
  d.line = 0;
  d.severity = Severity::error;
  CHECK(d.to_string() == "a/SKILL.md: error: differs [name_mismatch]");
}

TEST_CASE("a tab-indented key whose quote never closes is read as text with a diagnostic") {
  // Found by fuzz_skill: the open quote made the key reader cut an empty string at offset 1.
  std::vector<Diagnostic> notes;
  auto fm = read_front_matter("---\n\t\"y: v\n---\n", "f", notes);
  REQUIRE(fm);
  REQUIRE(fm->fields.entries.size() == 1);
  CHECK(fm->fields.entries[0].key == "\"y");
  CHECK(fm->fields.entries[0].value.text == "v");
  CHECK(std::any_of(notes.begin(), notes.end(), [](const Diagnostic& d) {
    return d.message.find("quoted key is not closed") != std::string::npos && d.line == 2;
  }));
}
