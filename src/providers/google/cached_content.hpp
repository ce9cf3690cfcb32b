// Gemini's explicit context cache (REQ-CACHE level 1, NFR-PERF-08): which stable prefixes have a
// CachedContent, creating them off the request path, and the one uncached resend after the service
// rejects a request naming one.
//
//   auto directory = std::make_shared<CacheDirectory>(options, clock);
//   CacheCreator creator(directory, pipeline, options);     // owns the creation threads
//   auto found = directory->lookup(key, prefix);            // never waits
//   if (found.create) creator.start(model, key, prefix);     // background; this request goes uncached
//   body = found.name ? cached_body(*found.name, parts) : whole_body(parts);
//   // and the pipeline's transport is a CacheRejectionTransport over the real one.
//
// Why three pieces: the directory is shared by the encoder (caller's thread), the creator's
// threads and the transport (call threads), so it holds data only; the creator owns threads and is
// destroyed (cancelled, joined) with the client; the transport sits inside the RequestPipeline.
// None of them owns another that owns it back.
//
// Creation never inherits a turn's cancellation: a cancelled turn would otherwise abort creation
// exactly when the cache is about to pay off. Its lifetime is the client's (GAPS, NFR-PERF-08).
//
// Thread safety: CacheDirectory and CacheRejectionTransport are safe for concurrent use;
// CacheCreator::start may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "../wire_common/wire_client_base.hpp"
#include "agentkit/base/clock.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/google.hpp"
#include "agentkit/providers/pipeline.hpp"

namespace agentkit::providers::detail::gemini {

// The cache key of a prefix for a model (caches are bound to the model they were made for).
std::string prefix_key(std::string_view model_id, std::string_view prefix);

class CacheDirectory {
 public:
  CacheDirectory(GeminiCacheOptions options, std::shared_ptr<const Clock> clock);

  struct Lookup {
    std::optional<std::string> name;  // a live cache to name in the request
    bool create = false;              // none exists or is being made: the caller starts one
  };
  // Never blocks on the service: answers what is known now.
  Lookup lookup(const std::string& key, std::string_view prefix);
  // Creation outcomes (from the creator's threads). `asked_at` is when the creation request was
  // sent: the local expiry counts from there, so it is never later than the service's.
  void created(const std::string& key, std::string name, std::chrono::steady_clock::time_point asked_at);
  void failed(const std::string& key);
  // For a request body that names a cache of this directory: the same request without it (the
  // prefix spliced back in), and the cache is forgotten. nullopt for any other body.
  std::optional<std::string> uncached_after_rejection(std::string_view body);

  const Clock& clock() const noexcept { return *clock_; }

 private:
  enum class State : std::uint8_t { creating, ready, failed };
  struct Entry {
    State state = State::creating;
    std::string name;
    std::string prefix;
    std::chrono::steady_clock::time_point until{};  // ready: usable until; failed: retry after
  };
  void make_room();  // precondition: mu_ held

  GeminiCacheOptions options_;
  std::shared_ptr<const Clock> clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // by prefix_key
};

class CacheCreator {
 public:
  CacheCreator(std::shared_ptr<CacheDirectory> directory, std::shared_ptr<const RequestPipeline> pipeline,
               GeminiCacheOptions options);
  CacheCreator(const CacheCreator&) = delete;
  CacheCreator& operator=(const CacheCreator&) = delete;
  ~CacheCreator();  // cancels creations in flight and joins them

  // Starts POST <base>/cachedContents for `prefix` on a thread of its own; returns at once.
  void start(std::shared_ptr<const Model> model, std::string key, std::string prefix);

 private:
  void create(const Model& model, const std::string& key, const std::string& prefix, agentkit::stop_token shutdown) const;

  std::shared_ptr<CacheDirectory> directory_;
  std::shared_ptr<const RequestPipeline> pipeline_;
  GeminiCacheOptions options_;
  CallThreads threads_;  // last: cancelled and joined first
};

// An HTTP transport over another: a 400 or 404 answering a request that names one of the
// directory's caches drops that cache and sends the request once more without it.
class CacheRejectionTransport final : public http::HttpTransport {
 public:
  CacheRejectionTransport(std::shared_ptr<http::HttpTransport> inner, std::shared_ptr<CacheDirectory> directory)
      : inner_(std::move(inner)), directory_(std::move(directory)) {}
  Result<http::Response> send(const http::Request& request, agentkit::stop_token stop) override;

 private:
  std::shared_ptr<http::HttpTransport> inner_;
  std::shared_ptr<CacheDirectory> directory_;
};

}  // namespace agentkit::providers::detail::gemini
