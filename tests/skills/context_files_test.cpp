// Context files: candidates per folder, walk order, the trust gate, worktrees, the byte cap and
// bad files. Test IDs: REQ-CTX-01..05.
#include "agentkit/skills/context_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

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

ContextFileOptions trusted(const fs::path& wd, const fs::path& root = {}) {
  ContextFileOptions o;
  o.working_dir = wd;
  o.project_root = root;
  o.trust_project = true;
  o.user_tier = false;
  return o;
}

std::vector<std::string> rel_paths(const ContextFiles& c, const fs::path& base) {
  std::vector<std::string> out;
  for (const auto& f : c.files) out.push_back(f.path.lexically_relative(base).string());
  return out;
}

}  // namespace

TEST_CASE("in each folder the override wins and a candidate that is a folder is passed over") {
  agentkit::testing::TempDir dir;
  fs::create_directories(dir.path() / "r/.git");
  dir.write("r/AGENTS.override.md", "override");
  dir.write("r/AGENTS.md", "agents");
  fs::create_directories(dir.path() / "r/sub/AGENTS.md");  // a folder, not a file
  dir.write("r/sub/CLAUDE.md", "claude");
  auto c = load_context_files(trusted(dir.path() / "r/sub"));
  INFO(all_text(c.diagnostics));
  CHECK(rel_paths(c, dir.path()) ==
        std::vector<std::string>{"r/AGENTS.override.md", "r/sub/CLAUDE.md"});
  CHECK(c.files[0].body == "override");
  CHECK(c.files[1].precedence == 1);
}

TEST_CASE("the user-global file comes first, then the root down to the working folder") {
  agentkit::testing::TempDir dir;
  dir.write("home/.agents/AGENTS.md", "global");
  fs::create_directories(dir.path() / "a/.git");
  dir.write("a/AGENTS.md", "\xEF\xBB\xBFroot");
  dir.write("a/b/AGENTS.md", "leaf");
  auto o = trusted(dir.path() / "a/b");
  o.user_tier = true;
  o.home = dir.path() / "home";
  auto c = load_context_files(o);
  REQUIRE(c.files.size() == 3);
  CHECK(c.files[0].user_global);
  CHECK(c.files[0].body == "global");
  CHECK(c.files[1].body == "root");  // no BOM bytes
  CHECK(c.files[1].bytes == 7);
  CHECK(c.files[2].body == "leaf");
}

TEST_CASE("an untrusted project contributes no context file, by default") {
  agentkit::testing::TempDir dir;
  dir.write("home/.agents/AGENTS.md", "global");
  fs::create_directories(dir.path() / "a/.git");
  dir.write("a/AGENTS.md", "repo-authored");
  ContextFileOptions o;
  CHECK_FALSE(o.trust_project);
  o.working_dir = dir.path() / "a";
  o.home = dir.path() / "home";
  auto c = load_context_files(o);
  REQUIRE(c.files.size() == 1);
  CHECK(c.files[0].body == "global");
  CHECK(count_code(c.diagnostics, DiagnosticCode::untrusted_project) == 1);
}

TEST_CASE("a relative home skips the user-global file rather than reading it from the project") {
  agentkit::testing::TempDir dir;
  dir.write("rel/.agents/AGENTS.md", "impostor");
  ContextFileOptions o;
  o.working_dir = dir.path();
  o.home = "rel";
  const auto cwd = fs::current_path();
  fs::current_path(dir.path());
  auto c = load_context_files(o);
  fs::current_path(cwd);
  CHECK(c.files.empty());
}

TEST_CASE("a linked worktree inside its main repository loads only the worktree's files") {
  agentkit::testing::TempDir dir;
  fs::create_directories(dir.path() / "r/.git/worktrees/wt");
  dir.write("r/AGENTS.md", "main copy");
  dir.write("r/wt/.git", "gitdir: " + (dir.path() / "r/.git/worktrees/wt").string() + "\n");
  dir.write("r/wt/AGENTS.md", "worktree copy");
  fs::create_directories(dir.path() / "r/wt/src");
  for (const fs::path& root : {fs::path(), dir.path() / "r"}) {  // found, then given
    auto c = load_context_files(trusted(dir.path() / "r/wt/src", root));
    REQUIRE(c.files.size() == 1);
    CHECK(c.files[0].body == "worktree copy");
  }
}

