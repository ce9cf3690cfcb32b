// Compaction's pure half: the checkpoint a session carries, the token estimate of the next
// request, where the cut goes, the view a request sends, and the summary request's text. No
// model call and no lock here, so the planner can be benchmarked and reasoned about alone; the
// loop's half (events, the summary call, the log) is compaction.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"

namespace agentkit::detail {

// The summary in force. history[0, prefix_len) is replaced, in what the model sees, by the
// summary followed by the pinned messages (indices below prefix_len, ascending). The stored
// history never changes; once made, a checkpoint is applied to every later request and only
// ever moves forward (the estimate is taken on the compacted view, so it cannot oscillate).
struct CompactionCheckpoint {
  std::size_t prefix_len = 0;  // 0: no compaction yet
  std::vector<std::size_t> pinned;
  std::string summary;
  // The history's size when the checkpoint was made: replies before it report usage for a
  // context that is no longer sent, so they never anchor the estimate, and their thinking is
  // left out of the view (signed thinking is bound to the context it followed).
  std::size_t created_at = 0;

  bool active() const noexcept { return prefix_len > 0; }
};

// Where one compaction cuts.
struct CompactionPlan {
  std::size_t cut = 0;                 // the first history index sent verbatim after the summary
  std::vector<std::size_t> pinned;     // every pinned index (old and new), ascending, all < cut
  std::vector<std::size_t> summarise;  // the indices the new summary covers, ascending
};

// The estimated tokens of one message (bytes / 4, images a flat allowance).
std::int64_t estimate_message_tokens(const Message& message);

// The estimate of the next request under `cp`: the newest reply after the checkpoint with real
// usage (not aborted or failed, not zero) anchors it, plus bytes / 4 for what came after; with
// no such reply, bytes / 4 of the whole view plus `overhead` (system prompt and tools).
std::int64_t estimate_next_request(std::span<const Message> history, const CompactionCheckpoint& cp,
                                   std::int64_t overhead);

// Where a compaction of `history` under `cp` cuts: walk back from the newest message until
// `keep_recent_tokens` are covered, then forward to the next turn boundary (never on a tool
// result, never between a prompt and its reply), keeping at least the latest turn and never
// passing `keep_from` (a held batch's message). nullopt when nothing new would be summarised.
// Tool calls that read a skill's body (`pin_tool`), with their results, are pinned.
std::optional<CompactionPlan> plan_compaction(std::span<const Message> history,
                                              const CompactionCheckpoint& cp,
                                              std::int64_t keep_recent_tokens,
                                              std::optional<std::size_t> keep_from,
                                              std::string_view pin_tool);

// The messages a request sends under `cp` (the whole history when no checkpoint is active).
std::vector<Message> compacted_view(std::span<const Message> history,
                                    const CompactionCheckpoint& cp);

// The checkpoint after `plan` with `summary`.
CompactionCheckpoint advance(const CompactionCheckpoint& cp, const CompactionPlan& plan,
                             std::string summary, std::size_t history_size);

// The pinned system prompt of the summary call, and its one user message: the messages to
// summarise as plain text (each item capped), the previous summary when there is one, and the
// instructions. docs/api.md quotes both.
extern const std::string_view kSummarySystemPrompt;
std::string summary_request_text(std::span<const Message> history, const CompactionPlan& plan,
                                 std::string_view previous_summary);

}  // namespace agentkit::detail
