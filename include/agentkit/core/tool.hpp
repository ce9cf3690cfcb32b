// agentkit/core/tool.hpp — a tool as the loop sees it, the result a handler returns, and
// the interceptor types that form the authorization boundary.
//
//   using namespace agentkit;
//   ToolDefinition echo{
//       .name = "echo",
//       .description = "Repeat the given text.",
//       .input_schema = schema::object({schema::required("text", schema::string())}),
//       .handler = [](const json::Value& args, const ToolContext&) {
//         return ToolResult::text_result(std::string(args.find("text")->as_string()));
//       },
//   };
//
// A handler runs on its own thread when its batch is parallel; it must honour ctx.stop (fires on
// abort, on the tool's timeout and on session close). Throwing from a handler is allowed: the
// exception becomes an error result the model sees, never a crash (a handler declared noexcept that
// throws still terminates the process — C++ cannot contain that).
//
// A call can wait for a person (human in the loop): `requires_approval` or `approval_predicate`
// on the definition, or before_tool_call answering ToolCallDecision::ask(). The run then stops
// with RunStopReason::awaiting_approval before any handler of that batch starts, RunResult lists
// the PendingApproval calls, and the next Session::run carries the ApprovalDecision values
// (agentkit/turn.hpp, Turn::approvals).
//
// Thread safety: definitions are plain values; a handler may be called concurrently with itself
// (two calls of the same tool in one batch) and must be safe for that.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/error.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/schema.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::tracing {
class Span;  // agentkit/core/tracing.hpp
}

namespace agentkit::detail {
struct RunScope;  // the run a call belongs to; read by the subagent tools (agentkit/subagent.hpp)
}

namespace agentkit {

enum class ExecutionMode : std::uint8_t {
  parallel,    // may run concurrently with the rest of its batch (the default)
  sequential,  // one such tool anywhere in a batch makes the whole batch sequential
};

// A per-tool time limit with no "zero means forever" trap: the default inherits the runtime's.
class ToolTimeout {
 public:
  static ToolTimeout inherit() noexcept { return ToolTimeout(kind::inherit, {}); }
  static ToolTimeout none() noexcept { return ToolTimeout(kind::none, {}); }
  static ToolTimeout after(std::chrono::milliseconds d) noexcept { return ToolTimeout(kind::after, d); }
  ToolTimeout() noexcept = default;

  bool inherits() const noexcept { return kind_ == kind::inherit; }
  // The limit after applying the runtime default; nullopt = no limit.
  std::optional<std::chrono::milliseconds> resolve(
      std::optional<std::chrono::milliseconds> runtime_default) const noexcept {
    if (kind_ == kind::inherit) return runtime_default;
    if (kind_ == kind::none) return std::nullopt;
    return limit_;
  }
  friend bool operator==(const ToolTimeout&, const ToolTimeout&) = default;

 private:
  enum class kind : std::uint8_t { inherit, none, after };
  ToolTimeout(kind k, std::chrono::milliseconds d) noexcept : kind_(k), limit_(d) {}
  kind kind_ = kind::inherit;
  std::chrono::milliseconds limit_{0};
};

// What a handler knows about the call it serves.
struct ToolContext {
  std::string tool_name;
  std::string tool_use_id;
  std::string session_id;
  int turn_index = 0;
  // Fires on abort, on this tool's timeout, and when the session closes.
  agentkit::stop_token stop;
  // Streams progress to observers as ToolExecutionUpdateEvent (never to the model). May be empty.
  std::function<void(std::string_view chunk)> report;
  // Passes a log message of the service behind the tool (an MCP server's notifications/message)
  // to observers as a ToolLogEvent (never to the model). May be empty.
  std::function<void(std::string_view level, std::string_view logger, const json::Value& data)> log;
  // This call's execute_tool span when tracing is on (null otherwise), valid while the handler
  // runs: a tool that calls out (an MCP server) starts its own span under it.
  tracing::Span* span = nullptr;
  // The run this call belongs to (its budget, depth and observers), valid while the handler
  // runs; null outside an agent's run. Opaque: only agentkit's subagent tools read it.
  const detail::RunScope* run = nullptr;
};

// What a handler answers. A success shows the model `text` verbatim when set, otherwise the JSON
// envelope {"ok":true, "data"?:...}. A failure has one shape whichever path produced it (the
// handler, a throw, a timeout, a denial, bad arguments, an MCP server): the model reads `detail`
// as plain prose (or `text` when `detail` is empty), the result message is marked is_error, and
// the stable code `error` goes to the message's metadata as "error_code" for the program. Images
// follow as image blocks.
struct ToolResult {
  bool ok = true;
  json::Value data;          // payload for the success envelope (null = absent)
  std::string error;         // a short code when !ok, e.g. "not_found", "invalid_arguments"
  std::string detail;        // the prose the model reads when !ok
  std::optional<std::string> text;
  std::vector<ImageBlock> images;
  // The batch vote: the run ends after this batch only if EVERY call voted to terminate.
  bool terminate = false;
  // Facts about the execution (truncation, spill path, exit code, ...): persisted and evented,
  // never sent to the model.
  json::Object metadata;

  static ToolResult success(json::Value data = nullptr);
  static ToolResult text_result(std::string text);
  static ToolResult failure(std::string code, std::string detail);
  // A failure from an Error: the code is the error's "code" detail when it has one, else the one
  // Errc-to-code table ("invalid_arguments" for invalid_argument and validation_error, "aborted"
  // for cancelled, the Errc's name otherwise); the message is the detail; the error's other
  // details (resolved path, offsets, ...) go to metadata, never to the model.
  static ToolResult failure(const Error& error);

