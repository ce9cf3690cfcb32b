// agentkit/turn.hpp — what goes into a run and what comes out: Input, Turn, ToolPolicy, RunResult,
// Delivery, SessionHandle and StartOptions.
//
//   agentkit::Turn turn("summarise README.md", agentkit::ToolPolicy::only({"read_file"}));
//   agentkit::Result<agentkit::RunResult> r = session.run(turn);
//   if (r) std::cout << r->final_text << " (" << agentkit::to_string(r->stop_reason) << ")\n";
//   std::string saved = r->handle.serialize();          // resume later with StartOptions{.resume}
//
// Thread safety: plain values. A SessionHandle is immutable and cheap to copy.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/core/schema.hpp"
#include "agentkit/core/tool.hpp"

namespace agentkit {

namespace session {
class Log;    // agentkit/session/log.hpp
class Store;  // agentkit/session/store.hpp
}  // namespace session

// Where subagents' own logs are kept (StartOptions::subagent_logs): answers the store of the
// log called `log_name` (a child's session id), which may not exist yet. Called on the threads
// delegations run on, several at once when a batch delegates in parallel.
using SubagentLogs =
    std::function<Result<std::unique_ptr<session::Store>>(std::string_view log_name)>;

// User input. From a run it starts the turn; through Session::send it is queued for the run in
// flight as steering (delivered after the current tool batch, before the next model call) or as a
// follow-up (delivered when the run would otherwise stop).
struct Input {
  // Which queue Session::send puts the input on. (What send did is told by agentkit::Delivery.)
  enum class Queue : std::uint8_t { steer, follow_up };

  std::vector<ContentBlock> content;
  Queue queue = Queue::steer;

  Input() = default;
  Input(std::string text);        // NOLINT: implicit, so run("hello") reads naturally
  Input(const char* text);        // NOLINT
  Input(std::vector<ContentBlock> blocks, Queue q = Queue::steer);
  static Input follow_up(std::string text);
  bool empty() const noexcept;
};

// Narrows the tools offered for ONE turn. The manifest sent to the model is computed from the
// definition and this policy at request time and never stored. read_skill always stays available.
struct ToolPolicy {
  // nullopt: every tool of the definition. Engaged: exactly these names (an empty list = none).
  // A name the agent does not have is an error, not a silent no-op.
  std::optional<std::vector<std::string>> allowed;

  static ToolPolicy all() { return {}; }
  static ToolPolicy none() { return {std::vector<std::string>{}}; }
  static ToolPolicy only(std::vector<std::string> names) { return {std::move(names)}; }
};

// The shape a run's final answer must have: a typed answer (docs/api.md "Typed answers").
//
//   agentkit::Turn turn("Review src/parse.cpp");
//   agentkit::AnswerSchema answer;
//   answer.schema = agentkit::schema::object({
//       agentkit::schema::required("verdict",
//                                  agentkit::schema::enumeration({"approve", "reject"})),
//       agentkit::schema::required("findings",
//                                  agentkit::schema::array(agentkit::schema::string())),
//   });
//   turn.answer = std::move(answer);
//   auto r = session.run(turn);
//   if (r && r->answer) use((*r->answer)["verdict"]);        // validated against the full schema
//
// Only the final answer is constrained: turns that call tools are not, and every offered tool stays
// callable. Where the model has a native structured-output mode (catalog::answer_support) the
// schema is lowered for the wire and sent; otherwise a final-answer tool named `name` is offered
// whose input schema is this schema. Either way the answer is validated locally with the whole
// schema; an invalid one goes back to the model with the violations, at most `max_repairs` times.
struct AnswerSchema {
  Schema schema;
  // Names the wire's format and the final-answer tool: [A-Za-z0-9_-], 1..64 bytes.
  std::string name = "answer";
  // Told to the model beside the schema; empty = none.
  std::string description;
  // Repair turns after an invalid answer before the run stops with RunStopReason::invalid_answer.
  int max_repairs = 2;
};

struct Turn {
  Turn() = default;
  Turn(Input in, ToolPolicy policy = {}) : input(std::move(in)), tool_policy(std::move(policy)) {}  // NOLINT
  Turn(std::string text) : input(std::move(text)) {}  // NOLINT: implicit, session.run("hi")
  Turn(const char* text) : input(text) {}             // NOLINT

  // Empty input continues the transcript: valid when the model owes a reply (the last message is
  // a user or tool result message, or an aborted/error assistant message).
  Input input;
  ToolPolicy tool_policy;
  // A typed answer for this run; nullopt = free text. A schema the model's wire cannot express
  // fails Session::run before anything is sent or recorded.
  std::optional<AnswerSchema> answer;

