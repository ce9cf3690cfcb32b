#include "agentkit/wire/frame_reader.hpp"

#include <string>
#include <vector>

#include "chunking.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::testing::AllocCounter;
using agentkit::testing::string_allocation;
using agentkit::wire::FrameReader;
using agentkit::wire::FrameReaderOptions;
using Transcript = wire_test::Transcript<std::string>;
using Frames = std::vector<std::string>;

namespace {

std::string frame(std::string_view body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

Transcript read_whole(std::string_view stream, FrameReaderOptions options = {}) {
  return wire_test::read_whole<std::string>(FrameReader(options), stream);
}

void require_chunking_invariant(std::string_view stream, FrameReaderOptions options = {}) {
  const Transcript whole = read_whole(stream, options);
  for (const auto& chunks : wire_test::all_splits(stream)) {
    const Transcript cut = wire_test::read_chunks<std::string>(FrameReader(options), chunks);
    REQUIRE(cut.items == whole.items);
    REQUIRE(cut.error.has_value() == whole.error.has_value());
    if (whole.error) REQUIRE(cut.error->message == whole.error->message);
  }
}

void require_poisoning(std::string_view bad_header, Errc code, std::string_view says) {
  INFO(bad_header);
  const std::string stream = frame("{\"a\":1}") + std::string(bad_header) + frame("{\"later\":1}");
  const Transcript t = read_whole(stream);
  REQUIRE(t.items == Frames{"{\"a\":1}"});
  REQUIRE(t.error);
  CHECK(t.error->code == code);
  CHECK(t.error->message.find(says) != std::string::npos);
  CHECK(t.error->find_detail("frame") == std::optional<std::string_view>("1"));
}

}  // namespace

TEST_CASE("Content-Length frames are returned body by body") {
  const std::string stream = frame("{\"jsonrpc\":\"2.0\"}") + frame("") + frame("[1,2]");
  const Transcript t = read_whole(stream);
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == Frames{"{\"jsonrpc\":\"2.0\"}", "", "[1,2]"});
}

TEST_CASE("header names are case-insensitive and other headers are ignored") {
  const std::string stream =
      "content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
      "Content-Type: x\r\nCONTENT-LENGTH:3\t\r\n\r\n[1]";
  const Transcript t = read_whole(stream);
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == Frames{"{}", "[1]"});
}

TEST_CASE("frames come out the same however the stream is cut into chunks") {
  require_chunking_invariant(frame("{\"a\":\"b\"}") + frame("") + "Content-Type: t\r\n" + frame("xyz"));
  require_chunking_invariant(frame("ok") + "Content-Length: 2\n\n{}");
  require_chunking_invariant(frame("ok") + "Content-Length: 99999999999999999999\r\n\r\n");
  require_chunking_invariant(frame("ok") + "Content-Length: 5\r\n\r\nab");
}

TEST_CASE("a malformed header poisons the reader after the frames before it") {
  require_poisoning("Content-Length: 2\n\n{}", Errc::protocol_error, "bare LF");
  require_poisoning("Content-Length: 2\rX\n\r\n{}", Errc::protocol_error, "CR");
  require_poisoning("Content-Length 2\r\n\r\n{}", Errc::protocol_error, "without a colon");
  require_poisoning("Content Length: 2\r\n\r\n{}", Errc::protocol_error, "invalid header name");
  require_poisoning("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", Errc::protocol_error, "twice");
  require_poisoning("Content-Length: -2\r\n\r\n{}", Errc::protocol_error, "not a decimal");
  require_poisoning("Content-Length: +2\r\n\r\n{}", Errc::protocol_error, "not a decimal");
  require_poisoning("Content-Length: 0x2\r\n\r\n{}", Errc::protocol_error, "not a decimal");
  require_poisoning("Content-Length: 1 2\r\n\r\n{}", Errc::protocol_error, "not a decimal");
  require_poisoning("Content-Length:\r\n\r\n{}", Errc::protocol_error, "empty");
  require_poisoning("Content-Type: x\r\n\r\n{}", Errc::protocol_error, "without a Content-Length");
  require_poisoning("\r\n", Errc::protocol_error, "without a Content-Length");
}

