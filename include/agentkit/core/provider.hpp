// agentkit/core/provider.hpp — the provider interface: a model descriptor, the canonical request,
// and ProviderClient, whose one primitive is stream().
//
//   using namespace agentkit;
//   Request req;
//   req.model = std::make_shared<Model>(model);            // from the catalog
//   std::vector<Message> history = {user_text("hello")};
//   req.messages = history;                                  // a view; must outlive the stream
//   EventStream s = client.stream(req, {}, stop);
//   while (auto ev = s.next()) { /* deltas as they arrive */ }
//   AssistantMessage reply = s.result().value();            // or: complete(client, req)
//
// Failures travel inside the stream: a provider never throws and never returns an Error; an HTTP
// failure, a malformed stream or a timeout ends the stream with an assistant message whose
// stop_reason is `error` (and `aborted` on cancellation, with the partial content kept).
// complete() is derived from stream() once, here, and never per provider.
//
// Thread safety: a ProviderClient must accept concurrent stream() calls (several sessions share
// it). ProviderRegistry is safe for concurrent reads; fill it before sharing it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit {

struct AnswerFormat;  // agentkit/core/answer.hpp

// Reasoning effort, clamped to what the model supports before it is sent.
enum class ThinkingLevel : std::uint8_t { off, minimal, low, medium, high, xhigh, max };
std::string_view to_string(ThinkingLevel level) noexcept;
std::optional<ThinkingLevel> parse_thinking_level(std::string_view s) noexcept;

// USD per million tokens.
struct ModelPricing {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
  // A tier applies to the whole request when its input exceeds `above_input_tokens` (strictly).
  struct Tier {
    std::int64_t above_input_tokens = 0;
    double input = 0;
    double output = 0;
    double cache_read = 0;
    double cache_write = 0;
    friend bool operator==(const Tier&, const Tier&) = default;
  };
  std::vector<Tier> tiers;
  std::string as_of;  // the date the prices were read from the vendor's page
  friend bool operator==(const ModelPricing&, const ModelPricing&) = default;
};

// Everything a wire needs to know about a model. Produced by the catalog; may be built by hand.
struct Model {
  std::string id;          // the vendor's model id, e.g. "claude-sonnet-4-5"
  std::string name;        // display name
  std::string vendor;      // "anthropic", "openai", "openrouter", "ollama", ...
  std::string api;         // the wire: "anthropic-messages", "openai-completions", ... , "faux"
  std::string base_url;
  std::int64_t context_window = 0;     // 0 = unknown
  std::int64_t max_output_tokens = 0;  // 0 = unknown
  ModelPricing pricing;
  bool reasoning = false;
  // Levels the model accepts, ascending; empty = no thinking control.
  std::vector<ThinkingLevel> thinking_levels;
  bool image_input = false;
  // The compatibility profile (wire quirks) as a JSON object; {} = the wire's defaults.
  json::Value compat;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set when this row was cloned from a sibling for an unknown id.
  std::string cloned_from;
};

// The only projection of a tool a provider sees.
struct ToolSpec {
  std::string name;
  std::string description;
  json::Value input_schema;
  // A hash of name, description and schema, computed once when the tool registry is built, so a
  // wire can cache its serialised schema and a steady-state request serialises none.
  std::uint64_t fingerprint = 0;
};
std::uint64_t fingerprint_of(const ToolSpec& spec);

struct ToolChoice {
  enum class Mode : std::uint8_t { automatic, none, required, tool };
  Mode mode = Mode::automatic;
  std::string tool_name;  // Mode::tool only
};

// One model call. The spans are views into storage the caller owns; they must stay valid until the
// returned stream has finished (the loop waits for result() before touching its history).
// Unset optionals are omitted from the wire; explicit zeros are sent.
struct Request {
  std::shared_ptr<const Model> model;
  std::string system;
  std::span<const Message> messages;
  std::span<const ToolSpec> tools;
  std::optional<ToolChoice> tool_choice;
  std::optional<std::int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::vector<std::string> stop_sequences;
  std::optional<ThinkingLevel> thinking;
  // Constrain the answer text to a JSON Schema with the wire's native structured-output mode
  // (agentkit/core/answer.hpp); null = free text. A wire lowers the schema for its dialect and
  // sends it on this request; a wire without a native mode ignores it (the loop validates every
  // answer itself, and uses a final-answer tool where catalog::answer_support says so).
  std::shared_ptr<const AnswerFormat> answer;
  // The caller's sticky session id: prompt-cache key and routing affinity (caching level 0).
  std::string session_id;
  // The caller's promise that `messages` only grows (0 = no promise, the default). Every request
  // carrying the same non-zero serial has, at each index both have, an equal message: the later
  // request's messages extend the earlier one's. A wire then reuses the encoding of the messages
  // it already sent without comparing them again. The agent loop sets it (a serial per session,
  // renewed when a compaction replaces the prefix; none when a context transform or the image
  // limits rewrote the request); a hand-built request leaves it 0 and is compared message by
  // message. A wrong promise sends stale bytes, so never reuse a serial for other messages.
  std::uint64_t history_serial = 0;
};

