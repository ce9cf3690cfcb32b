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

class ConnectionPool {
 public:
  ConnectionPool(std::size_t max_idle_per_key, std::chrono::milliseconds max_idle_age)
      : max_idle_per_key_(max_idle_per_key), max_idle_age_(max_idle_age) {}

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
  std::size_t max_idle_per_key_;
  std::chrono::milliseconds max_idle_age_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<Idle>> idle_;
};

}  // namespace agentkit::http::detail
