// agentkit/core/event.hpp — what a run and a provider stream tell their observers, and the
// EventStream that carries it.
//
//   agentkit::EventStream events = session.events();      // an independent subscription
//   while (auto ev = events.next()) {
//     if (auto* d = std::get_if<agentkit::TextDeltaEvent>(&*ev)) std::cout << d->delta;
//   }
//   if (events.error()) log(events.error()->to_string());  // e.g. Errc::overrun
//
// Deltas are hints; the *End event of the same item is the truth (a consumer discards what it
// accumulated and takes the end event's payload). Every item opens and closes exactly once, on
// every path, error and abort included.
//
// EventStream: the producer (a provider, the loop) pushes through an EventSink and never blocks,
// drops or reorders; each event is an independent copy. A consumer that falls more than
// `max_pending_bytes` behind is cut off (next() ends, error() = Errc::overrun) — never the producer.
// For a provider stream, result() answers the final assistant message without reading any event.
//
// A deferred stream (make_deferred_event_stream) has a producer that has not started: drain()
// runs it on the reading thread and hands each event straight to its callback — no queue, lock or
// wakeup — while next()/try_next()/result() start it on a thread the producer's owner supplies.
// A producer wakes a consumer only when the consumer is waiting, so events pushed while it is busy
// are picked up in a batch.
//
// Thread safety: one producer (EventSink) and one consumer (EventStream) may run on different
// threads. Neither object is meant to be shared between several threads of the same side.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit {

// ---- Run-level events -------------------------------------------------------------------------

struct AgentStartEvent {
  std::string session_id;
  std::string provider;
  std::string api;
  std::string model;
  std::vector<std::string> skills;  // the skills the system prompt lists, for the audit record
};
struct AgentEndEvent {
  RunStopReason reason = RunStopReason::stop;
  Usage run_usage;      // this run
  Usage session_usage;  // the session so far
  std::string error;    // set when the run ended in an error
};
struct TurnStartEvent {
  int turn_index = 0;
};
// tool_results is empty (never absent) for a turn without tools.
struct TurnEndEvent {
  int turn_index = 0;
  AssistantMessage message;
  std::vector<ToolResultMessage> tool_results;
};
// A steering or follow-up message entered the transcript.
struct UserMessageEvent {
  UserMessage message;
  bool steering = false;
};

// ---- Model output (one assistant message) ------------------------------------------------------

enum class BlockKind : std::uint8_t { text, thinking, tool_use };

struct MessageStartEvent {
  AssistantMessage message;  // provenance filled in, content empty
};
// A snapshot of the message so far, sent after each block completes (never final).
struct MessageUpdateEvent {
  AssistantMessage message;
};
// The authoritative message (also what EventStream::result() answers).
struct MessageEndEvent {
  AssistantMessage message;
};
struct BlockStartEvent {
  int block_index = 0;
  BlockKind kind = BlockKind::text;
  std::string tool_use_id;  // tool_use only
  std::string tool_name;    // tool_use only
};
struct TextDeltaEvent {
  int block_index = 0;
  std::string delta;
};
struct ThinkingDeltaEvent {
  int block_index = 0;
  std::string delta;
};
struct ToolArgumentsDeltaEvent {
  int block_index = 0;
  std::string tool_use_id;
  std::string delta;
};
// The complete block (text with all its text, a tool call with all its argument bytes).
struct BlockEndEvent {
  int block_index = 0;
  ContentBlock block;
};

// ---- Tool execution (the loop) --------------------------------------------------------------

struct ToolExecutionStartEvent {
  std::string tool_use_id;
  std::string tool_name;
  json::Value arguments;  // as the model sent them, parsed; null when they did not parse
};
struct ToolExecutionUpdateEvent {
  std::string tool_use_id;
  std::string tool_name;
  std::string chunk;
};
struct ToolExecutionEndEvent {
  std::string tool_use_id;
  std::string tool_name;
  ToolResultMessage result;
  std::chrono::milliseconds elapsed{0};
};

// A log message the tool's server sent while the call ran (MCP `notifications/message`), for
// observers; never shown to the model.
struct ToolLogEvent {
  std::string tool_use_id;
  std::string tool_name;
  std::string level;   // the syslog severity name as sent: "debug" ... "emergency"
  std::string logger;  // empty when the server named none
  json::Value data;    // as sent (a string or any JSON value)
};

// ---- Other ----------------------------------------------------------------------------------

