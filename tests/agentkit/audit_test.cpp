// The audit trail (agentkit/audit.hpp) through the public entry points: what a run records, the
// hash chain and its verifier, torn files, and a failing sink.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "agentkit/audit.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/base/thread.hpp"
#include "agentkit/json/value.hpp"

#include "harness.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

// Keeps every line in memory; can be told to fail or throw.
class MemorySink final : public audit::Sink {
 public:
  enum class Mode { ok, fail, fail_throw };
  Mode mode = Mode::ok;
  std::vector<std::string> lines;

  Result<void> append(std::string_view line) override {
    if (mode == Mode::fail) return make_error(Errc::io_error, "disk full (test)");
    if (mode == Mode::fail_throw) throw std::runtime_error("sink exploded (test)");
    lines.emplace_back(line);
    return {};
  }
  std::string bytes() const {
    std::string all;
    for (const auto& l : lines) all += l;
    return all;
  }
  std::vector<json::Value> records() const {
    std::vector<json::Value> out;
    for (const auto& l : lines) out.push_back(json::parse(l).value());
    return out;
  }
  std::vector<std::string> types() const {
    std::vector<std::string> out;
    for (const auto& r : records()) out.push_back(r.find("type")->as_string());
    return out;
  }
};

struct Audited {
  std::shared_ptr<MemorySink> sink = std::make_shared<MemorySink>();
  RuntimeConfig runtime;
  Audited() { runtime.observability.audit = audit::make_trail(sink); }
};

std::filesystem::path temp_file(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("agentkit_audit_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove(p);
  return p;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::filesystem::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<std::string> split_lines(const std::string& bytes) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string::npos) nl = bytes.size();
    out.push_back(bytes.substr(pos, nl - pos + 1));
    pos = nl + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l;
  return all;
}

// A valid three-record chain written through a trail.
std::string three_records() {
  auto sink = std::make_shared<MemorySink>();
  auto trail = audit::make_trail(sink);
  REQUIRE(trail->append("a", "\"n\":1", 1));
  REQUIRE(trail->append("b", "\"n\":2", 2));
  REQUIRE(trail->append("c", "\"n\":3", 3));
  return sink->bytes();
}

const json::Value* first_of(const std::vector<json::Value>& records, std::string_view type) {
  for (const auto& r : records)
    if (r.find("type")->as_string() == type) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("a clean run records its start, model calls, tool call and end in one valid chain") {
  Audited a;
  auto tool = counting_tool("lookup");
  const std::string args = R"({"secret":"hunter2"})";
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", args)}),
                        faux::text_response("done")},
                       {tool.definition}, a.runtime);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  CHECK(a.sink->types() == std::vector<std::string>{"session_start", "model_call", "tool_call",
                                                    "model_call", "session_end"});
  auto records = a.sink->records();
  const json::Value* call = first_of(records, "tool_call");
  CHECK(call->find("tool")->as_string() == "lookup");
  CHECK(call->find("arguments_sha256")->as_string() == sha256_hex(args));
  CHECK(call->find("outcome")->as_string() == "ok");
  CHECK(call->find("approval")->as_string() == "no_policy");
  CHECK(call->find("duration_ms") != nullptr);
  CHECK(first_of(records, "session_end")->find("reason")->as_string() == "stop");
  // The arguments themselves never reach the trail.
  CHECK(a.sink->bytes().find("hunter2") == std::string::npos);
  audit::Report report = audit::verify(a.sink->bytes());
  CHECK(report.ok());
  CHECK(report.records == 5);
}

TEST_CASE("model calls carry their usage and cost") {
  Audited a;
  auto resp = faux::text_response("hi");
  resp.message.usage.input_tokens = 12;
  resp.message.usage.output_tokens = 3;
  resp.message.usage.cost.total = 0.25;
  auto fx = faux_agent({resp}, {}, a.runtime);
  REQUIRE(fx.agent.run("go"));
  auto records = a.sink->records();
  const json::Value* call = first_of(records, "model_call");
  REQUIRE(call != nullptr);
  const json::Value* usage = call->find("usage");
  REQUIRE(usage != nullptr);
  CHECK(json::dump(*usage).find("\"input_tokens\":12") != std::string::npos);
  CHECK(json::dump(*usage).find("0.25") != std::string::npos);
}

