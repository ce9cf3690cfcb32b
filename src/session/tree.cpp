// The entry tree (branch, leaves) and the resume fold over one branch.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "format.hpp"

namespace agentkit::session {
namespace {

// The model-visible wrappers. Pinned byte for byte by tests/session/golden/: a change here
// changes what every resumed conversation shows the model.
constexpr std::string_view kCompactionPrefix =
    "The conversation history before this point was compacted into the following summary:\n\n"
    "<summary>\n";
constexpr std::string_view kBranchSummaryPrefix =
    "The following is a summary of a branch that this conversation came back from:\n\n"
    "<summary>\n";
constexpr std::string_view kSummarySuffix = "\n</summary>";

std::string wrap(std::string_view prefix, std::string_view summary) {
  std::string out;
  out.reserve(prefix.size() + summary.size() + kSummarySuffix.size());
  out.append(prefix).append(summary).append(kSummarySuffix);
  return out;
}

std::string_view member_text(const Entry& e, std::string_view key) {
  const json::Value* v = e.fields.find(key);
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// The message an entry contributes to the context, if any.
std::optional<Message> context_message(const Entry& e) {
  switch (e.type) {
    case EntryType::message:
      if (auto m = message_of(e)) return std::move(*m);
      return std::nullopt;
    case EntryType::custom_message: return user_text(std::string(member_text(e, "content")));
    case EntryType::branch_summary:
      return user_text(render_branch_summary(member_text(e, "summary")));
    default: return std::nullopt;
  }
}

// Where the context starts on `path`: after the last compaction's kept point, with its summary
// and the entries it pinned (skill bodies the model read) in front.
std::size_t context_start(const std::vector<const Entry*>& path, Resumed& out) {
  for (std::size_t i = path.size(); i-- > 0;) {
    if (path[i]->type != EntryType::compaction) continue;
    Result<CompactionRecord> record = compaction_of(*path[i]);
    if (!record) continue;
    out.messages.push_back(user_text(render_compaction(record->summary)));
    out.entry_ids.push_back(path[i]->id);
    std::size_t kept = i + 1;
    for (std::size_t j = 0; j < i; ++j) {
      if (path[j]->id == record->first_kept_entry_id) {
        kept = j;
        break;
      }
    }
    for (std::size_t j = 0; j < kept; ++j) {
      const auto& pinned = record->pinned_entry_ids;
      if (std::find(pinned.begin(), pinned.end(), path[j]->id) == pinned.end()) continue;
      if (auto m = context_message(*path[j])) {
        out.messages.push_back(std::move(*m));
        out.entry_ids.push_back(path[j]->id);
      }
    }
    out.compaction = std::move(*record);
    return kept;
  }
  return 0;
}

}  // namespace

namespace detail {

Resumed fold_settings(const std::vector<const Entry*>& path) {
  Resumed out;
  for (const Entry* e : path) {
    if (e->type == EntryType::model_change) {
      if (auto m = model_of(*e)) out.model = std::move(*m);
    } else if (e->type == EntryType::thinking_level_change) {
      if (auto t = thinking_level_of(*e)) out.thinking = *t;
    }
  }
  if (out.model) return out;
  // No model_change: the provenance of the last assistant message that names its model. Found
  // from the end, so only the last few messages are decoded.
  for (std::size_t i = path.size(); i-- > 0;) {
    if (path[i]->type != EntryType::message) continue;
    Result<Message> m = message_of(*path[i]);
    const auto* a = m ? std::get_if<AssistantMessage>(&*m) : nullptr;
    if (a != nullptr && !a->model.empty()) {
      out.model = ModelRef{a->provider, a->api, a->model};
      break;
    }
  }
  return out;
}

}  // namespace detail

namespace {

// Follows the approval entries along the branch. A batch is held from its approval_request to
// the next assistant message; it is over once every call of its assistant message is answered.
class ApprovalFold {
 public:
  void see(const Entry& e) {
    switch (e.type) {
      case EntryType::approval_request:
        if (auto calls = approval_request_of(e)) {
          state_.pending = std::move(*calls);
          drop_decided_from_pending();
        }
        return;
      case EntryType::approval_decision:
        if (auto decisions = approval_decisions_of(e)) {
          for (ApprovalDecision& d : *decisions) state_.decided.push_back(std::move(d));
          drop_decided_from_pending();
        }
        return;
      case EntryType::tool_call_started:
        if (auto id = started_call_of(e)) state_.started.push_back(std::move(*id));
        return;
      case EntryType::message: return message(e);
      default: return;
    }
  }

