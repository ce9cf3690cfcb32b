#include "connection_pool.hpp"

namespace agentkit::http::detail {

std::unique_ptr<Stream> ConnectionPool::acquire(const std::string& key) {
  std::vector<std::unique_ptr<Stream>> dead;  // closed after the lock is released
  std::unique_ptr<Stream> found;
  {
    std::lock_guard lock(mutex_);
    auto it = idle_.find(key);
    if (it == idle_.end()) return nullptr;
    auto& list = it->second;
    const auto now = std::chrono::steady_clock::now();
    while (!list.empty() && !found) {
      Idle entry = std::move(list.back());
      list.pop_back();
      if (now - entry.since > max_idle_age_ || entry.stream->has_unexpected_input()) {
        dead.push_back(std::move(entry.stream));
        continue;
      }
      found = std::move(entry.stream);
    }
    if (list.empty()) idle_.erase(it);
  }
  return found;
}

void ConnectionPool::release(const std::string& key, std::unique_ptr<Stream> stream) {
  if (max_idle_per_key_ == 0) return;
  std::unique_ptr<Stream> evicted;
  std::lock_guard lock(mutex_);
  auto& list = idle_[key];
  if (list.size() >= max_idle_per_key_) {
    evicted = std::move(list.front().stream);
    list.erase(list.begin());
  }
  list.push_back({std::move(stream), std::chrono::steady_clock::now()});
}

void ConnectionPool::clear() {
  decltype(idle_) old;
  std::lock_guard lock(mutex_);
  old.swap(idle_);
}

}  // namespace agentkit::http::detail
