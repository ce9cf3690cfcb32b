// EventStream / EventSink: an unbounded single-producer single-consumer queue whose only bound is
// the consumer's byte budget. Push never blocks; an overrun cuts the consumer off, never the producer.
#include <condition_variable>
#include <deque>
#include <mutex>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/core/event.hpp"

namespace agentkit {
namespace detail {

struct EventChannel {
  explicit EventChannel(EventStreamOptions o) : options(o) {}

  EventStreamOptions options;
  mutable std::mutex mu;
  agentkit::condition_variable_any cv;
  std::deque<Event> queue;
  std::size_t pending_bytes = 0;
  bool finished = false;       // the producer is done (finish, close, or sink destroyed)
  bool consumer_gone = false;  // the EventStream was destroyed
  bool cut_off = false;        // the consumer fell too far behind
  std::optional<AssistantMessage> final_message;
  std::optional<Error> error;
};

}  // namespace detail

namespace {

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
  return true;
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
  std::lock_guard lock(channel_->mu);
  channel_->consumer_gone = true;
  channel_->queue.clear();
  channel_->pending_bytes = 0;
}

std::optional<Event> EventStream::next(agentkit::stop_token stop) {
  if (!channel_) return std::nullopt;
  auto& ch = *channel_;
  std::unique_lock lock(ch.mu);
  ch.cv.wait(lock, stop, [&] { return !ch.queue.empty() || ch.finished || ch.cut_off; });
  if (ch.queue.empty()) return std::nullopt;
  Event e = std::move(ch.queue.front());
  ch.queue.pop_front();
  std::size_t size = approximate_size(e);
  ch.pending_bytes = size > ch.pending_bytes ? 0 : ch.pending_bytes - size;
  return e;
}

std::optional<Event> EventStream::try_next() {
  if (!channel_) return std::nullopt;
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
  auto& ch = *channel_;
  std::unique_lock lock(ch.mu);
  if (!ch.cv.wait(lock, stop, [&] { return ch.finished; })) {
    return fail(Errc::cancelled, "stopped while waiting for the provider stream to finish");
  }
  if (ch.final_message) return *ch.final_message;
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
  std::lock_guard lock(channel_->mu);
  if (!channel_->finished) {
    channel_->finished = true;
    if (!channel_->error) channel_->error = make_error(Errc::protocol_error, std::string(kNoFinalMessage));
  }
  channel_->cv.notify_all();
}

bool EventSink::push(Event e) {
  if (!channel_) return false;
  bool queued;
  {
    std::lock_guard lock(channel_->mu);
    if (channel_->finished) return false;
    queued = push_locked(*channel_, std::move(e));
  }
  channel_->cv.notify_all();
  return queued;
}

void EventSink::finish(AssistantMessage final_message, bool emit_end_event) {
  if (!channel_) return;
  {
    std::lock_guard lock(channel_->mu);
    if (channel_->finished) return;
    if (emit_end_event) push_locked(*channel_, MessageEndEvent{final_message});
    channel_->final_message = std::move(final_message);
    channel_->finished = true;
  }
  channel_->cv.notify_all();
}

void EventSink::close() {
  if (!channel_) return;
  {
    std::lock_guard lock(channel_->mu);
    channel_->finished = true;
  }
  channel_->cv.notify_all();
}

bool EventSink::consumer_alive() const {
  if (!channel_) return false;
  std::lock_guard lock(channel_->mu);
  return !channel_->consumer_gone && !channel_->cut_off;
}

}  // namespace agentkit
