// Compaction in the loop (compaction.hpp): the trigger, the summary call, the checkpoint, the
// events and the log entry.
#include "compaction.hpp"

#include <algorithm>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/session/log.hpp"
#include "audit_sites.hpp"
#include "plugins.hpp"
#include "trace_sites.hpp"

namespace agentkit::detail {
namespace {

// The summary's output bound when none is configured: most of the reserve (the rest leaves
// room for the estimate's error), within the model's own output limit.
constexpr double kSummaryShareOfReserve = 0.8;

// Index of the held batch's message (the last assistant message) while a batch waits for a
// person: the cut never passes it.
std::optional<std::size_t> held_batch_index(const SessionCore& s) {
  if (!s.approvals.holds_batch()) return std::nullopt;
  for (std::size_t i = s.history.size(); i-- > 0;) {
    if (std::holds_alternative<AssistantMessage>(s.history[i])) return i;
  }
  return std::nullopt;
}

std::int64_t summary_max_tokens(const CompactionConfig& cfg, const Model& model) {
  if (cfg.summary_max_tokens) return *cfg.summary_max_tokens;
  auto bound =
      static_cast<std::int64_t>(kSummaryShareOfReserve * static_cast<double>(cfg.reserve_tokens));
  if (model.max_output_tokens > 0) bound = std::min(bound, model.max_output_tokens);
  return std::max<std::int64_t>(bound, 1);
}

struct Summary {
  std::string text;
  Usage usage;
  std::string failure;  // empty on success
};

// The summary call: the session's own provider and model, its own prompt and session id, no
// tools. Anything but a complete text answer is a failure, never a partial summary.
Summary summarise(RunContext& rc, const CompactionPlan& plan, const CompactionCheckpoint& cp,
                  tracing::Span& span) {
  const AgentCore& a = rc.agent;
  const SessionCore& s = rc.session;
  Summary out;
  std::vector<Message> messages{user_text(summary_request_text(s.history, plan, cp.summary))};
  Request req;
  req.model = a.model;
  req.system = std::string(kSummarySystemPrompt);
  req.messages = messages;
  req.max_tokens = summary_max_tokens(a.runtime.compaction, *a.model);
  // Its own cache key: the summary must not share (or evict) the conversation's prompt cache.
  req.session_id =
      (a.runtime.transport.session_id.empty() ? s.id : a.runtime.transport.session_id) +
      "/compaction";
  trace::ChatSpan chat(span, a.runtime, req, rc.turn_index);
  AssistantMessage reply;
  std::string thrown;
  bool returned = call_guarded(
      [&] {
        // The provider honours the stop token itself and ends the stream aborted, with what it
        // had: waiting for that (as the loop does) is what lets a partial summary be refused.
        EventStream stream = a.provider->stream(req, a.runtime.transport.request, rc.stop);
        Result<AssistantMessage> r = stream.result();
        if (r) {
          reply = std::move(*r);
        } else {
          reply.stop_reason = StopReason::error;
          reply.error_message = r.error().message;
        }
      },
      thrown);
  if (!returned) {
    reply.stop_reason = StopReason::error;
    reply.error_message = "the summary call threw: " + thrown;
  }
  if (reply.model.empty()) reply.model = a.model->id;
  chat.end(reply);
  out.usage = reply.usage;
  // A model call like any other for whoever proves afterwards what the agent did.
  if (returned) audit_model_call(rc, reply);
  if (!returned) {
    out.failure = "the summary call threw: " + thrown;
  } else if (reply.stop_reason == StopReason::aborted) {
    out.failure = "the summary call was aborted" +
                  (reply.error_message.empty() ? std::string() : ": " + reply.error_message);
  } else if (reply.stop_reason == StopReason::error) {
    out.failure = "the summary call failed: " + reply.error_message;
  } else if (reply.stop_reason == StopReason::length) {
    out.failure = "the summary was cut off at its output limit (" +
                  std::to_string(*req.max_tokens) + " tokens)";
  } else if (has_tool_use(reply)) {
    out.failure = "the summary called a tool instead of answering";
  } else if (reply.stop_reason != StopReason::stop &&
             reply.stop_reason != StopReason::stop_sequence) {
    out.failure = "the summary ended with stop reason " + std::string(to_string(reply.stop_reason));
  } else if (out.text = text_of(reply); out.text.empty()) {
    out.failure = "the summary came back empty";
  }
  return out;
}

const std::string& entry_id(const SessionCore& s, std::size_t i) {
  static const std::string kNone;
  return i < s.entry_ids.size() ? s.entry_ids[i] : kNone;
}

void record(SessionCore& s, const CompactionPlan& plan, const CompactionCheckpoint& next,
            std::int64_t before, std::int64_t after) {
  if (!s.log) return;
  session::CompactionRecord r;
  r.summary = next.summary;
  r.first_kept_entry_id = entry_id(s, plan.cut);
  for (std::size_t i : plan.pinned) {
    if (!entry_id(s, i).empty()) r.pinned_entry_ids.push_back(entry_id(s, i));
  }
  r.dropped_messages = plan.summarise.size();
  r.dropped_from_entry_id = entry_id(s, plan.summarise.front());
  r.dropped_to_entry_id = entry_id(s, plan.summarise.back());
  r.tokens_before = before;
  r.tokens_after = after;
  log_compaction(s, r);
}

}  // namespace

bool compact_if_due(RunContext& rc, std::string_view system, std::span<const ToolSpec> tools,
                    CompactionTrigger trigger, Usage& run_usage) {
  const CompactionConfig& cfg = rc.agent.runtime.compaction;
  if (!cfg.enabled || !rc.agent.provider) return false;
  SessionCore& s = rc.session;
  const std::int64_t window = cfg.context_window.value_or(rc.agent.model->context_window);
  const std::int64_t overhead = catalog::estimate_prompt_tokens(system, {}, tools);
  const CompactionCheckpoint cp = s.compaction;  // the run thread is its only writer
  const std::int64_t before = estimate_next_request(s.history, cp, overhead);
  if (trigger == CompactionTrigger::threshold &&
      (window <= 0 || before <= window - cfg.reserve_tokens)) {
    return false;
  }
  // After an overflow the recent budget itself was too much: keep half of it.
  std::int64_t keep =
      trigger == CompactionTrigger::overflow ? cfg.keep_recent_tokens / 2 : cfg.keep_recent_tokens;
  std::optional<CompactionPlan> plan =
      plan_compaction(s.history, cp, keep, held_batch_index(s), kReadSkillToolName);
  if (!plan) return false;

  CompactionStartEvent start{trigger, before, std::max<std::int64_t>(window, 0),
                             plan->summarise.size(),
                             s.history.size() - plan->cut + plan->pinned.size()};
  rc.emit(start);
  trace::SpanPtr span =
      trace::start_compaction(*rc.run_span, trigger, before, plan->summarise.size());
  Summary summary = summarise(rc, *plan, cp, *span);
  run_usage += summary.usage;
  if (rc.budget) rc.budget->charge(summary.usage);  // a delegation's slice pays for it too
  {
    std::lock_guard lock(s.mu);
    s.usage += summary.usage;  // the budget sees the summary too, though no middleware did
  }
  CompactionEndEvent end{false, trigger, before, 0, plan->summarise.size(), {}, summary.usage, {}};
  if (!summary.failure.empty()) {
    end.error = summary.failure;
    trace::end_compaction(*span, 0, summary.failure);
    rc.emit(end);
    rc.emit(ErrorEvent{
        make_error(Errc::internal,
                   "compaction failed (the request is sent as it was): " + summary.failure),
        false});
    return false;
  }
  CompactionCheckpoint next = advance(cp, *plan, std::move(summary.text), s.history.size());
  const std::int64_t after = estimate_next_request(s.history, next, overhead);
  record(s, *plan, next, before, after);
  end.ok = true;
  end.tokens_after = after;
  end.summary = next.summary;
  const std::size_t kept = s.history.size() - plan->cut + plan->pinned.size();
  {
    std::lock_guard lock(s.mu);
    s.compaction = std::move(next);
    s.view_serial = next_view_serial();  // the view's prefix is new
  }
  notify_compaction(rc, HookCompaction{s.id, s.history.size(), kept + 1, before, after});
  trace::end_compaction(*span, after, {});
  rc.emit(std::move(end));
  return true;
}

std::optional<std::vector<Message>> compacted_request_view(const SessionCore& s) {
  if (!s.compaction.active()) return std::nullopt;
  return compacted_view(s.history, s.compaction);
}

}  // namespace agentkit::detail
