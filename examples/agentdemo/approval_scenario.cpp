// agentdemo scenario: an approval asked for in one process and granted in the next.
//
// Process A runs the model's batch {list_files, delete_file}; delete_file requires approval, so
// no handler of the batch runs and the run stops awaiting approval. A exits. Process B (a person
// answering the next morning) opens the same log, sees the same pending call, approves it and the
// batch runs whole. The parent only reads the files the children leave: the log and a record of
// every handler that ran.
#include "approval_scenario.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/session/log.hpp"

extern char** environ;

namespace agentdemo {
namespace {

using namespace agentkit;
namespace faux = agentkit::providers;
namespace fs = std::filesystem;

constexpr const char* kStepFlag = "--approval-step";

void child_say(const std::string& line) {
  std::cout << "  [pid " << ::getpid() << "] " << line << "\n" << std::flush;
}

void record_effect(const std::string& effects, const std::string& line) {
  std::ofstream out(effects, std::ios::app);
  out << line << "\n";
}

ToolDefinition effect_tool(const std::string& name, const std::string& effects,
                           std::string answer) {
  ToolDefinition t;
  t.name = name;
  t.description = name == "delete_file" ? "Delete a file" : "List the files";
  t.handler = [name, effects, answer](const json::Value&, const ToolContext& ctx) {
    record_effect(effects, name + " " + ctx.tool_use_id);
    return ToolResult::text_result(answer);
  };
  return t;
}

std::string describe(const PendingApproval& p) {
  return p.tool_use_id + " " + p.tool_name + " " + json::dump(p.arguments) + " (" +
         std::string(to_string(p.why)) + ": " + p.detail + ")";
}

// One child step: "ask" starts the log, "grant" resumes it and approves.
int run_step(const std::string& step, const std::string& log_path, const std::string& effects) {
  std::vector<faux::FauxResponse> script;
  if (step == "ask") {
    script.push_back(faux::tool_call_response(
        {faux::tool_call("c1", "list_files", "{}"),
         faux::tool_call("c2", "delete_file", R"({"path":"draft.txt"})")},
        StopReason::tool_use, "I will list the files and delete the draft. "));
  } else {
    script.push_back(faux::text_response("Deleted draft.txt; notes.txt is still there."));
  }
  RuntimeConfig rt;
  rt.model.spec = "faux/demo";
  rt.providers.add("faux", std::make_shared<faux::FauxProvider>(std::move(script)));
  AgentDefinition def;
  def.instructions = "You are the agentdemo assistant.";
  ToolDefinition remove = effect_tool("delete_file", effects, "deleted draft.txt");
  remove.requires_approval = true;  // a person says yes or no to every call
  def.tools.direct = {effect_tool("list_files", effects, "draft.txt notes.txt"), remove};
  auto agent = make_agent(std::move(def), std::move(rt));
  if (!agent) return child_say("make_agent: " + agent.error().message), 2;

  Result<session::Log> log = step == "ask" ? session::Log::create(session::file_store(log_path), {})
                                           : session::Log::open(session::file_store(log_path), {});
  if (!log) return child_say("log: " + log.error().message), 2;
  if (step != "ask")
    child_say("opened the log: " + std::to_string(log->contents().repairs.size()) + " repairs");
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  auto session = agent->start(std::move(start));
  if (!session) return child_say("start: " + session.error().message), 2;

  Turn turn("Clean up the drafts");
  if (step == "ask") {
    child_say("user: Clean up the drafts");
  } else {
    for (const auto& p : pending_approvals(session->snapshot())) {
      child_say("still pending from the last process: " + describe(p));
      child_say("the person approves " + p.tool_use_id);
      turn.approvals.push_back(ApprovalDecision::approve(p.tool_use_id));
    }
    turn.input = Input();
  }
  auto r = session->run(std::move(turn));
  if (!r) return child_say("run: " + r.error().message), 2;
  for (const auto& m : r->messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) {
      child_say("tool " + t->tool_name + " [" + t->tool_use_id + "] -> " + text_of(t->content));
    }
  }
  child_say("run ends: " + std::string(to_string(r->stop_reason)) +
            (r->final_text.empty() ? "" : ": " + r->final_text));
  for (const auto& p : r->pending_approvals) child_say("pending: " + describe(p));
  if (step == "ask") child_say("exiting while the approval waits");
  return 0;
}

// Runs this program again as a child for one step; answers its exit status (-1: not started).
int spawn_step(const std::string& step, const std::string& log_path, const std::string& effects) {
  std::error_code ec;
  std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) return -1;
  std::vector<std::string> args{self, kStepFlag, step, log_path, effects};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout << std::flush;
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::vector<std::string> lines_in(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

session::ApprovalState approvals_in(const std::string& log_path) {
  session::LoadResult loaded = session::parse_log(read_all(log_path));
  if (loaded.entries.empty()) return {};
  return session::fold(loaded.entries, loaded.entries.back().id).approvals;
}

}  // namespace

int approval_child_step(int argc, char** argv) {
  if (argc != 5 || std::strcmp(argv[1], kStepFlag) != 0) return -1;
  return run_step(argv[2], argv[3], argv[4]);
}

void approval_across_processes(const Reporter& report) {
  report.say("\n== 9. an approval asked for in one process and granted in the next ==\n");
  fs::path dir = fs::temp_directory_path() / ("agentdemo-approval-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  std::string log_path = (dir / "session.jsonl").string();
  std::string effects = (dir / "ran.txt").string();

  report.say(
      "  process A: the model asks for list_files and delete_file; delete_file requires "
      "approval\n");
  int a = spawn_step("ask", log_path, effects);
  session::ApprovalState after_a = approvals_in(log_path);
  report.claim(
      a == 0 && after_a.pending.size() == 1 && after_a.pending[0].tool_name == "delete_file",
      "process A stopped awaiting approval and its log holds the pending delete_file call");
  report.claim(lines_in(effects).empty(),
               "no handler of the batch ran, not even list_files (the batch waits whole)");

  report.say("  process B: a person answers later; a new process opens the same log\n");
  int b = spawn_step("grant", log_path, effects);
  std::vector<std::string> ran = lines_in(effects);
  std::sort(ran.begin(), ran.end());  // the two handlers run in parallel: any completion order
  report.claim(b == 0 && ran == std::vector<std::string>{"delete_file c2", "list_files c1"},
               "process B ran the approved batch whole, each call exactly once");
  report.claim(approvals_in(log_path).empty(),
               "nothing is pending any more; the log records the decision");
  fs::remove_all(dir, ec);
}

}  // namespace agentdemo
