// A child process for the two-process approval tests (approval_test.cpp): one step of a logged
// session whose batch needs a person, run in its own process.
//
//   agentkit_approval_helper ask <log> <effects>            new log; stops awaiting approval
//   agentkit_approval_helper grant <log> <effects>          resume from the log, approve, finish
//   agentkit_approval_helper grant-and-die <log> <effects>  as grant, SIGKILLed inside `remove`
//   agentkit_approval_helper finish <log> <effects>         resume a batch a dead process decided
//
// Each handler appends "<tool> <call id>" to <effects> before it answers, so the parent counts
// what ran across processes. Prints one line per fact the parent checks.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/session/log.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;

namespace {

void record_effect(const std::string& effects, const std::string& line) {
  int fd = ::open(effects.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  std::string text = line + "\n";
  (void)!::write(fd, text.data(), text.size());
  ::close(fd);
}

ToolDefinition effect_tool(const std::string& name, const std::string& effects, bool die) {
  ToolDefinition t;
  t.name = name;
  t.description = "records that it ran";
  // Sequential, so the batch runs in call order and the killed process dies after `look`.
  t.execution_mode = ExecutionMode::sequential;
  t.handler = [name, effects, die](const json::Value&, const ToolContext& ctx) {
    record_effect(effects, name + " " + ctx.tool_use_id);
    if (die) ::raise(SIGKILL);
    return ToolResult::text_result(name + " ran");
  };
  return t;
}

std::string pending_text(const std::vector<PendingApproval>& pending) {
  std::string out;
  for (const auto& p : pending) out += (out.empty() ? "" : ",") + p.tool_use_id + ":" + p.tool_name;
  return out;
}

int fail(const std::string& what) {
  std::cout << "error: " << what << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4)
    return fail("usage: agentkit_approval_helper ask|grant|grant-and-die|finish <log> <effects>");
  std::string mode = argv[1];
  std::string path = argv[2];
  std::string effects = argv[3];

  std::vector<faux::FauxResponse> script;
  if (mode == "ask") {
    script.push_back(
        faux::tool_call_response({faux::tool_call("c1", "look", "{}"),
                                  faux::tool_call("c2", "remove", R"({"path":"a.txt"})")}));
  } else {
    script.push_back(faux::text_response("done"));
  }
  auto model = std::make_shared<faux::FauxProvider>(std::move(script));
  RuntimeConfig rt;
  rt.model.spec = "faux/approvals";
  rt.providers.add("faux", model);
  AgentDefinition def;
  def.instructions = "Tidy up.";
  ToolDefinition remove = effect_tool("remove", effects, mode == "grant-and-die");
  remove.requires_approval = true;
  def.tools.direct = {effect_tool("look", effects, false), remove};
  auto agent = make_agent(std::move(def), std::move(rt));
  if (!agent) return fail(agent.error().message);

  Result<session::Log> log = mode == "ask" ? session::Log::create(session::file_store(path), {})
                                           : session::Log::open(session::file_store(path), {});
  if (!log) return fail(log.error().message);
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  auto session = agent->start(std::move(start));
  if (!session) return fail(session.error().message);

  Turn turn("tidy up");
  if (mode != "ask") {
    std::vector<PendingApproval> pending = pending_approvals(session->snapshot());
    std::cout << "resumed pending=" << pending_text(pending) << "\n";
    turn = Turn{};
    for (const auto& p : pending)
      turn.approvals.push_back(ApprovalDecision::approve(p.tool_use_id));
  }
  auto r = session->run(std::move(turn));
  if (!r) return fail(r.error().message);
  int interrupted = 0;
  for (const auto& m : r->messages) {
    const auto* t = std::get_if<ToolResultMessage>(&m);
    if (t != nullptr && text_of(t->content).find("interrupted") != std::string::npos) ++interrupted;
  }
  std::cout << to_string(r->stop_reason) << " pending=" << pending_text(r->pending_approvals)
            << "\n"
            << "stop_reason=" << to_string(r->stop_reason) << " interrupted=" << interrupted
            << "\n";
  return 0;
}
