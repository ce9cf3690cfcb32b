// Send-time transcript repair (REQ-PROV-11): one pass over the history that emits the view lazily,
// so a transcript needing no repair is never copied.
#include "agentkit/providers/repair.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "agentkit/catalog/catalog.hpp"
#include "repair_resume.hpp"

namespace agentkit::providers {
namespace {

// Tool-call id limits of the wires (REQ-PROV-11.5: Anthropic 64; OpenAI Chat Completions refuses
// ids longer than 40).
constexpr std::size_t kMaxToolCallId = 64;
constexpr std::size_t kMaxCompletionsToolCallId = 40;

bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

std::size_t id_limit(std::string_view api) {
  return api == catalog::kOpenAiCompletions ? kMaxCompletionsToolCallId : kMaxToolCallId;
}

bool has_image(const std::vector<ContentBlock>& content) {
  for (const auto& b : content) {
    if (std::holds_alternative<ImageBlock>(b)) return true;
  }
  return false;
}

bool is_failed_turn(const AssistantMessage& a) {
  return a.stop_reason == StopReason::error || a.stop_reason == StopReason::aborted;
}

// A tool use waiting for its result in the current run.
// Views point into the history or into the claims map's keys (map nodes never move), so a clean
// transcript allocates nothing per tool use.
struct PendingUse {
  std::string_view original_id;  // as in the history (rule 2b matches results against it)
  std::string_view output_id;    // as in the view (rule 5)
  std::string_view name;
  bool answered = false;
};

class ViewBuilder {
 public:
  // `start`: a clean point of `history` for `target` (clean_end() of an earlier build over a
  // history equal to this one before it), or 0.
  ViewBuilder(std::span<const Message> history, const Model& target, std::size_t start = 0)
      : history_(history), target_(target), prefix_end_(start), clean_end_(start) {}

  void build() {
    for (std::size_t i = prefix_end_; i < history_.size(); ++i) {
      const Message& m = history_[i];
      if (const auto* a = std::get_if<AssistantMessage>(&m)) {
        assistant(i, *a);
      } else if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
        tool_result(i, *r);
      } else {
        user(i, std::get<UserMessage>(m));
      }
      if (clean()) clean_end_ = i + 1;
    }
    close_run();  // rule 6 "at the end"
  }

  // The last point after which a build started there makes the same view: nothing changed so far,
  // no tool use waits for its result, and no id was claimed (a claim made before the point would
  // be missing from a build that starts there).
  std::size_t clean_end() const noexcept { return clean_end_; }
  bool diverged() const noexcept { return diverged_; }
  // out_[i] is history_[i], untouched, for every i below it (once diverged).
  std::size_t unchanged() const noexcept { return unchanged_; }
  std::vector<Message>&& output() noexcept { return std::move(out_); }
  const RepairReport& report() const noexcept { return report_; }

 private:
  bool clean() const {
    if (diverged_ || claims_) return false;
    for (const PendingUse& p : pending_) {
      if (!p.answered) return false;
    }
    return true;
  }

  // ---- Lazy emission: while nothing changed, the view is history[0, prefix_end_) --------------

  void keep(std::size_t i) {
    if (diverged_) {
      out_.push_back(history_[i]);
    } else {
      prefix_end_ = i + 1;
    }
  }
  void diverge() {
    if (diverged_) return;
    out_.assign(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(prefix_end_));
    unchanged_ = prefix_end_;
    diverged_ = true;
  }
  void push(Message m) {
    diverge();
    out_.push_back(std::move(m));
  }
  void drop() { diverge(); }
  const Message* last_emitted() const {
    if (diverged_) return out_.empty() ? nullptr : &out_.back();
    return prefix_end_ == 0 ? nullptr : &history_[prefix_end_ - 1];
  }

  // ---- Rule 6 ----------------------------------------------------------------------------------

  void close_run() {
    for (const PendingUse& p : pending_) {
      if (p.answered) continue;
      ToolResultMessage synthetic;
      synthetic.tool_use_id = std::string(p.output_id);
      synthetic.tool_name = std::string(p.name);
      synthetic.content.push_back(TextBlock{std::string(kNoResultText)});
      synthetic.is_error = true;
      push(std::move(synthetic));
      report_.synthetic_results++;
    }
    pending_.clear();
  }

  // ---- Assistant messages (rules 1-5, 7) ----------------------------------------------------------

