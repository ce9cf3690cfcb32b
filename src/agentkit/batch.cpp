// The batch executor (REQ-LOOP-05, -05a, -05b, -10, -11; ARCHITECTURE §7.3).
//
//   1. prepare, sequentially in call order on the loop thread: argument pipeline,
//      before_tool_call, the approval rules. Nothing is emitted yet.
//   1a. the approval decision, taken ONCE: a call that needs a person holds the whole batch (no
//      handler runs, no event is emitted; the loop stops awaiting approval). Otherwise each call
//      opens (start event) in call order, and one that failed preparing is finalized at once.
//   2. the abort decision, taken ONCE: cancelled now -> no handler runs at all. A held batch now
//      run writes a started marker per call to the log before any handler.
//   3. execute: every prepared handler on its own thread when the batch is parallel, one after
//      another otherwise. Nothing is cancelled because a sibling failed.
//   4. finalize under one batch mutex: after_tool_call, end event. Results are returned in call
//      order whatever the completion order.
#include <chrono>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "audit_sites.hpp"
#include "image_boundary.hpp"
#include "plugins.hpp"
#include "run_context.hpp"

namespace agentkit::detail {
namespace {

using SteadyClock = std::chrono::steady_clock;

// REQ-LOOP-10: a call cut off by the output limit is never run; its arguments may be truncated.
std::string truncated_call_text(std::string_view tool_name) {
  return "Tool call '" + std::string(tool_name) +
         "' was not executed: the response hit the output token limit, so its arguments may be "
         "truncated. Re-issue the call with complete arguments.";
}

constexpr std::string_view kAbortedText = "Operation aborted";

// How much of a rejected call's arguments is echoed back to the model.
constexpr std::size_t kMaxArgumentEcho = 2000;

std::string bounded_echo(std::string_view bytes) {
  if (bytes.size() <= kMaxArgumentEcho) return std::string(bytes);
  return std::string(bytes.substr(0, kMaxArgumentEcho)) + "... (" + std::to_string(bytes.size()) + " bytes)";
}

constexpr std::string_view kInterruptedText =
    "interrupted: it may or may not have taken effect. The process running this call stopped "
    "before its result was recorded, so it was not run again; check its effect before retrying.";

struct CallSlot {
  const ToolUseBlock* call = nullptr;
  const RegisteredTool* tool = nullptr;
  json::Value arguments;
  json::Value parsed;               // the model's arguments as parsed, for the start event
  bool answered = false;            // its result is already in the history: nothing to do
  bool prepared = false;            // prepare ran (not cut short by a cancel)
  bool ready_to_run = false;        // passed the pipeline, the interceptor and the approval rules
  std::optional<ToolResult> early;  // failed while preparing: finalized when the batch opens
  std::optional<PendingApproval> ask;
  bool finalized = false;
  ToolResult result;
  ToolResultMessage message;
  bool terminate = false;
  // The authorization decision, for the audit record (audit_sites.hpp names the values).
  std::string_view approval = "not_reached";
  SteadyClock::time_point started;
  trace::SpanPtr span = tracing::noop_span();  // execute_tool, ended in finalize
};

class Batch {
 public:
  Batch(RunContext& rc, const AssistantMessage& message, const ApprovalBook* held,
        const std::set<std::string, std::less<>>* answered)
      : rc_(rc), message_(message), held_(held) {
    for (const auto& block : message.content) {
      if (const auto* use = std::get_if<ToolUseBlock>(&block)) {
        slots_.push_back(CallSlot{});
        slots_.back().call = use;
        slots_.back().answered = answered != nullptr && answered->contains(use->id);
      }
    }
  }