TEST_CASE("a run that ends in a provider error still records its end with the error") {
  Audited a;
  auto fx = faux_agent({faux::error_response("HTTP 401: invalid api key")}, {}, a.runtime);
  auto r = fx.agent.run("go");
  REQUIRE(r);
  auto records = a.sink->records();
  REQUIRE(a.sink->types().back() == "session_end");
  CHECK(records.back().find("reason")->as_string() == "error");
  CHECK(records.back().find("error")->as_string().find("401") != std::string::npos);
}

TEST_CASE("an aborted run still records its end") {
  Audited a;
  auto hang = faux::text_response("partial");
  hang.hang_until_cancelled = true;
  auto fx = faux_agent({hang}, {}, a.runtime);
  auto s = fx.agent.start();
  REQUIRE(s);
  EventStream events = s->events();
  agentkit::stop_source stop;
  agentkit::jthread canceller([&] {
    if (wait_for_event(events, "block_end")) stop.request_stop();
  });
  auto r = s->run("go", stop.get_token());
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::aborted);
  auto records = a.sink->records();
  REQUIRE(a.sink->types().back() == "session_end");
  CHECK(records.back().find("reason")->as_string() == "aborted");
  CHECK(audit::verify(a.sink->bytes()).ok());
}

TEST_CASE("a run whose callbacks throw still records its end and the failed tool call") {
  Audited a;
  a.runtime.extensions.hooks.on_turn_end = [](const TurnEndEvent&) {
    throw std::runtime_error("hook bug");
  };
  a.runtime.extensions.after_tool_call = [](ToolCallOutcome&) -> std::optional<bool> {
    throw std::runtime_error("after bug");
  };
  a.runtime.observability.observers.push_back([](const Event&) { throw 7; });
  auto boom = tool_with("boom", [](const json::Value&, const ToolContext&) -> ToolResult {
    throw std::runtime_error("handler bug");
  });
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "boom", "{}")}),
                        faux::text_response("done")},
                       {boom}, a.runtime);
  REQUIRE(fx.agent.run("go"));
  auto records = a.sink->records();
  CHECK(a.sink->types().front() == "session_start");
  CHECK(a.sink->types().back() == "session_end");
  const json::Value* call = first_of(records, "tool_call");
  REQUIRE(call != nullptr);
  CHECK(call->find("outcome")->as_string() == "error");
  CHECK(call->find("error_code")->as_string() == "tool_error");
}

TEST_CASE("the approval decision of before_tool_call is recorded per call") {
  Audited a;
  a.runtime.extensions.before_tool_call = [](const ToolCallRequest& req) {
    if (req.tool_name == "rm") return ToolCallDecision::deny("no deleting");
    if (req.tool_name == "edit")
      return ToolCallDecision::rewrite(json::parse(R"({"x":1})").value());
    return ToolCallDecision::allow();
  };
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "read", "{}"),
                                                  faux::tool_call("c2", "rm", "{}"),
                                                  faux::tool_call("c3", "edit", "{}")}),
                        faux::text_response("done")},
                       {counting_tool("read").definition, counting_tool("rm").definition,
                        counting_tool("edit").definition},
                       a.runtime);
  REQUIRE(fx.agent.run("go"));
  std::map<std::string, std::string> approval;
  for (const auto& r : a.sink->records()) {
    if (r.find("type")->as_string() == "tool_call")
      approval[r.find("tool")->as_string()] = r.find("approval")->as_string();
  }
  CHECK(approval["read"] == "allowed");
  CHECK(approval["rm"] == "denied");
  CHECK(approval["edit"] == "rewritten");
}

