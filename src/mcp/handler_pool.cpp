#include "handler_pool.hpp"

#include "fd_io.hpp"

#include <utility>

namespace agentkit::mcp::detail {

HandlerPool::HandlerPool(std::size_t max_workers, std::size_t max_queued)
    : max_workers_(max_workers == 0 ? 1 : max_workers), max_queued_(max_queued) {}

HandlerPool::~HandlerPool() { close(); }

bool HandlerPool::submit(std::function<void()> task) {
  std::unique_lock lock(mu_);
  if (closed_ || queue_.size() >= max_queued_) return false;
  queue_.push_back(std::move(task));
  work_waiting_.store(true, std::memory_order_release);
  if (idle_workers_ < queue_.size() && workers_.size() < max_workers_) {
    workers_.emplace_back([this] { work(); });
  }
  lock.unlock();
  work_ready_.notify_one();
  return true;
}

void HandlerPool::work() {
  block_sigpipe_for_this_thread();  // our thread: replies are written without a per-write mask dance
  std::unique_lock lock(mu_);
  bool just_worked = false;
  while (true) {
    ++idle_workers_;  // a lingering worker counts as idle: submit() must not start another
    if (just_worked && queue_.empty() && !closed_) {
      lock.unlock();
      linger_for_work();
      lock.lock();
    }
    work_ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
    --idle_workers_;
    if (closed_) return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    work_waiting_.store(!queue_.empty(), std::memory_order_relaxed);
    just_worked = true;
    ++running_;
    lock.unlock();
    task();
    task = nullptr;  // release captures before taking the lock again
    lock.lock();
    --running_;
    if (running_ == 0 && queue_.empty()) idle_.notify_all();
  }
}

void HandlerPool::linger_for_work() const {
  const auto until = std::chrono::steady_clock::now() + kLinger;
  while (!work_waiting_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
}

void HandlerPool::drain() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return running_ == 0 && queue_.empty(); });
}

void HandlerPool::close() {
  std::vector<agentkit::jthread> workers;
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mu_);
    if (closed_ && workers_.empty()) return;
    closed_ = true;
    work_waiting_.store(true, std::memory_order_release);
    dropped.swap(queue_);
    workers.swap(workers_);
  }
  work_ready_.notify_all();
  dropped.clear();  // destroyed outside the lock: captures may own peers
  for (auto& w : workers) {
    if (w.get_id() == std::this_thread::get_id()) {
      w.detach();  // closing from a handler: it returns right after; never join oneself
    } else {
      w.join();
    }
  }
  std::lock_guard lock(mu_);
  idle_.notify_all();
}

std::size_t HandlerPool::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

}  // namespace agentkit::mcp::detail