  bool same_model(const AssistantMessage& a) const {
    return a.provider == target_.vendor && a.api == target_.api && a.model == target_.id;
  }

  // Thinking a rule changes: anything but signed thinking from this very model (rules 3, 4).
  static bool thinking_changes(const ThinkingBlock& t, bool same) { return !same || t.signature.empty(); }

  void assistant(std::size_t i, const AssistantMessage& a) {
    if (is_failed_turn(a)) {  // rule 2: invisible, so it closes no run either
      drop();
      report_.dropped_failed_turns++;
      return;
    }
    close_run();
    bool same = same_model(a);
    open_run(i, a, same);
    if (!needs_change(a, same)) {
      keep(i);
      return;
    }
    AssistantMessage copy = a;
    copy.content = rebuilt_content(a, same);
    if (copy.content.empty()) {  // nothing but dropped thinking: no run either
      pending_.clear();
      drop();
      report_.dropped_empty_messages++;
      return;
    }
    push(std::move(copy));
  }

  bool needs_change(const AssistantMessage& a, bool same) const {
    if (a.content.empty()) return true;
    std::size_t use = 0;
    for (const auto& block : a.content) {
      if (const auto* t = std::get_if<ThinkingBlock>(&block)) {
        if (thinking_changes(*t, same)) return true;
      } else if (const auto* u = std::get_if<ToolUseBlock>(&block)) {
        if (!same && (!u->thought_signature.empty() || pending_[use].output_id != u->id)) return true;
        ++use;
      } else if (std::holds_alternative<ImageBlock>(block)) {
        if (!target_.image_input) return true;
      }
    }
    return false;
  }

  std::vector<ContentBlock> rebuilt_content(const AssistantMessage& a, bool same) {
    std::vector<ContentBlock> content;
    std::size_t use = 0;
    for (const auto& block : a.content) {
      if (const auto* t = std::get_if<ThinkingBlock>(&block)) {
        thinking(*t, same, content);
      } else if (const auto* u = std::get_if<ToolUseBlock>(&block)) {
        ToolUseBlock copy = *u;
        if (!same) {
          if (!copy.thought_signature.empty()) report_.stripped_signatures++;
          copy.thought_signature.clear();
          if (pending_[use].output_id != copy.id) report_.rewritten_ids++;
        }
        copy.id = std::string(pending_[use++].output_id);
        content.emplace_back(std::move(copy));
      } else if (std::holds_alternative<ImageBlock>(block) && !target_.image_input) {
        content.emplace_back(TextBlock{std::string(kImageOmittedText)});
        report_.replaced_images++;
      } else {
        content.push_back(block);
      }
    }
    return content;
  }

  void thinking(const ThinkingBlock& t, bool same, std::vector<ContentBlock>& content) {
    if (!thinking_changes(t, same)) {
      content.emplace_back(t);
      return;
    }
    // Redacted reasoning is opaque: only its own model can read it back (rule 3).
    if (t.redacted || t.thinking.empty()) {
      report_.dropped_thinking++;
      return;
    }
    content.emplace_back(TextBlock{t.thinking});  // rules 3 (signed, other model) and 4 (unsigned)
    report_.thinking_to_text++;
  }

  // The message's tool uses, in order, with the ids the view gives them; results answer these.
  void open_run(std::size_t i, const AssistantMessage& a, bool same) {
    for (const auto& block : a.content) {
      if (const auto* u = std::get_if<ToolUseBlock>(&block)) {
        std::string_view id = same ? std::string_view(u->id) : claim(i, u->id);
        pending_.push_back(PendingUse{u->id, id, u->name, false});
      }
    }
  }

  // ---- Rule 5: injective id mapping for other models' tool calls -----------------------------------

  // Every id the view will hold unchanged: the same-model turns' ids, never rewritten.
  void build_claims() {
    claims_.emplace();
    for (std::size_t i = 0; i < history_.size(); ++i) {
      const auto* a = std::get_if<AssistantMessage>(&history_[i]);
      if (a == nullptr || is_failed_turn(*a) || !same_model(*a)) continue;
      for (const auto& block : a->content) {
        if (const auto* u = std::get_if<ToolUseBlock>(&block)) claims_->emplace(u->id, std::make_pair(i, u->id));
      }
    }
  }

