// SKILL.md fields, bundled files and bad input, through load_skill_folder / parse_skill_file.
#include "agentkit/skills/skill_folder.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include "skills_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"

using namespace agentkit::skills;
using agentkit::Errc;
using agentkit::skills::testing::all_text;
using agentkit::skills::testing::count_code;
namespace fs = std::filesystem;

namespace {

std::string skill_md(const std::string& name, const std::string& description,
                     const std::string& extra = "") {
  return "---\nname: " + name + "\ndescription: " + description + "\n" + extra + "---\n# Body\n";
}

}  // namespace

TEST_CASE("a skill folder loads its fields and body and lists its bundled files in path order") {
  agentkit::testing::TempDir dir;
  dir.write("pdf/SKILL.md", skill_md("pdf", "Fill PDF forms",
                                     "license: MIT\ncompatibility: needs python3\n"
                                     "allowed-tools: Bash, Read\nmetadata:\n  version: \"1.0\"\n"));
  dir.write("pdf/scripts/fill.py", "print(1)\n");
  dir.write("pdf/references/api.md", "# API\n");
  dir.write("pdf/nested/SKILL.md", skill_md("nested", "A skill of its own"));
  dir.write("pdf/nested/own.md", "the nested skill's");
  std::vector<Diagnostic> notes;
  auto s = load_skill_folder(dir.path() / "pdf", notes);
  REQUIRE(s);
  INFO(all_text(notes));
  CHECK(notes.empty());
  CHECK(s->skill.name == "pdf");
  CHECK(s->skill.description == "Fill PDF forms");
  CHECK(s->skill.body == "# Body\n");
  CHECK(s->license == "MIT");
  CHECK(s->compatibility == "needs python3");
  CHECK(s->allowed_tools == std::vector<std::string>{"Bash", "Read"});
  CHECK(s->metadata == std::vector<std::pair<std::string, std::string>>{{"version", "1.0"}});
  CHECK(s->skill_file == s->folder / "SKILL.md");
  CHECK(s->folder.is_absolute());
  CHECK(s->skill.location == s->skill_file.string());
  CHECK(s->skill.files.empty());  // bundled files are read on demand, not at load
  auto listed = list_bundled_files(s->folder, notes);
  CHECK(notes.empty());
  CHECK(listed == std::vector<BundledFile>{{"references/api.md", 6}, {"scripts/fill.py", 9}});
  CHECK(read_bundled_file(s->folder, "scripts/fill.py").value() == "print(1)\n");
}

TEST_CASE("a bundled file is read when asked for, not when the skill loads") {
  agentkit::testing::TempDir dir;
  dir.write("s/SKILL.md", skill_md("s", "d"));
  std::vector<Diagnostic> notes;
  auto s = load_skill_folder(dir.path() / "s", notes);
  REQUIRE(s);
  dir.write("s/references/late.md", "written after the skill loaded");
  CHECK(read_bundled_file(s->folder, "references/late.md").value() ==
        "written after the skill loaded");
  dir.write("s/references/late.md", "and changed again");
  CHECK(read_bundled_file(s->folder, "references\\late.md").value() == "and changed again");
  CHECK(list_bundled_files(s->folder, notes).size() == 1);
}

TEST_CASE("a bundled path that could leave its skill is refused, naming folder and path") {
  agentkit::testing::TempDir dir;
  dir.write("secret.txt", "password");
  dir.write("s/SKILL.md", skill_md("s", "d"));
  dir.write("s/ok.md", "ok");
  dir.write("s/.git/config", "[core]");
  dir.write("s/inner/SKILL.md", skill_md("inner", "d"));
  dir.write("s/inner/theirs.md", "not s's");
  const fs::path s = dir.path() / "s";
  for (const std::string& bad : std::vector<std::string>{
           "../secret.txt", "ok.md/../../secret.txt", "..\\secret.txt",
           (dir.path() / "secret.txt").string(), "\\x", "C:\\x", std::string("ok.md\0x", 7), "",
           ".", ".git/config", "inner/theirs.md"}) {
    auto r = read_bundled_file(s, bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::invalid_argument);
    CHECK(r.error().message.find(s.string()) != std::string::npos);
    CHECK(r.error().find_detail(kDiagnosticDetail) ==
          std::optional<std::string_view>("path_escapes"));
  }
  CHECK(read_bundled_file(s, "missing.md").error().code == Errc::not_found);
  CHECK(read_bundled_file(s, "./ok.md").value() == "ok");
}

TEST_CASE("unknown keys are kept and reported, never fatal") {
  std::vector<Diagnostic> notes;
  auto s = parse_skill_file(skill_md("a", "b", "descripton: typo\nuser-invocable: true\n"), "a",
                            "a/SKILL.md", notes);
  REQUIRE(s);
  CHECK(s->unknown_keys == std::vector<std::string>{"descripton", "user-invocable"});
  CHECK(s->extra.size() == 2);
  CHECK(count_code(notes, DiagnosticCode::unknown_key) == 2);
}