  BatchOutcome run() {
    if (message_.stop_reason == StopReason::length) {
      for (auto& slot : slots_) {
        start(slot, nullptr);
        fail_now(slot, "truncated", truncated_call_text(slot.call->name), /*after_hook=*/false);
      }
      return outcome();
    }
    prepare_all();
    // A call that needs a person holds the whole batch, unless the run is being cancelled (then
    // the abort decision below closes every call, the asks included).
    if (!rc_.stop.stop_requested()) {
      BatchOutcome held;
      for (auto& slot : slots_) {
        if (slot.ask) held.pending.push_back(std::move(*slot.ask));
      }
      if (!held.pending.empty()) return held;
    }
    open_all();
    // The one abort decision: after prepare, before any handler (REQ-LOOP-11).
    if (rc_.stop.stop_requested()) {
      for (auto& slot : slots_) {
        if (!slot.finalized && !slot.answered)
          fail_now(slot, "aborted", std::string(kAbortedText), false);
      }
      return outcome();
    }
    execute_prepared();
    return outcome();
  }

 private:
  void prepare_all() {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      // A cancel stops preparing; the unprepared still open and close once (aborted at the
      // decision).
      if (rc_.stop.stop_requested()) return;
      if (!slots_[i].answered) prepare(slots_[i], static_cast<int>(i));
    }
  }

  // Opens every call in call order; a call that failed while preparing closes at once.
  void open_all() {
    for (auto& slot : slots_) {
      if (slot.answered) continue;
      start(slot, slot.prepared ? &slot.parsed : nullptr);
      if (slot.early) finalize(slot, std::move(*slot.early), /*after_hook=*/true);
    }
  }

  const ApprovalDecision* decision_for(const CallSlot& slot) const {
    if (held_ == nullptr) return nullptr;
    auto it = held_->decided.find(slot.call->id);
    return it == held_->decided.end() ? nullptr : &it->second;
  }

  void prepare(CallSlot& slot, int index) {
    const ToolUseBlock& call = *slot.call;
    slot.prepared = true;
    // At most once: a call whose handler began in an earlier process is never run again.
    if (held_ != nullptr && held_->started.contains(call.id)) {
      return fail_early(slot, "interrupted",
                        "Tool '" + call.name + "' was " + std::string(kInterruptedText));
    }
    const ApprovalDecision* decided = decision_for(slot);
    if (decided != nullptr && !decided->approved) {
      slot.approval = "rejected";
      return fail_early(slot, "rejected",
                        "The user rejected this call of '" + call.name + "'" +
                            (decided->reason.empty() ? std::string(".") : ": " + decided->reason));
    }
    // The batch's approval decision is taken once: in a held batch now run, nothing asks again
    // (the person answered the asks; the other calls did not ask when the batch was held).
    bool approved = held_ != nullptr;
    Result<json::Value> parsed = call.parse_input();
    if (parsed) slot.parsed = *parsed;

    slot.tool = rc_.agent.registry.find(call.name);
    if (slot.tool == nullptr) return fail_early(slot, "unknown_tool", unknown_tool_text(call.name));
    if (!rc_.offered.contains(call.name)) {
      return fail_early(
          slot, "tool_not_available",
          "Tool '" + call.name +
              "' exists but is not available in this turn; use one of: " + offered_list());
    }
    const ToolDefinition& def = slot.tool->definition;
    bool guarded = def.requires_approval || static_cast<bool>(def.approval_predicate);
    if (!parsed) {
      std::string why =
          "The arguments of '" + call.name + "' are not valid JSON: " + parsed.error().message;
      if (guarded && !approved)
        return ask(slot, approval_rule(def), "the arguments could not be checked. " + why);
      return fail_early(slot, "invalid_arguments", std::move(why));
    }
    Result<json::Value> prepared = prepare_arguments(def.input_schema, std::move(*parsed));
    if (!prepared) {
      // Echo the model's own bytes (bounded) so it can see exactly what to correct (REQ-TOOL-11).
      std::string why = "Invalid arguments for '" + call.name + "': " + prepared.error().message +
                        ". Arguments received: " + bounded_echo(call.input.str());
      if (guarded && !approved)
        return ask(slot, approval_rule(def), "the arguments could not be checked. " + why);
      return fail_early(slot, "invalid_arguments", std::move(why));
    }
    slot.arguments = std::move(*prepared);
    if (!intercept(slot, index, approved)) return;
    if (!consult_plugin_hooks(slot)) return;
    if (!approved && needs_approval(slot)) return;
    if (decided != nullptr) slot.approval = "approved";
    slot.ready_to_run = true;
  }