  std::string_view claim(std::size_t i, std::string_view original) {
    if (!claims_) build_claims();
    std::string base = sanitize_tool_call_id(original, target_.api);
    std::size_t limit = id_limit(target_.api);
    std::string candidate = base;
    for (std::size_t n = 2;; ++n) {
      auto it = claims_->find(candidate);
      if (it == claims_->end()) break;
      if (it->second.first == i && it->second.second == original) return it->first;
      std::string suffix = "_" + std::to_string(n);
      candidate = base.substr(0, limit - std::min(limit, suffix.size())) + suffix;
    }
    return claims_->emplace(candidate, std::make_pair(i, std::string(original))).first->first;
  }

  // ---- Tool results (rules 2b, 5, 7) --------------------------------------------------------------------

  void tool_result(std::size_t i, const ToolResultMessage& r) {
    PendingUse* p = nullptr;
    for (auto& candidate : pending_) {
      if (!candidate.answered && candidate.original_id == r.tool_use_id) {
        p = &candidate;
        break;
      }
    }
    if (p == nullptr) {  // rule 2b: orphaned, duplicated or outside its run
      drop();
      report_.dropped_results++;
      return;
    }
    p->answered = true;
    bool images = !target_.image_input && has_image(r.content);
    if (p->output_id == r.tool_use_id && !images) {
      keep(i);
      return;
    }
    ToolResultMessage copy = r;
    copy.tool_use_id = std::string(p->output_id);
    if (images) replace_images(copy.content);
    push(std::move(copy));
  }

  // ---- User messages -----------------------------------------------------------------------------------------

  void user(std::size_t i, const UserMessage& u) {
    close_run();
    if (u.content.empty()) {
      drop();
      report_.dropped_empty_messages++;
      return;
    }
    const Message* last = last_emitted();
    bool merge = last != nullptr && std::holds_alternative<UserMessage>(*last);
    bool images = !target_.image_input && has_image(u.content);
    if (!merge && !images) {
      keep(i);
      return;
    }
    UserMessage copy = u;
    if (images) replace_images(copy.content);
    if (merge) {
      diverge();
      unchanged_ = std::min(unchanged_, out_.size() - 1);  // the message merged into changes
      auto& into = std::get<UserMessage>(out_.back()).content;
      into.insert(into.end(), copy.content.begin(), copy.content.end());
      report_.merged_user_messages++;
    } else {
      push(std::move(copy));
    }
  }

  void replace_images(std::vector<ContentBlock>& content) {
    for (auto& block : content) {
      if (std::holds_alternative<ImageBlock>(block)) {
        block = TextBlock{std::string(kImageOmittedText)};
        report_.replaced_images++;
      }
    }
  }

  std::span<const Message> history_;
  const Model& target_;
  std::vector<Message> out_;
  bool diverged_ = false;
  std::size_t prefix_end_ = 0;
  std::size_t clean_end_ = 0;
  std::size_t unchanged_ = 0;
  std::vector<PendingUse> pending_;
  // Output id -> (assistant index, original id); built only when another model's ids are replayed.
  std::optional<std::map<std::string, std::pair<std::size_t, std::string>, std::less<>>> claims_;
  RepairReport report_;
};

}  // namespace

std::string sanitize_tool_call_id(std::string_view id, std::string_view api) {
  if (api == catalog::kOpenAiResponses) id = id.substr(0, id.find('|'));  // "call|item": the item is not replayable
  std::string out;
  out.reserve(id.size());
  for (char c : id) out += is_id_char(c) ? c : '_';
  std::size_t limit = id_limit(api);
  if (out.size() > limit) out.resize(limit);
  if (out.empty()) out = "call";
  return out;
}

TranscriptView detail::TranscriptViewAccess::repair(std::span<const Message> history,
                                                    const Model& target, std::size_t start,
                                                    std::size_t& clean_end) {
  ViewBuilder builder(history, target, start);
  builder.build();
  clean_end = builder.clean_end();
  TranscriptView view;
  view.report_ = builder.report();
  view.copied_ = builder.diverged();
  if (view.copied_) {
    view.unchanged_ = builder.unchanged();
    view.owned_ = builder.output();
  } else {
    view.borrowed_ = history;
  }
  return view;
}

TranscriptView repair_for_send(std::span<const Message> history, const Model& target) {
  std::size_t clean_end = 0;
  return detail::TranscriptViewAccess::repair(history, target, 0, clean_end);
}

}  // namespace agentkit::providers
