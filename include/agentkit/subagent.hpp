// agentkit/subagent.hpp — subagents: an agent as a tool (REQ-MULTI-01..05).
//
//   using namespace agentkit;
//   SubagentDefinition reviewer;
//   reviewer.name = "reviewer";                      // the tool the parent's model calls
//   reviewer.description = "Reviews one file and lists its defects.";
//   reviewer.instructions = "You review C++ code. Answer with a list of defects.";
//   reviewer.tools = {.direct = tools::coding_tools(workspace), .mcp = {}};
//   reviewer.tool_policy = ToolPolicy::only({"read_file", "search_files"});
//   SubagentOptions limits;
//   limits.budget.usd = 0.50;                        // at most $0.50 of the parent's budget
//   limits.budget.share = 0.3;                       // and at most 30 % of what is left of it
//   limits.budget.turns = 8;
//
//   AgentDefinition parent{.instructions = "Delegate reviews.", .skills = {},
//                          .tools = {.direct = {subagent_tool(reviewer, limits)}, .mcp = {}}};
//   RuntimeConfig rt;                                // the children run under this runtime
//   rt.loop.budget.usd = 2.00;                       // the whole tree's budget for one run
//
// Each call of the tool builds a fresh child agent (a factory per call: never the parent's
// history, never the previous call's) under the PARENT's runtime: the same providers, middleware,
// before_tool_call, hooks and tracer, so every call a child makes passes the parent's
// authorization boundary. The child's budget is reserved from the parent run's remaining budget
// under a lock when the call starts, its spend is charged to the parent as each model call ends,
// and what it did not spend is returned when it finishes. The child's final text is the tool
// result; a failed child is an error result (the parent's loop goes on); a child that ran out of
// budget returns what it has, marked as exhausted. The child's events reach the parent's
// observers and subscribers as SubagentEvent, tagged with the child's path; its transcript is
// kept in the tool result's metadata (persisted in the parent's session log and handle, never
// sent to a model) and subagent_runs() lists it.
//
// A parent session started with StartOptions::subagent_logs (or with a log_name, through the
// storage plugin) gives each child a log of its own, written as the child runs: its header
// names the parent's session and call ("subagent_of"), the tool result's record names the
// child's session id and log, and the child's session id is derived from the parent's and the
// call's, so that after a crash mid-delegation subagent_runs(handle, logs) finds what the child
// did from the parent's transcript alone.
//
//   StartOptions start;
//   start.log = std::make_shared<session::Log>(std::move(*log));   // "runs/lead.jsonl"
//   start.subagent_logs = subagent_logs_beside("runs/lead.jsonl");  // "runs/<child id>.jsonl"
//
// Thread safety: the returned ToolDefinition may be called concurrently (three delegations in one
// batch run side by side); every call builds its own child.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"

namespace agentkit {

// The caps of one delegation. Each unset field: no cap of its own (the child still gets at most
// what the parent's run has left). A parent without a run budget in a dimension
// (LoopConfig::budget) gives the child only the cap.
struct DelegationBudget {
  std::optional<int> turns;  // the child's max_turns (default: the parent's)
  std::optional<std::int64_t> tokens;
  std::optional<double> usd;
  std::optional<std::chrono::milliseconds> wall_time;
  // At most this fraction (0, 1] of the parent's remaining tokens and USD (REQ-MULTI-03).
  std::optional<double> share;
};

struct SubagentOptions {
  DelegationBudget budget;
  // Delegation depth allowed below the top-level agent: with 2, a child may delegate and a
  // grandchild may not. A call past it is refused with an error result the model reads.
  int max_depth = 2;
};

// A named agent definition (REQ-MULTI-05): invoked by the parent's model as the tool `name`.
struct SubagentDefinition {
  // The tool's name ([A-Za-z0-9_-]) and what the parent's model reads about it.
  std::string name;
  std::string description;
  // The child's system prompt, skills and tools.
  std::string instructions;
  std::vector<Skill> skills;
  ToolSet tools;
  // Narrows the child's tools on every delegation (ToolPolicy::only({...}) = exactly those).
  ToolPolicy tool_policy;
  // The child's model; nullopt = the parent's.
  std::optional<ModelConfig> model;
};

// The tool for a named definition. Its input is {"prompt": string}.
ToolDefinition subagent_tool(SubagentDefinition definition, SubagentOptions options = {});

// The tool for a factory called once per delegation: each call gets the definition it answers (a
// failed factory is an error result). `name` and `description` are the tool's.
using SubagentFactory = std::function<Result<AgentDefinition>()>;
ToolDefinition subagent_tool(std::string name, std::string description, SubagentFactory factory,
                             SubagentOptions options = {});

// The tool for an existing Agent: each call builds a fresh child from a copy of the agent's
// definition and its model (the agent's providers serve it), under the parent's runtime
// otherwise. The Agent itself is not used to run anything, so no session of it gains history.
// An MCP source of the definition is connected again for each call.
ToolDefinition subagent_tool(const Agent& agent, std::string name, std::string description,
                             SubagentOptions options = {});

// One delegation as the parent's transcript keeps it.
struct SubagentRun {
  std::string tool_use_id;  // the parent's call
  std::string agent;        // the subagent's name
  std::string path;         // as SubagentEvent::path
  std::string session_id;   // the child's session
  // The child's own log (its name for StartOptions::subagent_logs); empty when it kept none.
  std::string log;
  RunStopReason stop_reason = RunStopReason::stop;
  bool exhausted = false;  // the child ran out of its budget
  // Read from the child's log: the parent has no record of the call (the process ended while
  // the child ran). stop_reason is then aborted, and budget and exhausted are unknown.
  bool interrupted = false;
  int turns = 0;
  Usage usage;       // the child's own model calls (its subagents' are in their records)
  RunBudget budget;  // the slice the child was given
  std::vector<Message> transcript;  // everything the child's run added, in order
};

// The delegations recorded in a transcript (RunResult::messages, or a resumed session's), in
// order. A record that does not decode is skipped.
std::vector<SubagentRun> subagent_runs(std::span<const Message> messages);
// The same for a session as of `handle` (Session::snapshot(), or a session resumed from a log).
std::vector<SubagentRun> subagent_runs(const SessionHandle& handle);
// The same, also reading the children's own logs from `logs` (as the session was started with):
// a call with no result, or a failed one without a record, whose child left a log linked to
// this session and call is listed from that log, marked interrupted. Reads only; takes no lock.
std::vector<SubagentRun> subagent_runs(const SessionHandle& handle, const SubagentLogs& logs);

// Children's logs as JSONL files in the folder of `parent_log`, each named by the child's
// session id: "<folder>/<child session id>.jsonl".
SubagentLogs subagent_logs_beside(const std::filesystem::path& parent_log);

}  // namespace agentkit
