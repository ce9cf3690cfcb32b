// Differential: the front-matter reader against PyYAML's BaseLoader on generated front matter in
// the subset skill files use (yaml_cases.py). Where PyYAML reads the text, both must agree
// exactly; where PyYAML refuses it, the reader must refuse it too or report a diagnostic — never
// read it silently.
#include <string>

#include "agentkit/json/value.hpp"
#include "skills_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using agentkit::skills::Diagnostic;
using agentkit::skills::read_front_matter;

TEST_CASE("front matter reads as PyYAML reads it, and PyYAML's refusals are never silent") {
  auto python = agentkit::testing::find_program("python3");
  if (!python) {
    WARN("SKIPPED: python3 not found");
    return;
  }
  const std::string script = std::string(AGENTKIT_SOURCE_DIR) + "/tests/skills/yaml_cases.py";
  auto out = agentkit::testing::run_program({*python, script, "20261201", "2000"});
  if (out.exit_code != 0 && out.err.find("No module named 'yaml'") != std::string::npos) {
    WARN("SKIPPED: python3-yaml is not installed");
    return;
  }
  REQUIRE(out.exit_code == 0);
  std::size_t agreed = 0, refused_both = 0, lenient = 0;
  std::size_t start = 0;
  while (start < out.out.size()) {
    std::size_t nl = out.out.find('\n', start);
    auto line = std::string_view(out.out).substr(start, nl - start);
    start = nl + 1;
    auto c = agentkit::json::parse(line);
    REQUIRE(c);
    const std::string yaml = c->find("yaml")->as_string();
    const agentkit::json::Value* expected = c->find("expected");
    std::vector<Diagnostic> notes;
    auto fm = read_front_matter("---\n" + yaml + "---\nbody\n", "gen.md", notes);
    INFO("front matter:\n" << yaml);
    if (expected->is_string()) {
      REQUIRE(fm);
      INFO(agentkit::skills::testing::all_text(notes));
      CHECK(agentkit::skills::testing::canonical_json(fm->fields) == expected->as_string());
      CHECK(notes.empty());
      ++agreed;
    } else {
      INFO("PyYAML: " << c->find("error")->as_string());
      CHECK((!fm || !notes.empty()));
      (fm ? lenient : refused_both) += 1;
    }
  }
  // The generator must exercise both arms, or the comparison proves nothing.
  CHECK(agreed > 1000);
  CHECK(lenient > 50);
  WARN("front matter vs PyYAML: " << agreed << " agreed, " << lenient
                                  << " read leniently with a diagnostic, " << refused_both
                                  << " refused by both");
}
