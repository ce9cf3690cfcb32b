// agentkit/runtime.hpp — everything about HOW an agent runs (model, providers, transport, loop
// control, extensions, observability), as opposed to what it is (AgentDefinition).
//
//   agentkit::RuntimeConfig rt;
//   rt.model.spec = "faux/scripted";                     // or "anthropic/claude-sonnet-4-5"
//   rt.model.max_tokens = 4096;                          // an upper bound; clamped to the model
//   rt.providers.add("faux", faux);                      // or providers::register_defaults(...)
//   rt.loop.max_turns = 25;
//   rt.extensions.before_tool_call = my_policy;          // the authorization boundary
//
// Unset optionals mean "not sent" / "library default", never zero. The built-in wires' HTTP
// client, TLS, credentials and transport retry are not here: they are given to the clients when
// they are built, by providers::register_defaults(rt.providers, options) (providers/pipeline.hpp),
// so this header never pulls the providers' machinery into a program that does not use it.
//
// Thread safety: plain values, copied into the Agent by make_agent.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/core/event.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/core/tool.hpp"
#include "agentkit/core/tracing.hpp"
#include "agentkit/extensions.hpp"

namespace agentkit {

namespace audit {
class Trail;  // agentkit/audit.hpp
}

struct ModelConfig {
  // "vendor/model-id", resolved when the agent is built ("faux/<anything>" needs no catalog).
  // Ignored when `descriptor` is set.
  std::string spec;
  // A complete model description, used as is.
  std::optional<Model> descriptor;
  std::optional<ThinkingLevel> thinking;
  // Upper bound on output tokens per call.
  std::optional<std::int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::vector<std::string> stop_sequences;
  std::optional<ToolChoice> tool_choice;
};

// What the loop applies to each model call, whichever client serves it.
struct TransportConfig {
  // Per-request headers, timeout and payload/response hooks, applied to every model call.
  StreamOptions request;
  // Sticky session id: the provider prompt-cache key and routing affinity. Empty = the session's
  // own generated id.
  std::string session_id;
};

// What one run may spend, its subagents' spend included (agentkit/subagent.hpp). Each unset
// field is no limit (the default). Tokens and USD are checked after each turn, so a run stops
// with RunStopReason::budget_exhausted after the model call that crossed the line (one call can
// overshoot by its own size). Wall time stops the run where it is: at the deadline the model call
// or tools in flight are cancelled (a tool sees ToolContext::stop), their partial results are
// kept, and the run ends with budget_exhausted.
struct RunBudget {
  std::optional<std::int64_t> tokens;  // Usage::total_tokens() summed over the run's model calls
  std::optional<double> usd;           // Usage::cost.total summed likewise
  std::optional<std::chrono::milliseconds> wall_time;  // from the start of the run
  friend bool operator==(const RunBudget&, const RunBudget&) = default;
};

// How queued steering and follow-up messages are delivered at each poll.
enum class QueueMode : std::uint8_t { one_at_a_time, all };

struct LoopConfig {
  // Stop after this many turns in one run (reason max_turns). nullopt = no limit.
  std::optional<int> max_turns;
  // Run the calls of a batch concurrently (unless one of them is sequential).
  bool parallel_tools = true;
  // Time limit for tools whose own timeout is ToolTimeout::inherit(); nullopt = none.
  std::optional<std::chrono::milliseconds> tool_timeout;
  QueueMode steering = QueueMode::one_at_a_time;
  QueueMode follow_up = QueueMode::one_at_a_time;
  // Tokens, USD and wall time for each run; default: no limit. A subagent's slice is reserved
  // from what is left of it.
  RunBudget budget;
};

struct ExtensionConfig {
  // Wraps every model call; the last registered runs first (outermost).
  std::vector<Middleware> middleware;
  TurnHooks hooks;
  // The authorization boundary: allow, deny with a reason, or rewrite arguments.
  BeforeToolCall before_tool_call;
  AfterToolCall after_tool_call;
  StopPolicy stop_policy;
  ContextTransform context_transform;
  // A shell tool (execute, run_command, powershell, ...) without before_tool_call makes make_agent
  // fail unless this is set: the embedder must choose to run whatever the model writes.
  bool allow_all_tool_calls = false;
  // Backends, tool providers, session storage and event hooks (agentkit/plugins.hpp). The
  // registry is this agent's own: nothing is shared with another agent's config.
  PluginConfig plugins;
};

// How images are fitted to the provider: every image entering history (tool results after
// after_tool_call, user input) and every request's images are checked against a budget. Each
// unset field takes the figure for the model's vendor (images::budget_for_vendor: 90% of the
// vendor's published limits, docs/providers.md; the strictest, Anthropic's, for a vendor
// without its own). Sizes are base64 characters, which is what is sent.
struct ImageConfig {
  // Largest base64 text of one image. Default: 4.5 MB (Anthropic), 18 MB (OpenAI), 6.3 MB
  // (Google).
  std::optional<std::size_t> max_base64_bytes;
  // Longest side of one image in pixels. Default: 2000.
  std::optional<std::uint32_t> max_side;
  // Longest side once a request holds more than `many_images` images. Default: 2000 over 20
  // images (Anthropic's rule; other vendors have none).
  std::optional<std::uint32_t> max_side_when_many;
  std::optional<std::size_t> many_images;
  // Largest base64 total of the images of one request. Default: 24 MB (Anthropic), 45 MB
  // (OpenAI), 18 MB (Google).
  std::optional<std::size_t> max_request_base64_bytes;
  // Most images in one request; older ones are replaced by a note in that request (history
  // keeps them). Default: 100 (Anthropic), 500 (OpenAI), 3000 (Google).
  std::optional<std::size_t> max_images_per_request;
};

struct ObservabilityConfig {
  // Called synchronously, in order, on the emitting thread, for every event of every session.
  // Keep them quick; a throwing observer is reported as an ErrorEvent and never ends the run.
  std::vector<std::function<void(const Event&)>> observers;
  // Bounds of each Session::events() subscription.
  EventStreamOptions events;
  // The clock stamped on messages; empty = the system clock. Injectable for deterministic tests.
  std::function<Timestamp()> clock;
  // OpenTelemetry GenAI spans per run, model call and tool call (docs/architecture.md names the
  // convention version). Off by default; agentkit_telemetry ships OTLP/HTTP and file exporters.
  tracing::TracingConfig tracing;
  // The audit trail (agentkit/audit.hpp): a hash-chained JSONL record of every run, model call,
  // tool call and loaded skill. Null (the default) = none. Shared, so every session, agent and
  // child agent built from this configuration writes to one chain.
  std::shared_ptr<audit::Trail> audit;
};

// Compaction: when the next request would no longer fit the model's context window, the older
// part of the conversation is replaced, in what the model sees, by a summary the session's own
// model writes. The stored transcript is never changed (a session log records a `compaction`
// entry; the summarised entries stay on disk). Decided before each request from an estimate,
// never on the final turn; a provider's context-overflow error also compacts once and retries the
// request once. docs/api.md "Compaction" has the rules and the pinned summary prompt.
struct CompactionConfig {
  // Off by default: nothing is summarised and no extra model call is made.
  bool enabled = false;
  // Tokens kept free below the context window: the next request compacts when its estimate
  // exceeds context_window - reserve_tokens. Covers the reply and one turn of growth.
  std::int64_t reserve_tokens = 16'384;
  // The most recent part of the conversation kept verbatim, in estimated tokens (the cut is then
  // moved forward to the next turn boundary, so a tool call is never parted from its result).
  std::int64_t keep_recent_tokens = 20'000;
  // The window to plan against; nullopt = the model's (Model::context_window). With neither
  // (a window of 0), only a provider's overflow error compacts.
  std::optional<std::int64_t> context_window;
  // Output bound of the summary call; nullopt = min(0.8 x reserve_tokens, the model's output
  // limit).
  std::optional<std::int64_t> summary_max_tokens;
  // A provider error saying the prompt is too long compacts (keeping half of
  // keep_recent_tokens) and sends the request once more.
  bool retry_on_overflow = true;
};

struct RuntimeConfig {
  ModelConfig model;
  ProviderRegistry providers;
  TransportConfig transport;
  LoopConfig loop;
  ExtensionConfig extensions;
  ObservabilityConfig observability;
  ImageConfig images;
  CompactionConfig compaction;
};

}  // namespace agentkit
