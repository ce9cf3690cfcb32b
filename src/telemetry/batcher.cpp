#include "batcher.hpp"

namespace agentkit::telemetry::detail {

Batcher::Batcher(BatchOptions options, Send send) : options_(options), send_(std::move(send)) {
  if (options_.max_batch == 0) options_.max_batch = 1;
  worker_ = agentkit::jthread([this] { run(); });
}

Batcher::~Batcher() { shutdown(std::chrono::milliseconds(0)); }

void Batcher::push(SpanData span) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= options_.max_queue) {
      ++dropped_;
      return;
    }
    ++queued_;
    queue_.push_back(std::move(span));
    if (queue_.size() < options_.max_batch) return;
  }
  cv_.notify_all();
}

bool Batcher::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (stopped_) return queue_.empty();
  const std::uint64_t ticket = ++flush_asked_;
  cv_.notify_all();
  return cv_.wait_for(lock, timeout, [&] { return flush_done_ >= ticket || stopped_; });
}

void Batcher::shutdown(std::chrono::milliseconds grace) {
  {
    std::unique_lock lock(mu_);
    if (stopped_) return;
    stopping_ = true;
    ++flush_asked_;
    cv_.notify_all();
    if (!cv_.wait_for(lock, grace, [&] { return stopped_; })) {
      abandoned_ = true;
      abandon_.request_stop();
      cv_.notify_all();
    }
  }
  if (worker_.joinable()) worker_.join();
}

std::uint64_t Batcher::queued() const {
  std::lock_guard lock(mu_);
  return queued_;
}

std::uint64_t Batcher::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

bool Batcher::sleep(std::chrono::milliseconds delay) {
  std::unique_lock lock(mu_);
  return !cv_.wait_for(lock, delay, [&] { return abandoned_; });
}

void Batcher::run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait_for(lock, options_.schedule_delay, [&] {
      return stopping_ || queue_.size() >= options_.max_batch || flush_asked_ > flush_done_;
    });
    if (abandoned_) {
      dropped_ += queue_.size();
      queue_.clear();
    }
    if (queue_.empty()) {
      flush_done_ = flush_asked_;
      cv_.notify_all();
      if (stopping_) break;
      continue;
    }
    const std::uint64_t asked = flush_asked_;
    std::vector<SpanData> batch;
    const std::size_t n = std::min(queue_.size(), options_.max_batch);
    batch.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lock.unlock();
    send_(std::move(batch), abandon_.get_token());
    lock.lock();
    if (queue_.empty()) {
      flush_done_ = asked;
      cv_.notify_all();
    }
  }
  stopped_ = true;
  cv_.notify_all();
}

}  // namespace agentkit::telemetry::detail
