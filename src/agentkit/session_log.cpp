// The loop's side of the session log: start from the log's branch, write each message as it joins
// the transcript, end each turn. A write failure costs the log an entry, never the run a turn.
#include <span>

#include "internal.hpp"
#include "run_context.hpp"

namespace agentkit::detail {
namespace {

void report(SessionCore& s, const Error& error) {
  if (s.has_listeners()) s.emit(ErrorEvent{error, false});
  if (!s.on_log_error) return;
  std::string failure;
  if (!call_guarded([&] { s.on_log_error(error); }, failure) && s.has_listeners()) {
    s.emit(ErrorEvent{make_error(Errc::internal, "the session log's error callback threw: " +
                                                     failure),
                      false});
  }
}

}  // namespace

void attach_log(SessionCore& s, const AgentCore& agent, StartOptions& options) {
  s.log = std::move(options.log);
  s.on_log_error = std::move(options.on_log_error);
  if (!s.log) return;
  if (SessionStateAccess::get(options.resume) == nullptr) {
    session::Resumed state = session::fold(s.log->contents().entries, s.log->leaf());
    s.history = std::move(state.messages);
    s.entry_ids = std::move(state.entry_ids);
    s.committed = s.history.size();
    // A message the codec cannot read is left out of the context; the person running the
    // session hears which, and its line stays in the log.
    for (const session::Repair& r : state.unreadable) {
      report(s, make_error(Errc::parse_error, "session log: " + r.detail));
    }
    if (state.compaction) {
      // The fold put the summary first: the session goes on under that checkpoint, and the
      // kept replies' usage (made for the longer context) anchors no estimate.
      s.compaction.prefix_len = 1;
      s.compaction.summary = std::move(state.compaction->summary);
      s.compaction.created_at = s.history.size();
    }
    // A batch held for a person outlives the process that held it.
    s.approvals.pending = std::move(state.approvals.pending);
    for (auto& d : state.approvals.decided)
      s.approvals.decided.insert_or_assign(d.tool_use_id, std::move(d));
    for (auto& id : state.approvals.started) s.approvals.started.insert(std::move(id));
    if (options.session_id.empty() && !s.log->contents().header.id.empty()) {
      s.id = s.log->contents().header.id;
    }
  } else {
    s.entry_ids.assign(s.history.size(), std::string());
  }
  // The agent is immutable: a different model or thinking level over this log is a new agent,
  // recorded here so that a later fold rebuilds this one.
  const Model& m = *agent.model;
  if (auto recorded = s.log->record_model({m.vendor, m.api, m.id}); !recorded) {
    report(s, recorded.error());
  }
  if (auto recorded = s.log->record_thinking(agent.runtime.model.thinking); !recorded) {
    report(s, recorded.error());
  }
}

void log_messages(SessionCore& s, std::span<const Message> messages) {
  if (!s.log) return;
  for (const Message& m : messages) {
    if (auto written = s.log->append_message(m); !written) report(s, written.error());
    s.entry_ids.push_back(s.log->leaf());  // the new entry, written or kept in memory
  }
}

void log_end_turn(SessionCore& s) {
  if (!s.log) return;
  if (auto synced = s.log->end_turn(); !synced) report(s, synced.error());
}

void log_compaction(SessionCore& s, const session::CompactionRecord& record) {
  if (!s.log) return;
  if (record.first_kept_entry_id.empty()) {
    // History from a handle the log never saw: no entry to anchor on. The checkpoint holds in
    // memory; the log keeps the full context.
    report(s, make_error(Errc::not_found,
                         "the compaction was not written to the session log: its kept part starts "
                         "at a message the log did not record (a session resumed from a handle)"));
    return;
  }
  if (auto written = s.log->append_compaction(record); !written) report(s, written.error());
}

void log_approval_request(SessionCore& s, std::span<const PendingApproval> calls) {
  if (!s.log) return;
  if (auto written = s.log->append_approval_request(calls); !written) report(s, written.error());
}

void log_approval_decision(SessionCore& s, std::span<const ApprovalDecision> decisions) {
  if (!s.log) return;
  if (auto written = s.log->append_approval_decision(decisions); !written)
    report(s, written.error());
}

void log_calls_started(SessionCore& s, std::span<const ToolUseBlock* const> calls) {
  if (!s.log) return;
  for (const ToolUseBlock* call : calls) {
    if (auto written = s.log->append_tool_call_started(call->id, call->name); !written) {
      report(s, written.error());
    }
  }
  // On stable storage before any handler starts: a power loss must not turn "started" into
  // "never started" and let the next process run the call again.
  log_end_turn(s);
}

}  // namespace agentkit::detail
