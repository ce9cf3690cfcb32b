// Fires stop_sources at deadlines (per-tool timeouts) from one lazily started thread, so a tool
// that runs inline on the loop thread can still be timed out without a thread per call.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include "agentkit/base/stop_token.hpp"
#include <thread>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

namespace agentkit::detail {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;

  DeadlineTimer() = default;
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;
  ~DeadlineTimer() { shutdown(); }

  // Calls source.request_stop() at `deadline` unless cancelled first. Answers a ticket for cancel().
  std::uint64_t schedule(Clock::time_point deadline, agentkit::stop_source source);
  void cancel(std::uint64_t ticket);
  // Stops and joins the thread; pending deadlines are dropped.
  void shutdown();

 private:
  void run(agentkit::stop_token stop);

  std::mutex mu_;
  agentkit::condition_variable_any cv_;
  std::multimap<Clock::time_point, std::pair<std::uint64_t, agentkit::stop_source>> pending_;
  std::uint64_t next_ticket_ = 1;
  agentkit::jthread thread_;
  bool shut_down_ = false;
};

}  // namespace agentkit::detail
