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
class ConnectionPool {
 public:
  static constexpr std::size_t kMaxIdleFromUse = 4096;

  ConnectionPool(std::size_t max_idle_per_key, std::chrono::milliseconds max_idle_age)
      : max_idle_per_key_(max_idle_per_key), max_idle_age_(max_idle_age) {}

  // A request to `key` in flight, from its start to the end (or abandonment) of its response.
  class Lease {
   public:
    Lease() = default;
    Lease(ConnectionPool* pool, std::string key) : pool_(pool), key_(std::move(key)) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), key_(std::move(other.key_)) {
      other.pool_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (pool_) pool_->end_lease(key_);
    }

   private:
    ConnectionPool* pool_ = nullptr;
    std::string key_;
  };
  // Counts a request to `key` in flight until the lease is destroyed; the pool must outlive it.
  Lease lease(const std::string& key);

  // The most recently returned healthy connection for `key`, or nullptr. Connections that are too
  // old, or that the server has closed or written to while idle, are dropped on the way.
  std::unique_ptr<Stream> acquire(const std::string& key);
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
    std::size_t in_flight = 0;
    std::size_t peak_in_flight = 0;
  };
  void end_lease(const std::string& key);

  std::size_t max_idle_per_key_;
  std::chrono::milliseconds max_idle_age_;
  std::mutex mutex_;
  std::unordered_map<std::string, Origin> origins_;
};

}  // namespace agentkit::http::detail
