// agentkit/wire/sse_decoder.hpp — incremental decoder of a text/event-stream body, following the
// WHATWG HTML "event stream interpretation" rules.
//
//   agentkit::wire::SseDecoder sse;
//   sse.feed(chunk);                                  // any chunking gives the same events
//   while (true) {
//     auto event = sse.next();                        // Result<std::optional<SseEvent>>
//     if (!event) return fail_stream(event.error());  // a bound was crossed; poisoned
//     if (!*event) break;                             // needs more bytes
//     if ((*event)->type == "message_delta") use((*event)->data);
//   }
//   if (auto end = sse.finish(); !end) report(end.error());  // stream cut inside an event
//
//   // Or each event handed over as it completes, with no queue and no allocation per event:
//   auto fed = sse.feed_each(chunk, [&](const SseEvent& e) -> Result<void> { return use(e); });
//
// Rules (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// - lines end in CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the
//   next are one line ending); one UTF-8 BOM at the very start of the stream is dropped;
// - `data` lines append to the data buffer, joined with "\n"; `event` sets the type; `id` sets
//   the last event id unless its value contains NUL; `retry` sets the reconnection time when it
//   is ASCII digits only (a value too large for 64 bits is ignored too); lines starting with ':'
//   are comments; other fields are ignored; one space after the colon is stripped;
// - a blank line dispatches the event, unless the data buffer is empty (then it only resets the
//   type); the type defaults to "message"; the id persists across events until changed;
// - an event the stream ends in the middle of is discarded, never dispatched, and finish()
//   reports the truncation as an error.
// Bytes are passed through as they are (no UTF-8 decoding here; the JSON decoder checks UTF-8).
//
// Bounds: a line longer than max_line_bytes, or an event whose data and type exceed
// max_event_bytes, is a limit_exceeded error that poisons the decoder: events completed before it
// are still returned, then the error, forever. Buffers never grow past their caps.
//
// Thread safety: none; one decoder belongs to one stream and one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/wire/limits.hpp"

namespace agentkit::wire {

// One dispatched event. A plain value.
struct SseEvent {
  // The `event` field, or "message" when the event had none (the WHATWG default).
  std::string type = "message";
  // The `data` lines joined with "\n" (no trailing newline).
  std::string data;
  // The last event id at dispatch time; empty when none was ever set (or it was reset by `id:`).
  std::string id;

  friend bool operator==(const SseEvent&, const SseEvent&) = default;
};

// Settings for an SseDecoder. Safe to copy; read once when the decoder is built.
struct SseDecoderOptions {
  // The most bytes in one line, excluding its terminator. One `data:` line may carry a whole
  // message, so it has the library's message bound.
  std::size_t max_line_bytes = kDefaultMaxMessageBytes;
  // The most bytes an event may buffer (data plus type): the per-message bound.
  std::size_t max_event_bytes = kDefaultMaxMessageBytes;
};

class SseDecoder {
 public:
  explicit SseDecoder(SseDecoderOptions options = {});

  // Takes the next bytes of the stream. Never fails by itself: a crossed bound is recorded and
  // reported by next() after the events before it. Bytes fed to a poisoned decoder are dropped.
  void feed(std::string_view bytes);
  // The next dispatched event; nullopt when more bytes are needed; the poisoning error forever
  // once the events completed before it have been returned.
  Result<std::optional<SseEvent>> next();
  // Takes the next bytes and hands every event they complete to `on_event` at once, in order
  // (events an earlier feed() left for next() first). The event lends the decoder's own buffers,
  // reused for the next one: valid during the call only, and a steady stream allocates nothing.
  // Answers the first error of `on_event` (the rest of the bytes are dropped, and so is every
  // later feed; finish() answers it again), else the poisoning error once the events before it
  // were handed over.
  using EventVisitor = std::function<Result<void>(const SseEvent&)>;
  Result<void> feed_each(std::string_view bytes, const EventVisitor& on_event);
  // Declares the end of the stream. Fails (protocol_error) when it ends in the middle of an
  // event, which is discarded; fails with the poisoning error when poisoned.
  Result<void> finish();
  bool poisoned() const noexcept { return poison_.has_value(); }
  // The last valid `retry` value, in milliseconds, if the stream sent one.
  std::optional<std::uint64_t> retry_ms() const noexcept { return retry_ms_; }

 private:
  void feed_lines(std::string_view bytes);
  std::size_t take_bom(std::string_view bytes);
  void end_line(std::string_view line);
  void process_field(std::string_view field, std::string_view value);
  void append_data(std::string_view value);
  bool fits_event(std::size_t data_bytes, std::size_t type_bytes);
  void dispatch();
  void poison(Error error);
  bool halted() const noexcept { return poison_.has_value() || failed_.has_value(); }

  SseDecoderOptions options_;
  const EventVisitor* visitor_ = nullptr;  // set while feed_each() runs
  SseEvent lent_;                          // what feed_each() hands out; its buffers are reused
  std::optional<Error> failed_;            // the visitor's error: the stream stops there
  // Events feed() made for next(), in a deque made on the first of them: feed_each() hands its
  // events out as they end and queues none, and a std::deque allocates as soon as it exists.
  std::optional<std::deque<SseEvent>> ready_;
  std::optional<Error> poison_;
  std::optional<std::uint64_t> retry_ms_;
  std::uint64_t stream_offset_ = 0;  // bytes consumed so far
  std::uint64_t line_start_ = 0;     // stream offset of the line being read
  std::size_t bom_matched_ = 0;      // leading bytes that matched the BOM so far
  bool bom_settled_ = false;         // the stream start has been examined for a BOM
  bool skip_lf_ = false;             // the last line ended in CR; an LF next is its CRLF's half
  bool event_started_ = false;       // a field line arrived since the last blank line
  std::string line_;
  std::string data_;
  std::string type_;
  std::string last_id_;
};

}  // namespace agentkit::wire
