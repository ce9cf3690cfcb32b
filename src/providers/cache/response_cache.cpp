// The level-2 store: an LRU from request fingerprint to answer (REQ-CACHE-01, -03).
#include <list>
#include <mutex>
#include <unordered_map>

#include "agentkit/providers/cache.hpp"

namespace agentkit::providers {

struct ResponseCache::State {
  explicit State(std::size_t cap) : capacity(cap == 0 ? 1 : cap) {}
  std::size_t capacity;
  mutable std::mutex mu;
  // Most recently used first.
  std::list<std::pair<std::string, AssistantMessage>> entries;
  std::unordered_map<std::string_view, decltype(entries)::iterator> index;
};

ResponseCache::ResponseCache(std::size_t capacity) : state_(std::make_unique<State>(capacity)) {}
ResponseCache::~ResponseCache() = default;

std::optional<AssistantMessage> ResponseCache::find(std::string_view fingerprint) {
  std::lock_guard lock(state_->mu);
  auto it = state_->index.find(fingerprint);
  if (it == state_->index.end()) return std::nullopt;
  state_->entries.splice(state_->entries.begin(), state_->entries, it->second);
  return it->second->second;
}

void ResponseCache::insert(std::string fingerprint, AssistantMessage answer) {
  std::lock_guard lock(state_->mu);
  if (auto it = state_->index.find(fingerprint); it != state_->index.end()) {
    it->second->second = std::move(answer);
    state_->entries.splice(state_->entries.begin(), state_->entries, it->second);
    return;
  }
  state_->entries.emplace_front(std::move(fingerprint), std::move(answer));
  state_->index.emplace(state_->entries.front().first, state_->entries.begin());
  while (state_->entries.size() > state_->capacity) {
    state_->index.erase(state_->entries.back().first);
    state_->entries.pop_back();
  }
}

std::size_t ResponseCache::size() const {
  std::lock_guard lock(state_->mu);
  return state_->entries.size();
}

std::size_t ResponseCache::capacity() const noexcept { return state_->capacity; }

}  // namespace agentkit::providers
