// The loader's fast path must accept exactly the lines json::parse reads as one object: checked
// side by side on hand-picked edge cases and on every one-byte mutation of real log lines.
#include <random>
#include <string>
#include <vector>

#include "agentkit/base/utf8.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/session/log.hpp"
#include "line_scan.hpp"
#include "session/session_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

bool scan_accepts(std::string_view line) {
  std::vector<session::detail::ScannedMember> members;
  return utf8::is_valid(line) && session::detail::scan_object_line(line, members);
}

// The reference: one JSON object by json::parse (duplicate keys are the loader's own check).
bool parse_accepts(std::string_view line) {
  json::ParseOptions options;
  options.reject_duplicate_keys = false;
  auto v = json::parse(line, options);
  return v && v->is_object();
}

std::string nested(std::size_t depth) {
  std::string s = "{\"a\":";
  for (std::size_t i = 1; i < depth; ++i) s += "[";
  s += "0";
  for (std::size_t i = 1; i < depth; ++i) s += "]";
  return s + "}";
}

// Lines of a log holding every entry type and a message with every kind of block.
std::vector<std::string> real_lines() {
  session::MemoryStore memory;
  auto log = session::Log::create(std::make_unique<session::MemoryStore>(memory), {}).value();
  AssistantMessage a;
  a.content.push_back(TextBlock{"caf\u00e9 \u2028 \"quoted\" \\ tab\t"});
  a.content.push_back(ThinkingBlock{"hmm", "sig", false, ""});
  a.content.push_back(ToolUseBlock{"c1", "read", json::Raw(R"({"path":"a.txt","n":-1.5e3})"), ""});
  a.usage.input_tokens = 12;
  a.model = "m";
  (void)log.append_message(user_text("hello \U0001F600"));
  (void)log.append_message(a);
  (void)log.append_model_change({"p", "api", "m"});
  (void)log.append_thinking_level(ThinkingLevel::high);
  (void)log.append_thinking_level(std::nullopt);
  (void)log.append_custom_message("note", "x");
  return testing::lines_of(memory.bytes());
}

}  // namespace

TEST_CASE("the line scan agrees with json::parse on edge cases of the grammar") {
  const std::vector<std::string> cases = {
      "{}",
      " { } ",
      "{\"a\":1}",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{\"a\":1}x",
      "[1]",
      "1",
      "\"s\"",
      "",
      "{\"a\":01}",
      "{\"a\":-0}",
      "{\"a\":1.}",
      "{\"a\":1e}",
      "{\"a\":1E+9}",
      "{\"a\":-}",
      "{\"a\":.5}",
      "{\"a\":tru}",
      "{\"a\":true}",
      "{\"a\":nul}",
      "{\"a\":[1,2,]}",
      "{\"a\":[,]}",
      "{\"a\":{\"b\":[]}}",
      "{\"a\":\"\\u00e9\"}",
      "{\"a\":\"\\ud83d\\ude00\"}",
      "{\"a\":\"\\ud83d\"}",
      "{\"a\":\"\\ude00\"}",
      "{\"a\":\"\\ud83d\\u0041\"}",
      "{\"a\":\"\\x\"}",
      "{\"a\":\"\\u12\"}",
      "{\"a\":\"tab\there\"}",
      "{\"a\":\"\x7f\"}",
      "{\"a\":\"\xc3\xa9\"}",
      "{\"a\":\"\xc3\"}",
      "{\"a\":\"\xed\xa0\x80\"}",
      "{\"\\u0061\":1}",
      "{\"a\":1,\"a\":2}",
      "{\"a\":\"unterminated}",
      "{\"a\":1",
      "\t{\"a\":1}\r",
      nested(512),
      nested(513),
      "{\"a\":\"0123456789abcdef\\\"0123456789\"}",
  };
  for (const std::string& c : cases) {
    INFO(c);
    CHECK(scan_accepts(c) == parse_accepts(c));
  }
}

TEST_CASE("the line scan agrees with json::parse on every one-byte change of real log lines") {
  std::mt19937 rng(20261202);
  const std::string alphabet = "{}[]:,\"\\/ 0123456789.eE+-tfnrulsabu\x01\x7f\xc3\xa9\xed";
  std::size_t checked = 0;
  for (const std::string& line : real_lines()) {
    REQUIRE(scan_accepts(line));
    for (std::size_t i = 0; i < line.size(); ++i) {
      std::string removed = line;
      removed.erase(i, 1);
      std::string replaced = line;
      replaced[i] = alphabet[rng() % alphabet.size()];
      for (const std::string& m : {removed, replaced}) {
        INFO(m);
        REQUIRE(scan_accepts(m) == parse_accepts(m));
        ++checked;
      }
    }
  }
  CHECK(checked > 1000);
}