TEST_CASE("a missing description leaves the skill out with the reason") {
  std::vector<Diagnostic> notes;
  auto s = parse_skill_file("---\nname: a\n---\nbody", "a", "a/SKILL.md", notes);
  REQUIRE_FALSE(s);
  CHECK(s.error().code == Errc::invalid_argument);
  CHECK(s.error().message.find("description") != std::string::npos);
  CHECK_FALSE(parse_skill_file("---\nname: a\ndescription: '  '\n---\n", "a", "f", notes));
}

TEST_CASE("a SKILL.md with no front matter, or a broken one, is an error naming the file") {
  std::vector<Diagnostic> notes;
  auto none = parse_skill_file("# Title\n", "a", "a/SKILL.md", notes);
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("a/SKILL.md") != std::string::npos);
  CHECK(none.error().message.find("no front matter") != std::string::npos);
  auto broken = parse_skill_file("---\nname: a\ndescription: \"open\n", "a", "a/SKILL.md", notes);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().code == Errc::parse_error);
}

TEST_CASE("a name that differs from its folder loads under the declared name with a warning") {
  std::vector<Diagnostic> notes;
  auto s = parse_skill_file(skill_md("qdrant-setup", "d"), "setup", "setup/SKILL.md", notes);
  REQUIRE(s);
  CHECK(s->skill.name == "qdrant-setup");
  CHECK(count_code(notes, DiagnosticCode::name_mismatch) == 1);
  CHECK(notes[0].line == 2);
}

TEST_CASE("an invalid name falls back to the folder name and is reported") {
  for (const std::string& bad : std::vector<std::string>{"Ahrefs Automation", "-a", "a-", "a--b",
                                                         std::string(65, 'a'), "a_b"}) {
    std::vector<Diagnostic> notes;
    auto s = parse_skill_file(skill_md(bad, "d"), "ahrefs", "f", notes);
    REQUIRE(s);
    CHECK(s->skill.name == "ahrefs");
    CHECK(count_code(notes, DiagnosticCode::name_invalid) == 1);
  }
  CHECK(is_valid_skill_name("a-1-b"));
  CHECK(is_valid_skill_name(std::string(64, 'a')));
}

TEST_CASE("a missing name uses the folder name with a warning") {
  std::vector<Diagnostic> notes;
  auto s = parse_skill_file("---\ndescription: d\n---\n", "tool", "f", notes);
  REQUIRE(s);
  CHECK(s->skill.name == "tool");
  CHECK(count_code(notes, DiagnosticCode::name_missing) == 1);
}

TEST_CASE("a 5,000-character description is shortened to 1,024 characters with a warning") {
  std::vector<Diagnostic> notes;
  std::string longer;
  for (int i = 0; i < 2500; ++i) longer += "é";  // two bytes each: counts characters
  longer += std::string(2500, 'x');
  auto s = parse_skill_file(skill_md("a", longer), "a", "f", notes);
  REQUIRE(s);
  CHECK(count_code(notes, DiagnosticCode::description_too_long) == 1);
  CHECK(s->skill.description.size() == 1024 * 2);
  CHECK(notes[0].message.find("5000 characters") != std::string::npos);
}

TEST_CASE("a 10 MB SKILL.md is left out with limit_exceeded and its size") {
  agentkit::testing::TempDir dir;
  dir.write("big/SKILL.md", skill_md("big", "d") + std::string(10 * 1024 * 1024, 'x'));
  std::vector<Diagnostic> notes;
  auto s = load_skill_folder(dir.path() / "big", notes);
  REQUIRE_FALSE(s);
  CHECK(s.error().code == Errc::limit_exceeded);
  CHECK(s.error().message.find("10485") != std::string::npos);
}

TEST_CASE("bundled files never escape the skill folder through symlinks") {
  agentkit::testing::TempDir dir;
  dir.write("secret.txt", "password");
  dir.write("s/SKILL.md", skill_md("s", "d"));
  dir.write("s/inside.md", "ok");
  fs::create_symlink(dir.path() / "secret.txt", dir.path() / "s" / "leak.txt");
  fs::create_directory_symlink(dir.path(), dir.path() / "s" / "up");
  fs::create_symlink("inside.md", dir.path() / "s" / "alias.md");
  dir.write("s/sub/x.md", "x");
  fs::create_directory_symlink(".", dir.path() / "s" / "sub" / "loop");
  std::vector<Diagnostic> notes;
  const fs::path s = dir.path() / "s";
  auto listed = list_bundled_files(s, notes);
  INFO(all_text(notes));
  for (const auto& f : listed) {
    CHECK(f.path != "leak.txt");
    CHECK(f.path.find("up/") == std::string::npos);
  }
  CHECK(std::find(listed.begin(), listed.end(), BundledFile{"alias.md", 2}) != listed.end());
  CHECK(count_code(notes, DiagnosticCode::path_escapes) == 2);
  // The loop symlink stays inside; the depth cap ends it and says so.
  CHECK(count_code(notes, DiagnosticCode::scan_limit) >= 1);
  for (const char* bad : {"leak.txt", "up/secret.txt"}) {
    auto r = read_bundled_file(s, bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("outside the skill folder") != std::string::npos);
  }
  CHECK(read_bundled_file(s, "alias.md").value() == "ok");
}

