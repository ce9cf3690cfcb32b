#include "connection_pool.hpp"

#include <algorithm>

namespace agentkit::http::detail {

ConnectionPool::Lease ConnectionPool::lease(const std::string& key) {
  std::lock_guard lock(mutex_);
  Origin& o = origins_[key];
  o.peak_in_flight = std::max(o.peak_in_flight, ++o.in_flight);
  return Lease(this, key);
}

void ConnectionPool::end_lease(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = origins_.find(key); it != origins_.end() && it->second.in_flight > 0) {
    --it->second.in_flight;
  }
}

std::unique_ptr<Stream> ConnectionPool::acquire(const std::string& key) {
  std::vector<std::unique_ptr<Stream>> dead;  // closed after the lock is released
  std::unique_ptr<Stream> found;
  {
    std::lock_guard lock(mutex_);
    auto it = origins_.find(key);
    if (it == origins_.end()) return nullptr;
    auto& list = it->second.idle;
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
  }
  return found;
}

void ConnectionPool::release(const std::string& key, std::unique_ptr<Stream> stream) {
  if (max_idle_per_key_ == 0) return;
  std::vector<std::unique_ptr<Stream>> evicted;  // closed after the lock is released
  std::lock_guard lock(mutex_);
  Origin& o = origins_[key];
  auto& list = o.idle;
  // The oldest first: past their age they would only be dropped by a later acquire.
  const auto now = std::chrono::steady_clock::now();
  std::size_t stale = 0;
  while (stale < list.size() && now - list[stale].since > max_idle_age_) ++stale;
  const std::size_t cap = std::max(max_idle_per_key_, std::min(o.peak_in_flight, kMaxIdleFromUse));
  const std::size_t over = list.size() - stale + 1 > cap ? list.size() - stale + 1 - cap : 0;
  for (std::size_t i = 0; i < stale + over; ++i) evicted.push_back(std::move(list[i].stream));
  list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(stale + over));
  list.push_back({std::move(stream), now});
}

void ConnectionPool::clear() {
  std::vector<std::unique_ptr<Stream>> closed;
  std::lock_guard lock(mutex_);
  for (auto& [key, origin] : origins_) {
    for (auto& idle : origin.idle) closed.push_back(std::move(idle.stream));
    origin.idle.clear();
  }
}

}  // namespace agentkit::http::detail
