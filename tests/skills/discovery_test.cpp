// Skill discovery: tier precedence, the trust gate, the home rule, monorepo subtrees, bounds.
#include "agentkit/skills/discovery.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "skills_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/shared_testdata.hpp"

using namespace agentkit::skills;
using agentkit::skills::testing::all_text;
using agentkit::skills::testing::count_code;
namespace fs = std::filesystem;

namespace {

void write_skill(const agentkit::testing::TempDir& dir, const std::string& folder,
                 const std::string& name, const std::string& description = "d") {
  dir.write(folder + "/SKILL.md",
            "---\nname: " + name + "\ndescription: " + description + "\n---\nbody of " + folder);
}

std::vector<std::string> names(const SkillCatalog& c) { return c.names(); }

// Restores an environment variable and the working folder when the test ends.
class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v;
    cwd_ = fs::current_path();
  }
  ~EnvGuard() {
    if (saved_) ::setenv(name_, saved_->c_str(), 1);
    else ::unsetenv(name_);
    fs::current_path(cwd_);
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
  fs::path cwd_;
};

}  // namespace

TEST_CASE("project skills are not read unless the project is trusted, which is off by default") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "repo/.agents/skills/evil", "evil");
  DiscoveryOptions options;
  CHECK_FALSE(options.trust_project);
  options.project_root = dir.path() / "repo";
  options.user_tier = false;
  auto untrusted = discover_skills(options);
  CHECK(untrusted.skills.empty());
  CHECK(count_code(untrusted.diagnostics, DiagnosticCode::untrusted_project) == 1);
  CHECK(all_text(untrusted.diagnostics).find("evil") == std::string::npos);  // not even named
  options.trust_project = true;
  CHECK(names(discover_skills(options)) == std::vector<std::string>{"evil"});
}

TEST_CASE("the project tier wins over the user tier, which wins over named folders") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "repo/.agents/skills/review", "review", "project");
  write_skill(dir, "home/.agents/skills/review", "review", "user");
  write_skill(dir, "home/.claude/skills/deploy", "deploy", "user");
  write_skill(dir, "extra/deploy", "deploy", "folder");
  write_skill(dir, "extra/lint", "lint", "folder");
  DiscoveryOptions options;
  options.project_root = dir.path() / "repo";
  options.trust_project = true;
  options.home = dir.path() / "home";
  options.folders = {dir.path() / "extra"};
  auto c = discover_skills(options);
  INFO(all_text(c.diagnostics));
  REQUIRE(names(c) == std::vector<std::string>{"deploy", "lint", "review"});
  CHECK(c.skills[0].loaded.skill.description == "user");
  CHECK(c.skills[0].tier == SkillTier::user);
  CHECK(c.skills[1].tier == SkillTier::named_folder);
  CHECK(c.skills[2].loaded.skill.description == "project");
  REQUIRE(count_code(c.diagnostics, DiagnosticCode::skill_shadowed) == 2);
  // A shadowed skill is reported with both paths.
  for (const auto& d : c.diagnostics) {
    if (d.code != DiagnosticCode::skill_shadowed || d.message.find("review") == std::string::npos)
      continue;
    CHECK(d.file == (dir.path() / "home/.agents/skills/review/SKILL.md").string());
    CHECK(d.message.find((dir.path() / "repo/.agents/skills/review/SKILL.md").string()) !=
          std::string::npos);
  }
  CHECK(c.definitions().size() == 3);
}

TEST_CASE("a working folder in a monorepo subtree adds its own skills, the deepest winning") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "repo/.agents/skills/shared", "shared", "root");
  write_skill(dir, "repo/.agents/skills/api-only", "api-only", "root");
  write_skill(dir, "repo/services/api/.claude/skills/api-only", "api-only", "subtree");
  write_skill(dir, "repo/services/web/.agents/skills/web", "web");
  DiscoveryOptions options;
  options.project_root = dir.path() / "repo";
  options.working_dir = dir.path() / "repo/services/api/src";
  options.trust_project = true;
  options.user_tier = false;
  auto c = discover_skills(options);
  REQUIRE(names(c) == std::vector<std::string>{"api-only", "shared"});  // not the sibling's web
  CHECK(c.skills[0].loaded.skill.description == "subtree");
}

TEST_CASE("a home folder that is not absolute skips the user tier instead of resolving it") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "rel/.agents/skills/impostor", "impostor");
  EnvGuard env("HOME");
  fs::current_path(dir.path());
  DiscoveryOptions options;
  options.home = "rel";
  CHECK(discover_skills(options).skills.empty());
  ::setenv("HOME", "rel", 1);
  options.home.clear();
  auto home = resolve_home();
  CHECK((!home || home->is_absolute()));
  CHECK(names(discover_skills(options)) != std::vector<std::string>{"impostor"});
  ::unsetenv("HOME");
  auto fallback = resolve_home();
  CHECK((!fallback || fallback->is_absolute()));
}

