#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "catch.hpp"
#include "harness.hpp"
#include "process.hpp"
#include "records.hpp"
#include "temp_folder.hpp"
#include "verdict.hpp"

using namespace agentkit::difftest;
using agentkit::difftest::testing::TempFolder;

namespace {

// A one-wire, one-scenario set with records on both sides; `ours_body` varies per test.
struct MiniRun {
  TempFolder folder;
  explicit MiniRun(const std::string& ours_body, const std::string& ledger = R"({"entries":[]})") {
    folder.write("scenarios/wires.json", R"({"wires":{"w1":{"model":"v/m","sdk":"sdk"}}})");
    folder.write("scenarios/request/s.json", R"({"about":"a tiny scenario","request":{"messages":[]}})");
    folder.write("reference/request/s/w1.json", record("reference", R"({\"t\":1.0,\"a\":null})"));
    folder.write("ours/request/s/w1.json", record("ours", ours_body));
    folder.write("ledger", ledger);
  }
  static std::string record(const std::string& side, const std::string& body) {
    return R"({"scenario":"request/s","wire":"w1","side":")" + side +
           R"(","request":{"method":"POST","target":"/v1/x","headers":[["Content-Type","application/json"]],"body":")" +
           body + R"("}})";
  }
  HarnessRun judge() const {
    const auto& p = folder.path();
    return judge_records(p / "scenarios", p / "reference", p / "ours", p / "ledger", p / "order-notes.tsv");
  }
};

HarnessOptions options_without_node(const TempFolder& work) {
  HarnessOptions o;
  o.source_dir = DIFFTEST_SOURCE_DIR;
  o.work_dir = work.path() / "run";
  o.node = "/nonexistent/node";
  o.our_request_driver = "/nonexistent/driver";
  o.our_response_driver = "/nonexistent/driver";
  return o;
}

}  // namespace

TEST_CASE("records that agree exit 0") {
  MiniRun run(R"({\"t\":1.0,\"a\":null})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitClean);
  CHECK(r.report.find("PASS  w1 / request/s") != std::string::npos);
}

TEST_CASE("a body number 1 against the SDK's 1.0 exits 2") {
  MiniRun run(R"({\"t\":1,\"a\":null})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitUnledgered);
  CHECK(r.report.find("UNLEDGERED value $.body.t") != std::string::npos);
}

TEST_CASE("a body that drops a null member exits 2") {
  MiniRun run(R"({\"t\":1.0})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitUnledgered);
  CHECK(r.report.find("only-reference $.body.a") != std::string::npos);
}

TEST_CASE("a body with its members reordered exits 0 and writes an order note") {
  MiniRun run(R"({\"a\":null,\"t\":1.0})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitClean);
  CHECK(r.report.find("member-order notes 1") != std::string::npos);
  std::ifstream notes(run.folder.path() / "order-notes.tsv");
  std::string all((std::istreambuf_iterator<char>(notes)), std::istreambuf_iterator<char>());
  CHECK(all.find("request/s\tw1\t$.body\tt,a\ta,t") != std::string::npos);
}

TEST_CASE("a ledger entry that no longer matches anything exits 3") {
  MiniRun run(R"({\"t\":1.0,\"a\":null})", R"({"entries":[{"wire":"w1","scenario":"request/s","path":"$.body.t",
    "kind":"value","reason":"we used to write 1"}]})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitStale);
  CHECK(r.report.find("STALE") != std::string::npos);
}

TEST_CASE("header names are compared case-insensitively") {
  MiniRun run(R"({\"t\":1.0,\"a\":null})");
  run.folder.write("ours/request/s/w1.json",
                   R"({"scenario":"request/s","wire":"w1","side":"ours","request":{"method":"POST","target":"/v1/x",)"
                   R"("headers":[["content-type","application/json"]],"body":"{\"t\":1.0,\"a\":null}"}})");
  CHECK(run.judge().exit_code == kExitClean);
}

TEST_CASE("a pair with no record on our side is the divergence missing") {
  MiniRun run(R"({})");
  std::filesystem::remove(run.folder.path() / "ours/request/s/w1.json");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitUnledgered);
  CHECK(r.report.find("UNLEDGERED missing $") != std::string::npos);
}

