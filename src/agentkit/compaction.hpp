// Compaction in the loop: at the head of a turn, right before the request it prepares (never
// after a turn end, so never for a request that will not be made). The planning is
// compaction_plan.hpp; this half makes the summary call, emits the events, moves the
// session's checkpoint and writes the log entry.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "run_context.hpp"

namespace agentkit::detail {

// Compacts the session's context when it is due: with `trigger` threshold, when the estimate
// of the next request exceeds the window minus the reserve; with overflow (the provider
// refused the request as too long), whenever there is something to summarise. The summary is
// asked of the session's own provider directly, not through the middleware chain, and its
// usage is added to `run_usage` and the session's. Answers true when a new checkpoint is in
// force; a failed summary changes nothing (events and a non-terminal ErrorEvent say why).
bool compact_if_due(RunContext& rc, std::string_view system, std::span<const ToolSpec> tools,
                    CompactionTrigger trigger, Usage& run_usage);

// What the next request sends: the compacted view, or nullopt for the history as it is.
std::optional<std::vector<Message>> compacted_request_view(const SessionCore& session);

}  // namespace agentkit::detail
