// agentkit/providers/repair.hpp — the send-time transcript repair every wire runs before encoding
//: a valid VIEW of the history for one request, never a change to the history.
//
//   using namespace agentkit::providers;
//   TranscriptView view = repair_for_send(history, model);   // history: std::span<const Message>
//   encode(view.messages());                                  // what the model may see
//   view.copied();                 // false when nothing needed repair: the view IS `history`
//
// Rules, in order:
//   1  same_model = the assistant message's (provider, api, model) equals the target's
//   2  drop assistant messages that ended in error or were aborted (their partial text stays in
//      the log and the UI, invisible to the model)
//   2b drop tool results whose tool use is not in the view (a result must follow, within the run
//      of results after it, the assistant message that asked for it, and answer it only once)
//   3  not same_model: signed thinking becomes text, redacted thinking is dropped, Gemini thought
//      signatures are stripped
//   4  thinking with a missing signature becomes text, or is dropped when empty
//   5  not same_model: tool-call ids are rewritten to the target's format (Anthropic: characters
//      outside [A-Za-z0-9_-] become '_', at most 64) and results follow the same mapping; the
//      mapping is injective (a suffix separates ids that would collide)
//   6  at every assistant -> non-result boundary and at the end, each unanswered tool use gets a
//      synthetic error result "No result provided"
//   7  images become "(image omitted: model does not support images)" when the target lacks image
//      input
// and so that every wire can encode the view without special cases: an assistant message left
// empty is dropped, an empty user message is dropped, and adjacent user messages are merged.
//
// Copy-on-write: the history is read through the span; only when a rule changes something is a
// new vector built (the unchanged prefix copied once). A clean transcript costs no copy.
//
// Thread safety: a pure function; the view refers to `history` when not copied, so `history` must
// outlive it and stay unchanged.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"

namespace agentkit::providers {
namespace detail {
struct TranscriptViewAccess;  // the wires' resumed repair (src/providers/repair_resume.hpp)
}  // namespace detail

inline constexpr std::string_view kNoResultText = "No result provided";
inline constexpr std::string_view kImageOmittedText = "(image omitted: model does not support images)";

// What the repair did, for diagnostics and tests.
struct RepairReport {
  std::size_t dropped_failed_turns = 0;      // rule 2
  std::size_t dropped_results = 0;           // rule 2b (orphans, duplicates, out-of-run)
  std::size_t thinking_to_text = 0;          // rules 3, 4
  std::size_t dropped_thinking = 0;          // rules 3, 4
  std::size_t stripped_signatures = 0;       // rule 3
  std::size_t rewritten_ids = 0;             // rule 5
  std::size_t synthetic_results = 0;         // rule 6
  std::size_t replaced_images = 0;           // rule 7
  std::size_t dropped_empty_messages = 0;
  std::size_t merged_user_messages = 0;
  friend bool operator==(const RepairReport&, const RepairReport&) = default;
};

class TranscriptView {
 public:
  std::span<const Message> messages() const noexcept { return copied_ ? std::span<const Message>(owned_) : borrowed_; }
  // True when a rule changed something and the view is a new vector.
  bool copied() const noexcept { return copied_; }
  // How many leading messages of the view are the history's own, untouched: messages()[i] equals
  // history[i] for every i below it. The whole view when nothing was copied.
  std::size_t unchanged_prefix() const noexcept { return copied_ ? unchanged_ : borrowed_.size(); }
  const RepairReport& report() const noexcept { return report_; }

 private:
  friend TranscriptView repair_for_send(std::span<const Message>, const Model&);
  friend struct detail::TranscriptViewAccess;
  std::span<const Message> borrowed_;
  std::vector<Message> owned_;
  std::size_t unchanged_ = 0;
  bool copied_ = false;
  RepairReport report_;
};

// Builds the view of `history` to send to `target`.
TranscriptView repair_for_send(std::span<const Message> history, const Model& target);

// The id `id` becomes when replayed to a wire of `api` from another model: characters outside
// [A-Za-z0-9_-] become '_', a Responses composite "call|item" keeps its call part, and the result
// is cut to the API's length limit (Chat Completions: 40, others: 64). Never empty.
std::string sanitize_tool_call_id(std::string_view id, std::string_view api);

}  // namespace agentkit::providers
