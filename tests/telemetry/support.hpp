// A loopback OTLP collector for the telemetry tests: records every request, answers as scripted.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "agentkit/http/server.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::telemetry::testing {

struct Recorded {
  std::string path;
  std::string body;
  http::Headers headers;
};

// What the collector answers the n-th request (0-based) to a path; empty = 200 "{}".
using Answer =
    std::function<void(std::size_t n, const http::ServerRequest&, http::ResponseWriter&)>;

class Collector {
 public:
  explicit Collector(Answer answer = {}) : answer_(std::move(answer)) {
    auto server = http::HttpServer::start(
        {}, [this](const http::ServerRequest& req, http::ResponseWriter& out) {
          std::size_t n = 0;
          {
            std::lock_guard lock(mu_);
            n = requests_.size();
            requests_.push_back({req.path, req.body, req.headers});
          }
          cv_.notify_all();
          if (answer_) {
            answer_(n, req, out);
          } else {
            (void)out.respond(200, {{"Content-Type", "application/json"}}, "{}");
          }
        });
    server_ = std::make_unique<http::HttpServer>(std::move(server).value());
  }
  ~Collector() { server_->stop(); }
  std::string url() const { return server_->base_url(); }
  std::vector<Recorded> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  std::vector<Recorded> requests_to(std::string_view path) const {
    std::vector<Recorded> out;
    for (auto& r : requests()) {
      if (r.path == path) out.push_back(r);
    }
    return out;
  }
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Recorded> requests_;
  Answer answer_;
  std::unique_ptr<http::HttpServer> server_;
};

}  // namespace agentkit::telemetry::testing