  // The content blocks the model receives.
  std::vector<ContentBlock> to_content() const;
};

using ToolHandler = std::function<ToolResult(const json::Value& arguments, const ToolContext& ctx)>;
// Answers true when this call must wait for a person's decision.
using ApprovalPredicate = std::function<bool(const json::Value& arguments)>;

struct ToolDefinition {
  std::string name;
  std::string description;
  Schema input_schema;
  ToolHandler handler;
  ExecutionMode execution_mode = ExecutionMode::parallel;
  ToolTimeout timeout = ToolTimeout::inherit();
  // Extra lines for the system prompt about when and how to use the tool.
  std::string prompt_guidelines;
  // Who supplies the tool ("builtin", a library or plugin name); named when two tools collide.
  std::string origin;
  // Every call of this tool waits for a person's decision before it runs. Default: none do.
  bool requires_approval = false;
  // Decides per call, over the prepared arguments (after before_tool_call's rewrite); true asks.
  // It fails closed: a predicate that throws, or arguments that could not be prepared for it to
  // see, ask. Empty (the default): only `requires_approval` decides. Called on the loop thread.
  ApprovalPredicate approval_predicate{};
};

// ---- Approvals (human in the loop) -------------------------------------------------------

// A call waiting for a person: what RunResult::pending_approvals lists and the log records.
struct PendingApproval {
  // Which rule asked.
  enum class Why : std::uint8_t {
    flag,         // ToolDefinition::requires_approval
    predicate,    // ToolDefinition::approval_predicate answered true, threw, or could not judge
    interceptor,  // before_tool_call answered ToolCallDecision::ask()
  };
  std::string tool_use_id;
  std::string tool_name;
  // The prepared arguments the handler would receive; the model's bytes parsed as they are (or
  // null) when they could not be prepared.
  json::Value arguments;
  Why why = Why::flag;
  // For the person deciding: the interceptor's reason, the predicate's failure, or a sentence
  // naming the rule.
  std::string detail;
  friend bool operator==(const PendingApproval&, const PendingApproval&) = default;
};
std::string_view to_string(PendingApproval::Why why) noexcept;

// A person's answer to one pending call, carried by the next run (Turn::approvals).
struct ApprovalDecision {
  std::string tool_use_id;
  bool approved = false;
  // For a rejection: what the model reads in the call's error result.
  std::string reason;
  friend bool operator==(const ApprovalDecision&, const ApprovalDecision&) = default;

  static ApprovalDecision approve(std::string tool_use_id) {
    return {std::move(tool_use_id), true, {}};
  }
  static ApprovalDecision reject(std::string tool_use_id, std::string reason) {
    return {std::move(tool_use_id), false, std::move(reason)};
  }
};

// The JSON forms the session log and SessionHandle store.
json::Value to_json(const PendingApproval& pending);
json::Value to_json(const ApprovalDecision& decision);
Result<PendingApproval> pending_approval_from_json(const json::Value& v);
Result<ApprovalDecision> approval_decision_from_json(const json::Value& v);

// ---- Interceptors (the authorization boundary) -------------------------------------

// One call as before_tool_call sees it, after its arguments went through prepare_arguments.
struct ToolCallRequest {
  std::string tool_name;
  std::string tool_use_id;
  json::Value arguments;     // prepared arguments
  json::Raw raw_arguments;   // the model's bytes
  int index_in_batch = 0;
  int batch_size = 1;
  int turn_index = 0;
  const ToolDefinition* tool = nullptr;  // the registered definition (never null for known tools)
};

// allow, deny with a reason (the model sees the reason), rewrite the arguments, or ask a person
// (the reason is shown to the person as PendingApproval::detail). A denial with `terminate` also
// votes to end the run after the batch. A call a person already approved is not asked again:
// ask then means allow (a denial still denies).
struct ToolCallDecision {
  enum class Kind : std::uint8_t { allow, deny, rewrite, ask };
  Kind kind = Kind::allow;
  std::string reason;
  json::Value arguments;
  bool terminate = false;

  static ToolCallDecision allow() { return {}; }
  static ToolCallDecision deny(std::string reason, bool terminate = false) {
    return {Kind::deny, std::move(reason), nullptr, terminate};
  }
  static ToolCallDecision rewrite(json::Value arguments) {
    return {Kind::rewrite, {}, std::move(arguments), false};
  }
  static ToolCallDecision ask(std::string reason) {
    return {Kind::ask, std::move(reason), nullptr, false};
  }
};

using BeforeToolCall = std::function<ToolCallDecision(const ToolCallRequest&)>;

// What after_tool_call sees: the handler's result (read-only) and the message the model will get
// (mutable: an interceptor may redact or annotate it).
struct ToolCallOutcome {
  std::string tool_name;
  std::string tool_use_id;
  const json::Value& arguments;
  const ToolResult& handler_result;
  ToolResultMessage& message;
  std::chrono::milliseconds elapsed{0};
};
// Answers an override of the call's terminate vote, or nullopt to keep it.
using AfterToolCall = std::function<std::optional<bool>(ToolCallOutcome&)>;

// Names of the tools that run a shell or arbitrary programs. An agent whose tools include one of
// these and that has no before_tool_call interceptor is refused.
bool is_shell_tool_name(std::string_view name) noexcept;

}  // namespace agentkit