TEST_CASE("with HOME unset an untrusted working folder's skills never reach the catalog") {
  agentkit::testing::TempDir dir;
  write_skill(dir, ".agents/skills/evil", "evil");
  write_skill(dir, ".claude/skills/evil2", "evil2");
  EnvGuard env("HOME");
  ::unsetenv("HOME");
  fs::current_path(dir.path());
  DiscoveryOptions options;
  options.project_root = ".";
  for (const auto& s : discover_skills(options).skills) {
    CHECK(s.loaded.skill.name.rfind("evil", 0) != 0);
  }
}

TEST_CASE("scans skip .git and node_modules and end symlink loops") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "skills/good", "good");
  write_skill(dir, "skills/.git/hidden", "hidden");
  write_skill(dir, "skills/node_modules/pkg", "pkg");
  write_skill(dir, "skills/.curated/dotted", "dotted");  // hidden folders are searched
  fs::create_directory_symlink(dir.path() / "skills", dir.path() / "skills" / "good" / "loop");
  fs::create_directory_symlink(dir.path() / "skills", dir.path() / "skills" / "again");
  DiscoveryOptions options;
  options.user_tier = false;
  options.folders = {dir.path() / "skills"};
  auto c = discover_skills(options);
  INFO(all_text(c.diagnostics));
  CHECK(names(c) == std::vector<std::string>{"dotted", "good"});
  CHECK(count_code(c.diagnostics, DiagnosticCode::skill_shadowed) == 0);
}

TEST_CASE("the folder-count cap stops a scan and says so once") {
  agentkit::testing::TempDir dir;
  for (int i = 0; i < 30; ++i) {
    write_skill(dir, "skills/s" + std::to_string(i), "s" + std::to_string(i));
  }
  DiscoveryOptions options;
  options.user_tier = false;
  options.folders = {dir.path() / "skills"};
  options.max_folders = 11;  // the root and ten skills
  auto c = discover_skills(options);
  CHECK(c.skills.size() == 10);
  CHECK(count_code(c.diagnostics, DiagnosticCode::scan_limit) == 1);
}

TEST_CASE("a skill that cannot load is an error diagnostic and the others still load") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "skills/fine", "fine");
  dir.write("skills/nofm/SKILL.md", "# no front matter\n");
  dir.write("skills/nodesc/SKILL.md", "---\nname: nodesc\n---\n");
  DiscoveryOptions options;
  options.user_tier = false;
  options.folders = {dir.path() / "skills"};
  auto c = discover_skills(options);
  CHECK(names(c) == std::vector<std::string>{"fine"});
  CHECK(count_code(c.diagnostics, DiagnosticCode::front_matter_missing) == 1);
  CHECK(count_code(c.diagnostics, DiagnosticCode::description_missing) == 1);
  for (const auto& d : c.diagnostics) CHECK(d.severity == Severity::error);
}

TEST_CASE("the real skill folders load as a named folder, nested skills included") {
  AGENTKIT_SHARED_TESTDATA(root, "skills");
  DiscoveryOptions options;
  options.user_tier = false;
  options.folders = {root};
  options.max_depth = 8;
  auto c = discover_skills(options);
  INFO(all_text(c.diagnostics));
  CHECK(c.skills.size() == 20);
  CHECK(count_code(c.diagnostics, DiagnosticCode::front_matter_missing) == 1);
  CHECK(count_code(c.diagnostics, DiagnosticCode::skill_shadowed) == 0);
  auto n = c.names();
  CHECK(std::find(n.begin(), n.end(), "qdrant-monitoring-debugging") != n.end());
  CHECK(std::find(n.begin(), n.end(), "gh-fix-ci") != n.end());  // under a dot-folder
}

TEST_CASE("a skill's scripts, references and assets are its files, not searched for skills") {
  agentkit::testing::TempDir dir;
  write_skill(dir, "skills/outer", "outer");
  write_skill(dir, "skills/outer/references/example", "example");  // a sample inside the bundle
  write_skill(dir, "skills/outer/assets/template", "template");
  write_skill(dir, "skills/outer/setup", "setup");  // a nested skill, as real repositories have
  write_skill(dir, "skills/scripts", "scripts");    // not inside a skill: an ordinary folder
  DiscoveryOptions options;
  options.user_tier = false;
  options.folders = {dir.path() / "skills"};
  auto c = discover_skills(options);
  INFO(all_text(c.diagnostics));
  CHECK(names(c) == std::vector<std::string>{"outer", "scripts", "setup"});
  CHECK(c.skills[0].loaded.skill.location == (dir.path() / "skills/outer/SKILL.md").string());
}
