#include "agentkit/tools/workspace.hpp"

#include <unistd.h>

#include <filesystem>

#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using agentkit::testing::TempDir;
using agentkit::tools::Workspace;

namespace {
struct Layout {
  TempDir tmp;
  fs::path ws;
  fs::path outside;
  Layout() {
    ws = fs::canonical(tmp.path()) / "ws";
    outside = fs::canonical(tmp.path()) / "ws-evil";
    fs::create_directories(ws / "src");
    fs::create_directories(outside);
    tmp.write("ws/src/a.c", "int a;\n");
    tmp.write("ws-evil/a", "secret\n");
  }
};

void require_refused(const Workspace& w, std::string_view input) {
  auto r = w.resolve(input);
  INFO("input: " << input);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::permission_denied);
  CHECK(r.error().find_detail("code") == std::optional<std::string_view>{"path_not_allowed"});
}
}  // namespace

TEST_CASE("a relative path resolves inside the workspace root") {
  Layout l;
  auto w = Workspace::open(l.ws).value();
  CHECK(w.resolve("src/a.c").value() == l.ws / "src/a.c");
  CHECK(w.resolve("./src/../src/a.c").value() == l.ws / "src/a.c");
  CHECK(w.resolve(".").value() == l.ws);
  CHECK(w.relative(l.ws / "src/a.c") == "src/a.c");
}

TEST_CASE("traversal, sibling prefixes, home, file URLs and absolute paths outside are refused") {
  Layout l;
  auto w = Workspace::open(l.ws).value();
  require_refused(w, "../x");
  require_refused(w, "src/../../ws-evil/a");
  require_refused(w, (l.outside / "a").string());  // "/t/ws-evil/a" shares the "/t/ws" prefix
  require_refused(w, "file:///etc/passwd");
  require_refused(w, "/etc/passwd");
  if (const char* home = std::getenv("HOME"); home != nullptr && !w.contains(fs::path(home))) {
    require_refused(w, "~/x");
  }
  auto err = w.resolve("../x").error();
  CHECK(err.message.find("outside the workspace") != std::string::npos);
}

TEST_CASE("the at-sign sigil and file URLs inside the workspace resolve") {
  Layout l;
  auto w = Workspace::open(l.ws).value();
  CHECK(w.resolve("@src/a.c").value() == l.ws / "src/a.c");
  CHECK(w.resolve("file://" + (l.ws / "src/a.c").string()).value() == l.ws / "src/a.c");
}

TEST_CASE("a symlink that leaves the workspace is resolved before the containment check") {
  Layout l;
  fs::create_directory_symlink(l.outside, l.ws / "link");
  auto w = Workspace::open(l.ws).value();
  require_refused(w, "link/a");
  require_refused(w, "link");
  // A file that does not exist yet below the linked folder: a write would land outside.
  require_refused(w, "link/new-file.txt");
}

TEST_CASE("a dangling symlink pointing outside cannot be used to create a file there") {
  Layout l;
  fs::create_symlink(l.outside / "planted.txt", l.ws / "dangling");
  auto w = Workspace::open(l.ws).value();
  require_refused(w, "dangling");
}

TEST_CASE("a symlink that stays inside the workspace is followed") {
  Layout l;
  fs::create_directory_symlink(l.ws / "src", l.ws / "alias");
  fs::create_symlink("src/a.c", l.ws / "rel-link");
  auto w = Workspace::open(l.ws).value();
  CHECK(w.resolve("alias/a.c").value() == l.ws / "src/a.c");
  CHECK(w.resolve("rel-link").value() == l.ws / "src/a.c");
}

TEST_CASE("paths that do not exist yet resolve for writing") {
  Layout l;
  auto w = Workspace::open(l.ws).value();
  CHECK(w.resolve("new/dir/file.txt").value() == l.ws / "new/dir/file.txt");
  require_refused(w, "new/../../outside.txt");
}

TEST_CASE("an extra allowed root admits paths below it") {
  Layout l;
  auto w = Workspace::open(l.ws, {l.outside}).value();
  CHECK(w.resolve((l.outside / "a").string()).value() == l.outside / "a");
  require_refused(w, (l.outside.parent_path() / "elsewhere").string());
}

TEST_CASE("a symlink loop is an error, not a hang") {
  Layout l;
  fs::create_symlink(l.ws / "b", l.ws / "a");
  fs::create_symlink(l.ws / "a", l.ws / "b");
  auto w = Workspace::open(l.ws).value();
  auto r = w.resolve("a/x");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::limit_exceeded);
}

TEST_CASE("an empty path or one holding a NUL byte is invalid") {
  Layout l;
  auto w = Workspace::open(l.ws).value();
  CHECK(w.resolve("").error().code == Errc::invalid_argument);
  CHECK(w.resolve(std::string_view("a\0b", 3)).error().code == Errc::invalid_argument);
}

TEST_CASE("opening a workspace on a missing folder fails with its name") {
  Layout l;
  auto r = Workspace::open(l.ws / "missing");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::not_found);
  CHECK(r.error().message.find("missing") != std::string::npos);
}