  static PendingApproval::Why approval_rule(const ToolDefinition& def) {
    return def.requires_approval ? PendingApproval::Why::flag : PendingApproval::Why::predicate;
  }

  void ask(CallSlot& slot, PendingApproval::Why why, std::string detail) {
    const json::Value& shown = slot.arguments.is_null() ? slot.parsed : slot.arguments;
    slot.ask = PendingApproval{slot.call->id, slot.call->name, shown, why, std::move(detail)};
  }

  // The tool's own rules, over the arguments the handler would receive. Fails closed.
  bool needs_approval(CallSlot& slot) {
    const ToolDefinition& def = slot.tool->definition;
    if (def.requires_approval) {
      ask(slot, PendingApproval::Why::flag, "'" + def.name + "' requires approval for every call.");
      return true;
    }
    if (!def.approval_predicate) return false;
    bool asks = true;
    std::string failure;
    if (!call_guarded([&] { asks = def.approval_predicate(slot.arguments); }, failure)) {
      ask(slot, PendingApproval::Why::predicate,
          "the approval predicate of '" + def.name +
              "' failed, so the call waits for a person: " + failure);
      return true;
    }
    if (asks)
      ask(slot, PendingApproval::Why::predicate,
          "the approval predicate of '" + def.name + "' asked.");
    return asks;
  }

  // before_tool_call: the authorization boundary. A throwing interceptor fails closed. For a call
  // a person approved, an ask is the allow it was waiting for.
  bool intercept(CallSlot& slot, int index, bool approved) {
    const BeforeToolCall& before = rc_.agent.runtime.extensions.before_tool_call;
    if (!before) {
      slot.approval = "no_policy";
      return true;
    }
    ToolCallRequest request{slot.call->name, slot.call->id, slot.arguments, slot.call->input,
                            index, static_cast<int>(slots_.size()), rc_.turn_index,
                            &slot.tool->definition};
    ToolCallDecision decision;
    std::string failure;
    if (!call_guarded([&] { decision = before(request); }, failure)) {
      slot.approval = "denied";
      fail_early(slot, "blocked_by_policy", "The before_tool_call interceptor failed: " + failure);
      return false;
    }
    switch (decision.kind) {
      case ToolCallDecision::Kind::allow: slot.approval = "allowed"; return true;
      case ToolCallDecision::Kind::rewrite:
        slot.approval = "rewritten";
        slot.arguments = std::move(decision.arguments);
        return true;
      case ToolCallDecision::Kind::deny:
        slot.approval = "denied";
        slot.terminate = decision.terminate;
        fail_early(slot, "blocked_by_policy",
                   decision.reason.empty() ? "Blocked by policy." : decision.reason);
        return false;
      case ToolCallDecision::Kind::ask:
        slot.approval = "approved";
        if (approved) return true;
        ask(slot, PendingApproval::Why::interceptor,
            decision.reason.empty() ? "before_tool_call asked for a person's decision."
                                    : decision.reason);
        return false;
    }
    return true;
  }

  // The plugins' event hooks, after before_tool_call allowed the call: they may only narrow.
  bool consult_plugin_hooks(CallSlot& slot) {
    if (rc_.agent.plugins->hooks.empty()) return true;
    HookToolCall call{rc_.session.id, slot.call->name,  slot.tool->mcp_server, slot.call->id,
                      slot.arguments, slot.call->input, rc_.turn_index,        rc_.stop};
    std::optional<HookBlock> block = consult_hooks(rc_, call);
    if (!block) return true;
    fail_early(slot, "blocked_by_hook", std::move(block->reason));
    slot.early->metadata.set("hook", block->hook);
    return false;
  }

  void fail_early(CallSlot& slot, std::string code, std::string detail) {
    slot.early = ToolResult::failure(std::move(code), std::move(detail));
  }

