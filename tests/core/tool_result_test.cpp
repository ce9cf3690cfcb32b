// ToolResult: the one failure shape and the one Errc-to-code table (core/tool.hpp).
#include <string>
#include <variant>

#include "agentkit/core/tool.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {
std::string only_text(const ToolResult& r) {
  auto content = r.to_content();
  REQUIRE(content.size() == 1);
  const auto* text = std::get_if<TextBlock>(&content[0]);
  REQUIRE(text != nullptr);
  return text->text;
}
}  // namespace

TEST_CASE("a failure shows the model its prose only, never the JSON envelope or the code") {
  ToolResult r = ToolResult::failure("not_found", "No file named a.txt.");
  CHECK_FALSE(r.ok);
  CHECK(r.error == "not_found");
  CHECK(only_text(r) == "No file named a.txt.");
  ToolResult quiet = ToolResult::failure("exec_failed", "");
  CHECK(only_text(quiet) == "The tool failed (exec_failed).");
  ToolResult worded = ToolResult::failure("mcp_tool_error", "");
  worded.text = "the server's own words";
  CHECK(only_text(worded) == "the server's own words");
}

TEST_CASE("a success keeps the envelope, or its text verbatim") {
  CHECK(only_text(ToolResult::success(json::Object{{"n", 1}})) == R"({"ok":true,"data":{"n":1}})");
  CHECK(only_text(ToolResult::text_result("plain")) == "plain");
}

TEST_CASE("an Error becomes a failure through the one Errc-to-code table") {
  const std::vector<std::pair<Errc, std::string>> table = {
      {Errc::invalid_argument, "invalid_arguments"},
      {Errc::validation_error, "invalid_arguments"},
      {Errc::cancelled, "aborted"},
      {Errc::timeout, "timeout"},
      {Errc::closed, "closed"},
      {Errc::limit_exceeded, "limit_exceeded"},
      {Errc::permission_denied, "permission_denied"},
      {Errc::not_found, "not_found"},
  };
  for (const auto& [errc, code] : table) {
    INFO(code);
    ToolResult r = ToolResult::failure(make_error(errc, "what went wrong"));
    CHECK_FALSE(r.ok);
    CHECK(r.error == code);
    CHECK(only_text(r) == "what went wrong");
  }
}

TEST_CASE("an error's own code detail wins and its other details go to metadata, not the model") {
  Error e = make_error(Errc::permission_denied, "a.txt is outside the workspace");
  e.with_detail("code", "path_not_allowed").with_detail("resolved", "/elsewhere/a.txt");
  ToolResult r = ToolResult::failure(e);
  CHECK(r.error == "path_not_allowed");
  CHECK(r.metadata.find("resolved")->as_string() == "/elsewhere/a.txt");
  CHECK_FALSE(r.metadata.contains("code"));
  CHECK(only_text(r) == "a.txt is outside the workspace");
}
