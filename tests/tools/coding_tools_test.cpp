// The built-in tools as ToolDefinitions: the default set, schemas, result shapes (text for the
// model, metadata and data beside it), errors, the path rule and the shell tools' stop handling.
#include "agentkit/tools/coding_tools.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/base64.hpp"
#include "agentkit/images/encode.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using agentkit::ExecutionMode;
using agentkit::ToolContext;
using agentkit::ToolDefinition;
using agentkit::ToolResult;
using agentkit::testing::TempDir;
namespace tools = agentkit::tools;
namespace json = agentkit::json;

namespace {

const fs::path kGolden = fs::path(AGENTKIT_SOURCE_DIR) / "tests/tools/golden/coding_tools.json";

ToolResult call(const ToolDefinition& tool, const std::string& args, agentkit::stop_token stop = {}) {
  ToolContext ctx;
  ctx.tool_name = tool.name;
  ctx.stop = std::move(stop);
  return tool.handler(json::parse(args).value(), ctx);
}

// The words of a result: its text on success, the prose the model reads on failure.
std::string text(const ToolResult& r) {
  if (r.ok) return r.text.value_or("");
  auto content = r.to_content();
  const auto* prose =
      content.empty() ? nullptr : std::get_if<agentkit::TextBlock>(&content.front());
  return prose ? prose->text : "";
}

const json::Value* meta(const ToolResult& r, std::string_view key) { return r.metadata.find(key); }

const ToolDefinition& named(const std::vector<ToolDefinition>& set, std::string_view name) {
  for (const auto& t : set) {
    if (t.name == name) return t;
  }
  FAIL("no tool named " << name);
  return set.front();
}

struct Fixture {
  TempDir dir;
  tools::Workspace ws = tools::Workspace::open(dir.path()).value();
  tools::CodingToolsOptions options = [this] {
    tools::CodingToolsOptions o;
    o.search.ignore.use_global_excludes = false;
    o.process.spill_dir = dir.path();
    return o;
  }();
  std::vector<ToolDefinition> set = tools::coding_tools(ws, options);
  const ToolDefinition& tool(std::string_view name) const { return named(set, name); }
};

json::Value manifest(const std::vector<ToolDefinition>& set) {
  json::Array tools_json;
  for (const auto& t : set) {
    tools_json.emplace_back(json::Object{
        {"name", t.name},
        {"description", t.description},
        {"input_schema", t.input_schema.json()},
        {"execution_mode", t.execution_mode == ExecutionMode::sequential ? "sequential" : "parallel"},
        {"prompt_guidelines", t.prompt_guidelines},
        {"origin", t.origin},
    });
  }
  return tools_json;
}

}  // namespace

TEST_CASE("coding_tools is the default set, in order, without fetch_url") {
  Fixture f;
  std::vector<std::string> names;
  for (const auto& t : f.set) names.push_back(t.name);
  CHECK(names == std::vector<std::string>{"read_file", "write_file", "edit_file", "list_files", "find_files",
                                          "search_files", "execute", "run_command", "powershell"});
  for (const auto& t : f.set) {
    INFO(t.name);
    CHECK(t.origin == "builtin");
    CHECK_FALSE(t.description.empty());
    CHECK_FALSE(t.prompt_guidelines.empty());
    CHECK(static_cast<bool>(t.handler));
    CHECK(t.timeout == agentkit::ToolTimeout::inherit());
    bool runs_programs = t.name == "execute" || t.name == "run_command" || t.name == "powershell";
    CHECK((t.execution_mode == ExecutionMode::sequential) == runs_programs);
  }
}

TEST_CASE("the default tool list matches its golden (names, descriptions and schemas)") {
  Fixture f;
  const std::string actual = json::dump(manifest(f.set)) + "\n";
  if (std::getenv("AGENTKIT_UPDATE_GOLDENS") != nullptr) {
    fs::create_directories(kGolden.parent_path());
    std::ofstream(kGolden, std::ios::binary) << actual;
  }
  CHECK(actual == agentkit::testing::read_file(kGolden));
}

TEST_CASE("edit_file's description says every old_string is matched against the original") {
  Fixture f;
  CHECK(f.tool("edit_file").description.find("matched against the ORIGINAL file") != std::string::npos);
  CHECK(f.tool("edit_file").description.find("no replace-all") != std::string::npos);
}