  // Answers to the calls a run stopped for (RunStopReason::awaiting_approval): one decision per
  // pending call, by tool_use_id. The held batch then runs as a whole before anything else:
  // approved and unaffected calls execute, rejected ones get an error result with the reason,
  // every call one result, in call order; `input`, when not empty, follows the results. A run
  // over pending calls without a decision for each is refused (invalid_argument, the undecided
  // calls named) and changes nothing; so is a decision for a call that is not pending.
  std::vector<ApprovalDecision> approvals;
};

namespace detail {
struct SessionState;
struct SessionStateAccess;
}  // namespace detail

// An opaque, serialisable snapshot of a session: enough to resume it in a new Agent.
class SessionHandle {
 public:
  SessionHandle();
  bool empty() const noexcept;
  // The session's id (the sticky id used for caching and logs).
  std::string_view session_id() const noexcept;
  // Versioned JSON text; parse() reads it back.
  std::string serialize() const;
  static Result<SessionHandle> parse(std::string_view text);

 private:
  friend struct detail::SessionStateAccess;
  explicit SessionHandle(std::shared_ptr<const detail::SessionState> state) noexcept;
  std::shared_ptr<const detail::SessionState> state_;
};

struct RunResult {
  // The text of the last assistant message of the run (with a final-answer tool: the answer's
  // JSON text).
  std::string final_text;
  // With Turn::answer: the validated answer (optional members the model sent as null removed).
  // Unset when the run ended without a valid one: see stop_reason (invalid_answer, refusal, ...).
  std::optional<json::Value> answer;
  // With stop_reason invalid_answer: what was wrong with the last answer (final_text holds it).
  std::vector<SchemaViolation> answer_violations;
  RunStopReason stop_reason = RunStopReason::stop;
  // Set when stop_reason is error (the provider's message) or aborted.
  std::string error_message;
  // The messages this run added to the transcript, in order.
  std::vector<Message> messages;
  int turn_count = 0;
  Usage run_usage;      // this run
  Usage session_usage;  // the session so far, this run included
  // The session's cache statistics so far, all levels (zeros from a provider that keeps none,
  // such as the faux one). Keyed by the request's session id, so a resumed session continues.
  CacheStats cache;
  SessionHandle handle;
  // When stop_reason is awaiting_approval: the calls waiting for a person, in call order. No
  // handler of their batch has run; answer them with Turn::approvals on the next run.
  std::vector<PendingApproval> pending_approvals;
};

// The calls a session waits on a person for, as of `handle` (Session::snapshot(), or a session
// resumed from a log): empty when nothing is pending.
std::vector<PendingApproval> pending_approvals(const SessionHandle& handle);

// What Session::send did with the input. Both modes are final successes, not retry signals.
struct Delivery {
  enum class Mode : std::uint8_t { queued_steering, queued_follow_up };
  Mode mode = Mode::queued_steering;
};

struct StartOptions {
  // Continue this session (its transcript, usage and id); empty = a new session.
  SessionHandle resume;
  // The new session's id; empty = generated (or, with a log, the log's id). Ignored when resuming.
  std::string session_id;
  // Record the session in this append-only log (agentkit/session/log.hpp). Each message is
  // written as it joins the transcript (the user's before the first model call) and each turn
  // ends with Log::end_turn(). Without `resume`, the session starts from the log's active branch,
  // and a model other than the one the log last recorded is appended as a model_change. The log
  // must not be used elsewhere while the session runs. Null (the default): nothing touches disk.
  std::shared_ptr<session::Log> log;
  // Called with each failed write to `log`, which is also emitted as a non-terminal ErrorEvent;
  // the run continues with the message kept in memory. Runs on the run's thread; an exception
  // from it is contained.
  std::function<void(const Error&)> on_log_error;
  // With `log` null: open the log of this name through the agent's storage plugin
  // (StoragePlugin::open), creating it when it does not exist yet. An agent without a storage
  // plugin fails start() with invalid_argument. Empty (the default): no log.
  std::string log_name;
  // Where each subagent this session delegates to keeps a log of its own, written as it runs
  // and linked to this session by id (agentkit/subagent.hpp; subagent_logs_beside() puts them
  // in the folder of a log file). Unset (the default): with `log_name`, the storage plugin opens
  // them under the children's session ids; otherwise children keep no log.
  SubagentLogs subagent_logs;
};

}  // namespace agentkit
