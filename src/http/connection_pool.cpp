#include "connection_pool.hpp"

#include <algorithm>

namespace agentkit::http::detail {

std::unique_ptr<Stream> ConnectionPool::take_young(Origin& origin,
                                                   std::vector<std::unique_ptr<Stream>>& dead) {
  const auto now = std::chrono::steady_clock::now();
  while (!origin.idle.empty()) {
    Idle entry = std::move(origin.idle.back());
    origin.idle.pop_back();
    if (now - entry.since <= max_idle_age_) return std::move(entry.stream);
    dead.push_back(std::move(entry.stream));
  }
  return nullptr;
}

ConnectionPool::Start ConnectionPool::start(const std::string& key) {
  std::vector<std::unique_ptr<Stream>> dead;  // closed after the lock is released
  Origin* origin = nullptr;
  std::unique_ptr<Stream> stream;
  {
    std::lock_guard lock(mutex_);
    origin = &origins_[key];
    const std::size_t now_in_flight = origin->in_flight.fetch_add(1, std::memory_order_relaxed) + 1;
    origin->peak_in_flight = std::max(origin->peak_in_flight, now_in_flight);
    stream = take_young(*origin, dead);
  }
  Start out{Lease(origin), std::move(stream)};
  // The health check is a system call: made without the lock, and the next candidate taken under
  // it again only when this one turned out closed or written to.
  while (out.stream && out.stream->has_unexpected_input()) {
    dead.push_back(std::move(out.stream));
    std::lock_guard lock(mutex_);
    out.stream = take_young(*origin, dead);
  }
  return out;
}

void ConnectionPool::release(const std::string& key, std::unique_ptr<Stream> stream) {
  if (max_idle_per_key_ == 0) return;
  std::vector<std::unique_ptr<Stream>> evicted;  // closed after the lock is released
  std::lock_guard lock(mutex_);
  Origin& o = origins_[key];
  auto& list = o.idle;
  // The oldest first: past their age they would only be dropped by a later start.
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
