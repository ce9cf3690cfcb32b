#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>
#include <latch>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/core/event.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {
AssistantMessage final_text(std::string t) {
  AssistantMessage m;
  m.content.emplace_back(TextBlock{std::move(t)});
  return m;
}
}  // namespace

TEST_CASE("the result of a stream is available without reading any event") {
  auto [sink, stream] = make_event_stream();
  for (int i = 0; i < 100; ++i) sink.push(TextDeltaEvent{0, "x"});
  sink.finish(final_text("done"));
  auto r = stream.result();
  REQUIRE(r);
  CHECK(text_of(*r) == "done");
}

TEST_CASE("events arrive in push order and the end event carries the final message") {
  auto [sink, stream] = make_event_stream();
  sink.push(TextDeltaEvent{0, "a"});
  sink.push(TextDeltaEvent{0, "b"});
  sink.finish(final_text("ab"));
  std::string seen;
  bool saw_end = false;
  while (auto ev = stream.next()) {
    if (auto* d = std::get_if<TextDeltaEvent>(&*ev)) seen += d->delta;
    if (auto* e = std::get_if<MessageEndEvent>(&*ev)) saw_end = text_of(e->message) == "ab";
  }
  CHECK(seen == "ab");
  CHECK(saw_end);
  CHECK_FALSE(stream.error().has_value());
  CHECK(stream.done());
}

TEST_CASE("a consumer that falls too far behind is cut off with an overrun, the producer is not") {
  auto [sink, stream] = make_event_stream({.max_pending_bytes = 4096});
  std::size_t accepted = 0;
  for (int i = 0; i < 1000; ++i) {
    if (sink.push(TextDeltaEvent{0, std::string(100, 'x')})) ++accepted;
  }
  sink.finish(final_text("still finished"));  // the producer is never blocked or failed
  CHECK(accepted < 1000);
  CHECK_FALSE(stream.next().has_value());
  REQUIRE(stream.error().has_value());
  CHECK(stream.error()->code == Errc::overrun);
  auto r = stream.result();  // the producer's outcome survives the consumer's overrun
  REQUIRE(r);
  CHECK(text_of(*r) == "still finished");
}

TEST_CASE("an event larger than the byte budget is still accepted into an empty queue") {
  auto [sink, stream] = make_event_stream({.max_pending_bytes = 16});
  CHECK(sink.push(TextDeltaEvent{0, std::string(1000, 'x')}));
  auto ev = stream.next();
  REQUIRE(ev.has_value());
  CHECK(std::get<TextDeltaEvent>(*ev).delta.size() == 1000);
}

TEST_CASE("a producer that ends without a final message makes result() an error, not a hang") {
  auto pair = make_event_stream();
  EventStream stream = std::move(pair.second);
  { EventSink sink = std::move(pair.first); }
  auto r = stream.result();
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::protocol_error);
}

TEST_CASE("next() wakes when its stop token fires and the stream stays usable") {
  auto [sink, stream] = make_event_stream();
  agentkit::stop_source stop;
  agentkit::jthread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop.request_stop();
  });
  CHECK_FALSE(stream.next(stop.get_token()).has_value());
  sink.push(TurnStartEvent{1});
  CHECK(stream.next().has_value());
}

TEST_CASE("a push never blocks while the consumer is slow, across threads") {
  auto [sink, stream] = make_event_stream();
  std::latch consumer_started(1);
  std::atomic<int> received{0};
  agentkit::jthread consumer([&, s = std::move(stream)]() mutable {
    consumer_started.count_down();
    while (auto ev = s.next()) ++received;
  });
  consumer_started.wait();
  for (int i = 0; i < 10000; ++i) REQUIRE(sink.push(TurnStartEvent{i}));
  sink.close();
  consumer.join();
  CHECK(received.load() == 10000);
}

TEST_CASE("pushing into a stream whose consumer is gone reports false") {
  auto pair = make_event_stream();
  EventSink sink = std::move(pair.first);
  { EventStream gone = std::move(pair.second); }
  CHECK_FALSE(sink.push(TurnStartEvent{1}));
  CHECK_FALSE(sink.consumer_alive());
}

// ---- Deferred streams and wakeups (issue 18) --------------------------------------------------

TEST_CASE("a drained deferred stream runs its producer on the reading thread, event by event") {
  std::thread::id producer_thread;
  std::vector<std::string> seen_while_producing;
  std::vector<std::string> delivered;
  EventStream stream = make_deferred_event_stream(
      [&](EventSink sink) {
        producer_thread = std::this_thread::get_id();
        sink.push(TextDeltaEvent{0, "a"});
        seen_while_producing = delivered;  // the first delta arrived before the second was made
        sink.push(TextDeltaEvent{0, "b"});
        sink.finish(final_text("ab"));
      },
      [](std::function<void()>) { FAIL("drain() must not launch the producer elsewhere"); });
  const EventStreamStats before = event_stream_stats();
  auto r = drain(stream, [&](Event&& e) {
    if (auto* d = std::get_if<TextDeltaEvent>(&e)) delivered.push_back(d->delta);
  });
  const EventStreamStats after = event_stream_stats();
  REQUIRE(r);
  CHECK(text_of(*r) == "ab");
  CHECK(producer_thread == std::this_thread::get_id());
  CHECK(seen_while_producing == std::vector<std::string>{"a"});
  CHECK(delivered == std::vector<std::string>{"a", "b"});
  CHECK(after.queued - before.queued == 0);
  CHECK(after.wakeups - before.wakeups == 0);
  CHECK(after.delivered_inline - before.delivered_inline == 3);  // two deltas and the end event
}