TEST_CASE("an MCP tool call names its server") {
  Audited a;
  auto provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{
      faux::tool_call_response({faux::tool_call("c1", "files__search", "{}")}),
      faux::text_response("done")});
  a.runtime.model.spec = "faux/test";
  a.runtime.providers.add("faux", provider);
  AgentDefinition def;
  def.tools.mcp.push_back(
      McpToolSource{"files", [](agentkit::stop_token) -> Result<std::vector<ToolDefinition>> {
                      return std::vector<ToolDefinition>{counting_tool("search").definition};
                    }});
  auto agent = make_agent(def, a.runtime);
  REQUIRE(agent);
  REQUIRE(agent->run("go"));
  auto records = a.sink->records();
  const json::Value* call = first_of(records, "tool_call");
  REQUIRE(call != nullptr);
  CHECK(call->find("tool")->as_string() == "files__search");
  REQUIRE(call->find("server") != nullptr);
  CHECK(call->find("server")->as_string() == "files");
}

TEST_CASE("the skills listed at start and a skill the model read are recorded") {
  Audited a;
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call(
                            "c1", "read_skill", R"({"skills":[{"name":"style"}]})")}),
                        faux::text_response("done")},
                       {}, a.runtime, {Skill{"style", "house style", "be terse", {}}});
  REQUIRE(fx.agent.run("go"));
  auto records = a.sink->records();
  CHECK(json::dump(*first_of(records, "session_start")->find("skills")) == R"(["style"])");
  const json::Value* loaded = first_of(records, "skill_loaded");
  REQUIRE(loaded != nullptr);
  CHECK(loaded->find("skill")->as_string() == "style");
}

TEST_CASE("a failing or throwing audit sink never ends the run and its failure is an event") {
  for (auto mode : {MemorySink::Mode::fail, MemorySink::Mode::fail_throw}) {
    Audited a;
    a.sink->mode = mode;
    EventLog log;
    a.runtime.observability.observers.push_back(log.observer());
    auto tool = counting_tool("lookup");
    auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")}),
                          faux::text_response("done")},
                         {tool.definition}, a.runtime);
    auto r = fx.agent.run("go");
    REQUIRE(r);
    CHECK(r->final_text == "done");
    CHECK(tool.calls->load() == 1);
    int reported = 0;
    for (const auto& e : log.events()) {
      if (const auto* err = std::get_if<ErrorEvent>(&e)) {
        CHECK_FALSE(err->terminal);
        if (err->error.message.find("audit trail") != std::string::npos) ++reported;
      }
    }
    CHECK(reported == 5);  // start, two model calls, the tool call, end
  }
}

TEST_CASE("verify reports an edited record with its position") {
  auto lines = split_lines(three_records());
  REQUIRE(lines.size() == 3);
  auto at = lines[1].find("\"n\":2");
  lines[1].replace(at, 5, "\"n\":9");
  audit::Report r = audit::verify(join(lines));
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == audit::Problem::Kind::changed);
  CHECK(r.problems[0].line == 2);
  CHECK(r.problems[0].seq == 2);
}

TEST_CASE("verify reports a re-hashed edit as a broken link at the next record") {
  // An editor who recomputes the edited record's own hash still breaks the next record's link.
  auto lines = split_lines(three_records());
  std::string body = lines[1].substr(0, lines[1].find(",\"hash\":\""));
  body.replace(body.find("\"n\":2"), 5, "\"n\":9");
  lines[1] = body + ",\"hash\":\"" + sha256_hex(body) + "\"}\n";
  audit::Report r = audit::verify(join(lines));
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == audit::Problem::Kind::broken_link);
  CHECK(r.problems[0].line == 3);
}

