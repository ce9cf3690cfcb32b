#include <string>
#include <vector>

#include "canned.hpp"
#include "catch.hpp"

using namespace agentkit::difftest;

TEST_CASE("inside_utf8 cuts every multi-byte character in two") {
  const std::string body = "a\xC3\xA9z\xE2\x82\xAC";  // a é z €
  std::vector<std::string_view> pieces = split_body(body, "inside_utf8");
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0] == "a\xC3");
  CHECK(pieces[1] == "\xA9z\xE2");
  CHECK(pieces[2] == "\x82\xAC");
  std::string joined;
  for (auto p : pieces) joined += p;
  CHECK(joined == body);
  // A two-byte character at the very end is cut too.
  CHECK(split_body("a\xC3\xA9", "inside_utf8") == std::vector<std::string_view>{"a\xC3", "\xA9"});
}

TEST_CASE("every:N cuts fixed-size pieces and whole keeps one") {
  CHECK(split_body("abcdefg", "every:3") == std::vector<std::string_view>{"abc", "def", "g"});
  CHECK(split_body("abc", "whole") == std::vector<std::string_view>{"abc"});
}

TEST_CASE("a streamed reply is wanted by stream true, Gemini's stream method, or Ollama by default") {
  CHECK(wants_stream("anthropic-messages", "/v1/messages", R"({"stream":true})"));
  CHECK_FALSE(wants_stream("anthropic-messages", "/v1/messages", R"({"model":"x"})"));
  CHECK(wants_stream("google-generative-ai", "/v1/models/m:streamGenerateContent?alt=sse", "{}"));
  CHECK(wants_stream("ollama-chat", "/api/chat", R"({"model":"x"})"));
  CHECK_FALSE(wants_stream("ollama-chat", "/api/chat", R"({"stream":false})"));
}
