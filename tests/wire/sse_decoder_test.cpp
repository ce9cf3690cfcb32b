#include "agentkit/wire/sse_decoder.hpp"

#include <string>
#include <vector>

#include "chunking.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::testing::AllocCounter;
using agentkit::testing::string_allocation;
using agentkit::wire::SseDecoder;
using agentkit::wire::SseDecoderOptions;
using agentkit::wire::SseEvent;
using Transcript = wire_test::Transcript<SseEvent>;

namespace {

Transcript decode_whole(std::string_view stream, SseDecoderOptions options = {}) {
  return wire_test::read_whole<SseEvent>(SseDecoder(options), stream);
}

SseEvent event(std::string data, std::string type = "message", std::string id = "") {
  return SseEvent{std::move(type), std::move(data), std::move(id)};
}

// Every two-chunk cut and the byte-at-a-time feed must give the whole-stream transcript.
void require_chunking_invariant(std::string_view stream, SseDecoderOptions options = {}) {
  const Transcript whole = decode_whole(stream, options);
  for (const auto& chunks : wire_test::all_splits(stream)) {
    const Transcript cut = wire_test::read_chunks<SseEvent>(SseDecoder(options), chunks);
    REQUIRE(cut.items == whole.items);
    REQUIRE(cut.error.has_value() == whole.error.has_value());
    if (whole.error) REQUIRE(cut.error->message == whole.error->message);
  }
}

// The streams every test here uses, so the chunking test covers them all.
const std::vector<std::string> kStreams = {
    "data: a\ndata: b\n\n",
    "event: ping\ndata: x\n\ndata: y\n\n",
    "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
    std::string("id: 1\n\nid: x\0y\ndata: a\n\n", 24),
    "retry: 1500\ndata: a\n\nretry: 15x\n\n",
    ": comment\ndata: a\n: another\n\n",
    "data:x\ndata:  y\ndata\n\n",
    "data: a\r\ndata: b\r\n\r\ndata: c\rdata: d\r\rdata: e\n\n",
    "data: a\r\n\r\n",
    "\xEF\xBB\xBF" "data: bom\n\n",
    "\xEF\xBB\xBF\xEF\xBB\xBF" "data: two\n\ndata: x\n\n",
    "\xEF\xBB" "data: partial\n\ndata: x\n\n",
    "\n\n\ndata: a\n\n\n",
    "data\n\ndata:\n\n",
    "foo: bar\ndata: a\nevent\n\n",
    "data: a\n\ndata: b\n",
    "data: a\n\ndata: b",
    "event: only\n\ndata: a\n\n",
};

}  // namespace

TEST_CASE("data lines are joined with a newline and a blank line dispatches the event") {
  const Transcript t = decode_whole("data: a\ndata: b\n\n");
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == std::vector<SseEvent>{event("a\nb")});
}

