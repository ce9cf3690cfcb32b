// EventStream / EventSink: an unbounded single-producer single-consumer queue whose only bound is
// the consumer's byte budget. Push never blocks; an overrun cuts the consumer off, never the producer.
// Two costs are kept off the common path: a push wakes the consumer only when it is waiting (a
// busy consumer takes what accumulated in one go), and a deferred stream read by drain() has no
// queue at all — its producer runs on the reading thread and each push is a direct call.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/core/event.hpp"

namespace agentkit {
namespace detail {

// The events a reader has yet to take, in a std::deque made on the first push: under drain() (the
// loop's way of reading) the producer calls the reader directly and nothing is ever queued, and a
// std::deque allocates two blocks as soon as it exists.
class EventQueue {
 public:
  bool empty() const noexcept { return !events_ || events_->empty(); }
  Event& front() { return events_->front(); }
  void pop_front() { events_->pop_front(); }
  void push_back(Event e) {
    if (!events_) events_.emplace();
    events_->push_back(std::move(e));
  }
  void clear() noexcept {
    if (events_) events_->clear();
  }

 private:
  std::optional<std::deque<Event>> events_;
};

struct EventChannel {
  explicit EventChannel(EventStreamOptions o) : options(o) {}

  EventStreamOptions options;
  mutable std::mutex mu;
  agentkit::condition_variable_any cv;
  EventQueue queue;
  std::size_t pending_bytes = 0;
  bool finished = false;       // the producer is done (finish, close, or sink destroyed)
  bool consumer_gone = false;  // the EventStream was destroyed
  bool cut_off = false;        // the consumer fell too far behind
  std::optional<AssistantMessage> final_message;
  std::optional<Error> error;
  int waiting = 0;  // consumers blocked in next()/result(): only then does a push notify

