// Compaction planning: estimate, cut, view and the summary request's text (compaction_plan.hpp).
#include "compaction_plan.hpp"

#include <algorithm>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/session/log.hpp"

namespace agentkit::detail {
namespace {

// One item (a text block, a tool's arguments or result) is cut to this many bytes in the
// summary request, so a single oversized tool result cannot make the summary itself overflow
// (a failure users of other agents report: "compaction cannot run").
constexpr std::size_t kMaxItemBytesInSummary = 4'000;

bool is_valid_anchor(const Message& m) {
  const auto* a = std::get_if<AssistantMessage>(&m);
  if (a == nullptr) return false;
  if (a->stop_reason == StopReason::error || a->stop_reason == StopReason::aborted) return false;
  return a->usage.total_tokens() > 0;
}

// A cut before history[i] leaves whole turns on both sides: it never opens the kept part on a
// tool result (its call would be summarised away) and never parts a prompt (input, steering)
// from the reply it asked for.
bool is_turn_boundary(std::span<const Message> h, std::size_t i) {
  if (i == 0 || i >= h.size()) return false;
  if (std::holds_alternative<ToolResultMessage>(h[i])) return false;
  return !std::holds_alternative<UserMessage>(h[i - 1]);
}

bool calls_tool(const Message& m, std::string_view name) {
  const auto* a = std::get_if<AssistantMessage>(&m);
  if (a == nullptr) return false;
  return std::any_of(a->content.begin(), a->content.end(), [&](const ContentBlock& b) {
    const auto* use = std::get_if<ToolUseBlock>(&b);
    return use != nullptr && use->name == name;
  });
}

void strip_thinking(Message& m) {
  if (auto* a = std::get_if<AssistantMessage>(&m)) {
    std::erase_if(a->content,
                  [](const ContentBlock& b) { return std::holds_alternative<ThinkingBlock>(b); });
  }
}

void append_capped(std::string& out, std::string_view text) {
  if (text.size() <= kMaxItemBytesInSummary) {
    out.append(text);
    return;
  }
  std::size_t keep = kMaxItemBytesInSummary;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // UTF-8
  out.append(text.substr(0, keep));
  out += " [... " + std::to_string(text.size() - keep) + " more bytes left out]";
}

void append_blocks(std::string& out, std::string_view role,
                   const std::vector<ContentBlock>& blocks) {
  for (const ContentBlock& b : blocks) {
    if (const auto* t = std::get_if<TextBlock>(&b)) {
      out.append("[").append(role).append("]: ");
      append_capped(out, t->text);
      out += '\n';
    } else if (const auto* use = std::get_if<ToolUseBlock>(&b)) {
      out.append("[").append(role).append(" called ").append(use->name).append("]: ");
      append_capped(out, use->input.bytes());
      out += '\n';
    } else if (std::holds_alternative<ImageBlock>(b)) {
      out.append("[").append(role).append("]: (an image)\n");
    }
    // Thinking is left out: the summary is of what was said and done.
  }
}

}  // namespace

const std::string_view kSummarySystemPrompt =
    "You write the memory of an AI assistant that works with tools. You are given an earlier "
    "part of its conversation with a user, and you write a summary the assistant will read in "
    "its place, so that it can carry on the work without the original. Write only the summary: "
    "do not continue the conversation, do not answer anything in it, and do not call tools.";

std::int64_t estimate_message_tokens(const Message& message) {
  return catalog::estimate_prompt_tokens({}, std::span<const Message>(&message, 1), {});
}

std::int64_t estimate_next_request(std::span<const Message> h, const CompactionCheckpoint& cp,
                                   std::int64_t overhead) {
  const std::size_t floor = std::max(cp.prefix_len, cp.created_at);
  for (std::size_t i = h.size(); i-- > floor;) {
    if (!is_valid_anchor(h[i])) continue;
    std::int64_t n = std::get<AssistantMessage>(h[i]).usage.total_tokens();
    for (std::size_t j = i + 1; j < h.size(); ++j) n += estimate_message_tokens(h[j]);
    return n;
  }
  std::int64_t n = overhead;
  if (cp.active()) {
    n += estimate_message_tokens(user_text(session::render_compaction(cp.summary)));
    for (std::size_t i : cp.pinned) n += estimate_message_tokens(h[i]);
  }
  for (std::size_t i = cp.prefix_len; i < h.size(); ++i) n += estimate_message_tokens(h[i]);
  return n;
}

std::optional<CompactionPlan> plan_compaction(std::span<const Message> h,
                                              const CompactionCheckpoint& cp,
                                              std::int64_t keep_recent_tokens,
                                              std::optional<std::size_t> keep_from,
                                              std::string_view pin_tool) {
  const std::size_t start = cp.prefix_len;
  const std::size_t n = h.size();
  if (n < start + 2) return std::nullopt;
  // Walk back until the recent budget is covered.
  std::int64_t covered = 0;
  std::optional<std::size_t> crossing;
  for (std::size_t i = n; i-- > start;) {
    covered += estimate_message_tokens(h[i]);
    if (covered >= keep_recent_tokens) {
      crossing = i;
      break;
    }
  }
  if (!crossing) return std::nullopt;  // everything since the last cut fits the recent budget
  // Forward to the next turn boundary; with none (the latest turn alone is over the budget),
  // back to the latest one: the latest turn is always kept whole.
  std::size_t limit = keep_from ? std::min(*keep_from + 1, n) : n;
  std::size_t cut = 0;
  for (std::size_t i = std::max(*crossing, start + 1); i < limit && cut == 0; ++i) {
    if (is_turn_boundary(h, i)) cut = i;
  }
  for (std::size_t i = limit; cut == 0 && i-- > start + 1;) {
    if (is_turn_boundary(h, i)) cut = i;
  }
  if (cut <= start) return std::nullopt;

  CompactionPlan plan;
  plan.cut = cut;
  plan.pinned = cp.pinned;
  for (std::size_t i = start; i < cut; ++i) {
    if (!pin_tool.empty() && calls_tool(h[i], pin_tool)) {
      plan.pinned.push_back(i);
      // The call's results follow it; they are kept with it, never apart.
      while (i + 1 < cut && std::holds_alternative<ToolResultMessage>(h[i + 1]))
        plan.pinned.push_back(++i);
      continue;
    }
    plan.summarise.push_back(i);
  }
  if (plan.summarise.empty()) return std::nullopt;
  return plan;
}

std::vector<Message> compacted_view(std::span<const Message> h, const CompactionCheckpoint& cp) {
  if (!cp.active()) return std::vector<Message>(h.begin(), h.end());
  std::vector<Message> out;
  out.reserve(1 + cp.pinned.size() + (h.size() - std::min(cp.prefix_len, h.size())));
  out.push_back(user_text(session::render_compaction(cp.summary)));
  auto add = [&](std::size_t i) {
    out.push_back(h[i]);
    if (i < cp.created_at) strip_thinking(out.back());
  };
  for (std::size_t i : cp.pinned) {
    if (i < h.size()) add(i);
  }
  for (std::size_t i = cp.prefix_len; i < h.size(); ++i) add(i);
  return out;
}

CompactionCheckpoint advance(const CompactionCheckpoint& cp, const CompactionPlan& plan,
                             std::string summary, std::size_t history_size) {
  (void)cp;
  CompactionCheckpoint next;
  next.prefix_len = plan.cut;
  next.pinned = plan.pinned;
  next.summary = std::move(summary);
  next.created_at = history_size;
  return next;
}

std::string summary_request_text(std::span<const Message> h, const CompactionPlan& plan,
                                 std::string_view previous_summary) {
  std::string out;
  if (!previous_summary.empty()) {
    out += "<previous-summary>\n";
    out.append(previous_summary);
    out += "\n</previous-summary>\n\n";
  }
  out += "<conversation>\n";
  for (std::size_t i : plan.summarise) {
    const Message& m = h[i];
    if (const auto* u = std::get_if<UserMessage>(&m)) {
      append_blocks(out, "User", u->content);
    } else if (const auto* a = std::get_if<AssistantMessage>(&m)) {
      append_blocks(out, "Assistant", a->content);
    } else if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
      append_blocks(
          out,
          r->is_error ? "Tool " + r->tool_name + " failed" : "Tool " + r->tool_name + " answered",
          r->content);
    }
  }
  out += "</conversation>\n\n";
  if (!previous_summary.empty()) {
    out +=
        "The previous summary covers the conversation before the part above. Write one summary "
        "of both: keep what still matters from the previous summary and bring it up to date.\n\n";
  }
  out +=
      "Summarise the conversation above so that the assistant can continue from it. Use these "
      "headings:\n"
      "## Goal\nWhat the user wants, in their words where the wording matters.\n"
      "## Constraints\nRequirements, decisions and preferences stated so far.\n"
      "## Progress\nWhat is done, what is under way, what is left.\n"
      "## Facts\nFile paths, names, commands, values, errors and results the work depends on, "
      "exactly as written.\n"
      "## Next step\nWhat the assistant was about to do.\n"
      "Be brief and specific. Write only the summary.";
  return out;
}

}  // namespace agentkit::detail