TEST_CASE("the event field names the type, which defaults to message and does not carry over") {
  const Transcript t = decode_whole("event: ping\ndata: x\n\ndata: y\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event("x", "ping"), event("y")});
}

TEST_CASE("a blank line with no data dispatches nothing and drops the pending type") {
  const Transcript t = decode_whole("event: only\n\ndata: a\n\n\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event("a")});
}

TEST_CASE("an empty data line still makes an event, with empty data") {
  const Transcript t = decode_whole("data\n\ndata:\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event(""), event("")});
}

TEST_CASE("the last event id persists across events until an id line changes it") {
  const Transcript t = decode_whole("id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event("a", "message", "7"), event("b", "message", "7"),
                                           event("c", "message", "")});
}

TEST_CASE("an id containing NUL is ignored") {
  const Transcript t = decode_whole(std::string("id: 1\n\nid: x\0y\ndata: a\n\n", 24));
  REQUIRE(t.items == std::vector<SseEvent>{event("a", "message", "1")});
}

TEST_CASE("retry is taken only when it is ASCII digits") {
  SseDecoder sse;
  sse.feed("retry: 1500\n\n");
  CHECK(sse.retry_ms() == 1500u);
  for (const char* bad : {"retry: 15x\n", "retry: -1\n", "retry:\n", "retry: 1 5\n",
                          "retry: 99999999999999999999999\n"}) {
    sse.feed(bad);
    CHECK(sse.retry_ms() == 1500u);
  }
  sse.feed("retry:0\n");
  CHECK(sse.retry_ms() == 0u);
}

TEST_CASE("comments are ignored and only one space after the colon is stripped") {
  const Transcript t = decode_whole(": comment\ndata:x\ndata:  y\n: another\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event("x\n y")});
}

TEST_CASE("unknown fields are ignored, and a field name without a colon has an empty value") {
  const Transcript t = decode_whole("foo: bar\ndata: a\nevent\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event("a")});
}

TEST_CASE("CR, LF and CRLF all end lines, and mixing them changes nothing") {
  const Transcript t = decode_whole("data: a\r\ndata: b\r\n\r\ndata: c\rdata: d\r\rdata: e\n\n");
  REQUIRE(t.items == std::vector<SseEvent>{event("a\nb"), event("c\nd"), event("e")});
}

TEST_CASE("a CR ending one chunk and an LF starting the next are one line end, not two") {
  const auto t = wire_test::read_chunks<SseEvent>(SseDecoder(), {"data: a\r", "\ndata: b\r", "\n\r", "\n"});
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == std::vector<SseEvent>{event("a\nb")});
}

TEST_CASE("one BOM at the very start of the stream is dropped, even split across chunks") {
  CHECK(decode_whole("\xEF\xBB\xBF" "data: bom\n\n").items == std::vector<SseEvent>{event("bom")});
  const auto split = wire_test::read_chunks<SseEvent>(SseDecoder(), {"\xEF", "\xBB", "\xBF" "data: x\n\n"});
  CHECK(split.items == std::vector<SseEvent>{event("x")});
  // A second BOM is text: the first line's field name is then "\xEF\xBB\xBF" "data", unknown.
  CHECK(decode_whole("\xEF\xBB\xBF\xEF\xBB\xBF" "data: two\n\ndata: x\n\n").items ==
        std::vector<SseEvent>{event("x")});
  // Bytes that only start like a BOM are kept as text.
  CHECK(decode_whole("\xEF\xBB" "data: partial\n\ndata: x\n\n").items ==
        std::vector<SseEvent>{event("x")});
  CHECK(decode_whole("\xEF\xBB" ": c\n\xEF\xBB\xBF" "data: mid\n\n").items.empty());
}

TEST_CASE("an event the stream ends in the middle of is discarded and finish reports it") {
  for (std::string_view stream : {"data: a\n\ndata: b\n", "data: a\n\ndata: b", "data: a\n\nevent: x\n",
                                  "data: a\n\n: partial comm"}) {
    INFO(stream);
    const Transcript t = decode_whole(stream);
    REQUIRE(t.items == std::vector<SseEvent>{event("a")});
    REQUIRE(t.error);
    CHECK(t.error->code == Errc::protocol_error);
    CHECK(t.error->message.find("middle of an event") != std::string::npos);
  }
  SseDecoder clean;
  clean.feed("data: a\n\n: keep-alive\n");
  CHECK(clean.finish().has_value());
}

TEST_CASE("a bare BOM prefix at the end of the stream is a truncation") {
  SseDecoder sse;
  sse.feed("\xEF\xBB");
  CHECK_FALSE(sse.finish().has_value());
}

TEST_CASE("every test stream gives the same events however it is cut into chunks") {
  for (const std::string& stream : kStreams) {
    INFO(stream);
    require_chunking_invariant(stream);
  }
}

TEST_CASE("a line longer than max_line_bytes poisons the decoder after the events before it") {
  SseDecoderOptions options;
  options.max_line_bytes = 8;
  const std::string stream = "data: a\n\ndata: 0123456789\n\ndata: later\n\n";
  const Transcript t = decode_whole(stream, options);
  REQUIRE(t.items == std::vector<SseEvent>{event("a")});
  REQUIRE(t.error);
  CHECK(t.error->code == Errc::limit_exceeded);
  CHECK(t.error->find_detail("limit") == std::optional<std::string_view>("max_line_bytes"));
  CHECK(t.error->find_detail("offset") == std::optional<std::string_view>("9"));
  CHECK(
      t.error->message.find("an SSE line starting at stream offset 9 exceeds max_line_bytes (8)") !=
      std::string::npos);
  require_chunking_invariant(stream, options);
}

TEST_CASE("a line of exactly max_line_bytes is accepted") {
  SseDecoderOptions options;
  options.max_line_bytes = 8;
  const Transcript t = decode_whole("data: ab\r\n\r\n", options);
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == std::vector<SseEvent>{event("ab")});
}

TEST_CASE("an event larger than max_event_bytes poisons the decoder") {
  SseDecoderOptions options;
  options.max_event_bytes = 10;
  const std::string stream = "data: 1234\ndata: 5678\n\ndata: 1234\ndata: 56789\n\ndata: x\n\n";
  const Transcript t = decode_whole(stream, options);
  REQUIRE(t.items == std::vector<SseEvent>{event("1234\n5678")});
  REQUIRE(t.error);
  CHECK(t.error->find_detail("limit") == std::optional<std::string_view>("max_event_bytes"));
  CHECK(t.error->message.find("an SSE event ending at stream offset") != std::string::npos);
  CHECK(t.error->message.find("exceeds max_event_bytes (10)") != std::string::npos);
  require_chunking_invariant(stream, options);
}

TEST_CASE("a poisoned decoder refuses every later read, even of good events") {
  SseDecoderOptions options;
  options.max_line_bytes = 4;
  SseDecoder sse(options);
  sse.feed("data: toolong\n\n");
  auto first = sse.next();
  REQUIRE_FALSE(first);
  sse.feed("data\n\n");
  auto second = sse.next();
  REQUIRE_FALSE(second);
  CHECK(second.error() == first.error());
  auto end = sse.finish();
  REQUIRE_FALSE(end);
  CHECK(end.error() == first.error());
}

TEST_CASE("a line past the cap costs at most the cap in memory, never the line's size") {
  SseDecoderOptions options;
  options.max_line_bytes = 64 * 1024;
  const std::string chunk(16 * 1024, 'x');
  SseDecoder sse(options);
  AllocCounter counter;
  sse.feed("data: ");
  for (int i = 0; i < 64; ++i) sse.feed(chunk);  // a 1 MiB line
  const agentkit::testing::AllocStats stats = counter.stats();  // before a reporter allocates
  REQUIRE(sse.poisoned());
  CHECK(stats.largest <= string_allocation(options.max_line_bytes));
}

namespace {

// Feeds `chunks` through feed_each: the events as they were lent, then the first error.
Transcript read_each(const std::vector<std::string_view>& chunks, SseDecoderOptions options = {}) {
  Transcript out;
  SseDecoder sse(options);
  const SseDecoder::EventVisitor keep = [&](const SseEvent& e) -> agentkit::Result<void> {
    out.items.push_back(e);
    return {};
  };
  for (std::string_view chunk : chunks) {
    if (auto fed = sse.feed_each(chunk, keep); !fed && !out.error) out.error = fed.error();
  }
  if (auto end = sse.finish(); !end && !out.error) out.error = end.error();
  return out;
}

}  // namespace

TEST_CASE("feed_each hands over the events next() would give, however the stream is cut") {
  std::vector<std::pair<std::string, SseDecoderOptions>> cases;
  for (const std::string& stream : kStreams) cases.emplace_back(stream, SseDecoderOptions{});
  SseDecoderOptions short_lines;
  short_lines.max_line_bytes = 8;
  cases.emplace_back("data: a\n\ndata: 0123456789\n\ndata: later\n\n", short_lines);
  SseDecoderOptions small_events;
  small_events.max_event_bytes = 10;
  cases.emplace_back("data: 1234\ndata: 5678\n\ndata: 1234\ndata: 56789\n\ndata: x\n\n",
                     small_events);
  for (const auto& [stream, options] : cases) {
    INFO(stream);
    const Transcript whole = decode_whole(stream, options);
    for (const auto& chunks : wire_test::all_splits(stream)) {
      const Transcript each = read_each(chunks, options);
      REQUIRE(each.items == whole.items);
      REQUIRE(each.error.has_value() == whole.error.has_value());
      if (whole.error) REQUIRE(each.error->message == whole.error->message);
    }
  }
}

TEST_CASE("feed_each first hands over the events an earlier feed left for next()") {
  SseDecoder sse;
  sse.feed("data: a\n\n");
  std::vector<SseEvent> seen;
  REQUIRE(sse.feed_each("data: b\n\n", [&](const SseEvent& e) -> agentkit::Result<void> {
    seen.push_back(e);
    return {};
  }));
  CHECK(seen == std::vector<SseEvent>{event("a"), event("b")});
}

TEST_CASE("a steady stream read with feed_each allocates nothing per event") {
  const std::string one =
      "event: response.function_call_arguments.delta\ndata: {\"delta\":\"a fragment of arguments "
      "long enough to need the heap\"}\n\n";
  std::string many;
  for (int i = 0; i < 100; ++i) many += one;
  SseDecoder sse;
  std::size_t events = 0;
  const SseDecoder::EventVisitor count = [&](const SseEvent&) -> agentkit::Result<void> {
    ++events;
    return {};
  };
  REQUIRE(sse.feed_each(one, count));  // the first event sizes the buffers
  AllocCounter counter;
  REQUIRE(sse.feed_each(many, count));
  const std::size_t allocations = counter.stats().count;
  CHECK(events == 101);
  CHECK(allocations == 0);
}

TEST_CASE("a decoder read with feed_each makes no queue: it allocates nothing until fed") {
  // The queue next() reads used to be a std::deque, which (in libstdc++) allocates two blocks
  // as soon as it exists: two allocations a model call for a queue feed_each never uses.
  AllocCounter counter;
  SseDecoder sse;
  const std::size_t made = counter.stats().count;
  std::size_t events = 0;
  REQUIRE(sse.feed_each("data: short\n\n", [&](const SseEvent&) -> agentkit::Result<void> {
    ++events;
    return {};
  }));
  CHECK(made == 0);
  CHECK(events == 1);
  CHECK(counter.stats().count == 0);  // "short" fits in the data string itself
}

TEST_CASE("an error from the feed_each visitor stops the stream at that event") {
  SseDecoder sse;
  std::vector<std::string> seen;
  const SseDecoder::EventVisitor stop_at_b = [&](const SseEvent& e) -> agentkit::Result<void> {
    seen.push_back(e.data);
    if (e.data == "b") return agentkit::fail(Errc::protocol_error, "b is not welcome");
    return {};
  };
  auto fed = sse.feed_each("data: a\n\ndata: b\n\ndata: c\n\n", stop_at_b);
  REQUIRE_FALSE(fed);
  CHECK(fed.error().message == "b is not welcome");
  CHECK(seen == std::vector<std::string>{"a", "b"});
  auto later = sse.feed_each("data: d\n\n", stop_at_b);
  REQUIRE_FALSE(later);
  CHECK(later.error().message == "b is not welcome");
  CHECK(seen.size() == 2);
  auto end = sse.finish();
  REQUIRE_FALSE(end);
  CHECK(end.error().message == "b is not welcome");
}

TEST_CASE("an event's one data line grows the data buffer once, its joining newline included") {
  // The newline that joins data lines used to be appended on its own: a line that filled the
  // buffer it had just grown to grew it a second time, copying the line again.
  const std::string line(3000, 'x');
  const std::string stream = "event: message\ndata: " + line + "\n\n";
  SseDecoder sse;
  std::size_t seen = 0;
  const SseDecoder::EventVisitor count = [&](const SseEvent& e) -> agentkit::Result<void> {
    seen = e.data.size();
    return {};
  };
  AllocCounter counter;
  REQUIRE(sse.feed_each(stream, count));
  const agentkit::testing::AllocStats stats = counter.stats();
  CHECK(seen == line.size());
  CHECK(stats.count <= 1);  // the data buffer (its type fits in the string itself)
}