TEST_CASE("a declared length above the cap is refused before narrowing, even past 64 bits") {
  FrameReaderOptions options;
  options.max_message_bytes = 100;
  for (std::string_view header :
       {"Content-Length: 101\r\n\r\n", "Content-Length: 4294967301\r\n\r\n",
        "Content-Length: 18446744073709551615\r\n\r\n", "Content-Length: 18446744073709551616\r\n\r\n",
        "Content-Length: 99999999999999999999999999\r\n\r\n"}) {
    INFO(header);
    const Transcript t = read_whole(header, options);
    REQUIRE(t.items.empty());
    REQUIRE(t.error);
    CHECK(t.error->code == Errc::limit_exceeded);
    CHECK(t.error->find_detail("limit") == std::optional<std::string_view>("max_message_bytes"));
    CHECK(t.error->find_detail("max") == std::optional<std::string_view>("100"));
  }
  const Transcript at_cap = read_whole(frame(std::string(100, 'x')), options);
  REQUIRE_FALSE(at_cap.error);
  REQUIRE(at_cap.items.size() == 1);
}

TEST_CASE("a peer that declares 16 MiB and sends one byte costs one byte, not 16 MiB") {
  FrameReader reader;
  AllocCounter counter;
  reader.feed("Content-Length: 16777216\r\n\r\n{");
  auto none = reader.next();
  // Copied before any assertion: a reporter may allocate while recording one.
  const agentkit::testing::AllocStats stats = counter.stats();
  REQUIRE(none);
  REQUIRE_FALSE(*none);
  constexpr std::size_t kSmall = 1024;  // a header line, a small string: nothing near 16 MiB
  CHECK(stats.largest < kSmall);
  CHECK(stats.bytes < kSmall);
}

TEST_CASE("a body's buffer grows with the bytes that arrive and never past the declared length") {
  FrameReader reader;
  const std::string header = "Content-Length: 1000000\r\n\r\n";
  reader.feed(header);
  AllocCounter counter;
  const std::string chunk(1000, 'x');
  for (int i = 0; i < 10; ++i) reader.feed(chunk);  // 10 kB of a declared 1 MB
  const std::size_t largest_early = counter.stats().largest;
  CHECK(largest_early <= 2 * 10 * chunk.size());
  for (int i = 10; i < 1000; ++i) reader.feed(chunk);
  auto body = reader.next();
  REQUIRE(body);
  REQUIRE(*body);
  CHECK((*body)->size() == 1000000);
  CHECK(counter.stats().largest <= string_allocation(1000000));
}

TEST_CASE("a header block longer than max_header_bytes is refused without waiting for its end") {
  FrameReaderOptions options;
  options.max_header_bytes = 64;
  FrameReader reader(options);
  reader.feed("X-Padding: " + std::string(100, 'a'));
  auto r = reader.next();
  REQUIRE_FALSE(r);
  CHECK(r.error().find_detail("limit") == std::optional<std::string_view>("max_header_bytes"));
  require_chunking_invariant("Content-Length: 2\r\nX-Padding: " + std::string(100, 'a') + "\r\n\r\n{}",
                             options);
}

TEST_CASE("a poisoned frame reader never returns a later good frame and repeats the original error") {
  FrameReader reader;
  reader.feed("Content-Length: x\r\n\r\n");
  auto first = reader.next();
  REQUIRE_FALSE(first);
  reader.feed(frame("{\"good\":true}"));
  for (int i = 0; i < 3; ++i) {
    auto again = reader.next();
    REQUIRE_FALSE(again);
    CHECK(again.error() == first.error());
  }
  auto end = reader.finish();
  REQUIRE_FALSE(end);
  CHECK(end.error() == first.error());
  CHECK(first.error().message.find("frame 0 at stream offset") != std::string::npos);
}

TEST_CASE("the stream ending inside a frame is a protocol error from finish") {
  for (std::string_view cut : {"Content-Length: 5\r\n\r\nab", "Content-Len", "Content-Length: 5\r\n"}) {
    INFO(cut);
    FrameReader reader;
    reader.feed(cut);
    auto end = reader.finish();
    REQUIRE_FALSE(end);
    CHECK(end.error().code == Errc::protocol_error);
  }
  FrameReader clean;
  clean.feed(frame("{}"));
  CHECK(clean.finish().has_value());
  auto body = clean.next();
  REQUIRE(body);
  REQUIRE(*body);
  CHECK(**body == "{}");
}