// Per-call transport options and hooks.
struct StreamOptions {
  // Header overrides, highest precedence; a nullopt value deletes a default header.
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  // The whole request, first byte to last; expiry is a retryable error, not an abort.
  std::optional<std::chrono::milliseconds> timeout;
  // Sees (and may replace) the encoded request body before it is sent. An error ends the call
  // with an error message carrying its text.
  std::function<Result<void>(std::string& body)> on_payload;
  // Sees the HTTP status and headers of the response.
  std::function<void(int status, const std::vector<std::pair<std::string, std::string>>& headers)>
      on_response;
  EventStreamOptions stream;
  // Defer the call to the reader: stream() returns a deferred stream (agentkit/core/event.hpp)
  // and nothing is sent until it is read — by drain() on the reading thread, with no thread, queue
  // or wakeup per event; by next()/result() on a pooled thread. The agent loop sets it. A client
  // that does not defer (the faux provider) starts at once as usual; drain() reads either kind.
  bool deferred = false;
};

// A session's caching figures over its whole life, all levels. Kept by the
// built-in wires (providers/cache.hpp explains each level); RunResult::cache carries them.
struct CacheStats {
  std::int64_t hits = 0;    // L2 answers served locally
  std::int64_t misses = 0;  // L2 lookups that went to the provider
  std::int64_t provider_cache_read_tokens = 0;
  std::int64_t provider_cache_write_tokens = 0;
  // USD: for every provider response, cache_read_tokens x (input rate - cache-read rate) at the
  // tier that request paid (from the response's own usage, never re-estimated); plus, for every
  // L2 hit, the full cost of the answer it replayed.
  double estimated_savings_usd = 0;
  // The deferral safety valve fired: every tool would have been deferred, all were promoted.
  std::int64_t deferred_promotions = 0;
  // A request whose tool prefix differed from the session's previous one by more than additions
  // (a tool removed or its schema changed): the provider's prompt cache was lost there.
  std::int64_t prefix_invalidations = 0;
  // L3: tool schemas serialised to wire form (0 on a steady-state request).
  std::int64_t schemas_serialised = 0;
  // Messages of the sent view encoded to wire form, and messages whose wire form was reused from
  // the session's previous request (a steady-state request encodes only the messages added since).
  std::int64_t messages_encoded = 0;
  std::int64_t messages_reused = 0;
  friend bool operator==(const CacheStats&, const CacheStats&) = default;
};

class ProviderClient {
 public:
  virtual ~ProviderClient() = default;
  // Starts the call and returns at once. Never throws; see the file comment for failures.
  virtual EventStream stream(const Request& request, const StreamOptions& options,
                             agentkit::stop_token stop) = 0;
  // The cache statistics this client keeps for `session_id` (Request::session_id); nullopt for a
  // client that keeps none.
  virtual std::optional<CacheStats> cache_stats(std::string_view session_id) const {
    (void)session_id;
    return std::nullopt;
  }
  // The session `session_id` (Request::session_id) has closed and sends no more requests: drop
  // what this client keeps for it. A session calls it once, when it closes (Session::close(), its
  // destructor or its agent's close()), unless TransportConfig::session_id names the id, which
  // other sessions may share. Called on the closing thread, with no call of that session in flight.
  virtual void session_closed(std::string_view session_id) { (void)session_id; }
};

// stream() then result(): the one blocking form, shared by every provider.
AssistantMessage complete(ProviderClient& client, const Request& request,
                          const StreamOptions& options = {}, agentkit::stop_token stop = {});

// Provider clients keyed by wire API ("anthropic-messages"), not by vendor: a vendor is a catalog
// row plus credentials. Lives on the runtime configuration; nothing registers itself.
class ProviderRegistry {
 public:
  // Adds or replaces the client for `api`.
  void add(std::string api, std::shared_ptr<ProviderClient> client);
  // The client for `api`, or Errc::not_found naming the registered APIs.
  Result<std::shared_ptr<ProviderClient>> find(std::string_view api) const;
  std::vector<std::string> apis() const;
  bool empty() const noexcept { return clients_.empty(); }

 private:
  std::map<std::string, std::shared_ptr<ProviderClient>, std::less<>> clients_;
};

}  // namespace agentkit