TEST_CASE("without a repository above, only the working folder's file loads") {
  agentkit::testing::TempDir dir;
  dir.write("AGENTS.md", "outer");
  dir.write("w/AGENTS.md", "inner");
  auto c = load_context_files(trusted(dir.path() / "w"));
  // (The temp folder's ancestors are outside any repository in CI; a .git above would stop it.)
  REQUIRE_FALSE(c.files.empty());
  CHECK(c.files.back().body == "inner");
}

TEST_CASE("the byte cap truncates the file that crosses it and leaves later ones out, reported") {
  agentkit::testing::TempDir dir;
  fs::create_directories(dir.path() / "r/.git");
  dir.write("r/AGENTS.md", std::string(30, 'a'));
  dir.write("r/b/AGENTS.md", std::string(30, 'b'));
  dir.write("r/b/c/AGENTS.md", "c");
  auto o = trusted(dir.path() / "r/b/c");
  o.max_total_bytes = 40;
  auto c = load_context_files(o);
  REQUIRE(c.files.size() == 2);
  CHECK_FALSE(c.files[0].truncated);
  CHECK(c.files[1].truncated);
  CHECK(c.files[1].body == std::string(10, 'b'));
  CHECK(c.files[1].bytes == 30);
  CHECK(count_code(c.diagnostics, DiagnosticCode::file_too_large) == 2);
}

TEST_CASE("a context file that is a FIFO or unreadable is reported and the next candidate loads") {
  agentkit::testing::TempDir dir;
  fs::create_directories(dir.path() / "r/.git");
  REQUIRE(::mkfifo((dir.path() / "r/AGENTS.override.md").c_str(), 0600) == 0);
  dir.write("r/AGENTS.md", "after the fifo");
  dir.write("r/s/AGENTS.md", "locked");
  dir.write("r/s/CLAUDE.md", "after the locked one");
  ::chmod((dir.path() / "r/s/AGENTS.md").c_str(), 0);
  auto c = load_context_files(trusted(dir.path() / "r/s"));
  INFO(all_text(c.diagnostics));
  REQUIRE(c.files.size() == 2);
  CHECK(c.files[0].body == "after the fifo");
  if (::geteuid() != 0) {  // root reads a mode-000 file anyway
    CHECK(c.files[1].body == "after the locked one");
    CHECK(count_code(c.diagnostics, DiagnosticCode::file_unreadable) == 2);
  } else {
    CHECK(count_code(c.diagnostics, DiagnosticCode::file_unreadable) == 1);
  }
}

TEST_CASE("the real monorepo chains load the override, then each folder's file down the tree") {
  AGENTKIT_SHARED_TESTDATA(root, "context-files");
  const fs::path kanbus = root / "kanbus";
  auto issues = load_context_files(trusted(kanbus / "project/issues", kanbus));
  CHECK(rel_paths(issues, kanbus) == std::vector<std::string>{"AGENTS.override.md",
                                                              "project/AGENTS.md",
                                                              "project/issues/AGENTS.md"});
  auto apps = load_context_files(trusted(kanbus / "apps", kanbus));
  CHECK(rel_paths(apps, kanbus) == std::vector<std::string>{"AGENTS.override.md"});
  auto o = trusted(kanbus, kanbus);
  o.names = {"AGENTS.md"};  // without the override, the 16.5 KB AGENTS.md comes back
  auto plain = load_context_files(o);
  REQUIRE(plain.files.size() == 1);
  CHECK(plain.files[0].bytes == 16516);
  auto unlimotion = load_context_files(trusted(root / "unlimotion", root / "unlimotion"));
  CHECK(rel_paths(unlimotion, root / "unlimotion") ==
        std::vector<std::string>{"AGENTS.override.md"});  // never AGENTS.Termux.md
  const fs::path ali = root / "alirezarezvani-claude-skills";
  auto gap = load_context_files(trusted(ali / "engineering-team/playwright-pro", ali));
  CHECK(rel_paths(gap, ali) ==
        std::vector<std::string>{"CLAUDE.md", "engineering-team/playwright-pro/CLAUDE.md"});
}