TEST_CASE("oversized and unreadable bundled files are left out with a diagnostic each") {
  agentkit::testing::TempDir dir;
  dir.write("s/SKILL.md", skill_md("s", "d"));
  dir.write("s/big.bin", std::string(300 * 1024, 'b'));
  dir.write("s/ok.md", "ok");
  REQUIRE(::mkfifo((dir.path() / "s" / "pipe").c_str(), 0600) == 0);
  std::vector<Diagnostic> notes;
  const fs::path s = dir.path() / "s";
  auto listed = list_bundled_files(s, notes);
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].path == "ok.md");
  CHECK(count_code(notes, DiagnosticCode::file_too_large) == 1);
  CHECK(count_code(notes, DiagnosticCode::file_unreadable) == 1);  // the FIFO
  auto big = read_bundled_file(s, "big.bin");
  REQUIRE_FALSE(big);
  CHECK(big.error().code == Errc::limit_exceeded);
  CHECK(big.error().message.find("307200 bytes") != std::string::npos);
  auto pipe = read_bundled_file(s, "pipe");  // refused without blocking
  REQUIRE_FALSE(pipe);
  CHECK(pipe.error().message.find("not a regular file") != std::string::npos);
}

TEST_CASE("the bundled-file count cap lists the first files by name and says so once") {
  agentkit::testing::TempDir dir;
  dir.write("s/SKILL.md", skill_md("s", "d"));
  for (int i = 0; i < 12; ++i) dir.write("s/f" + std::to_string(10 + i) + ".md", "x");
  SkillFolderOptions options;
  options.max_bundled_files = 10;
  std::vector<Diagnostic> notes;
  auto listed = list_bundled_files(dir.path() / "s", notes, options);
  REQUIRE(listed.size() == 10);
  CHECK(listed.back().path == "f19.md");
  CHECK(count_code(notes, DiagnosticCode::scan_limit) == 1);
}

TEST_CASE("every real skill folder loads and the one non-skill SKILL.md is reported") {
  AGENTKIT_SHARED_TESTDATA(root, "skills");
  std::size_t loaded = 0;
  std::vector<std::string> refused;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename() != "SKILL.md") continue;
    std::vector<Diagnostic> notes;
    auto s = load_skill_folder(e.path().parent_path(), notes);
    if (s) {
      ++loaded;
      CHECK_FALSE(s->skill.description.empty());
    } else {
      refused.push_back(e.path().parent_path().filename().string());
    }
  }
  CHECK(loaded == 20);
  CHECK(refused == std::vector<std::string>{"uipath-human-in-the-loop"});
}

TEST_CASE("real skills' quirks come back as the right diagnostics") {
  AGENTKIT_SHARED_TESTDATA(root, "skills");
  auto load = [&](const std::string& rel, std::vector<Diagnostic>& notes) {
    auto s = load_skill_folder(root / rel, notes);
    REQUIRE(s);
    return *s;
  };
  std::vector<Diagnostic> wispr, ahrefs, claude_api, repo_scan, azure;
  auto w = load("glebis-claude-skills/wispr-fix", wispr);
  CHECK(count_code(wispr, DiagnosticCode::yaml_leniency) == 1);
  CHECK(w.skill.description.find("wispr fix: X -> Y") != std::string::npos);
  auto a = load("composio-awesome-claude-skills/ahrefs-automation", ahrefs);
  CHECK(a.skill.name == "ahrefs-automation");
  CHECK(count_code(ahrefs, DiagnosticCode::name_invalid) == 1);
  load("anthropics-skills/claude-api", claude_api);
  CHECK(count_code(claude_api, DiagnosticCode::description_too_long) == 1);
  auto r = load("everything-claude-code/repo-scan", repo_scan);
  CHECK(r.unknown_keys == std::vector<std::string>{"origin"});
  auto z = load("awesome-copilot/azure-role-selector", azure);
  CHECK(z.allowed_tools.size() >= 2);
  CHECK(z.allowed_tools[0].find(' ') != std::string::npos);  // "Azure MCP/..." kept whole
}
