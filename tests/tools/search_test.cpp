#include "agentkit/tools/search.hpp"

#include <filesystem>
#include <fstream>
#include <random>

#include "regex.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using agentkit::testing::TempDir;
using agentkit::tools::SearchBackend;
using agentkit::tools::SearchOptions;
using agentkit::tools::SearchRequest;
using agentkit::tools::Workspace;
namespace tools = agentkit::tools;
using Regex = agentkit::tools::detail::Regex;

namespace {
SearchOptions backend(SearchBackend b) {
  SearchOptions o;
  o.backend = b;
  o.ignore.use_global_excludes = false;
  return o;
}
const SearchBackend kBoth[] = {SearchBackend::native, SearchBackend::ripgrep};

// The REQ-TOOL-05 fixture: node_modules, *.log with !keep.log, a nested repo, a binary file.
void fixture(const TempDir& t) {
  fs::create_directories(t.path() / ".git");
  t.write(".gitignore", "node_modules/\n*.log\n!keep.log\n");
  t.write("src/a.txt", "alpha needle\nbeta\n");
  t.write("node_modules/pkg/index.js", "needle in dependency\n");
  t.write("x.log", "needle in log\n");
  t.write("keep.log", "needle kept\n");
  t.write("vendor/lib/.gitignore", "*.txt\n");
  fs::create_directories(t.path() / "vendor/lib/.git");
  t.write("vendor/lib/inner.txt", "needle ignored by the nested repo\n");
  t.write("vendor/lib/code.c", "needle in nested\n");
  t.write("vendor/lib/x.log", "needle: outer *.log must not reach in\n");
  t.write("bin.dat", std::string("needle\0binary\n", 14));
}

std::string dump(const std::vector<tools::SearchMatch>& ms) {
  std::string out;
  for (const auto& m : ms) {
    out += m.file + ":" + std::to_string(m.line) + " [" + m.text + "]";
    for (const auto& b : m.before) out += " <" + b;
    for (const auto& a : m.after) out += " >" + a;
    out += "\n";
  }
  return out;
}

std::vector<std::string> files_of(const tools::SearchResult& r) {
  std::vector<std::string> out;
  for (const auto& m : r.matches) out.push_back(m.file);
  return out;
}
}  // namespace

TEST_CASE("the regex engine matches the documented subset line by line") {
  auto m = [](std::string_view pattern, std::string_view line, bool icase = false) {
    agentkit::tools::detail::RegexOptions o;
    o.case_insensitive = icase;
    auto r = Regex::compile(pattern, o);
    REQUIRE(r.has_value());
    return r->matches_line(line);
  };
  CHECK(m("needle", "a needle here"));
  CHECK_FALSE(m("needle", "a nee dle"));
  CHECK(m(R"(fn\s+main\()", "pub fn   main() {"));
  CHECK(m("^abc$", "abc"));
  CHECK_FALSE(m("^abc$", "xabc"));
  CHECK(m(R"(\bword\b)", "a word."));
  CHECK_FALSE(m(R"(\bword\b)", "swordfish"));
  CHECK(m("colou?r", "color"));
  CHECK(m("(ab){2,3}c", "xababc"));
  CHECK_FALSE(m("(ab){2,3}c", "abc"));
  CHECK(m("a.c", "aéc"));  // '.' is one code point
  CHECK(m("[^a]b", "éb"));
  CHECK(m("HELLO", "hello", true));
  CHECK(m("(?i)straße", "STRAßE"));
  CHECK(m("x|y|z", "--z--"));
  CHECK(m(R"(\x41\x{263A})", "A\u263A"));
  CHECK(m("[[:digit:]]+", "v12"));
  CHECK(m("", "anything"));
  for (std::string_view bad : {"(", "a{2", "[a", "*a", R"(\1)", "(?=x)", R"(\p{L})", "a{5,2}"}) {
    INFO(bad);
    CHECK_FALSE(Regex::compile(bad).has_value());
  }
  CHECK(Regex::compile("(?=x)").error().code == Errc::unsupported);
}

TEST_CASE("a pathological regex runs in linear time") {
  auto r = Regex::compile("(a*)*(b|a?)*c");
  REQUIRE(r.has_value());
  CHECK_FALSE(r->matches_line(std::string(20000, 'a')));
}

TEST_CASE("search skips ignored and binary files and honours the nested repository boundary") {
  REQUIRE(agentkit::testing::find_program("rg").has_value());
  TempDir t;
  fixture(t);
  auto ws = Workspace::open(t.path()).value();
  for (auto b : kBoth) {
    SearchRequest q;
    q.pattern = "needle";
    auto r = tools::search_files(ws, q, backend(b));
    REQUIRE(r.has_value());
    CHECK(files_of(*r) == std::vector<std::string>{"keep.log", "src/a.txt", "vendor/lib/code.c", "vendor/lib/x.log"});
    CHECK(r->backend == (b == SearchBackend::native ? "native" : "ripgrep"));
    CHECK(r->files_searched == 7);  // two .gitignore files and bin.dat are examined too
  }
}