TEST_CASE("each tool can be taken alone") {
  Fixture f;
  CHECK(tools::read_file_tool(f.ws).name == "read_file");
  CHECK(tools::search_files_tool(f.ws).name == "search_files");
  CHECK(tools::powershell_tool(f.ws).name == "powershell");
  f.dir.write("a.txt", "hello\n");
  CHECK(text(call(tools::read_file_tool(f.ws), R"({"path":"a.txt"})")) == "     1\thello\n");
}

TEST_CASE("read_file returns numbered text for the model and truncation facts as metadata") {
  Fixture f;
  std::string big;
  for (int i = 1; i <= 3000; ++i) big += "line " + std::to_string(i) + "\n";
  f.dir.write("big.txt", big);
  ToolResult r = call(f.tool("read_file"), R"({"path":"big.txt"})");
  REQUIRE(r.ok);
  CHECK(text(r).starts_with("     1\tline 1\n"));
  CHECK(text(r).ends_with("[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]"));
  CHECK(meta(r, "truncated_by")->as_string() == "lines");
  CHECK(meta(r, "truncated")->as_bool());
  CHECK(meta(r, "last_line")->number_text() == "2000");
  CHECK(r.data.find("encoding")->as_string() == "utf-8");
  // the metadata never reaches the model
  for (const auto& block : r.to_content()) {
    const auto* t = std::get_if<agentkit::TextBlock>(&block);
    REQUIRE(t != nullptr);
    CHECK(t->text.find("truncated_by") == std::string::npos);
  }
  ToolResult next = call(f.tool("read_file"), R"({"path":"big.txt","offset":2999,"limit":5})");
  CHECK(text(next) == "  2999\tline 2999\n  3000\tline 3000\n");
}

TEST_CASE("read_file arguments arriving as strings or nulls are coerced before the handler reads them") {
  Fixture f;
  f.dir.write("a.txt", "1\n2\n3\n");
  ToolResult r = call(f.tool("read_file"), R"({"path":"a.txt","offset":"2","limit":null})");
  REQUIRE(r.ok);
  CHECK(text(r) == "     2\t2\n     3\t3\n");
  ToolResult bad = call(f.tool("read_file"), R"({"path":"a.txt","limit":0})");
  CHECK_FALSE(bad.ok);
  CHECK(bad.error == "invalid_arguments");
}

TEST_CASE("read_file gives an image file as a note plus an image block") {
  Fixture f;
  agentkit::images::Raster pixels;
  pixels.width = pixels.height = 2;
  pixels.rgba.assign(16, 90);
  const auto encoded = agentkit::images::encode_png(pixels);  // read_file reads real headers
  const std::string png(encoded.begin(), encoded.end());
  f.dir.write("pic.bin", png);
  ToolResult r = call(f.tool("read_file"), R"({"path":"pic.bin"})");
  REQUIRE(r.ok);
  REQUIRE(r.images.size() == 1);
  CHECK(r.images[0].mime_type == "image/png");
  CHECK(agentkit::base64::decode(r.images[0].data_base64).value() == png);
  CHECK(text(r).find("image/png") != std::string::npos);
  auto content = r.to_content();
  REQUIRE(content.size() == 2);
  CHECK(std::holds_alternative<agentkit::ImageBlock>(content[1]));
}

TEST_CASE("a binary file is refused with the binary_file code") {
  Fixture f;
  f.dir.write("x.bin", std::string("ab\0cd", 5));
  ToolResult r = call(f.tool("read_file"), R"({"path":"x.bin"})");
  CHECK_FALSE(r.ok);
  CHECK(r.error == "binary_file");
}