TEST_CASE("a malformed ledger exits 4 before anything is compared") {
  MiniRun run(R"({})", R"({"entries":[{"wire":"w1"}]})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.report.find("PASS") == std::string::npos);
}

TEST_CASE("a scenario file with an unknown option exits 4") {
  MiniRun run(R"({})");
  run.folder.write("scenarios/request/s.json", R"({"about":"x","request":{"messages":[]},"strem":true})");
  HarnessRun r = run.judge();
  CHECK(r.exit_code == kExitBadInput);
  CHECK(r.report.find("unknown member \"strem\"") != std::string::npos);
}

TEST_CASE("missing node makes the run DARK with exit 1 and no tally") {
  TempFolder work;
  HarnessRun r = run_harness(options_without_node(work));
  CHECK(r.dark);
  CHECK(r.exit_code == kExitDark);
  CHECK(r.report.find("DARK") == 0);
  CHECK(r.report.find("node") != std::string::npos);
  CHECK(r.report.find("PASS") == std::string::npos);
  CHECK(r.report.find("FAIL") == std::string::npos);
}

TEST_CASE("under ctest a DARK run is skipped unless interop is required") {
  TempFolder work;
  HarnessOptions o = options_without_node(work);
  o.dark_is_skip_unless_required = true;
  ::unsetenv("AGENTKIT_REQUIRE_INTEROP");
  CHECK(run_harness(o).exit_code == kExitDarkSkipped);
  ::setenv("AGENTKIT_REQUIRE_INTEROP", "1", 1);
  CHECK(run_harness(o).exit_code == kExitDark);
  ::unsetenv("AGENTKIT_REQUIRE_INTEROP");
}

TEST_CASE("node without the pinned packages makes the run DARK") {
  // Node resolves the SDKs from the scripts' own folder upwards; a copy of the scripts in an
  // empty temporary folder finds none, exactly like a checkout where `npm ci` never ran.
  REQUIRE(find_executable("node"));  // a peer the CI installs: missing is a failure, not a skip
  TempFolder work;
  TempFolder scripts;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(DIFFTEST_SOURCE_DIR) / "node")) {
    std::filesystem::copy(entry.path(), scripts.path() / entry.path().filename());
  }
  HarnessOptions o = options_without_node(work);
  o.node = "node";
  o.node_scripts = scripts.path();
  HarnessRun r = run_harness(o);
  CHECK(r.dark);
  CHECK(r.exit_code == kExitDark);
  CHECK(r.report.find("pinned vendor SDKs") != std::string::npos);
  CHECK(r.report.find("PASS") == std::string::npos);
}

TEST_CASE("an installed SDK whose version differs from the lockfile makes the run DARK") {
  REQUIRE(find_executable("node"));
  TempFolder work;
  TempFolder source;
  const std::filesystem::path real = DIFFTEST_SOURCE_DIR;
  std::filesystem::copy(real / "scenarios", source.path() / "scenarios", std::filesystem::copy_options::recursive);
  std::filesystem::copy(real / "ledger", source.path() / "ledger");
  std::ifstream lock_in(real / "package-lock.json");
  std::string lock((std::istreambuf_iterator<char>(lock_in)), std::istreambuf_iterator<char>());
  const std::string pinned = "\"version\": \"0.6.4\"";  // ollama's entry
  const std::size_t at = lock.find(pinned, lock.find("\"node_modules/ollama\""));
  REQUIRE(at != std::string::npos);
  lock.replace(at, pinned.size(), "\"version\": \"0.0.1\"");
  source.write("package-lock.json", lock);
  HarnessOptions o = options_without_node(work);
  o.source_dir = source.path();
  o.node = "node";
  o.node_scripts = real / "node";  // the real scripts find the real node_modules
  HarnessRun r = run_harness(o);
  CHECK(r.dark);
  CHECK(r.exit_code == kExitDark);
  CHECK(r.report.find("ollama 0.6.4 is installed but 0.0.1 is pinned") != std::string::npos);
}

TEST_CASE("header values are compared except the recorder's host and the body's length") {
  CapturedRequest ref{"POST", "/v1/x", {{"Host", "127.0.0.1:1111"}, {"Content-Length", "10"}, {"Content-Type", "application/json"}}, "{}"};
  CapturedRequest ours{"POST", "/v1/x", {{"host", "127.0.0.1:2222"}, {"content-length", "12"}, {"content-type", "text/plain"}}, "{}"};
  Comparison c = compare_documents(request_document(ref), request_document(ours));
  REQUIRE(c.divergences.size() == 1);
  CHECK(c.divergences[0].path == "$.headers.content-type");
  CHECK(c.divergences[0].kind == DivergenceKind::value);
  ours.headers.erase(ours.headers.begin());  // no Host at all is still a difference
  CHECK(compare_documents(request_document(ref), request_document(ours)).divergences.size() == 2);
}

TEST_CASE("a body that is not JSON is compared as text") {
  CapturedRequest ref{"POST", "/x", {}, "a=1"};
  CapturedRequest ours{"POST", "/x", {}, "a=2"};
  Comparison c = compare_documents(request_document(ref), request_document(ours));
  REQUIRE(c.divergences.size() == 1);
  CHECK(c.divergences[0].path == "$.body");
}