TEST_CASE("verify reports a removed record and a reordered one with their positions") {
  auto lines = split_lines(three_records());
  auto removed = audit::verify(lines[0] + lines[2]);
  REQUIRE_FALSE(removed.ok());
  CHECK(removed.problems[0].kind == audit::Problem::Kind::removed);
  CHECK(removed.problems[0].line == 2);
  CHECK(removed.problems[0].seq == 3);

  auto reordered = audit::verify(lines[0] + lines[2] + lines[1]);
  bool saw_reorder = false;
  for (const auto& p : reordered.problems) {
    if (p.kind == audit::Problem::Kind::reordered) {
      saw_reorder = true;
      CHECK(p.line == 3);
      CHECK(p.seq == 2);
    }
  }
  CHECK(saw_reorder);

  auto head_cut = audit::verify(lines[1] + lines[2]);
  REQUIRE_FALSE(head_cut.ok());
  CHECK(head_cut.problems[0].kind == audit::Problem::Kind::removed);
  CHECK(head_cut.problems[0].line == 1);
}

TEST_CASE("a file truncated mid-record is reported torn and a new writer continues its chain") {
  auto path = temp_file("torn.jsonl");
  std::string whole = three_records();
  write_file(path, whole.substr(0, whole.size() - 20));  // the third record is half written
  auto torn = audit::verify_file(path);
  REQUIRE(torn);
  REQUIRE_FALSE(torn->ok());
  CHECK(torn->problems.back().kind == audit::Problem::Kind::torn);
  CHECK(torn->problems.back().line == 3);
  CHECK(torn->records == 2);

  auto trail = audit::open_file(path);
  REQUIRE(trail);
  CHECK((*trail)->last_seq() == 3);  // 2 whole records, then the writer_resumed note
  REQUIRE((*trail)->append("after", "", 4));
  trail->reset();
  auto lines = split_lines(read_file(path));
  REQUIRE(lines.size() == 4);
  CHECK(lines[2].find("\"type\":\"writer_resumed\"") != std::string::npos);
  CHECK(lines[2].find("\"torn_bytes_cut\":") != std::string::npos);
  auto continued = audit::verify_file(path);
  REQUIRE(continued);
  CHECK(continued->ok());
  CHECK(continued->records == 4);
  std::filesystem::remove(path);
}

TEST_CASE("a second writer on the same file continues the chain across runs") {
  auto path = temp_file("two_writers.jsonl");
  for (int round = 0; round < 2; ++round) {
    auto trail = audit::open_file(path);
    REQUIRE(trail);
    RuntimeConfig rt;
    rt.observability.audit = *trail;
    auto fx = faux_agent({faux::text_response("hi")}, {}, rt);
    REQUIRE(fx.agent.run("go"));
  }
  auto report = audit::verify_file(path);
  REQUIRE(report);
  CHECK(report->ok());
  CHECK(report->records == 6);
  std::filesystem::remove(path);
}

TEST_CASE("an audit file that does not end in a record is refused, naming the file") {
  auto path = temp_file("garbage.jsonl");
  write_file(path, "not a record\n");
  auto trail = audit::open_file(path);
  REQUIRE_FALSE(trail);
  CHECK(trail.error().message.find(path.string()) != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("verify bounds: an overlong line, junk and a problem flood stay bounded") {
  audit::VerifyOptions small;
  small.max_line_bytes = 64;
  small.max_problems = 3;
  std::string junk = std::string(100, 'x') + "\n";
  for (int i = 0; i < 10; ++i) junk += "{\"seq\":1}\n";
  junk += std::string(1 << 16, '[') + "\n";
  audit::Report r = audit::verify(junk, small);
  CHECK(r.problem_count == 12);
  CHECK(r.problems.size() == 3);
  CHECK(r.problems[0].kind == audit::Problem::Kind::malformed);
  CHECK(r.problems[0].detail.find("over the bound") != std::string::npos);
  CHECK(r.records == 0);
  // Deep nesting under the default bound is refused by the parser's depth limit, not recursed.
  audit::Report deep = audit::verify(std::string(100000, '[') + "\n");
  CHECK(deep.problem_count == 1);
}
