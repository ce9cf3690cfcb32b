// agentkit/extensions.hpp — the extension axes: middleware around the model call, observe-only
// turn hooks, stop policies, the context transform and the plugin list (PluginConfig; the plugin
// classes are in agentkit/plugins.hpp). (Tool interceptors, the authorization
// boundary, are in agentkit/core/tool.hpp.)
//
//   using namespace agentkit;
//   RuntimeConfig rt;
//   rt.extensions.stop_policy = stop_any({stop_after_turns(20), stop_over_budget(2.00)});
//   rt.extensions.middleware.push_back(retry_middleware({.max_attempts = 3}));
//   rt.extensions.middleware.push_back([](ModelCall next) -> ModelCall {   // a pass-through
//     return [next](const Request& r, const StreamOptions& o, const EventCallback& emit,
//                   agentkit::stop_token stop) { return next(r, o, emit, stop); };
//   });
//
// Every callback here runs without any agent lock held and inside an exception guard: a throwing
// middleware ends the turn with an error message, a throwing hook or observer becomes an
// ErrorEvent, and a throwing stop policy STOPS the run (a limit that fails open is an unbounded
// bill). Middleware: the last registered is the outermost and runs first.
//
// Thread safety: callbacks may be invoked from the thread running Session::run only, never
// concurrently with each other within one session.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include "agentkit/base/stop_token.hpp"
#include <vector>

#include "agentkit/base/clock.hpp"
#include "agentkit/core/event.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"

namespace agentkit {

// ---- Middleware (axis 1) ---------------------------------------------------------------------

// Receives every model event as it arrives (the loop forwards them to observers and streams).
using EventCallback = std::function<void(Event)>;
// One model call: streams its events through `emit` and answers the final assistant message.
// Failures are messages with stop_reason error, never exceptions.
using ModelCall = std::function<AssistantMessage(const Request&, const StreamOptions&,
                                                 const EventCallback& emit, agentkit::stop_token)>;
using Middleware = std::function<ModelCall(ModelCall next)>;

struct RetryOptions {
  // Attempts in total, the first included.
  int max_attempts = 3;
  // Backoff before attempt n (n >= 1): min(base_delay * 2^(n-1), max_delay), minus up to 25 %
  // jitter (agentkit/base/backoff.hpp). The sleep wakes at once on cancellation.
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{8'000};
  // The clock the backoff sleeps on. Empty: the system clock; tests pass a ManualClock.
  std::shared_ptr<const Clock> clock;
  // Decides whether a completed error message is worth another attempt. Empty = the default
  // classifier (rate limits, overload, 408/409/429/5xx as whole tokens, timeouts, connection
  // resets; never an abort, never an authentication or validation error).
  std::function<bool(const AssistantMessage&)> retryable;
};
// Semantic retry over completed error messages. Aborts are never retried; an abort during the
// backoff sleep ends the call with an aborted message whose error_message is empty.
Middleware retry_middleware(RetryOptions options = {});
// The default classifier used by retry_middleware.
bool is_retryable_error(const AssistantMessage& message);

// ---- Turn hooks (axis 2, observe only) ---------------------------------------------------------

struct TurnHooks {
  std::function<void(const TurnStartEvent&)> on_turn_start;
  std::function<void(const TurnEndEvent&)> on_turn_end;
  std::function<void(const AgentEndEvent&)> on_agent_end;
  // The error of every ErrorEvent a run emits (a hook, stop policy, context transform or
  // after_tool_call that threw; a provider's error events), before observers see the event.
  std::function<void(const Error&)> on_error;
};

// ---- Stop policies -------------------------------------------------------------------------------

// What a stop policy sees after each turn, once that turn's tool results are in the history.
struct StopContext {
  const AssistantMessage& message;
  std::span<const ToolResultMessage> tool_results;  // empty for a turn without tools
  std::span<const Message> history;                 // the whole transcript
  std::span<const Message> new_messages;            // what this run added
  int turn_count = 0;                               // turns completed in this run
  const Usage& run_usage;                           // this run only, never the session's
};

struct StopDecision {
  bool stop = false;
  RunStopReason reason = RunStopReason::stop_policy;
};

using StopPolicy = std::function<StopDecision(const StopContext&)>;

// Stops once `turns` turns have completed (turn_count >= turns), reason max_turns.
StopPolicy stop_after_turns(int turns);
// Stops once this run's cost strictly exceeds `usd` (reason stop_policy).
StopPolicy stop_over_budget(double usd);
// Stops when the predicate answers true (reason stop_policy).
StopPolicy stop_when(std::function<bool(const StopContext&)> predicate);
// Stops when any policy stops; the first one that fires gives the reason.
StopPolicy stop_any(std::vector<StopPolicy> policies);

// ---- Context transform -------------------------------------------------------------------------

// Rewrites what the model sees at the head of every iteration. It receives a copy of the history
// (it cannot change the stored transcript) and answers the messages to send.
using ContextTransform = std::function<std::vector<Message>(std::vector<Message> history)>;

class Plugin;  // agentkit/plugins.hpp

// ---- Plugins (the classes are in agentkit/plugins.hpp) ---------------------------------------

// Which plugins an agent loads. Part of RuntimeConfig::extensions, so every agent has its own:
// two agents in one process with different plugin configs never see each other's plugins.
struct PluginConfig {
  // Loaded first, in this order, whatever the manifests say (unless disabled).
  std::vector<std::shared_ptr<Plugin>> builtins;
  // Compiled in but loaded only when a manifest names them. Default: none.
  std::vector<std::shared_ptr<Plugin>> available;
  // Folders searched for plugin manifests (`*.json`, not recursive), in this order. Nothing else
  // is ever searched: no home folder, no project folder. Default: none.
  std::vector<std::filesystem::path> manifest_dirs;
  // Plugin names never loaded, whoever selects them.
  std::vector<std::string> disabled;
  // Receives each warning (a skipped manifest, a clash won by the later plugin) when an agent is
  // built; empty = warnings are dropped (validate_plugins still lists them).
  std::function<void(const std::string&)> on_warning;
};

}  // namespace agentkit
