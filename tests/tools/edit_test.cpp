#include "agentkit/tools/edit.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <thread>

#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using agentkit::testing::TempDir;
using agentkit::tools::Edit;
using agentkit::tools::EditMatch;
namespace tools = agentkit::tools;

namespace {
std::string code_of(const agentkit::Error& e) { return std::string(e.find_detail("code").value_or("")); }
std::string apply(std::string_view text, std::vector<Edit> edits) {
  auto r = tools::apply_edits(text, edits);
  REQUIRE(r.has_value());
  return r->content;
}
agentkit::Error reject(std::string_view text, std::vector<Edit> edits) {
  auto r = tools::apply_edits(text, edits);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}
}  // namespace

TEST_CASE("every old_string is matched against the original, never an earlier edit's output") {
  CHECK(apply("A B", {{"A", "B"}, {"B", "C"}}) == "B C");
}

TEST_CASE("a duplicate old_string is a rejection with the pinned message, never a replace-all") {
  auto e = reject("x x", {{"x", "y"}});
  CHECK(code_of(e) == "edit_not_unique");
  CHECK(e.message ==
        "Found 2 occurrences of the string to replace. The text must be unique. Please provide more "
        "context to make it unique.");
}

TEST_CASE("touching ranges are legal, overlapping ones are rejected") {
  CHECK(apply("abcd", {{"ab", "X"}, {"cd", "Y"}}) == "XY");
  auto e = reject("abcd", {{"abc", "1"}, {"bcd", "2"}});
  CHECK(code_of(e) == "edit_overlap");
}

TEST_CASE("rejections follow the fixed rule order over the whole batch") {
  CHECK(code_of(reject("abc", {})) == "edit_empty");
  CHECK(code_of(reject("abc", {{"zz", "1"}, {"", "2"}})) == "edit_empty_old_string");
  // Edit 0 is not unique and edit 1 is not found: rule 2 (not found) is checked first.
  auto two_faults = reject("aa b", {{"a", "1"}, {"zzz", "2"}});
  CHECK(code_of(two_faults) == "edit_not_found");
  CHECK(two_faults.find_detail("edit") == std::optional<std::string_view>{"1"});
  CHECK(code_of(reject("abc", {{"a", "a"}})) == "edit_noop");
}

TEST_CASE("a rejected edit leaves the file's bytes and mtime untouched") {
  TempDir t;
  auto p = t.write("f.txt", "x x\n");
  auto ws = tools::Workspace::open(t.path()).value();
  auto before = fs::last_write_time(p);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (const auto& edits : std::vector<std::vector<Edit>>{{{"x", "y"}}, {{"q", "y"}}, {{"x x", "x x"}}}) {
    auto r = tools::edit_file(ws, "f.txt", edits);
    REQUIRE_FALSE(r.has_value());
  }
  CHECK(agentkit::testing::read_file(p) == "x x\n");
  CHECK(fs::last_write_time(p) == before);
}

TEST_CASE("CRLF line endings and the BOM are kept, untouched lines keep their exact bytes") {
  const std::string original = "\xEF\xBB\xBFline one\r\nsay \xE2\x80\x9Cx\xE2\x80\x9D\r\nline three\r\n";
  auto out = apply(original, {{"line one\nsay", "line 1\nsay"}});
  CHECK(out == "\xEF\xBB\xBFline 1\r\nsay \xE2\x80\x9Cx\xE2\x80\x9D\r\nline three\r\n");
}

TEST_CASE("ASCII quotes in old_string rescue a smart-quoted line through the tolerant pass") {
  const std::string original = "a\nprint(\xE2\x80\x9Chi\xE2\x80\x9D)  \nz \xE2\x80\x94 end\n";
  auto r = tools::apply_edits(original, {{"print(\"hi\")\n", "print(\"bye\")\n"}});
  REQUIRE(r.has_value());
  CHECK(r->match == EditMatch::folded);
  // Only the matched block changed; the em dash on the last line is still an em dash.
  CHECK(r->content == "a\nprint(\"bye\")\nz \xE2\x80\x94 end\n");
}

