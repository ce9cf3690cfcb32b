// agentdemo scenario: three concurrent delegations under a shared budget (issue 12).
//
// The lead's model calls three subagents in one batch. Every child's model call waits (bounded)
// until all three children are in flight, which only happens when they really run side by side.
// Each child gets at most $0.20 of the lead's $1.00; every child model call costs $0.05. Two
// children answer at once; the third keeps working until its slice is spent and comes back with
// what it has, marked as exhausted. The lead reads the three results and answers. The lead's
// session has a log, and each child writes one of its own beside it, linked to the lead's by id.
#include "delegation_scenario.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/session/log.hpp"
#include "agentkit/subagent.hpp"

namespace agentdemo {
namespace {

using namespace agentkit;
namespace faux = agentkit::providers;

std::string dollars(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

int assistant_turns(const Request& r) {
  int n = 0;
  for (const auto& m : r.messages) n += std::holds_alternative<AssistantMessage>(m) ? 1 : 0;
  return n;
}

bool asks_for(const Request& r, std::string_view word) {
  for (const auto& m : r.messages) {
    if (const auto* u = std::get_if<UserMessage>(&m)) {
      for (const auto& b : u->content) {
        if (const auto* t = std::get_if<TextBlock>(&b);
            t && t->text.find(word) != std::string::npos)
          return true;
      }
    }
  }
  return false;
}

}  // namespace

void delegations_under_a_shared_budget(const Reporter& report) {
  report.say(
      "\n== 10. three subagents run side by side under the lead's $1.00; one runs out and says so "
      "==\n");
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;
  int most = 0;
  Usage five_cents;
  five_cents.input_tokens = 500;
  five_cents.cost.total = 0.05;

  auto model = std::make_shared<faux::FauxProvider>([&](const Request& r) {
    if (r.system.find("You lead") != std::string::npos) {
      if (assistant_turns(r) > 0)
        return faux::text_response("Two answers in; the survey ran out of budget.");
      return faux::tool_call_response({
          faux::tool_call("d1", "researcher", R"({"prompt":"What does parse() return?"})"),
          faux::tool_call("d2", "researcher", R"({"prompt":"Who calls parse()?"})"),
          faux::tool_call("d3", "researcher", R"({"prompt":"Survey every file: a long job"})"),
      });
    }
    faux::FauxResponse reply =
        asks_for(r, "Survey")
            ? faux::tool_call_response(
                  {faux::tool_call("s" + std::to_string(assistant_turns(r)), "read_file", R"({})")})
            : faux::text_response("Found it.");
    reply.message.usage = five_cents;
    if (assistant_turns(r) == 0) {
      reply.on_request = [&](const Request&) {  // the first call of each child: wait for the others
        std::unique_lock lock(mu);
        most = std::max(most, ++in_flight);
        cv.notify_all();
        cv.wait_for(lock, std::chrono::seconds(10), [&] { return most >= 3; });
        --in_flight;
      };
    }
    return reply;
  });

  SubagentDefinition researcher;
  researcher.name = "researcher";
  researcher.description = "Answers one question about the code base.";
  researcher.instructions = "You research one question and answer briefly.";
  ToolDefinition read_file;
  read_file.name = "read_file";
  read_file.description = "Read a file";
  read_file.handler = [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result("...");
  };
  researcher.tools.direct = {read_file};
  SubagentOptions limits;
  limits.budget.usd = 0.20;

  RuntimeConfig rt;
  rt.model.spec = "faux/lead";
  rt.providers.add("faux", model);
  rt.loop.budget.usd = 1.00;
  int tagged = 0;
  rt.observability.observers.push_back([&](const Event& e) {
    if (const auto* sub = std::get_if<SubagentEvent>(&e)) {
      ++tagged;
      if (std::holds_alternative<AgentEndEvent>(*sub->event)) {
        report.say("  [" + sub->path + "] run ends: " +
                   std::string(to_string(std::get<AgentEndEvent>(*sub->event).reason)) + "\n");
      }
    }
  });
  AgentDefinition lead;
  lead.instructions = "You lead a team.";
  lead.tools.direct = {subagent_tool(researcher, limits)};
  auto agent = make_agent(std::move(lead), std::move(rt));
  if (!agent) return report.claim(false, agent.error().message);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("agentdemo-delegation-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path lead_log = dir / "lead.jsonl";
  auto log = session::Log::create(session::file_store(lead_log), {});
  if (!log) return report.claim(false, log.error().message);
  StartOptions start;
  start.log = std::make_shared<session::Log>(std::move(*log));
  start.subagent_logs = subagent_logs_beside(lead_log);  // <child session id>.jsonl beside it
  auto session = agent->start(std::move(start));
  if (!session) return report.claim(false, session.error().message);
  auto r = session->run("Find out how parse() is used");
  if (!r) return report.claim(false, r.error().message);
  (void)session->close();

  std::vector<SubagentRun> runs = subagent_runs(r->messages);
  double children = 0;
  int exhausted = 0;
  int linked_logs = 0;
  for (const SubagentRun& run : runs) {
    children += run.usage.cost.total;
    exhausted += run.exhausted ? 1 : 0;
    auto child_log = session::load(*session::file_store(dir / (run.log + ".jsonl")));
    const bool linked = child_log && child_log->header.id == run.session_id &&
                        child_log->header.verbatim.find(
                            std::string(session->snapshot().session_id())) != std::string::npos;
    linked_logs += linked ? 1 : 0;
    report.say("  " + run.path + ": " + std::to_string(run.turns) + " turn(s), " +
               dollars(run.usage.cost.total) + " of its " + dollars(run.budget.usd.value_or(0)) +
               (run.exhausted ? ", exhausted" : "") + "; its log " + run.log + ".jsonl holds " +
               std::to_string(child_log ? child_log->entries.size() : 0) + " entries\n");
  }
  std::filesystem::remove_all(dir);
  std::string survey_result;
  for (const auto& m : r->messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m); t && t->tool_use_id == "d3") {
      for (const auto& b : t->content)
        if (const auto* tb = std::get_if<TextBlock>(&b)) survey_result = tb->text;
    }
  }
  report.say("  the survey's result starts: " + survey_result.substr(0, 80) + "...\n");
  report.say("  lead: " + r->final_text + "\n");
  report.claim(most == 3, "the three children were in flight at the same time (" +
                              std::to_string(most) + " at once)");
  report.claim(runs.size() == 3 && exhausted == 1, "exactly one child ran out of its slice");
  report.claim(survey_result.find("ran out of budget") != std::string::npos,
               "the exhausted child came back with what it had, and said so");
  report.claim(children <= 1.00 + 1e-9 && children > 0.29,
               "the children spent " + dollars(children) + " of the lead's " + dollars(1.00));
  report.claim(tagged > 0, "the lead's observer saw " + std::to_string(tagged) +
                               " child events, each tagged with its path");
  report.claim(linked_logs == 3,
               "each child wrote a log of its own beside the lead's, its header naming the lead's "
               "session");
  report.claim(r->stop_reason == RunStopReason::stop,
               "the lead went on after its children and answered");
}

}  // namespace agentdemo
