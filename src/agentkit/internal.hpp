// Private state behind Agent and Session. Nothing here is part of the public API.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/images/normalize.hpp"
#include "agentkit/prompt.hpp"
#include "agentkit/session/log.hpp"
#include "budget.hpp"
#include "compaction_plan.hpp"
#include "deadline_timer.hpp"

namespace agentkit::detail {

// One registered tool and who supplied it (named when two tools collide).
struct RegisteredTool {
  ToolDefinition definition;
  std::string owner;  // "direct tool #2 (origin: builtin)", "MCP server 'files'", "intrinsic"
  std::string mcp_server;  // the MCP server of an MCP tool; empty for the others
};

// The single name-keyed registry, built once by make_agent and frozen.
struct ToolRegistry {
  std::vector<RegisteredTool> tools;            // registration order
  std::map<std::string, std::size_t, std::less<>> by_name;
  std::vector<ToolSpec> specs;                  // tools[i] -> specs[i], fingerprints computed

  const RegisteredTool* find(std::string_view name) const;
};

struct PluginSet;  // plugins.hpp (private)

// The model call's event callback when nothing reads the events (no subscriber, observer,
// parent, span or error hook): provider_call recognises it and the provider builds none.
// Middleware that passes `emit` on keeps it; one that wraps it gets the events as before.
struct NoEventListener {
  void operator()(const Event&) const noexcept {}
};

// The messages of the request the loop is making on this thread, under its promise that they only
// grow (Request::history_serial). provider_call keeps the promise only for these very messages: a
// middleware that sends others (a copy of the request with its own messages) gets none, so a
// promise never outlives the messages it was made for.
struct PromisedMessages {
  const Message* data = nullptr;
  std::size_t size = 0;
  std::uint64_t serial = 0;
};
PromisedMessages& promised_messages();  // this thread's

struct AgentCore {
  AgentDefinition definition;
  RuntimeConfig runtime;
  std::shared_ptr<const Model> model;
  std::shared_ptr<ProviderClient> provider;
  ToolRegistry registry;
  ModelCall model_call;  // the middleware chain around the provider
  std::shared_ptr<const PluginSet> plugins;  // loaded from runtime.extensions.plugins; never null
  // Every image entering history, and every request's images, pass through this one normaliser
  // (its cache is shared by the agent's sessions).
  images::ImageNormalizer image_normalizer;

  std::mutex mu;
  std::vector<std::weak_ptr<SessionCore>> sessions;
  bool closed = false;

  // Set when this agent is a subagent's child built for one delegation (subagent.cpp): its
  // budget link, depth and where its events go. Null for every other agent.
  std::shared_ptr<const Delegation> delegation;

  Timestamp now() const;
};

// A tool batch held for a person (human in the loop), from the stop until the batch has run. The
// batch is the last assistant message of the history; its calls with a result already in the
// history (a log resumed mid-batch) are done.
struct ApprovalBook {
  std::vector<PendingApproval> pending;  // waiting for a decision, in call order
  std::map<std::string, ApprovalDecision, std::less<>> decided;
  // Calls whose handler began in an earlier process (the log's tool_call_started markers): never
  // run again, answered "interrupted" when no result was recorded.
  std::set<std::string, std::less<>> started;

  // True when the next run must finish the held batch before anything else.
  bool holds_batch() const noexcept {
    return !pending.empty() || !decided.empty() || !started.empty();
  }
};

// A steering or follow-up message waiting for its poll point.
struct QueuedInput {
  UserMessage message;
};

// A serial no other view has had (never 0).
std::uint64_t next_view_serial();

// A session's transcript, shared with the handles made from it (make_snapshot). It only grows, so
// a handle is its first messages, read under `mu`; every append takes `mu` too (after the
// session's own mutex). Only the run thread appends, and reads without `mu`.
struct HistoryStore {
  mutable std::mutex mu;
  std::vector<Message> messages;
};

// Appends to a session's transcript (the caller holds the store's mutex). The transcript is held
// for the session's life and stays one array (a handle is a span of its first messages), so it
// grows by half when full, not double as push_back does: at most a third of it spare instead of
// half (a ten-turn session's 21 messages in 25 slots, not 32; a slot is sizeof(Message)). It
// starts with room for 6 (two turns of a call each, or three of text), so it moves less often
// than a doubling vector: 6, 10, 16, 25, 38, ... (four blocks for 21 messages, against six).
inline void append_to_transcript(std::vector<Message>& transcript, Message&& m) {
  constexpr std::size_t kFirstRoom = 6;
  if (transcript.size() == transcript.capacity()) {
    transcript.reserve(std::max(kFirstRoom, transcript.size() + transcript.size() / 2 + 1));
  }
  transcript.push_back(std::move(m));
}

struct SessionCore : std::enable_shared_from_this<SessionCore> {
  std::shared_ptr<AgentCore> agent;
  std::string id;

