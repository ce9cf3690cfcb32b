#include "deadline_timer.hpp"

#include <vector>

namespace agentkit::detail {

std::uint64_t DeadlineTimer::schedule(Clock::time_point deadline, agentkit::stop_source source) {
  std::lock_guard lock(mu_);
  if (shut_down_) return 0;
  std::uint64_t ticket = next_ticket_++;
  pending_.emplace(deadline, std::make_pair(ticket, std::move(source)));
  if (!thread_.joinable()) {
    thread_ = agentkit::jthread([this](agentkit::stop_token stop) { run(stop); });
  }
  cv_.notify_all();
  return ticket;
}

void DeadlineTimer::cancel(std::uint64_t ticket) {
  std::lock_guard lock(mu_);
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->second.first == ticket) {
      pending_.erase(it);
      return;
    }
  }
}

void DeadlineTimer::shutdown() {
  agentkit::jthread t;
  {
    std::lock_guard lock(mu_);
    shut_down_ = true;
    pending_.clear();
    t = std::move(thread_);
  }
  if (t.joinable()) {
    t.request_stop();
    t.join();
  }
}

void DeadlineTimer::run(agentkit::stop_token stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    if (pending_.empty()) {
      cv_.wait(lock, stop, [&] { return !pending_.empty(); });
      continue;
    }
    auto deadline = pending_.begin()->first;
    if (Clock::now() < deadline) {
      cv_.wait_until(lock, stop, deadline, [&] {
        return pending_.empty() || pending_.begin()->first < deadline;
      });
      continue;
    }
    std::vector<agentkit::stop_source> due;
    while (!pending_.empty() && pending_.begin()->first <= Clock::now()) {
      due.push_back(std::move(pending_.begin()->second.second));
      pending_.erase(pending_.begin());
    }
    lock.unlock();
    for (auto& s : due) s.request_stop();  // stop callbacks run here, without our lock
    lock.lock();
  }
}

}  // namespace agentkit::detail
