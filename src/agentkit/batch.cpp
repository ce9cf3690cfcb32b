// The batch executor (REQ-LOOP-05, -05a, -05b, -10, -11; ARCHITECTURE §7.3).
//
//   1. prepare, sequentially in call order on the loop thread: start event, argument pipeline,
//      before_tool_call. A call that fails here is finalized at once.
//   2. the abort decision, taken ONCE: cancelled now -> no handler runs at all.
//   3. execute: every prepared handler on its own thread when the batch is parallel, one after
//      another otherwise. Nothing is cancelled because a sibling failed.
//   4. finalize under one batch mutex: after_tool_call, end event. Results are returned in call
//      order whatever the completion order.
#include <chrono>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "image_boundary.hpp"
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

struct CallSlot {
  const ToolUseBlock* call = nullptr;
  const RegisteredTool* tool = nullptr;
  json::Value arguments;
  bool ready_to_run = false;  // passed the pipeline and the interceptor
  bool finalized = false;
  ToolResult result;
  ToolResultMessage message;
  bool terminate = false;
  SteadyClock::time_point started;
  trace::SpanPtr span = tracing::noop_span();  // execute_tool, ended in finalize
};

class Batch {
 public:
  Batch(RunContext& rc, const AssistantMessage& message) : rc_(rc), message_(message) {
    for (const auto& block : message.content) {
      if (const auto* use = std::get_if<ToolUseBlock>(&block)) {
        slots_.push_back(CallSlot{});
        slots_.back().call = use;
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
    // The one abort decision: after prepare, before any handler (REQ-LOOP-11).
    if (rc_.stop.stop_requested()) {
      for (auto& slot : slots_) {
        if (!slot.finalized) fail_now(slot, "aborted", std::string(kAbortedText), false);
      }
      return outcome();
    }
    execute_prepared();
    return outcome();
  }

 private:
  void prepare_all() {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      CallSlot& slot = slots_[i];
      if (rc_.stop.stop_requested()) {
        // Stop preparing; the unprepared still open and close once (aborted at the decision).
        for (std::size_t j = i; j < slots_.size(); ++j) start(slots_[j], nullptr);
        return;
      }
      prepare(slot, static_cast<int>(i));
    }
  }

  void prepare(CallSlot& slot, int index) {
    const ToolUseBlock& call = *slot.call;
    Result<json::Value> parsed = call.parse_input();
    start(slot, parsed ? &*parsed : nullptr);

    slot.tool = rc_.agent.registry.find(call.name);
    if (slot.tool == nullptr) {
      return fail_now(slot, "unknown_tool", unknown_tool_text(call.name), true);
    }
    if (!rc_.offered.contains(call.name)) {
      return fail_now(slot, "tool_not_available",
                      "Tool '" + call.name + "' exists but is not available in this turn; use one of: " +
                          offered_list(),
                      true);
    }
    if (!parsed) {
      return fail_now(slot, "invalid_arguments",
                      "The arguments of '" + call.name + "' are not valid JSON: " + parsed.error().message,
                      true);
    }
    Result<json::Value> prepared = prepare_arguments(slot.tool->definition.input_schema, std::move(*parsed));
    if (!prepared) {
      // Echo the model's own bytes (bounded) so it can see exactly what to correct (REQ-TOOL-11).
      return fail_now(slot, "invalid_arguments",
                      "Invalid arguments for '" + call.name + "': " + prepared.error().message +
                          ". Arguments received: " + bounded_echo(call.input.str()),
                      true);
    }
    slot.arguments = std::move(*prepared);
    if (!intercept(slot, index)) return;
    slot.ready_to_run = true;
  }

  // before_tool_call: the authorization boundary. A throwing interceptor fails closed.
  bool intercept(CallSlot& slot, int index) {
    const BeforeToolCall& before = rc_.agent.runtime.extensions.before_tool_call;
    if (!before) return true;
    ToolCallRequest request{slot.call->name, slot.call->id, slot.arguments, slot.call->input,
                            index, static_cast<int>(slots_.size()), rc_.turn_index,
                            &slot.tool->definition};
    ToolCallDecision decision;
    std::string failure;
    if (!call_guarded([&] { decision = before(request); }, failure)) {
      fail_now(slot, "blocked_by_policy", "The before_tool_call interceptor failed: " + failure, true);
      return false;
    }
    switch (decision.kind) {
      case ToolCallDecision::Kind::allow:
        return true;
      case ToolCallDecision::Kind::rewrite:
        slot.arguments = std::move(decision.arguments);
        return true;
      case ToolCallDecision::Kind::deny:
        slot.terminate = decision.terminate;
        fail_now(slot, "blocked_by_policy",
                 decision.reason.empty() ? "Blocked by policy." : decision.reason, true);
        return false;
    }
    return true;
  }

  void execute_prepared() {
    std::vector<CallSlot*> ready;
    bool any_sequential = false;
    for (auto& slot : slots_) {
      if (!slot.ready_to_run) continue;
      ready.push_back(&slot);
      any_sequential |= slot.tool->definition.execution_mode == ExecutionMode::sequential;
    }
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
    ctx.report = [this, &slot](std::string_view chunk) {
      rc_.emit(ToolExecutionUpdateEvent{slot.call->id, slot.call->name, std::string(chunk)});
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
    slot.finalized = true;
    trace::end_tool(*slot.span, rc_.agent.runtime.observability.tracing, slot.arguments,
                    slot.message, slot.result.error);
    rc_.emit(ToolExecutionEndEvent{slot.call->id, slot.call->name, slot.message, elapsed});
  }

  BatchOutcome outcome() {
    BatchOutcome out;
    out.results.reserve(slots_.size());
    out.all_voted_terminate = !slots_.empty();
    for (auto& slot : slots_) {
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
  std::vector<CallSlot> slots_;
  std::mutex finalize_mu_;
};

}  // namespace

BatchOutcome run_tool_batch(RunContext& rc, const AssistantMessage& message) {
  Batch batch(rc, message);
  return batch.run();
}

}  // namespace agentkit::detail
