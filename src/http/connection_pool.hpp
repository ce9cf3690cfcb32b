// Private: idle keep-alive connections, keyed by origin (and the proxy they go through).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "agentkit/http/stream.hpp"

namespace agentkit::http::detail {

// How many idle connections an origin keeps is sized from use: at least the configured number,
// and as many as requests to it have been in flight at once (each request in flight holds one
// connection, and each gives it back), up to kMaxIdleFromUse. So a thousand sessions sharing one
// client reuse a thousand connections instead of reopening what a fixed bound turned away.
//
// A request takes the lock twice: once to start (count it in flight and take an idle connection)
// and once to give its connection back; its end is an atomic count. Nothing slow runs under the
// lock: the health check of an idle connection (a poll) and the closing of dropped ones happen
// outside it, so a thousand threads sharing a client do not queue behind a system call.
class ConnectionPool {
  struct Origin;

 public:
  static constexpr std::size_t kMaxIdleFromUse = 4096;

  ConnectionPool(std::size_t max_idle_per_key, std::chrono::milliseconds max_idle_age)
      : max_idle_per_key_(max_idle_per_key), max_idle_age_(max_idle_age) {}

  // A request to an origin in flight, from its start to the end (or abandonment) of its response.
  class Lease {
   public:
    Lease() = default;
    explicit Lease(Origin* origin) : origin_(origin) {}
    Lease(Lease&& other) noexcept : origin_(other.origin_) { other.origin_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (origin_) origin_->in_flight.fetch_sub(1, std::memory_order_relaxed);
    }

   private:
    Origin* origin_ = nullptr;
  };
  struct Start {
    Lease lease;
    std::unique_ptr<Stream> stream;  // an idle connection found healthy, or nullptr
  };
  // Counts a request to `key` in flight until the lease is destroyed (the pool must outlive it),
  // and takes the most recently returned healthy connection for `key`, if any. Connections that
  // are too old, or that the server has closed or written to while idle, are dropped on the way.
  Start start(const std::string& key);

  // Keeps a connection whose last response was read to its end and allows reuse.
  void release(const std::string& key, std::unique_ptr<Stream> stream);
  void clear();

 private:
  struct Idle {
    std::unique_ptr<Stream> stream;
    std::chrono::steady_clock::time_point since;
  };
  struct Origin {
    std::vector<Idle> idle;  // oldest first
    std::atomic<std::size_t> in_flight{0};
    std::size_t peak_in_flight = 0;  // under the lock
  };
  // The newest idle connection of `origin` young enough to reuse, or nullptr; older ones past
  // their age go to `dead`. Called with mutex_ held.
  std::unique_ptr<Stream> take_young(Origin& origin, std::vector<std::unique_ptr<Stream>>& dead);

  std::size_t max_idle_per_key_;
  std::chrono::milliseconds max_idle_age_;
  std::mutex mutex_;
  // Node-based: an Origin never moves and is never erased, so a Lease may point at it.
  std::unordered_map<std::string, Origin> origins_;
};

}  // namespace agentkit::http::detail