TEST_CASE("traversal, absolute paths outside and symlink escapes are refused with path_not_allowed") {
  Fixture f;
  TempDir outside;
  outside.write("secret.txt", "s3cret\n");
  fs::create_symlink(outside.path(), f.dir.path() / "escape");
  const std::string abs = (outside.path() / "secret.txt").string();
  for (const std::string& path : {std::string("../secret.txt"), abs, std::string("escape/secret.txt")}) {
    INFO(path);
    for (const char* tool : {"read_file", "write_file", "edit_file"}) {
      INFO(tool);
      std::string args = json::dump(json::Value(json::Object{
          {"path", path}, {"content", "x"}, {"edits", json::Array{json::Object{{"old_string", "s"}, {"new_string", "t"}}}}}));
      // each tool's schema is closed: keep only its own members
      json::Value v = json::parse(args).value();
      if (std::string_view(tool) == "read_file") { v.as_object().erase("content"); v.as_object().erase("edits"); }
      if (std::string_view(tool) == "write_file") v.as_object().erase("edits");
      if (std::string_view(tool) == "edit_file") v.as_object().erase("content");
      ToolResult r = call(f.tool(tool), json::dump(v));
      CHECK_FALSE(r.ok);
      CHECK(r.error == "path_not_allowed");
      CHECK(text(r).find("outside the workspace") != std::string::npos);
    }
  }
  CHECK(agentkit::testing::read_file(outside.path() / "secret.txt") == "s3cret\n");
  ToolResult listed = call(f.tool("list_files"), R"({"path":"../"})");
  CHECK(listed.error == "path_not_allowed");
  ToolResult searched = call(f.tool("search_files"), R"({"pattern":"s3cret","path":"escape"})");
  CHECK(searched.error == "path_not_allowed");
}

TEST_CASE("write_file reports bytes and creation, and edit_file's rejections carry their codes") {
  Fixture f;
  ToolResult w = call(f.tool("write_file"), R"({"path":"notes/todo.md","content":"x x\n"})");
  REQUIRE(w.ok);
  CHECK(text(w) == "Wrote 4 bytes to notes/todo.md (new file).");
  CHECK(meta(w, "created")->as_bool());
  CHECK(w.data.find("written")->as_bool());
  ToolResult dup = call(f.tool("edit_file"), R"({"path":"notes/todo.md","edits":[{"old_string":"x","new_string":"y"}]})");
  CHECK_FALSE(dup.ok);
  CHECK(dup.error == "edit_not_unique");
  CHECK(text(dup).find("Found 2 occurrences") != std::string::npos);
  ToolResult missing = call(f.tool("edit_file"), R"({"path":"notes/todo.md","edits":[{"old_string":"zz","new_string":"y"}]})");
  CHECK(missing.error == "edit_not_found");
  ToolResult empty = call(f.tool("edit_file"), R"({"path":"notes/todo.md","edits":[]})");
  CHECK(empty.error == "invalid_arguments");
  ToolResult ok = call(f.tool("edit_file"), R"({"path":"notes/todo.md","edits":[{"old_string":"x x","new_string":"y"}]})");
  REQUIRE(ok.ok);
  CHECK(text(ok) == "Applied 1 edit to notes/todo.md.");
  CHECK(meta(ok, "match")->as_string() == "exact");
  CHECK(agentkit::testing::read_file(f.dir.path() / "notes/todo.md") == "y\n");
}

TEST_CASE("list_files and find_files answer one path per line with their markers") {
  Fixture f;
  fs::create_directories(f.dir.path() / ".git");  // a repository: its root .gitignore governs src/ too
  f.dir.write(".gitignore", "*.log\n");
  f.dir.write("src/a.cpp", "");
  f.dir.write("src/b.cpp", "");
  f.dir.write("src/c.log", "");
  ToolResult l = call(f.tool("list_files"), R"({"path":"src"})");
  CHECK(text(l) == "a.cpp\nb.cpp\n");
  ToolResult found = call(f.tool("find_files"), R"({"pattern":"*.cpp","limit":1})");
  CHECK(text(found) == "src/a.cpp\n[1 results limit reached. Use limit=2 for more, or refine pattern]");
  CHECK(meta(found, "truncated")->as_bool());
  CHECK(found.data.find("files")->size() == 1);
  ToolResult none = call(f.tool("find_files"), R"({"pattern":"*.rs"})");
  CHECK(none.ok);
  CHECK(text(none) == "No files found matching '*.rs'.");
  CHECK(none.data.find("files")->is_array());  // [] never null (erratum E5)
}

TEST_CASE("search_files prints ripgrep's layout with each line once and groups separated") {
  Fixture f;
  f.dir.write("a.txt", "one\ntwo match\nthree match\nfour\nfive\nsix\nseven match\n");
  f.dir.write("b.txt", "match here\n");
  ToolResult r = call(f.tool("search_files"), R"({"pattern":"match","context_lines":1})");
  REQUIRE(r.ok);
  CHECK(text(r) ==
        "a.txt-1-one\n"
        "a.txt:2:two match\n"
        "a.txt:3:three match\n"
        "a.txt-4-four\n"
        "--\n"
        "a.txt-6-six\n"
        "a.txt:7:seven match\n"
        "--\n"
        "b.txt:1:match here\n");
  CHECK(meta(r, "matches")->number_text() == "4");
  CHECK(r.data.find("matches")->size() == 4);
  ToolResult none = call(f.tool("search_files"), R"({"pattern":"absent"})");
  CHECK(text(none) == "No matches found.\n");
}

