// REQ-CACHE-10: which offered tools were first offered mid-session, so each wire can declare them
// after the cached prefix instead of inside it.
#include <map>
#include <variant>

#include "agentkit/providers/cache.hpp"

namespace agentkit::providers {

DeferredSplit split_deferred_tools(std::span<const ToolSpec> tools, std::span<const Message> history) {
  // One forward pass. A name is "used" once an assistant turn calls it; a marker for a used name
  // is ignored (the tool was already in the prefix the model saw). The first marker wins; a later
  // call never un-defers (the prefix bytes must not move back).
  // Without a marker nothing is deferred: every request of a session without late tools takes
  // this look at each message, no map is built.
  std::size_t first_marker = history.size();
  for (std::size_t i = 0; i < history.size() && first_marker == history.size(); ++i) {
    const auto* r = std::get_if<ToolResultMessage>(&history[i]);
    if (r != nullptr && !r->added_tool_names.empty()) first_marker = i;
  }
  if (first_marker == history.size()) {
    DeferredSplit split;
    split.immediate.reserve(tools.size());
    for (std::size_t t = 0; t < tools.size(); ++t) split.immediate.push_back(t);
    return split;
  }
  std::map<std::string, std::size_t, std::less<>> marked_at;
  std::map<std::string, bool, std::less<>> used;
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (const auto* a = std::get_if<AssistantMessage>(&history[i])) {
      for (const auto* call : tool_uses(*a)) {
        if (!marked_at.count(call->name)) used[call->name] = true;
      }
    } else if (const auto* r = std::get_if<ToolResultMessage>(&history[i])) {
      for (const auto& name : r->added_tool_names) {
        if (!used.count(name) && !marked_at.count(name)) marked_at.emplace(name, i);
      }
    }
  }
  DeferredSplit split;
  for (std::size_t t = 0; t < tools.size(); ++t) {
    auto it = marked_at.find(tools[t].name);
    if (it == marked_at.end()) {
      split.immediate.push_back(t);
    } else {
      split.deferred.push_back(t);
      split.declared_after.push_back(it->second);
    }
  }
  if (split.immediate.empty() && !split.deferred.empty()) {
    // The safety valve: with nothing established, deferring everything would leave no tools in
    // the prefix at all; promote them and accept one cache loss.
    split.immediate = std::move(split.deferred);
    split.deferred.clear();
    split.declared_after.clear();
    split.promoted_all = true;
  }
  return split;
}

}  // namespace agentkit::providers
