// The bounded span queue and the one export thread shared by the OTLP and file exporters.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "agentkit/base/stop_token.hpp"
#include "agentkit/base/thread.hpp"
#include "agentkit/telemetry/otlp.hpp"

namespace agentkit::telemetry::detail {

class Batcher {
 public:
  // Exports one batch on the worker thread; `abandon` fires when shutdown's grace has run out.
  using Send = std::function<void(std::vector<SpanData> batch, agentkit::stop_token abandon)>;

  Batcher(BatchOptions options, Send send);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Never waits for export: a full queue (or a stopped batcher) drops the span and counts it.
  void push(SpanData span);
  bool flush(std::chrono::milliseconds timeout);
  // Drains within `grace`, then abandons what is left (counted as dropped) and joins.
  void shutdown(std::chrono::milliseconds grace);
  std::uint64_t queued() const;
  std::uint64_t dropped() const;
  // Waits up to `delay` unless shutdown abandons the wait; false when abandoned.
  bool sleep(std::chrono::milliseconds delay);

 private:
  void run();

  BatchOptions options_;
  Send send_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<SpanData> queue_;
  std::uint64_t queued_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t flush_asked_ = 0;
  std::uint64_t flush_done_ = 0;
  bool stopping_ = false;
  bool stopped_ = false;
  bool abandoned_ = false;
  agentkit::stop_source abandon_;
  agentkit::jthread worker_;  // last: started once everything above exists
};

}  // namespace agentkit::telemetry::detail