TEST_CASE("execute reports output and exit code to the model, outcome and duration as metadata") {
  Fixture f;
  ToolResult r = call(f.tool("execute"), R"({"command":"echo hi; pwd; exit 3"})");
  REQUIRE(r.ok);
  CHECK(text(r) == "hi\n" + fs::canonical(f.dir.path()).string() + "\n[exit code 3]");
  CHECK(meta(r, "exit_code")->number_text() == "3");
  CHECK(meta(r, "outcome")->as_string() == "exited");
  CHECK(meta(r, "duration_ms") != nullptr);
  CHECK(r.data.find("exit_code")->number_text() == "3");
}

TEST_CASE("execute keeps the tail and names the spill file; metadata records it") {
  Fixture f;
  ToolResult r = call(f.tool("execute"), R"({"command":"head -c 200000 /dev/zero | tr '\\0' a; echo; echo ERROR: boom"})");
  REQUIRE(r.ok);
  CHECK(text(r).find("ERROR: boom") != std::string::npos);
  CHECK(text(r).find("Full output: ") != std::string::npos);
  REQUIRE(meta(r, "spill_file") != nullptr);
  CHECK(fs::file_size(meta(r, "spill_file")->as_string()) == 200000 + 1 + 12);
  CHECK(meta(r, "truncated_by")->as_string() == "bytes");
}

TEST_CASE("execute's timeout_s must be positive and kills the command when it passes") {
  Fixture f;
  CHECK(call(f.tool("execute"), R"({"command":"true","timeout_s":0})").error == "invalid_arguments");
  auto t0 = std::chrono::steady_clock::now();
  ToolResult r = call(f.tool("execute"), R"({"command":"echo started; sleep 30","timeout_s":1})");
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);
  CHECK_FALSE(r.ok);
  CHECK(r.error == "timeout");
  CHECK(text(r).find("started") != std::string::npos);
  CHECK(text(r).find("[timed out after 1 s") != std::string::npos);
}

TEST_CASE("an abort through the tool context kills the whole process group") {
  Fixture f;
  const fs::path marker = f.dir.path() / "M";
  agentkit::stop_source stop;
  agentkit::jthread aborter([&] {
    std::this_thread::sleep_for(500ms);
    stop.request_stop();
  });
  ToolResult r = call(f.tool("execute"), R"({"command":"(sleep 2; touch M) & sleep 100"})", stop.get_token());
  CHECK_FALSE(r.ok);
  CHECK(r.error == "aborted");
  CHECK(meta(r, "outcome")->as_string() == "aborted");
  std::this_thread::sleep_for(3s);
  CHECK_FALSE(fs::exists(marker));  // the grandchild died with its group (REQ-TOOL-17.7)
}

TEST_CASE("run_command passes argv without a shell and execute children get a reduced environment") {
  Fixture f;
  ToolResult r = call(f.tool("run_command"), R"({"argv":["echo","$HOME","a;b"]})");
  CHECK(text(r) == "$HOME a;b\n[exit code 0]");
  ::setenv("AGENTKIT_TEST_SECRET_API_KEY", "sk-leak", 1);
  ToolResult env = call(f.tool("execute"), R"({"command":"env"})");
  ::unsetenv("AGENTKIT_TEST_SECRET_API_KEY");
  CHECK(text(env).find("sk-leak") == std::string::npos);
  CHECK(text(env).find("PATH=") != std::string::npos);
  ToolResult missing = call(f.tool("run_command"), R"({"argv":["agentkit-no-such-program"]})");
  CHECK(missing.error == "exec_failed");
}

TEST_CASE("powershell is registered everywhere and fails at run time without pwsh") {
  Fixture f;
  if (agentkit::testing::find_program("pwsh")) return;  // a machine with PowerShell runs it
  ToolResult r = call(f.tool("powershell"), R"({"command":"Get-ChildItem"})");
  CHECK_FALSE(r.ok);
  CHECK(r.error == "exec_failed");
  CHECK(text(r).find("PowerShell is not available") != std::string::npos);
}