TEST_CASE(
    "a stream drained as given up hands its final message over; one drained in place copies it") {
  // The agent's loop gives its stream up: the reply's strings reach the transcript without a copy.
  const std::string text(100, 'x');  // on the heap, so a copy has a buffer of its own
  for (bool given_up : {true, false}) {
    INFO("drain(std::move(stream)): " << given_up);
    const char* made = nullptr;
    EventStream stream = make_deferred_event_stream(
        [&](EventSink sink) {
          AssistantMessage m = final_text(text);
          made = std::get<TextBlock>(m.content[0]).text.data();
          sink.finish(std::move(m), false);
        },
        [](std::function<void()>) { FAIL("drain() must not launch the producer elsewhere"); });
    auto r = given_up ? drain(std::move(stream), {}) : drain(stream, {});
    REQUIRE(r);
    CHECK(text_of(*r) == text);
    const char* got = std::get<TextBlock>(r->content[0]).text.data();
    CHECK((got == made) == given_up);
    if (!given_up) CHECK(text_of(stream.result().value()) == text);  // still there to read again
  }
}

TEST_CASE("a deferred stream read with next() starts its producer through the launcher") {
  int launched = 0;
  agentkit::jthread worker;
  EventStream stream = make_deferred_event_stream(
      [](EventSink sink) {
        sink.push(TextDeltaEvent{0, "x"});
        sink.finish(final_text("x"));
      },
      [&](std::function<void()> task) {
        ++launched;
        worker = agentkit::jthread(std::move(task));
      });
  CHECK(launched == 0);  // nothing runs before the stream is read
  std::vector<std::string> names;
  while (auto ev = stream.next()) names.emplace_back(event_name(*ev));
  CHECK(launched == 1);
  CHECK(names == std::vector<std::string>{"text_delta", "message_end"});
  REQUIRE(stream.result());
}

TEST_CASE("a deferred stream dropped unread never runs its producer") {
  bool ran = false;
  {
    EventStream stream = make_deferred_event_stream([&](EventSink) { ran = true; },
                                                    [&](std::function<void()> task) { task(); });
  }
  CHECK_FALSE(ran);
}

TEST_CASE("a deferred producer that returns without finishing makes drain() an error, not a hang") {
  EventStream stream = make_deferred_event_stream(
      [](EventSink sink) {
        sink.push(TextDeltaEvent{0, "x"});
      },
      [](std::function<void()>) {});
  auto r = drain(stream, [](Event&&) {});
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("without a final assistant message") != std::string::npos);
}

TEST_CASE("pushes to a consumer that is not waiting wake nobody; they are read in one batch") {
  auto [sink, stream] = make_event_stream();
  const EventStreamStats before = event_stream_stats();
  for (int i = 0; i < 50; ++i) sink.push(TextDeltaEvent{0, "x"});
  sink.finish(final_text("done"));
  const EventStreamStats after = event_stream_stats();
  CHECK(after.wakeups - before.wakeups == 0);
  CHECK(after.queued - before.queued == 51);
  int read = 0;
  while (stream.next()) ++read;
  CHECK(read == 51);
}

TEST_CASE("a consumer blocked in next() is woken by the push it waits for") {
  auto [sink, stream] = make_event_stream();
  std::latch waiting(1);
  agentkit::jthread consumer([&stream = stream, &waiting] {
    waiting.count_down();
    auto ev = stream.next();
    CHECK(ev.has_value());
  });
  waiting.wait();
  // The consumer may not be blocked yet; either way the push must reach it (no lost wakeup).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  sink.push(TextDeltaEvent{0, "x"});
  consumer.join();
  sink.finish(final_text("x"));
}

TEST_CASE("a deferred stream drained without a callback tells its producer nobody reads events") {
  bool alive_seen = true;
  EventStream stream = make_deferred_event_stream(
      [&](EventSink sink) {
        alive_seen = sink.consumer_alive();
        CHECK_FALSE(sink.push(TextDeltaEvent{0, "built anyway"}));
        sink.finish(final_text("answer"));
      },
      [](std::function<void()>) { FAIL("drain() must not launch the producer elsewhere"); });
  const EventStreamStats before = event_stream_stats();
  auto r = drain(stream, {});
  const EventStreamStats after = event_stream_stats();
  REQUIRE(r);
  CHECK(text_of(*r) == "answer");  // the result is still answered
  CHECK_FALSE(alive_seen);
  CHECK(after.delivered_inline - before.delivered_inline == 0);
  CHECK(after.queued - before.queued == 0);
  CHECK(after.discarded - before.discarded == 2);  // the delta and the end event
}

TEST_CASE("a stream already running is drained without a callback to its result") {
  auto [sink, stream] = make_event_stream();
  sink.push(TextDeltaEvent{0, "x"});
  sink.finish(final_text("x"));
  auto r = drain(stream, {});
  REQUIRE(r);
  CHECK(text_of(*r) == "x");
}