TEST_CASE("an exact match is never overridden by a folded one") {
  // "x = 1" matches exactly once; folding would also see "x = 1   " (trailing spaces) on line 3.
  const std::string original = "x = 1\ny\nx = 1   \n";
  auto r = tools::apply_edits(original, {{"x = 1\n", "x = 2\n"}, {"nothing-like-this", "q"}});
  REQUIRE_FALSE(r.has_value());  // the second edit cannot be rescued: the batch is rejected
  auto ok = tools::apply_edits(original, {{"x = 1\ny", "x = 2\ny"}, {"x = 1\n", "x = 3\n"}});
  // Edit 1's "x = 1\n" has exactly... two exact hits? No: line 3 has trailing spaces, so one.
  REQUIRE_FALSE(ok.has_value());
  CHECK(code_of(ok.error()) == "edit_overlap");
  auto mixed = tools::apply_edits("x = 1\nquote \xE2\x80\x98s\xE2\x80\x99\nx = 1 \n",
                                  {{"x = 1\n", "x = 2\n"}, {"quote 's'\n", "quote 't'\n"}});
  REQUIRE(mixed.has_value());
  CHECK(mixed->match == EditMatch::folded);
  // Edit 0 kept its exact match on line 1 even though line 3 folds to the same text.
  CHECK(mixed->content == "x = 2\nquote 't'\nx = 1 \n");
}

TEST_CASE("trailing whitespace is tolerated but leading indentation is not") {
  const std::string original = "def f():\n    return 1   \n";
  auto ok = tools::apply_edits(original, {{"    return 1\n", "    return 2\n"}});
  REQUIRE(ok.has_value());
  CHECK(ok->content == "def f():\n    return 2\n");
  auto bad = tools::apply_edits(original, {{"  return 1\n", "  return 2\n"}});
  REQUIRE_FALSE(bad.has_value());
  CHECK(code_of(bad.error()) == "edit_not_found");
}

TEST_CASE("a partially rescuable batch is rejected whole") {
  const std::string original = "say \xE2\x80\x9Chi\xE2\x80\x9D\nother\n";
  auto e = reject(original, {{"say \"hi\"", "say \"yo\""}, {"absent line", "x"}});
  CHECK(code_of(e) == "edit_not_found");
  CHECK(e.find_detail("edit") == std::optional<std::string_view>{"1"});
}

TEST_CASE("folded matches that are not unique are rejected like exact ones") {
  const std::string original = "a \xE2\x80\x94 b\nmid\na - b\n";
  auto e = reject(original, {{"a -- b", "x"}, {"a - b \n", "y"}});
  // "a -- b" is nowhere; rule 2 first.
  CHECK(code_of(e) == "edit_not_found");
  auto twice = reject("a \xE2\x80\x94 b\nmid\na \xE2\x80\x93 b\n", {{"a - b\n", "y\n"}});
  CHECK(code_of(twice) == "edit_not_unique");
  CHECK(twice.message.starts_with("Found 2 occurrences"));
}

TEST_CASE("lines new_string keeps unchanged take the file's own bytes in a folded match") {
  const std::string original = "he said \xE2\x80\x9Cyes\xE2\x80\x9D\nvalue = 1  \nend\n";
  auto out = apply(original, {{"he said \"yes\"\nvalue = 1\n", "he said \"yes\"\nvalue = 2\n"}});
  CHECK(out == "he said \xE2\x80\x9Cyes\xE2\x80\x9D\nvalue = 2\nend\n");
}

TEST_CASE("the fold maps confusables to ASCII and trims only trailing whitespace") {
  CHECK(tools::fold_line("\xE2\x80\x98q\xE2\x80\x99 \xE2\x80\x9C" "d\xE2\x80\x9D \xE2\x80\x93\xE2\x80\x94\xE2\x88\x92") ==
        "'q' \"d\" ---");
  CHECK(tools::fold_line("a\xC2\xA0" "b\xE2\x80\xA6  \t") == "a b...");
  CHECK(tools::fold_line("\t  lead") == "\t  lead");
  CHECK(tools::fold_line("\xEF\xBC\xA1\xEF\xBC\x8B") == "A+");
}

TEST_CASE("edit_file writes atomically and keeps the file's mode") {
  TempDir t;
  auto p = t.write("s.sh", "echo one\n");
  fs::permissions(p, fs::perms(0755));
  auto ws = tools::Workspace::open(t.path()).value();
  auto r = tools::edit_file(ws, "s.sh", {{"one", "two"}});
  REQUIRE(r.has_value());
  CHECK(r->edits_applied == 1);
  CHECK(agentkit::testing::read_file(p) == "echo two\n");
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  CHECK(tools::edit_file(ws, "../x", {{"a", "b"}}).error().code == Errc::permission_denied);
  CHECK(tools::edit_file(ws, "missing.txt", {{"a", "b"}}).error().code == Errc::not_found);
}

TEST_CASE("a mixed line-ending file is matched as it is and keeps every ending") {
  const std::string original = "a\r\nb\nc\r\n";
  CHECK(apply(original, {{"b", "B"}}) == "a\r\nB\nc\r\n");
}
