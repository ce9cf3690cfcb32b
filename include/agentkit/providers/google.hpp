// agentkit/providers/google.hpp — the google-generative-ai wire (Gemini API, generateContent) and
// its explicit context cache (CachedContent).
//
//   using namespace agentkit;
//   providers::WireOptions wires;                            // wires.hpp: transport, caching
//   providers::GoogleOptions google;                         // explicit cache on, 32k-token floor
//   std::shared_ptr<providers::WireClient> gemini = providers::make_google_client(wires, google);
//   ProviderRegistry registry;
//   registry.add("google-generative-ai", gemini);   // register_defaults adds one with GoogleOptions{}
//
// Requests go to `<base>/models/<id>:streamGenerateContent?alt=sse`; the reply is decoded streamed
// (SSE) or whole (application/json), into the same canonical message. Wire facts kept here:
// Gemini carries no tool-call ids, so ids are synthesised per response from the request bytes (the
// streamed and whole paths agree, a replayed transcript still pairs) and results pair by position
// (one user content with N functionResponse parts); arguments arrive as a JSON object and their
// source bytes are kept; text after a function call opens a new block; cached tokens are netted
// out of promptTokenCount once and thoughts are counted inside output; a stream whose last
// candidate never carries a finishReason was cut short and is an error.
//
// Explicit context cache (REQ-CACHE level 1, NFR-PERF-08): when the stable prefix of a request
// (system instruction, tools, tool config) is estimated above `min_prefix_tokens`, a CachedContent
// holding it is created in the background, on a thread the client owns and with a cancellation of
// its own (never the turn's): the request that noticed the prefix, and every one until the cache is
// ready, is sent uncached, so the loop never waits. Later requests with the same prefix name the
// cache instead of resending it. The cache's lifetime is tracked locally (no request names a cache
// past its expiry), and a 400 or 404 on a request naming a cache drops that cache and resends the
// request once without it. Off when PromptCacheOptions::retention is none.
//
// Thread safety: the client accepts concurrent calls; destroying it cancels cache creation in
// flight and joins every thread it started.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers {

// Gemini's explicit context cache. Safe to copy.
struct GeminiCacheOptions {
  // Create caches at all. Also off whenever PromptCacheOptions::retention is none.
  bool enabled = true;
  // The stable prefix must be estimated above this many tokens (catalog::estimate_prompt_tokens)
  // before a cache is created: above 32k tokens, where storage pays for itself.
  std::int64_t min_prefix_tokens = 32'768;
  // The lifetime asked of the service (60 minutes by default).
  std::chrono::seconds ttl{3600};
  // A cache stops being named this long before its local expiry, so a request in flight never
  // reaches the service after the cache is gone.
  std::chrono::seconds expiry_margin{60};
  // After a failed creation, the same prefix is not tried again for this long.
  std::chrono::seconds retry_after_failure{600};
  // The whole creation call, first byte to last.
  std::chrono::milliseconds creation_timeout{60'000};
  // Prefixes remembered at once (each keeps its encoded bytes for the uncached resend); past it
  // the entry closest to expiry is forgotten.
  std::size_t max_entries = 32;
};

// Gemini-only switches. Safe to copy.
struct GoogleOptions {
  GeminiCacheOptions cached_content;
};

// A google-generative-ai client. With the explicit cache on, its requests go through a
// RequestPipeline of its own built from `options.transport`, whose transport performs the one
// uncached resend described above; with it off, through `pipeline` (nullptr: one built from
// options.transport), which may be shared with other wires.
std::shared_ptr<WireClient> make_google_client(const WireOptions& options = {}, const GoogleOptions& google = {},
                                               std::shared_ptr<const RequestPipeline> pipeline = nullptr);

}  // namespace agentkit::providers
