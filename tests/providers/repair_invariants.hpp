// What makes a repaired view sendable, checked by the repair tests and the repair fuzz target:
// every tool use answered in its run, no orphan or duplicate result, valid alternation (no empty
// message, no two user messages in a row, no failed turn), no image for a text-only model, and
// other models' tool-call ids in the target's format.
#pragma once

#include <algorithm>
#include <set>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/providers/repair.hpp"

namespace agentkit::testing {

inline bool has_image_block(const std::vector<ContentBlock>& content) {
  for (const auto& b : content) {
    if (std::holds_alternative<ImageBlock>(b)) return true;
  }
  return false;
}

inline bool is_anthropic_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Empty when the view is sendable; otherwise one line per problem.
inline std::vector<std::string> view_problems(std::span<const Message> view, const Model& target) {
  std::vector<std::string> problems;
  std::vector<std::string> open;        // tool-use ids of the current run still unanswered
  std::set<std::string> run_ids;        // every id of the current run
  bool in_run = false;
  auto close_run = [&](std::size_t i) {
    for (const auto& id : open) problems.push_back("message " + std::to_string(i) + ": tool use '" + id + "' is unanswered");
    open.clear();
    run_ids.clear();
    in_run = false;
  };
  bool previous_user = false;
  for (std::size_t i = 0; i < view.size(); ++i) {
    const Message& m = view[i];
    std::string at = "message " + std::to_string(i) + ": ";
    if (const auto* a = std::get_if<AssistantMessage>(&m)) {
      close_run(i);
      previous_user = false;
      if (a->stop_reason == StopReason::error || a->stop_reason == StopReason::aborted) problems.push_back(at + "failed turn sent");
      if (a->content.empty()) problems.push_back(at + "empty assistant message");
      if (!target.image_input && has_image_block(a->content)) problems.push_back(at + "image sent to a text-only model");
      bool same = a->provider == target.vendor && a->api == target.api && a->model == target.id;
      for (const auto* u : tool_uses(*a)) {
        open.push_back(u->id);
        run_ids.insert(u->id);
        if (!same && target.api == "anthropic-messages" && !is_anthropic_id(u->id)) {
          problems.push_back(at + "tool-call id '" + u->id + "' is not in Anthropic's format");
        }
      }
      in_run = true;
    } else if (const auto* r = std::get_if<ToolResultMessage>(&m)) {
      previous_user = false;
      auto it = std::find(open.begin(), open.end(), r->tool_use_id);
      if (!in_run || it == open.end()) {
        problems.push_back(at + "tool result '" + r->tool_use_id + "' answers no open tool use");
      } else {
        open.erase(it);
      }
      if (!target.image_input && has_image_block(r->content)) problems.push_back(at + "image sent to a text-only model");
    } else {
      const auto& u = std::get<UserMessage>(m);
      close_run(i);
      if (u.content.empty()) problems.push_back(at + "empty user message");
      if (previous_user) problems.push_back(at + "two user messages in a row");
      if (!target.image_input && has_image_block(u.content)) problems.push_back(at + "image sent to a text-only model");
      previous_user = true;
    }
  }
  close_run(view.size());
  return problems;
}

// The view's unchanged prefix (what a wire trusts under Request::history_serial) is the history's
// own messages, position by position, and never longer than the view.
inline bool unchanged_prefix_holds(std::span<const Message> history,
                                   const providers::TranscriptView& view) {
  const std::size_t n = view.unchanged_prefix();
  if (n > view.messages().size() || n > history.size()) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(view.messages()[i] == history[i])) return false;
  }
  return true;
}

}  // namespace agentkit::testing