TEST_CASE("smart case is the default; an explicit choice overrides it") {
  TempDir t;
  t.write("a.txt", "Needle\nneedle\n");
  auto ws = Workspace::open(t.path()).value();
  for (auto b : kBoth) {
    SearchRequest q;
    q.pattern = "needle";
    CHECK(tools::search_files(ws, q, backend(b))->matches.size() == 2);
    q.pattern = "Needle";
    CHECK(tools::search_files(ws, q, backend(b))->matches.size() == 1);
    q.case_sensitive = false;
    CHECK(tools::search_files(ws, q, backend(b))->matches.size() == 2);
    q.pattern = "needle";
    q.case_sensitive = true;
    CHECK(tools::search_files(ws, q, backend(b))->matches.size() == 1);
  }
}

TEST_CASE("two matches a line apart each keep the other in their context") {
  TempDir t;
  t.write("a.txt", "l1\nhit one\nl3\nhit two\nl5\n");
  auto ws = Workspace::open(t.path()).value();
  for (auto b : kBoth) {
    SearchRequest q;
    q.pattern = "hit";
    q.context_lines = 2;
    auto r = tools::search_files(ws, q, backend(b));
    REQUIRE(r.has_value());
    REQUIRE(r->matches.size() == 2);
    CHECK(r->matches[0].before == std::vector<std::string>{"l1"});
    CHECK(r->matches[0].after == std::vector<std::string>{"l3", "hit two"});
    CHECK(r->matches[1].before == std::vector<std::string>{"hit one", "l3"});
    CHECK(r->matches[1].after == std::vector<std::string>{"l5"});
  }
}

TEST_CASE("truncation is deterministic and names the follow-up call") {
  TempDir t;
  for (int f = 0; f < 12; ++f) {
    std::string body;
    for (int l = 0; l < 20; ++l) body += "match " + std::to_string(l) + "\n";
    t.write("d" + std::to_string(f % 3) + "/f" + std::to_string(f) + ".txt", body);
  }
  auto ws = Workspace::open(t.path()).value();
  std::vector<tools::SearchMatch> first;
  for (auto b : kBoth) {
    SearchRequest q;
    q.pattern = "match";
    auto r = tools::search_files(ws, q, backend(b));
    REQUIRE(r.has_value());
    CHECK(r->matches.size() == 100);
    CHECK(r->truncated);
    CHECK(r->marker == "[100 matches limit reached. Use max_matches=200 for more, or refine pattern]");
    CHECK(r->matches.front().file == "d0/f0.txt");
    CHECK(r->files_searched == 6);  // 20 matches per file: the 101st is in the sixth file
    if (first.empty()) first = r->matches;
    else CHECK(r->matches == first);
  }
}

TEST_CASE("the file glob uses AgentKit's dialect, nested braces included") {
  TempDir t;
  t.write("a.cpp", "x\n");
  t.write("b.hpp", "x\n");
  t.write("c.h", "x\n");
  t.write("d.txt", "x\n");
  auto ws = Workspace::open(t.path()).value();
  for (auto b : kBoth) {
    SearchRequest q;
    q.pattern = "x";
    q.file_glob = "*.{cpp,h{,pp}}";
    auto r = tools::search_files(ws, q, backend(b));
    REQUIRE(r.has_value());
    CHECK(files_of(*r) == std::vector<std::string>{"a.cpp", "b.hpp", "c.h"});
  }
}

TEST_CASE("a bad pattern or glob is an error that says where") {
  TempDir t;
  auto ws = Workspace::open(t.path()).value();
  SearchRequest q;
  q.pattern = "a(b";
  CHECK(tools::search_files(ws, q).error().code == Errc::invalid_argument);
  q.pattern = "ok";
  q.file_glob = "{a";
  CHECK(tools::search_files(ws, q).error().code == Errc::invalid_argument);
  q.file_glob.reset();
  q.path = "../elsewhere";
  CHECK(tools::search_files(ws, q).error().code == Errc::permission_denied);
}

// ---- Parity: both backends on generated trees --------------------------------------------------