  // Deferred streams: the producer and its sink until started (both cleared when it starts or
  // the stream is dropped), and the launcher for a consumer that reads with next().
  std::function<void(EventSink)> produce;
  std::unique_ptr<EventSink> pending_sink;
  std::function<void(std::function<void()>)> launch;
  // Set by drain() while the producer runs on its thread: pushes go straight here. Only that
  // thread touches the channel then, so no lock is taken on this path.
  const std::function<void(Event&&)>* direct = nullptr;
};

}  // namespace detail

namespace {

std::atomic<std::uint64_t> g_wakeups{0};
std::atomic<std::uint64_t> g_queued{0};
std::atomic<std::uint64_t> g_inline{0};
std::atomic<std::uint64_t> g_discarded{0};

// Called after the lock is released, with `waiting` read under it.
void wake(detail::EventChannel& ch, bool waiting) {
  if (!waiting) return;
  g_wakeups.fetch_add(1, std::memory_order_relaxed);
  ch.cv.notify_all();
}

constexpr std::string_view kNoFinalMessage =
    "the provider stream ended without a final assistant message";

bool push_locked(detail::EventChannel& ch, Event&& e) {
  if (ch.consumer_gone || ch.cut_off) return false;
  std::size_t size = approximate_size(e);
  // The floor: an event larger than the budget is still accepted into an empty queue.
  if (!ch.queue.empty() && ch.pending_bytes + size > ch.options.max_pending_bytes) {
    ch.cut_off = true;
    ch.queue.clear();
    ch.pending_bytes = 0;
    ch.error = make_error(Errc::overrun,
                          "event consumer fell more than " +
                              std::to_string(ch.options.max_pending_bytes) +
                              " bytes behind and was cut off; resynchronise from a snapshot");
    return false;
  }
  ch.pending_bytes += size;
  ch.queue.push_back(std::move(e));
  g_queued.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Drops a deferred producer that never ran. Its sink refers back to the channel, so it is
// destroyed outside the channel's lock (its destructor takes it).
void drop_deferred(detail::EventChannel& ch) {
  std::function<void(EventSink)> produce;
  std::unique_ptr<EventSink> sink;
  {
    std::lock_guard lock(ch.mu);
    produce = std::move(ch.produce);
    sink = std::move(ch.pending_sink);
    ch.produce = nullptr;
    ch.launch = nullptr;
  }
}

}  // namespace

std::pair<EventSink, EventStream> make_event_stream(EventStreamOptions options) {
  auto ch = std::make_shared<detail::EventChannel>(options);
  return {EventSink(ch), EventStream(ch)};
}

// ---- EventStream ------------------------------------------------------------------------------

EventStream::EventStream() {
  auto ch = std::make_shared<detail::EventChannel>(EventStreamOptions{});
  ch->finished = true;
  channel_ = std::move(ch);
}
EventStream::EventStream(std::shared_ptr<detail::EventChannel> ch) noexcept : channel_(std::move(ch)) {}
EventStream::EventStream(EventStream&&) noexcept = default;
EventStream& EventStream::operator=(EventStream&& other) noexcept {
  if (this != &other) {
    if (channel_) {
      drop_deferred(*channel_);
      std::lock_guard lock(channel_->mu);
      channel_->consumer_gone = true;
      channel_->queue.clear();
    }
    channel_ = std::move(other.channel_);
  }
  return *this;
}

EventStream::~EventStream() {
  if (!channel_) return;
  drop_deferred(*channel_);
  std::lock_guard lock(channel_->mu);
  channel_->consumer_gone = true;
  channel_->queue.clear();
  channel_->pending_bytes = 0;
}

// A deferred stream read the ordinary way: its producer starts now, through the launcher.
void EventStream::start_deferred() {
  if (!channel_) return;
  auto& ch = *channel_;
  std::function<void(EventSink)> produce;
  std::unique_ptr<EventSink> sink;
  std::function<void(std::function<void()>)> launch;
  {
    std::lock_guard lock(ch.mu);
    if (!ch.produce) return;
    produce = std::move(ch.produce);
    sink = std::move(ch.pending_sink);
    launch = std::move(ch.launch);
    ch.produce = nullptr;
    ch.launch = nullptr;
  }
  // std::function needs a copyable callable; the sink rides in a shared_ptr.
  std::shared_ptr<EventSink> shared_sink(std::move(sink));
  launch(
      [produce = std::move(produce), shared_sink]() mutable { produce(std::move(*shared_sink)); });
}

std::optional<Event> EventStream::next(agentkit::stop_token stop) {
  if (!channel_) return std::nullopt;
  start_deferred();
  auto& ch = *channel_;
  std::unique_lock lock(ch.mu);
  ++ch.waiting;
  ch.cv.wait(lock, stop, [&] { return !ch.queue.empty() || ch.finished || ch.cut_off; });
  --ch.waiting;
  if (ch.queue.empty()) return std::nullopt;
  Event e = std::move(ch.queue.front());
  ch.queue.pop_front();
  std::size_t size = approximate_size(e);
  ch.pending_bytes = size > ch.pending_bytes ? 0 : ch.pending_bytes - size;
  return e;
}

std::optional<Event> EventStream::try_next() {
  if (!channel_) return std::nullopt;
  start_deferred();
  auto& ch = *channel_;
  std::lock_guard lock(ch.mu);
  if (ch.queue.empty()) return std::nullopt;
  Event e = std::move(ch.queue.front());
  ch.queue.pop_front();
  std::size_t size = approximate_size(e);
  ch.pending_bytes = size > ch.pending_bytes ? 0 : ch.pending_bytes - size;
  return e;
}

std::optional<Error> EventStream::error() const {
  if (!channel_) return std::nullopt;
  std::lock_guard lock(channel_->mu);
  return channel_->error;
}

bool EventStream::done() const {
  if (!channel_) return true;
  std::lock_guard lock(channel_->mu);
  return channel_->cut_off || (channel_->finished && channel_->queue.empty());
}

Result<AssistantMessage> EventStream::result(agentkit::stop_token stop) {
  if (!channel_) return fail(Errc::closed, "result() on a moved-from EventStream");
  return final_message(stop, false);
}

Result<AssistantMessage> EventStream::final_message(agentkit::stop_token stop, bool take) {
  start_deferred();
  auto& ch = *channel_;
  std::unique_lock lock(ch.mu);
  ++ch.waiting;
  const bool finished = ch.cv.wait(lock, stop, [&] { return ch.finished; });
  --ch.waiting;
  if (!finished)
    return fail(Errc::cancelled, "stopped while waiting for the provider stream to finish");
  if (ch.final_message) return take ? std::move(*ch.final_message) : *ch.final_message;
  if (ch.error && ch.error->code != Errc::overrun) return *ch.error;
  return fail(Errc::protocol_error, std::string(kNoFinalMessage));
}

// ---- EventSink --------------------------------------------------------------------------------

EventSink::EventSink() = default;
EventSink::EventSink(std::shared_ptr<detail::EventChannel> ch) noexcept : channel_(std::move(ch)) {}
EventSink::EventSink(EventSink&&) noexcept = default;
EventSink& EventSink::operator=(EventSink&& other) noexcept {
  if (this != &other) {
    close();
    channel_ = std::move(other.channel_);
  }
  return *this;
}

EventSink::~EventSink() {
  if (!channel_) return;
  bool waiting;
  {
    std::lock_guard lock(channel_->mu);
    if (!channel_->finished) {
      channel_->finished = true;
      if (!channel_->error)
        channel_->error = make_error(Errc::protocol_error, std::string(kNoFinalMessage));
    }
    waiting = channel_->waiting != 0;
  }
  wake(*channel_, waiting);
}

bool EventSink::push(Event e) {
  if (!channel_) return false;
  auto& ch = *channel_;
  if (ch.direct) {  // drain() is running us on its own thread: no queue, no lock
    if (ch.finished) return false;
    if (!*ch.direct) {
      g_discarded.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    g_inline.fetch_add(1, std::memory_order_relaxed);
    (*ch.direct)(std::move(e));
    return true;
  }
  bool queued;
  bool waiting;
  {
    std::lock_guard lock(ch.mu);
    if (ch.finished) return false;
    queued = push_locked(ch, std::move(e));
    waiting = ch.waiting != 0;
  }
  wake(ch, waiting);
  return queued;
}

void EventSink::finish(AssistantMessage final_message, bool emit_end_event) {
  if (!channel_) return;
  auto& ch = *channel_;
  if (ch.direct) {
    if (ch.finished) return;
    if (emit_end_event && *ch.direct) {
      g_inline.fetch_add(1, std::memory_order_relaxed);
      (*ch.direct)(MessageEndEvent{final_message});
    } else if (emit_end_event) {
      g_discarded.fetch_add(1, std::memory_order_relaxed);
    }
    std::lock_guard lock(ch.mu);  // uncontended: keeps result() and done() on their usual path
    ch.final_message = std::move(final_message);
    ch.finished = true;
    return;
  }
  bool waiting;
  {
    std::lock_guard lock(ch.mu);
    if (ch.finished) return;
    if (emit_end_event) push_locked(ch, MessageEndEvent{final_message});
    ch.final_message = std::move(final_message);
    ch.finished = true;
    waiting = ch.waiting != 0;
  }
  wake(ch, waiting);
}

void EventSink::close() {
  if (!channel_) return;
  bool waiting;
  {
    std::lock_guard lock(channel_->mu);
    channel_->finished = true;
    waiting = channel_->waiting != 0;
  }
  wake(*channel_, waiting);
}

bool EventSink::consumer_alive() const {
  if (!channel_) return false;
  // drain() is reading on this very thread; with an empty callback it reads no event.
  if (channel_->direct) return static_cast<bool>(*channel_->direct);
  std::lock_guard lock(channel_->mu);
  return !channel_->consumer_gone && !channel_->cut_off;
}

// ---- Deferred streams ------------------------------------------------------------------------

EventStream make_deferred_event_stream(std::function<void(EventSink)> produce,
                                       std::function<void(std::function<void()>)> launch,
                                       EventStreamOptions options) {
  auto [sink, stream] = make_event_stream(options);
  auto& ch = *stream.channel_;
  ch.produce = std::move(produce);
  ch.launch = std::move(launch);
  ch.pending_sink = std::make_unique<EventSink>(std::move(sink));
  return std::move(stream);
}

namespace {
// Out of line: its event (424 bytes) in read_all's frame would sit above the whole of a deferred
// call, which runs in read_all's other branch (docs/architecture.md, "the caller's stack").
[[gnu::noinline]] void read_queued(EventStream& stream,
                                   const std::function<void(Event&&)>& on_event,
                                   agentkit::stop_token stop) {
  while (auto ev = stream.next(stop)) {
    if (on_event) on_event(std::move(*ev));
  }
}
}  // namespace

Result<AssistantMessage> drain(EventStream& stream, const std::function<void(Event&&)>& on_event,
                               agentkit::stop_token stop) {
  if (auto read = stream.read_all(on_event, stop); !read) return std::move(read).error();
  return stream.final_message(stop, false);
}

Result<AssistantMessage> drain(EventStream&& stream, const std::function<void(Event&&)>& on_event,
                               agentkit::stop_token stop) {
  EventStream given = std::move(stream);
  if (auto read = given.read_all(on_event, stop); !read) return std::move(read).error();
  return given.final_message(stop, true);
}

Result<void> EventStream::read_all(const std::function<void(Event&&)>& on_event,
                                   agentkit::stop_token stop) {
  if (!channel_) return fail(Errc::closed, "drain() on a moved-from EventStream");
  auto& ch = *channel_;
  std::function<void(EventSink)> produce;
  std::unique_ptr<EventSink> sink;
  {
    std::lock_guard lock(ch.mu);
    produce = std::move(ch.produce);
    sink = std::move(ch.pending_sink);
    ch.produce = nullptr;
    ch.launch = nullptr;
  }
  if (produce) {
    ch.direct = &on_event;
    produce(std::move(*sink));
    // What the producer captured (its copy of the sink among it) goes before result() waits:
    // a producer that returned without finishing ends the stream with an error, not a hang.
    produce = nullptr;
    sink.reset();
    ch.direct = nullptr;
  } else {
    read_queued(*this, on_event, stop);
  }
  return {};
}

EventStreamStats event_stream_stats() noexcept {
  return {g_wakeups.load(std::memory_order_relaxed), g_queued.load(std::memory_order_relaxed),
          g_inline.load(std::memory_order_relaxed), g_discarded.load(std::memory_order_relaxed)};
}

}  // namespace agentkit
