// agentkit/providers/cache.hpp — the four caching levels of the built-in wires and the per-session
// cache statistics.
//
//   using namespace agentkit::providers;
//   WireOptions wires;                                    // wires.hpp
//   wires.caching.retention = CacheRetention::long_term;  // L1: 1-hour prefix where supported
//   wires.caching.dedup = DedupOptions{.capacity = 64};   // L2: answer repeated requests locally
//   RegisteredWires r = register_wires(registry, wires);
//   ...                                                   // run a session with session id "s-1"
//   CacheStats s = r.meter->stats("s-1");                 // hits, misses, provider cache tokens...
//
// Level 0 (sticky routing): Request::session_id becomes OpenAI's `prompt_cache_key` (at most 64
// code points, never cut inside a character) and a session-affinity header, so a gateway routes a
// session to the node whose prompt cache is warm.
// Level 1 (provider prompt caching): Anthropic gets a rolling `cache_control` breakpoint, recomputed
// on every request — the last system block, the last tool, the last block of the last user
// message; never more than four markers. A tool first offered mid-session is
// declared after the cached prefix without a marker. OpenAI caches automatically (keyed by L0).
// Level 2 (request dedup): an LRU from SHA-256(exact wire bytes) to the response; a hit replays the
// stored answer without a network call and credits what that answer originally cost as savings.
// Off by default; never used when temperature is unset or above 0 unless told.
// Level 3 (schema reuse): each wire serialises a tool's schema once (keyed by
// ToolSpec::fingerprint) and reuses the bytes: a steady-state request serialises no schema.
//
// Thread safety: CacheMeter and ResponseCache are safe for concurrent use. Options are plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"

namespace agentkit::providers {

// Level 1 retention: none switches provider caching markers off.
enum class CacheRetention : std::uint8_t {
  none,        // no cache_control markers at all
  short_term,  // the provider's default lifetime (Anthropic: 5 minutes)
  long_term,   // the cached prefix lives 1 hour where the model row says the endpoint supports it
};

class ResponseCache;

// Level 2 settings. Safe to copy.
struct DedupOptions {
  // Entries per store; the least recently used one is evicted past it.
  std::size_t capacity = 128;
  // Cache answers even when the request samples (temperature unset or > 0). Unset
  // temperature counts as sampling: most providers default to 1.
  bool ignore_temperature = false;
  // Stores kept at once when each session has its own (the least recently used session's store is
  // dropped past it). Ignored with a shared store.
  std::size_t max_sessions = 256;
  // One store for every session (cross-session reuse); nullptr = one per session.
  std::shared_ptr<ResponseCache> shared_store;
};

// Levels 0, 1 and 3 are always applied; these settings tune them. Safe to copy.
struct PromptCacheOptions {
  CacheRetention retention = CacheRetention::short_term;
  // Level 0's routing header; empty disables it. Carries the caller's session id only.
  std::string affinity_header = "x-session-affinity";
  // Level 2; nullopt = off.
  std::optional<DedupOptions> dedup;
  // Each wire keeps the wire form of the history it sent per session and encodes only the
  // messages added since (docs/architecture.md, "Encoding that does not grow with history").
  // false = every request encodes its whole history (the same bytes, more work).
  bool reuse_encoded_history = true;
  // The most bytes of that wire form one client keeps across its sessions (what its strings
  // hold, capacity included). Past it the least recently used sessions' are dropped (each then
  // encodes once from the start); the session just encoded is always kept. Sized for about 1,500
  // sessions of 40 KB, or 100 of 600 KB.
  std::size_t encoded_history_bytes = 64 * 1024 * 1024;
};

// One session's cache accounting over its life.
// The statistics themselves are a core type, so RunResult can carry them (core/provider.hpp).
using CacheStats = ::agentkit::CacheStats;

// Per-session cache statistics, keyed by Request::session_id (the loop sets it to the session's
// id, or to TransportConfig::session_id). Every built-in wire and the dedup layer report here.
class CacheMeter {
 public:
  CacheMeter();
  ~CacheMeter();
  CacheMeter(const CacheMeter&) = delete;
  CacheMeter& operator=(const CacheMeter&) = delete;

  // The statistics of `session_id` so far (zeros for an unknown session).
  CacheStats stats(std::string_view session_id) const;
  // Drops a finished session's entry.
  void forget(std::string_view session_id);

  // Recording, for the wires and the dedup layer.
  void record_hit(std::string_view session_id, double saved_usd);
  void record_miss(std::string_view session_id);
  // A provider response's cache tokens and the saving they represent at `pricing`.
  void record_response(std::string_view session_id, const Usage& usage, const ModelPricing& pricing);
  void record_promotion(std::string_view session_id);
  void record_invalidation(std::string_view session_id);
  void record_serialised(std::string_view session_id, std::int64_t schemas);
  void record_encoded(std::string_view session_id, std::int64_t encoded, std::int64_t reused);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- Level 1: which tools are deferred -------------------------------------------

struct DeferredSplit {
  std::vector<std::size_t> immediate;  // indexes into the offered tools, in offered order
  std::vector<std::size_t> deferred;   // first offered mid-session, in offered order
  // For each deferred tool (same order): the index in the history of the tool result that first
  // listed it in added_tool_names — where it is declared on wires that re-declare in prose.
  std::vector<std::size_t> declared_after;
  // Every offered tool would have been deferred, so all were promoted (the cache is lost once).
  bool promoted_all = false;
};

// One forward pass over `history`: a tool is deferred when a tool result listed it in
// added_tool_names before any assistant turn called it; a call before the marker keeps it
// immediate, and a call after it never un-defers it. Tools never marked are immediate. When every
// offered tool would be deferred, all become immediate (promoted_all).
DeferredSplit split_deferred_tools(std::span<const ToolSpec> tools, std::span<const Message> history);

// ---- Level 2: the response store -------------------------------------------------------------------

// An LRU from request fingerprint (hex SHA-256 of the wire bytes) to the assistant message that
// answered it. Thread-safe.
class ResponseCache {
 public:
  explicit ResponseCache(std::size_t capacity = 128);
  ~ResponseCache();
  ResponseCache(const ResponseCache&) = delete;
  ResponseCache& operator=(const ResponseCache&) = delete;

  // The stored answer, marked most recently used; nullopt on a miss.
  std::optional<AssistantMessage> find(std::string_view fingerprint);
  // Stores (or replaces) an answer, evicting the least recently used entry past capacity.
  void insert(std::string fingerprint, AssistantMessage answer);
  std::size_t size() const;
  std::size_t capacity() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- Level 0 ----------------------------------------------------------------------------------------

// OpenAI's prompt_cache_key limit, in code points (REQ-CACHE level 0).
inline constexpr std::size_t kPromptCacheKeyMaxCodePoints = 64;
// The session id as a prompt-cache key: at most 64 code points, never cut inside a character.
std::string prompt_cache_key(std::string_view session_id);

}  // namespace agentkit::providers