TEST_CASE("the two backends agree on generated trees, patterns and options") {
  REQUIRE(agentkit::testing::find_program("rg").has_value());
  std::mt19937 rng(7031);
  const std::vector<std::string> words = {"alpha", "Beta", "gamma", "delta", "fn", "main", "x1", "foo_bar",
                                          "TODO", "fix", "café", "naïve", "(x)", "a.b", "end;", "  "};
  const std::vector<std::string> patterns = {
      "alpha", "beta", "Beta", "fn\\s+main", "^TODO", "fix$", "\\bx1\\b", "caf.", "[a-c]+l", "a\\.b",
      "foo_?bar", "(gamma|delta) ", "\\(x\\)", "na[iï]ve", "\\d", "end;$", "(?i)todo", "^$", "[^a-z ]{3}", "l{2}"};
  const std::vector<std::optional<std::string>> globs = {std::nullopt, "*.txt", "**/*.{md,txt}", "d1/**", "[!b]*"};
  std::size_t compared = 0, nonempty = 0;
  const int rounds = agentkit::testing::kUnderThreadSanitizer ? 3 : 12;
  for (int round = 0; round < rounds; ++round) {
    TempDir t;
    fs::create_directories(t.path() / ".git");
    t.write(".gitignore", "*.skip\nd2/gen/\n");
    int nfiles = 15 + static_cast<int>(rng() % 20);
    for (int f = 0; f < nfiles; ++f) {
      std::string name = "d" + std::to_string(rng() % 4) + "/" + (rng() % 5 == 0 ? "gen/" : "") +
                         std::string(1, static_cast<char>('a' + rng() % 4)) + std::to_string(f) +
                         (rng() % 3 == 0 ? ".md" : rng() % 6 == 0 ? ".skip" : ".txt");
      std::string body;
      int nlines = static_cast<int>(rng() % 30);
      for (int l = 0; l < nlines; ++l) {
        int nw = static_cast<int>(rng() % 6);
        for (int w = 0; w < nw; ++w) body += (w ? " " : "") + words[rng() % words.size()];
        body += rng() % 10 == 0 ? "\r\n" : "\n";
      }
      if (rng() % 8 == 0) body.pop_back();  // no final newline
      if (rng() % 15 == 0) body += std::string("\0", 1);
      t.write(name, body);
    }
    auto ws = Workspace::open(t.path()).value();
    for (int q = 0; q < 10; ++q) {
      SearchRequest req;
      req.pattern = patterns[rng() % patterns.size()];
      req.context_lines = rng() % 3;
      req.file_glob = globs[rng() % globs.size()];
      req.max_matches = 5 + rng() % 60;
      if (rng() % 4 == 0) req.case_sensitive = rng() % 2 == 0;
      auto native = tools::search_files(ws, req, backend(SearchBackend::native));
      auto rg = tools::search_files(ws, req, backend(SearchBackend::ripgrep));
      REQUIRE(native.has_value());
      REQUIRE(rg.has_value());
      INFO("round " << round << " pattern " << req.pattern << " glob " << req.file_glob.value_or("-"));
      if (native->matches != rg->matches) {
        INFO("native:\n" << dump(native->matches) << "ripgrep:\n" << dump(rg->matches));
        CHECK(native->matches == rg->matches);
      }
      CHECK(native->truncated == rg->truncated);
      CHECK(native->files_searched == rg->files_searched);
      CHECK(native->files_with_matches == rg->files_with_matches);
      ++compared;
      nonempty += native->matches.empty() ? 0 : 1;
    }
  }
  CHECK(compared == static_cast<std::size_t>(10 * rounds));
  CHECK(nonempty > compared / 2);  // agreement on empty results alone would prove little
}

// ---- find_files and list_files -----------------------------------------------------------------

TEST_CASE("find_files honours ignore rules, a nested gitignore and file types") {
  TempDir t;
  fixture(t);
  auto ws = Workspace::open(t.path()).value();
  tools::IgnoreOptions io;
  io.use_global_excludes = false;
  auto r = tools::find_files(ws, {"*.{txt,c,log}", ".", tools::FileType::file, 1000}, io);
  REQUIRE(r.has_value());
  CHECK(r->files == std::vector<std::string>{"keep.log", "src/a.txt", "vendor/lib/code.c", "vendor/lib/x.log"});
  auto dirs = tools::find_files(ws, {"*", ".", tools::FileType::directory, 1000}, io);
  CHECK(dirs->files == std::vector<std::string>{"src", "vendor", "vendor/lib"});
  auto none = tools::find_files(ws, {"*.nothing", ".", tools::FileType::file, 1000}, io);
  REQUIRE(none.has_value());
  CHECK(none->files.empty());
}

TEST_CASE("find_files stops at its limit with a marker naming the next limit") {
  TempDir t;
  for (int i = 0; i < 30; ++i) t.write("f" + std::to_string(100 + i) + ".txt", "");
  auto ws = Workspace::open(t.path()).value();
  auto r = tools::find_files(ws, {"*.txt", ".", tools::FileType::file, 10});
  REQUIRE(r.has_value());
  CHECK(r->files.size() == 10);
  CHECK(r->truncated);
  CHECK(r->marker == "[10 results limit reached. Use limit=20 for more, or refine pattern]");
}