  void execute_prepared() {
    std::vector<CallSlot*> ready;
    std::vector<const ToolUseBlock*> calls;
    bool any_sequential = false;
    for (auto& slot : slots_) {
      if (!slot.ready_to_run) continue;
      ready.push_back(&slot);
      calls.push_back(slot.call);
      any_sequential |= slot.tool->definition.execution_mode == ExecutionMode::sequential;
    }
    // A held batch is the one a process may die in after a person said yes: the markers let the
    // next process tell "never started" (run it) from "started, no result" (interrupted).
    if (held_ != nullptr && !calls.empty()) log_calls_started(rc_.session, calls);
    bool parallel = rc_.agent.runtime.loop.parallel_tools && !any_sequential && ready.size() > 1;
    if (!parallel) {
      for (CallSlot* slot : ready) execute(*slot);
      return;
    }
    std::vector<agentkit::jthread> workers;
    workers.reserve(ready.size());
    for (CallSlot* slot : ready) {
      workers.emplace_back([this, slot] { execute(*slot); });
    }
    // jthread joins on destruction: every worker is joined before results are read.
  }

  void execute(CallSlot& slot) {
    const ToolDefinition& def = slot.tool->definition;
    agentkit::stop_source call_stop;
    agentkit::stop_callback forward(rc_.stop, [&call_stop] { call_stop.request_stop(); });
    std::optional<std::chrono::milliseconds> limit = def.timeout.resolve(rc_.agent.runtime.loop.tool_timeout);
    std::uint64_t ticket = 0;
    if (limit) ticket = rc_.session.timer.schedule(SteadyClock::now() + *limit, call_stop);

    ToolContext ctx;
    ctx.tool_name = slot.call->name;
    ctx.tool_use_id = slot.call->id;
    ctx.session_id = rc_.session.id;
    ctx.turn_index = rc_.turn_index;
    ctx.stop = call_stop.get_token();
    ctx.span = slot.span->recording() ? slot.span.get() : nullptr;
    ctx.run = &rc_.scope;
    ctx.report = [this, &slot](std::string_view chunk) {
      rc_.emit(ToolExecutionUpdateEvent{slot.call->id, slot.call->name, std::string(chunk)});
    };
    ctx.log = [this, &slot](std::string_view level, std::string_view logger,
                            const json::Value& data) {
      rc_.emit(ToolLogEvent{slot.call->id, slot.call->name, std::string(level), std::string(logger),
                            data});
    };

    std::string failure;
    ToolResult result;
    bool returned = call_guarded([&] { result = def.handler(slot.arguments, ctx); }, failure);
    if (ticket != 0) rc_.session.timer.cancel(ticket);
    bool timed_out = limit && call_stop.stop_requested() && !rc_.stop.stop_requested();
    if (!returned) {
      result = ToolResult::failure("tool_error", "Tool '" + slot.call->name + "' failed: " + failure);
    } else if (timed_out) {
      result = ToolResult::failure("timeout", "Tool '" + slot.call->name + "' did not finish within " +
                                                  std::to_string(limit->count()) + " ms.");
    }
    finalize(slot, std::move(result), /*after_hook=*/true);
  }

  void start(CallSlot& slot, const json::Value* arguments) {
    slot.started = SteadyClock::now();
    slot.span =
        trace::start_tool(*rc_.run_span, rc_.agent.runtime.observability.tracing, *slot.call);
    rc_.emit(ToolExecutionStartEvent{slot.call->id, slot.call->name,
                                     arguments ? *arguments : json::Value()});
  }

  void fail_now(CallSlot& slot, std::string code, std::string detail, bool after_hook) {
    finalize(slot, ToolResult::failure(std::move(code), std::move(detail)), after_hook);
  }

