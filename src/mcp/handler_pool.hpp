// HandlerPool: runs inbound request handlers concurrently on a bounded set of reused threads.
// Handlers must run concurrently (seed: a handler waiting on an input round trip would otherwise
// block the reply it waits for), but a thread per request is both slow (the benchmark's round
// trips) and unbounded; so at most `max_workers` threads, created on demand and kept.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <vector>

namespace agentkit::mcp::detail {

class HandlerPool {
 public:
  HandlerPool(std::size_t max_workers, std::size_t max_queued);
  ~HandlerPool();
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  // Queues a task; false when the pool is closed or `max_queued` tasks already wait.
  bool submit(std::function<void()> task);
  // Waits until no task is queued or running (new submissions still allowed).
  void drain();
  // Stops accepting, drops tasks that have not started, waits for running ones and joins.
  void close();
  // Tasks running right now (for tests and diagnostics).
  std::size_t running() const;

 private:
  void work();
  // Before sleeping, a worker that just finished watches the queue for a short while: on a
  // virtual machine with idle cores, waking a sleeping thread costs tens of microseconds, which
  // is most of a sequential round trip. Bounded, so an idle server sleeps.
  void linger_for_work() const;
  static constexpr std::chrono::microseconds kLinger{50};

  const std::size_t max_workers_;
  const std::size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable work_ready_;  // plain: close() wakes workers through closed_
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  std::vector<agentkit::jthread> workers_;
  std::size_t idle_workers_ = 0;
  std::size_t running_ = 0;
  bool closed_ = false;
  // Mirrors "queue_ is non-empty or closed_" for lingering workers, which read it without mu_.
  std::atomic<bool> work_waiting_{false};
};

}  // namespace agentkit::mcp::detail
