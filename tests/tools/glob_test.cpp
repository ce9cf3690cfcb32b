#include "agentkit/tools/glob.hpp"

#include <chrono>
#include <string>

#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::tools::Glob;
using agentkit::tools::GlobOptions;

namespace {
bool m(std::string_view pattern, std::string_view path, GlobOptions o = {}) {
  auto g = Glob::compile(pattern, o);
  REQUIRE(g.has_value());
  return g->matches(path);
}
}  // namespace

TEST_CASE("a star matches within one path component only") {
  CHECK(m("src/*.cpp", "src/a.cpp"));
  CHECK_FALSE(m("src/*.cpp", "src/x/a.cpp"));
  CHECK(m("*", "anything"));
  CHECK(m("a*b", "ab"));
}

TEST_CASE("a pattern without a slash matches the base name anywhere in the tree") {
  CHECK(m("*.md", "README.md"));
  CHECK(m("*.md", "docs/deep/guide.md"));
  CHECK_FALSE(m("*.md", "docs/guide.md/x.txt"));
  CHECK(Glob::compile("*.md")->matches_base_name_only());
  CHECK_FALSE(Glob::compile("docs/*.md")->matches_base_name_only());
}

TEST_CASE("a double star crosses folders and a leading double-star segment may match none") {
  CHECK(m("src/**/*.h", "src/a/b/c.h"));
  CHECK(m("src/**/*.h", "src/c.h"));
  CHECK(m("**/test/*.cpp", "test/a.cpp"));
  CHECK(m("**/test/*.cpp", "x/y/test/a.cpp"));
  CHECK(m("src/**", "src/a/b"));
  CHECK_FALSE(m("src/**", "srcx/a"));
  CHECK(m("src/a**z", "src/a/b/z"));  // not a whole segment: still crosses '/', as documented
}

TEST_CASE("braces offer alternatives, nest, and may hold an empty alternative") {
  CHECK(m("*.{cpp,h}", "a.cpp"));
  CHECK(m("*.{cpp,h}", "a.h"));
  CHECK_FALSE(m("*.{cpp,h}", "a.hpp"));
  CHECK(m("*.{cpp,h{,pp}}", "a.hpp"));
  CHECK(m("{src,include/{a,b}}/*.h", "include/b/x.h"));
  CHECK_FALSE(m("{src,include/{a,b}}/*.h", "include/c/x.h"));
  CHECK(m("x{,.bak}", "x"));
  CHECK(m("x{,.bak}", "x.bak"));
}

TEST_CASE("character classes: ranges, negation with ! or ^, never a slash") {
  CHECK(m("file[0-9].txt", "file7.txt"));
  CHECK_FALSE(m("file[0-9].txt", "filex.txt"));
  CHECK(m("[!a]*", "bcd"));
  CHECK_FALSE(m("[!a]*", "abc"));
  CHECK(m("[^a]*", "bcd"));
  CHECK_FALSE(m("a[!x]b", "a/b"));
  CHECK(m("[]]", "]"));
  CHECK(m("[[:digit:]]x", "5x"));
  CHECK(m("?.txt", "é.txt"));  // one code point, not one byte
  CHECK(m("[é]", "é"));
}

TEST_CASE("a backslash makes the next character literal") {
  CHECK(m("\\*.txt", "*.txt"));
  CHECK_FALSE(m("\\*.txt", "a.txt"));
  CHECK(m("\\{a\\}", "{a}"));
}

TEST_CASE("case-insensitive matching folds letters, including beyond ASCII") {
  GlobOptions ci;
  ci.case_insensitive = true;
  CHECK(m("*.CPP", "a.cpp", ci));
  CHECK(m("[A-C]x", "bX", ci));
  CHECK(m("ÉTÉ", "été", ci));
  CHECK_FALSE(m("*.CPP", "a.cpp"));
}

TEST_CASE("malformed globs are errors that say where") {
  for (std::string_view bad : {"[abc", "{a,b", "a}", "x\\", "[[:nope:]]", ""}) {
    auto g = Glob::compile(bad);
    INFO(bad);
    REQUIRE_FALSE(g.has_value());
    CHECK(g.error().code == Errc::invalid_argument);
  }
  CHECK(Glob::compile("[abc").error().find_detail("offset") == std::optional<std::string_view>{"0"});
}

TEST_CASE("a pathological glob matches in linear time instead of backtracking") {
  std::string pattern;
  for (int i = 0; i < 30; ++i) pattern += "*a";
  pattern += "b";
  std::string text(5000, 'a');
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(m(pattern, text));
  auto took = std::chrono::steady_clock::now() - start;
  // Structure, not a budget: a backtracking matcher takes longer than the universe here.
  CHECK(took < std::chrono::seconds(5));
}
