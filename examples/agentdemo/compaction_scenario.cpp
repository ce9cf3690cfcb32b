// agentdemo scenario: a long conversation compacts once, and the tool pair at the cut stays whole.
//
// The model's context window is set small (3,000 tokens, compacting above 2,400). The user talks
// for a while; one turn reads a large file. When the next request would not fit, the loop asks
// the same model for a summary (directly, not through middleware) and sends the summary plus
// the most recent turns instead. The cut lands only on a turn boundary, so the file's call and
// its result go into the summary together, never one without the other. The conversation then
// goes on without compacting again.
#include "compaction_scenario.hpp"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"

namespace agentdemo {
namespace {

using namespace agentkit;
namespace faux = agentkit::providers;

std::string padded(const std::string& tag, std::size_t n) {
  std::string s = tag;
  while (s.size() < n) s += " and so on";
  s.resize(n);
  return s;
}

bool is_summary_call(const Request& r) { return r.session_id.ends_with("/compaction"); }

bool every_result_has_its_call(std::span<const Message> messages) {
  std::set<std::string> calls;
  for (const Message& m : messages) {
    if (const auto* a = std::get_if<AssistantMessage>(&m)) {
      for (const auto& b : a->content) {
        if (const auto* use = std::get_if<ToolUseBlock>(&b)) calls.insert(use->id);
      }
    } else if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
      if (calls.count(r->tool_use_id) == 0) return false;
    }
  }
  return true;
}

// The scripted model: reads the file when asked, answers everything else at some length, and
// writes a short summary when the loop asks for one. Usage is reported as a real provider would.
faux::FauxResponse answer(const Request& r) {
  faux::FauxResponse reply;
  if (is_summary_call(r)) {
    reply =
        faux::text_response("## Goal\nPlan the release.\n## Facts\nnotes.md lists three blockers.");
  } else if (std::holds_alternative<ToolResultMessage>(r.messages.back())) {
    reply = faux::text_response("The notes list three blockers.");
  } else if (const auto* u = std::get_if<UserMessage>(&r.messages.back());
             u != nullptr && text_of(u->content) == "read notes.md") {
    reply =
        faux::tool_call_response({faux::tool_call("n1", "read_file", R"({"path":"notes.md"})")});
  } else {
    reply = faux::text_response(padded("Here is my answer", 600));
  }
  std::int64_t bytes = static_cast<std::int64_t>(r.system.size());
  for (const Message& m : r.messages)
    bytes += static_cast<std::int64_t>(json::dump(to_json(m)).size());
  reply.message.usage.input_tokens = bytes / 4;
  reply.message.usage.output_tokens = 50;
  return reply;
}

}  // namespace

void long_conversation_compacts_once(const Reporter& report) {
  report.say("\n== 11. a long conversation compacts once; its tool pair stays whole ==\n");
  auto model = std::make_shared<faux::FauxProvider>(answer);
  RuntimeConfig rt;
  rt.model.spec = "faux/demo";
  rt.providers.add("faux", model);
  rt.compaction.enabled = true;
  rt.compaction.context_window = 3'000;
  rt.compaction.reserve_tokens = 600;
  rt.compaction.keep_recent_tokens = 400;
  int compactions = 0;
  rt.observability.observers.push_back([&](const Event& e) {
    if (const auto* start = std::get_if<CompactionStartEvent>(&e)) {
      report.say("  compaction starts: ~" + std::to_string(start->tokens_before) + " tokens, " +
                 std::to_string(start->messages_summarised) + " messages to summarise, " +
                 std::to_string(start->messages_kept) + " kept\n");
    } else if (const auto* end = std::get_if<CompactionEndEvent>(&e)) {
      ++compactions;
      report.say("  compaction ends: " + std::string(end->ok ? "ok" : "FAILED " + end->error) +
                 ", ~" + std::to_string(end->tokens_after) + " tokens now\n");
    }
  });
  ToolDefinition read_file;
  read_file.name = "read_file";
  read_file.description = "Reads a file";
  read_file.handler = [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result(padded("notes.md: blocker 1, blocker 2, blocker 3", 4'000));
  };
  AgentDefinition def;
  def.instructions = "You are the agentdemo assistant.";
  def.tools.direct = {read_file};
  rt.extensions.allow_all_tool_calls = true;
  auto agent = make_agent(std::move(def), std::move(rt));
  if (!agent) return report.claim(false, "make_agent: " + agent.error().message);
  auto session = agent->start();
  if (!session) return report.claim(false, "start: " + session.error().message);

  std::vector<std::string> inputs = {padded("Let us plan the release", 600),
                                     padded("What about QA", 600), "read notes.md",
                                     padded("So what now", 600)};
  for (int i = 0; i < 6; ++i)
    inputs.push_back(padded("And then step " + std::to_string(i + 1), 300));
  RunResult last;
  for (const std::string& input : inputs) {
    auto r = session->run(input);
    if (!r) return report.claim(false, "run: " + r.error().message);
    report.say("  user: " + input.substr(0, 24) + (input.size() > 24 ? "..." : "") + "  -> " +
               r->final_text.substr(0, 32) + "\n");
    last = std::move(*r);
  }
  std::vector<faux::RecordedRequest> requests = model->requests();
  bool pairs_whole = true;
  std::size_t summaries = 0;
  for (const auto& r : requests) {
    if (r.session_id.ends_with("/compaction")) {
      ++summaries;
      continue;
    }
    pairs_whole = pairs_whole && every_result_has_its_call(r.messages);
  }
  const std::string stored = last.handle.serialize();
  report.claim(compactions == 1 && summaries == 1, "the conversation compacted exactly once in " +
                                                       std::to_string(inputs.size()) + " turns");
  report.claim(pairs_whole, "every request sent every tool result together with its call");
  report.claim(
      json::parse(stored).value().find("messages")->as_array().size() == 2 * inputs.size() + 2,
      "the stored transcript kept every message (the summary is a view, not an edit)");
}

}  // namespace agentdemo