// The L2 response cache answered (or did not answer) a request.
struct CacheEvent {
  bool hit = false;
  std::string key;  // hex SHA-256 of the request bytes
};
// Something went wrong that is not carried by a message (a throwing observer, a persistence
// failure). `terminal` is true when the run ends because of it.
struct ErrorEvent {
  Error error;
  bool terminal = false;
};

// ---- Compaction (the loop, before a request) ------------------------------------------------

// Why a compaction ran: the estimate of the next request crossed the window minus the reserve,
// or the provider refused a request as too long (then the request is sent once more).
enum class CompactionTrigger : std::uint8_t { threshold, overflow };
std::string_view to_string(CompactionTrigger t) noexcept;

// A compaction began: the summary call is about to be made. Between this and CompactionEndEvent
// the run is compacting (no model request of the run's own is in flight).
struct CompactionStartEvent {
  CompactionTrigger trigger = CompactionTrigger::threshold;
  std::int64_t tokens_before = 0;       // the estimate of the request before compacting
  std::int64_t context_window = 0;      // what was planned against (0 = unknown)
  std::size_t messages_summarised = 0;  // transcript messages the summary replaces
  std::size_t messages_kept = 0;        // transcript messages still sent verbatim
};
// A compaction ended. `ok` false: the summary failed (error, aborted, cut at max_tokens, or it
// called a tool) and nothing changed; `error` says why. The summary call's usage is counted in
// the run's and the session's usage.
struct CompactionEndEvent {
  bool ok = false;
  CompactionTrigger trigger = CompactionTrigger::threshold;
  std::int64_t tokens_before = 0;
  std::int64_t tokens_after = 0;  // the estimate of the compacted request (ok only)
  std::size_t messages_summarised = 0;
  std::string summary;
  Usage usage;  // of the summary call
  std::string error;
};

struct SubagentEvent;

using Event = std::variant<AgentStartEvent, AgentEndEvent, TurnStartEvent, TurnEndEvent,
                           UserMessageEvent, MessageStartEvent, MessageUpdateEvent, MessageEndEvent,
                           BlockStartEvent, TextDeltaEvent, ThinkingDeltaEvent,
                           ToolArgumentsDeltaEvent, BlockEndEvent, ToolExecutionStartEvent,
                           ToolExecutionUpdateEvent, ToolExecutionEndEvent, CacheEvent, ErrorEvent,
                           ToolLogEvent, SubagentEvent, CompactionStartEvent, CompactionEndEvent>;

// An event of a subagent's run (agentkit/subagent.hpp), delivered to the parent's observers and
// subscribers. `path` names the delegation from the top: "researcher:call_1", and one level
// deeper "researcher:call_1/searcher:call_7"; a grandchild's event arrives once, with its full
// path, never wrapped twice.
struct SubagentEvent {
  std::string path;
  std::string agent;                   // the subagent's name (the tool the parent called)
  std::shared_ptr<const Event> event;  // never null
};

// Stable snake_case name of an event ("text_delta"), pinned by a golden test.
std::string_view event_name(const Event& e) noexcept;
// {"type": event_name, ...fields}. Messages use the lossless codec of message.hpp.
json::Value to_json(const Event& e);
// Approximate heap footprint, used only for the overrun bound.
std::size_t approximate_size(const Event& e) noexcept;

// ---- The stream -----------------------------------------------------------------------------

struct EventStreamOptions {
  // A consumer further behind than this is cut off with Errc::overrun. The largest single event
  // is always accepted (the floor), so a huge message never overruns an empty queue.
  std::size_t max_pending_bytes = std::size_t(64) << 20;
};

namespace detail {
struct EventChannel;
}

class EventSink;

// The consuming end. Move-only.
class EventStream {
 public:
  EventStream();  // an already-finished, empty stream
  EventStream(EventStream&&) noexcept;
  EventStream& operator=(EventStream&&) noexcept;
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;
  ~EventStream();

  // The next event, waiting for one. nullopt when the stream has ended, was cut off (see error()),
  // or `stop` fired (the stream stays usable after a stop).
  std::optional<Event> next(agentkit::stop_token stop = {});
  // The next event if one is queued now.
  std::optional<Event> try_next();
  // Why the stream ended early: Errc::overrun when cut off, the producer's failure otherwise;
  // nullopt while running and after a clean end.
  std::optional<Error> error() const;
  // True once the producer finished and every queued event was read (or the stream was cut off).
  bool done() const;