  mutable std::mutex mu;  // guards everything below; never held while user code runs
  std::shared_ptr<HistoryStore> store = std::make_shared<HistoryStore>();
  std::vector<Message>& history = store->messages;
  std::size_t committed = 0;  // history[0, committed) is the last completed turn's transcript
  Usage usage;
  ApprovalBook approvals;  // written by the run thread only, under `mu`
  // The compaction in force (compaction.cpp); written by the run thread only, under `mu`.
  CompactionCheckpoint compaction;
  // The promise that each request's messages extend the previous one's (Request::history_serial):
  // `history` only grows, and so does its compacted view while `compaction` stands. New for each
  // session core; renewed, with `compaction`, when a compaction replaces the view's prefix.
  std::uint64_t view_serial = next_view_serial();
  // Vectors, not deques: a std::deque allocates about 600 bytes as soon as it exists, for
  // queues that most sessions never use; these hold a message or two when they are used.
  std::vector<QueuedInput> steering;
  std::vector<QueuedInput> follow_ups;
  std::vector<EventSink> subscribers;
  bool run_active = false;
  bool accepting_sends = false;  // false once a finishing run made its last poll
  bool closed = false;
  std::condition_variable run_finished;
  agentkit::stop_source close_source;  // fired by close(): cancels the run in flight
  // Fast check for the emit path: anything listening at all?
  std::atomic<std::size_t> subscriber_count{0};

  DeadlineTimer timer;  // fires per-tool timeouts; its thread starts on first use

  // The session log (StartOptions::log) and its error callback; used by the run thread only.
  std::shared_ptr<session::Log> log;
  std::function<void(const Error&)> on_log_error;
  // Where the subagents this session delegates to keep their own logs (subagent.cpp); set at
  // start, read by delegations on the batch's threads.
  SubagentLogs subagent_logs;
  // With a log: the id of the entry each history message was written as (parallel to
  // `history`; empty for a message the log did not write, such as one from a resumed handle).
  std::vector<std::string> entry_ids;

  // Delivers an event to observers (synchronously) and subscribers. Never throws.
  void emit(Event e);
  bool has_listeners() const noexcept;
  Result<RunResult> run(Turn turn, agentkit::stop_token caller_stop);
  void close();
};

// Builds a SessionHandle from a state / reads the state of one.
struct SessionState {
  std::string session_id;
  // The handle's messages: the first `count` of `store`, which the session that made the handle
  // may still be growing (a snapshot copies nothing).
  std::shared_ptr<const HistoryStore> store;
  std::size_t count = 0;
  struct Messages {
    std::unique_lock<std::mutex> lock;
    std::span<const Message> span;
  };
  Messages messages() const {
    std::unique_lock lock(store->mu);
    return {std::move(lock), std::span<const Message>(store->messages.data(), count)};
  }
  Usage usage;
  ApprovalBook approvals;
  CompactionCheckpoint compaction;
};
struct AgentAccess {
  static const std::shared_ptr<AgentCore>& core(const Agent& a) { return a.core_; }
};
struct SessionStateAccess {
  static SessionHandle make(std::shared_ptr<const SessionState> s) { return SessionHandle(std::move(s)); }
  static const SessionState* get(const SessionHandle& h) { return h.state_.get(); }
};

// registry.cpp
// `plugin_tools`: (plugin name, tool), registered after the direct tools.
Result<ToolRegistry> build_registry(
    const AgentDefinition& def,
    std::vector<std::pair<std::string, std::vector<ToolDefinition>>> mcp_tools,
    std::vector<std::pair<std::string, ToolDefinition>> plugin_tools,
    std::vector<std::string>& problems);
ToolDefinition make_read_skill_tool(std::shared_ptr<const std::vector<Skill>> skills);
// The prompt of a turn offering `offered`: the definition's prompt plus those tools' guidelines.
skills::AssembledPrompt system_prompt_for_turn(const AgentCore& agent,
                                               std::span<const ToolSpec> offered);

// session_log.cpp: the session log, written as the transcript grows. Failures are reported as
// ErrorEvents and through on_log_error, never thrown, never fatal to the run.
void attach_log(SessionCore& session, const AgentCore& agent, StartOptions& options);
void log_messages(SessionCore& session, std::span<const Message> messages);
void log_end_turn(SessionCore& session);
void log_approval_request(SessionCore& session, std::span<const PendingApproval> calls);
void log_approval_decision(SessionCore& session, std::span<const ApprovalDecision> decisions);
// The compaction entry of a new checkpoint (a failure is reported like any other write).
void log_compaction(SessionCore& session, const session::CompactionRecord& record);
// Markers for the calls about to run, then a sync (under the every_turn durability), before any
// of their handlers starts.
void log_calls_started(SessionCore& session, std::span<const ToolUseBlock* const> calls);

// session.cpp
std::string generate_session_id();
// The committed transcript as a handle (the last completed turn).
SessionHandle make_snapshot(const SessionCore& session);

}  // namespace agentkit::detail