  // Phase 3, serialised by the batch mutex. Runs for every call exactly once.
  void finalize(CallSlot& slot, ToolResult result, bool after_hook) {
    std::lock_guard lock(finalize_mu_);
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - slot.started);
    slot.result = std::move(result);
    slot.terminate = slot.terminate || slot.result.terminate;
    slot.message.tool_use_id = slot.call->id;
    slot.message.tool_name = slot.call->name;
    slot.message.content = slot.result.to_content();
    slot.message.is_error = !slot.result.ok;
    slot.message.metadata = slot.result.metadata;
    if (!slot.result.ok && !slot.result.error.empty() && !slot.message.metadata.contains("error_code")) {
      slot.message.metadata.set("error_code", slot.result.error);
    }
    slot.message.timestamp = rc_.agent.now();
    const AfterToolCall& after = rc_.agent.runtime.extensions.after_tool_call;
    if (after_hook && after) {
      ToolCallOutcome outcome{slot.call->name, slot.call->id, slot.arguments, slot.result, slot.message, elapsed};
      std::optional<bool> vote;
      std::string failure;
      if (!call_guarded([&] { vote = after(outcome); }, failure)) {
        rc_.emit(ErrorEvent{make_error(Errc::internal, "after_tool_call threw for '" +
                                                           slot.call->name + "': " + failure),
                            false});
      } else if (vote) {
        slot.terminate = *vote;
      }
    }
    // After the hook: it is the one path that can add an image no tool knows about.
    normalize_images_for_history(rc_.agent.image_normalizer, slot.message.content);
    if (after_hook && !rc_.agent.plugins->hooks.empty()) {
      std::string_view server = slot.tool != nullptr ? slot.tool->mcp_server : std::string_view();
      HookToolResult seen{rc_.session.id, slot.call->name, server,  slot.call->id,
                          slot.arguments, slot.message,    elapsed, rc_.stop};
      // Only what a handler produced is reviewed: a refused call's error withholds nothing.
      if (slot.ready_to_run) review_tool_result(rc_, seen, slot.result, slot.message);
      notify_after_tool_call(rc_, seen);
    }
    slot.finalized = true;
    trace::end_tool(*slot.span, rc_.agent.runtime.observability.tracing, slot.arguments,
                    slot.message, slot.result.error);
    audit(slot, elapsed);
    rc_.emit(ToolExecutionEndEvent{slot.call->id, slot.call->name, slot.message, elapsed});
  }

  void audit(const CallSlot& slot, std::chrono::milliseconds elapsed) {
    if (!rc_.agent.runtime.observability.audit) return;
    AuditedCall facts;
    facts.tool = slot.call->name;
    if (slot.tool != nullptr && slot.tool->definition.origin.starts_with("mcp:"))
      facts.server = std::string_view(slot.tool->definition.origin).substr(4);
    facts.argument_bytes = slot.call->input.str();
    facts.ok = slot.result.ok;
    facts.error_code = slot.result.error;
    facts.elapsed = elapsed;
    facts.approval = slot.approval;
    // read_skill takes exactly one {name, path?} (its schema), so one skill per call.
    if (slot.tool != nullptr && slot.tool->definition.origin == "intrinsic" &&
        slot.call->name == kReadSkillToolName) {
      const json::Value* list = slot.arguments.find("skills");
      if (list != nullptr && list->is_array() && !list->as_array().empty()) {
        const json::Value* name = list->as_array().front().find("name");
        if (name != nullptr && name->is_string()) facts.skill = name->as_string();
      }
    }
    audit_tool_call(rc_, facts);
  }

  BatchOutcome outcome() {
    BatchOutcome out;
    out.results.reserve(slots_.size());
    out.all_voted_terminate = !slots_.empty();
    for (auto& slot : slots_) {
      if (slot.answered) continue;
      out.all_voted_terminate = out.all_voted_terminate && slot.terminate;  // AND, never OR
      out.results.push_back(std::move(slot.message));
    }
    return out;
  }

  std::string offered_list() const {
    std::string names;
    for (const auto& n : rc_.offered) names += (names.empty() ? "" : ", ") + n;
    return names.empty() ? "(no tools this turn)" : names;
  }

  std::string unknown_tool_text(std::string_view name) const {
    return "There is no tool named '" + std::string(name) + "'. Available tools: " + offered_list() + ".";
  }

  RunContext& rc_;
  const AssistantMessage& message_;
  const ApprovalBook* held_;
  std::vector<CallSlot> slots_;
  std::mutex finalize_mu_;
};

}  // namespace

BatchOutcome run_tool_batch(RunContext& rc, const AssistantMessage& message,
                            const ApprovalBook* held,
                            const std::set<std::string, std::less<>>* answered) {
  Batch batch(rc, message, held, answered);
  return batch.run();
}

}  // namespace agentkit::detail