  // For provider streams: waits for the producer to finish and answers the final assistant
  // message, whether or not any event was read. A provider failure is an assistant message with
  // stop_reason error, not an Error; an Error here means the producer broke its contract (ended
  // without a message) or `stop` fired first.
  Result<AssistantMessage> result(agentkit::stop_token stop = {});

 private:
  friend std::pair<EventSink, EventStream> make_event_stream(EventStreamOptions);
  friend Result<AssistantMessage> drain(EventStream&, const std::function<void(Event&&)>&,
                                        agentkit::stop_token);
  friend Result<AssistantMessage> drain(EventStream&&, const std::function<void(Event&&)>&,
                                        agentkit::stop_token);
  friend EventStream make_deferred_event_stream(std::function<void(EventSink)>,
                                                std::function<void(std::function<void()>)>,
                                                EventStreamOptions);
  explicit EventStream(std::shared_ptr<detail::EventChannel> ch) noexcept;
  void start_deferred();
  // drain()'s reading; then result()'s wait, handing the message over when `take`.
  Result<void> read_all(const std::function<void(Event&&)>& on_event, agentkit::stop_token stop);
  Result<AssistantMessage> final_message(agentkit::stop_token stop, bool take);
  std::shared_ptr<detail::EventChannel> channel_;
};

// The producing end. Move-only; destroying an unfinished sink finishes the stream with an error
// ("producer ended without a final message").
class EventSink {
 public:
  EventSink();  // detached: pushes go nowhere
  EventSink(EventSink&&) noexcept;
  EventSink& operator=(EventSink&&) noexcept;
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;
  ~EventSink();

  // Queues a copy of the event. Never blocks. Answers false once the consumer was cut off or is
  // gone (the producer may keep going; nothing more is queued).
  bool push(Event e);
  // Ends the stream with its final assistant message (queued as a MessageEndEvent as well when
  // `emit_end_event` is true).
  void finish(AssistantMessage final_message, bool emit_end_event = true);
  // Ends a stream that has no assistant message (a session subscription at close).
  void close();
  // True while a consumer holds the stream and has not been cut off, and reads its events
  // (false under drain() with an empty callback: only the result is wanted).
  bool consumer_alive() const;

 private:
  friend std::pair<EventSink, EventStream> make_event_stream(EventStreamOptions);
  explicit EventSink(std::shared_ptr<detail::EventChannel> ch) noexcept;
  std::shared_ptr<detail::EventChannel> channel_;
};

// A connected producer/consumer pair.
std::pair<EventSink, EventStream> make_event_stream(EventStreamOptions options = {});

// A stream whose producer has not started. `produce` runs at most once, with the sink: on the
// thread that calls drain(), or through `launch` (which must run the task it is given, on any
// thread, or drop it) when the stream is first read with next(), try_next() or result(). A stream
// destroyed unread never runs it.
EventStream make_deferred_event_stream(std::function<void(EventSink)> produce,
                                       std::function<void(std::function<void()>)> launch,
                                       EventStreamOptions options = {});

// Reads the whole stream in order, calling `on_event` for each event, then answers result(). A
// deferred stream's producer runs here, on this thread, each event delivered as it is made.
// An empty `on_event` reads the result alone: a deferred producer then sees consumer_alive()
// false and may build no event at all. `stop` ends the wait of a stream already running
// elsewhere (a deferred producer sees the stop token it was built with).
Result<AssistantMessage> drain(EventStream& stream, const std::function<void(Event&&)>& on_event,
                               agentkit::stop_token stop = {});
// The same for a stream given up (drain(std::move(stream), ...)): its final message is handed
// over, not copied; the stream is left moved-from.
Result<AssistantMessage> drain(EventStream&& stream, const std::function<void(Event&&)>& on_event,
                               agentkit::stop_token stop = {});

// Process-wide counters for tests and diagnostics (counted, never timed).
struct EventStreamStats {
  std::uint64_t wakeups = 0;  // a producer notified a waiting consumer
  std::uint64_t queued = 0;   // events put on a queue for a consumer on another thread
  // Events handed to drain()'s callback on the producer's thread.
  std::uint64_t delivered_inline = 0;
  // Events pushed to a stream drained without a callback, and dropped: built for nobody (a
  // producer that asks consumer_alive() builds none).
  std::uint64_t discarded = 0;
};
EventStreamStats event_stream_stats() noexcept;

}  // namespace agentkit