  ApprovalState finish() {
    bool all_answered = std::all_of(calls_.begin(), calls_.end(), [&](const std::string& id) {
      return answered_.count(id) != 0;
    });
    if (calls_.empty() || all_answered) return {};
    return std::move(state_);
  }

 private:
  void message(const Entry& e) {
    // The payload is kept as its bytes (a json::Raw), so the message is decoded here.
    Result<Message> m = message_of(e);
    if (!m) return;
    if (const auto* r = std::get_if<ToolResultMessage>(&*m)) {
      answered_.insert(r->tool_use_id);
      return;
    }
    const auto* a = std::get_if<AssistantMessage>(&*m);
    if (a == nullptr) return;
    state_ = {};  // a new model turn: whatever was held before is over
    calls_.clear();
    answered_.clear();
    for (const ContentBlock& block : a->content) {
      if (const auto* use = std::get_if<ToolUseBlock>(&block)) calls_.push_back(use->id);
    }
  }

  void drop_decided_from_pending() {
    std::erase_if(state_.pending, [&](const PendingApproval& p) {
      return std::any_of(state_.decided.begin(), state_.decided.end(),
                         [&](const ApprovalDecision& d) { return d.tool_use_id == p.tool_use_id; });
    });
  }

  ApprovalState state_;
  std::vector<std::string> calls_;
  std::unordered_set<std::string> answered_;
};

}  // namespace

std::string render_compaction(std::string_view summary) {
  return wrap(kCompactionPrefix, summary);
}

std::string render_branch_summary(std::string_view summary) {
  return wrap(kBranchSummaryPrefix, summary);
}

std::vector<const Entry*> branch(std::span<const Entry> entries, std::string_view leaf) {
  std::vector<const Entry*> path;
  if (leaf.empty()) return path;
  std::unordered_map<std::string_view, const Entry*> by_id;
  by_id.reserve(entries.size());
  for (const Entry& e : entries) by_id.emplace(e.id, &e);
  // Parents always precede children in a loaded log, but a hand-built span need not: the step
  // bound stops a cycle from looping forever.
  for (auto it = by_id.find(leaf); it != by_id.end() && path.size() <= entries.size();
       it = by_id.find(it->second->parent_id)) {
    path.push_back(it->second);
    if (it->second->parent_id.empty()) break;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<std::string> leaves(std::span<const Entry> entries) {
  std::unordered_set<std::string_view> parents;
  for (const Entry& e : entries) {
    if (!e.parent_id.empty()) parents.insert(e.parent_id);
  }
  std::vector<std::string> out;
  for (const Entry& e : entries) {
    if (parents.count(e.id) == 0) out.push_back(e.id);
  }
  return out;
}

Resumed fold(std::span<const Entry> entries, std::string_view leaf) {
  Resumed out;
  out.leaf = std::string(leaf);
  std::vector<const Entry*> path = branch(entries, leaf);
  Resumed settings = detail::fold_settings(path);
  out.model = std::move(settings.model);
  out.thinking = settings.thinking;
  ApprovalFold approvals;
  for (const Entry* e : path) approvals.see(*e);
  out.approvals = approvals.finish();
  for (std::size_t i = context_start(path, out); i < path.size(); ++i) {
    if (path[i]->type == EntryType::compaction) continue;  // an earlier one, before the kept point
    if (path[i]->type == EntryType::message) {
      // Decoded here rather than at load (the loader keeps a message as its bytes), so the
      // fold is where an undecodable one is found; it is reported, never dropped unseen.
      Result<Message> m = message_of(*path[i]);
      if (!m) {
        out.unreadable.push_back(
            {RepairKind::corrupt_line, 0, m.error().message + "; left out of the context"});
        continue;
      }
      out.messages.push_back(std::move(*m));
      out.entry_ids.push_back(path[i]->id);
    } else if (auto m = context_message(*path[i])) {
      out.messages.push_back(std::move(*m));
      out.entry_ids.push_back(path[i]->id);
    }
  }
  return out;
}

}  // namespace agentkit::session