TEST_CASE("list_files shows one folder's entries without the ignored ones") {
  TempDir t;
  fixture(t);
  auto ws = Workspace::open(t.path()).value();
  tools::IgnoreOptions io;
  io.use_global_excludes = false;
  auto r = tools::list_files(ws, {".", 500}, io);
  REQUIRE(r.has_value());
  CHECK(r->entries == std::vector<std::string>{".gitignore", "bin.dat", "keep.log", "src/", "vendor/"});
  auto small = tools::list_files(ws, {".", 2}, io);
  CHECK(small->truncated);
  CHECK(small->marker == "[2 entries limit reached. Use limit=4 for more]");
}

// ---- The native backend's fast paths -----------------------------------------------------------

TEST_CASE("the case-folded literal prefilter finds every case variant, at the edges of the text too") {
  agentkit::tools::detail::RegexOptions icase;
  icase.case_insensitive = true;
  auto lines_matching = [](const Regex& r, std::string_view text) {
    std::vector<std::string> out;
    r.for_each_matching_line(text, [&](std::size_t s, std::size_t e) {
      out.emplace_back(text.substr(s, e - s));
      return true;
    });
    return out;
  };
  auto needle = Regex::compile("needle_1", icase).value();
  CHECK(lines_matching(needle, "NEEDLE_1 a\nb Needle_1\nneedle_2\nneedle-1\nx needle_1") ==
        std::vector<std::string>{"NEEDLE_1 a", "b Needle_1", "x needle_1"});
  auto letters = Regex::compile("abc", icase).value();  // no exact byte to anchor on
  CHECK(lines_matching(letters, "aabC\nab\nxyzABC") == std::vector<std::string>{"aabC", "xyzABC"});
  auto mixed = Regex::compile("ret(urn|ry) +val", icase).value();
  CHECK(lines_matching(mixed, "RETURN  Value\nretry val\nreturn\nret val") ==
        std::vector<std::string>{"RETURN  Value", "retry val"});
  auto exact = Regex::compile("Foo", {}).value();
  CHECK(lines_matching(exact, "foo\nFoo\nFOO") == std::vector<std::string>{"Foo"});
  auto newline = Regex::compile("a\\nb", {}).value();  // a line never holds '\n'
  CHECK(lines_matching(newline, "a\nb\n").empty());
}

TEST_CASE("the native backend on several threads answers exactly what one thread answers") {
  TempDir t;
  fs::create_directories(t.path() / ".git");
  std::mt19937 rng(5);
  for (int f = 0; f < 400; ++f) {  // several chunks (64, 128, ...)
    std::string body;
    for (int l = 0; l < 20; ++l) body += (rng() % 9 == 0 ? "hit " : "miss ") + std::to_string(l) + "\n";
    t.write("d" + std::to_string(f % 7) + "/f" + std::to_string(f) + ".txt", body);
  }
  t.write("huge.txt", std::string(5000, 'h') + " hit\n");
  auto ws = Workspace::open(t.path()).value();
  // "hit" is answered by the literal prefilter alone; "h.t \\d" runs each worker's automaton.
  const std::vector<std::pair<std::size_t, const char*>> queries = {
      {7, "hit"}, {150, "hit"}, {100000, "hit"}, {7, "h.t \\d"}, {150, "h.t \\d"}, {100000, "h.t \\d"}};
  for (const auto& [max_matches, pattern] : queries) {
    SearchRequest req;
    req.pattern = pattern;
    req.context_lines = 1;
    req.max_matches = max_matches;
    SearchOptions one = backend(SearchBackend::native);
    one.threads = 1;
    one.max_file_bytes = 4096;  // huge.txt is skipped, and not counted as searched
    SearchOptions four = one;
    four.threads = 4;
    auto a = tools::search_files(ws, req, one);
    auto b = tools::search_files(ws, req, four);
    auto rg = tools::search_files(ws, req, [&] {
      SearchOptions o = one;
      o.backend = SearchBackend::ripgrep;
      return o;
    }());
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    REQUIRE(rg.has_value());
    INFO("max_matches " << max_matches << " pattern " << pattern);
    CHECK(a->matches == b->matches);
    CHECK(a->files_searched == b->files_searched);
    CHECK(a->files_with_matches == b->files_with_matches);
    CHECK(a->truncated == b->truncated);
    CHECK(a->matches == rg->matches);
    CHECK(a->files_searched == rg->files_searched);
    for (const auto& m : a->matches) CHECK(m.file != "huge.txt");
  }
}
