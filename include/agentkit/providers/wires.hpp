// agentkit/providers/wires.hpp — building the five built-in wire clients, the seam between a wire
// and the caching layer, and the options every wire shares.
//
//   using namespace agentkit;
//   ProviderRegistry registry;
//   providers::WireOptions options;                        // transport, caching, meter
//   options.caching.dedup = providers::DedupOptions{};     // L2 on (cache.hpp)
//   providers::RegisteredWires wires = providers::register_wires(registry, options);
//   auto anthropic = providers::make_wire_client("anthropic-messages", options).value();
//   Result<providers::PreparedCall> call = anthropic->prepare(request, {});
//   call->wire.body;                                       // the exact bytes that would be sent
//   wires.meter->stats(request.session_id);                // cache statistics (cache.hpp)
//
// A wire encodes the canonical Request (after send-time repair, repair.hpp) into its vendor's
// JSON, sends it through the shared RequestPipeline (pipeline.hpp) and decodes the answer —
// streamed (SSE/NDJSON) or whole (application/json), chosen by the reply's Content-Type — into
// the same canonical AssistantMessage, emitting message_start, block_start, the deltas, block_end
// and message_end as it goes. Failures end the stream with stop_reason error.
//
// prepare() is the seam the response cache needs: it answers the exact body the wire
// would send (StreamOptions::on_payload already applied), so the dedup layer can fingerprint wire
// bytes without the wire re-encoding them; send() sends a prepared call.
//
// Thread safety: a WireClient accepts concurrent calls from many threads. Each in-flight call runs
// on a thread the client owns; destroying the client cancels and joins them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/providers/cache.hpp"
#include "agentkit/providers/pipeline.hpp"

namespace agentkit::providers {

// Anthropic-only switches. Safe to copy.
struct AnthropicOptions {
  // Server-side compaction (beta compact-2026-01-12): off by default. On, the
  // request carries the beta header and the context_management edit that makes it work (the
  // header alone does nothing); compaction blocks the server returns are replayed unchanged.
  bool server_compaction = false;
  // Input tokens at which the server compacts; nullopt = the server's default (150,000).
  std::optional<std::int64_t> compaction_trigger_tokens;
};

// What every built-in wire is built from. Safe to copy; read when a client is built.
struct WireOptions {
  // The request pipeline: HTTP transport, credentials, transport retry, headers, attribution.
  ProviderOptions transport;
  // Caching levels 0-3 (cache.hpp).
  PromptCacheOptions caching;
  // Where cache statistics go; nullptr = register_wires/make_wire_client create one.
  std::shared_ptr<CacheMeter> meter;
  AnthropicOptions anthropic;
};

// An encoded request, ready to send.
struct PreparedCall {
  std::shared_ptr<const Model> model;
  WireRequest wire;           // path, body (the exact bytes), the wire's default headers
  std::string session_id;     // for cache statistics
  // Things the request asked for that this wire or model cannot do (stop sequences on a wire
  // without them): reported as non-terminal ErrorEvents on the stream, never dropped silently.
  std::vector<Error> unsupported;
  // The request asked for sampling (temperature unset or > 0): L2 will not cache it by default.
  bool samples = true;
};

class WireClient : public ProviderClient {
 public:
  // Encodes `request` exactly as stream() would, applying options.on_payload. No I/O. An error here
  // is what stream() would report as a pre-closed error stream.
  virtual Result<PreparedCall> prepare(const Request& request, const StreamOptions& options) const = 0;
  // Sends a prepared call (options.on_payload is not applied again).
  virtual EventStream send(PreparedCall call, const StreamOptions& options, agentkit::stop_token stop) = 0;
  // The API this client speaks ("anthropic-messages").
  virtual std::string_view api() const noexcept = 0;
  // Where this client reports cache statistics.
  virtual std::shared_ptr<CacheMeter> meter() const = 0;

  // prepare() then send(); a preparation failure is a pre-closed error stream.
  EventStream stream(const Request& request, const StreamOptions& options, agentkit::stop_token stop) override;
  // meter()'s figures for the session.
  std::optional<CacheStats> cache_stats(std::string_view session_id) const override;
  // Forgets the session's figures on meter(). The built-in wires also drop the session's kept
  // encoding, repair point and tool prefix; the dedup layer passes it on and drops the session's
  // response store.
  void session_closed(std::string_view session_id) override;
};

// A client for one built-in API, or Errc::not_found naming the built-in APIs.
Result<std::shared_ptr<WireClient>> make_wire_client(std::string_view api, const WireOptions& options);

struct RegisteredWires {
  std::vector<std::string> apis;
  std::shared_ptr<CacheMeter> meter;  // shared by every client added
};

// Adds every built-in wire to `registry` (replacing clients already registered for those APIs),
// all sharing one RequestPipeline and one CacheMeter, each wrapped in the L2 dedup layer when
// options.caching.dedup is set. register_defaults(registry, transport) (pipeline.hpp) is this call
// with default caching.
RegisteredWires register_wires(ProviderRegistry& registry, WireOptions options = {});

// Wraps a wire client in the L2 dedup layer (cache.hpp): identical wire bytes within a session
// (or across sessions with a shared store) are answered from the store. Emits a CacheEvent (hit or
// miss, with the fingerprint) on every cacheable call.
std::shared_ptr<WireClient> with_dedup(std::shared_ptr<WireClient> inner, DedupOptions options);

}  // namespace agentkit::providers
