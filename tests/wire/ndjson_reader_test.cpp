#include "agentkit/wire/ndjson_reader.hpp"

#include <string>
#include <vector>

#include "chunking.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::testing::AllocCounter;
using agentkit::testing::string_allocation;
using agentkit::wire::NdjsonReader;
using agentkit::wire::NdjsonReaderOptions;
using Transcript = wire_test::Transcript<std::string>;
using Lines = std::vector<std::string>;

namespace {

Transcript read_whole(std::string_view stream, NdjsonReaderOptions options = {}) {
  return wire_test::read_whole<std::string>(NdjsonReader(options), stream);
}

void require_chunking_invariant(std::string_view stream, NdjsonReaderOptions options = {}) {
  const Transcript whole = read_whole(stream, options);
  for (const auto& chunks : wire_test::all_splits(stream)) {
    const Transcript cut = wire_test::read_chunks<std::string>(NdjsonReader(options), chunks);
    REQUIRE(cut.items == whole.items);
    REQUIRE(cut.error.has_value() == whole.error.has_value());
    if (whole.error) REQUIRE(cut.error->message == whole.error->message);
  }
}

}  // namespace

TEST_CASE("NDJSON lines are returned without their terminators, CRLF included") {
  const Transcript t = read_whole("{\"a\":1}\n{\"b\":2}\r\n[3]\n");
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == Lines{"{\"a\":1}", "{\"b\":2}", "[3]"});
}

TEST_CASE("empty lines are skipped, whitespace-only lines are not") {
  const Transcript t = read_whole("\n\r\n{}\n\n \n\r\n");
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == Lines{"{}", " "});
}

TEST_CASE("a CR inside a line is kept; only the one before the LF goes") {
  const Transcript t = read_whole("a\rb\r\r\n");
  REQUIRE(t.items == Lines{"a\rb\r"});
}

TEST_CASE("NDJSON lines come out the same however the stream is cut into chunks") {
  require_chunking_invariant("{\"a\":1}\r\n\n{\"b\":[1,2]}\n \nlast");
  NdjsonReaderOptions small;
  small.max_line_bytes = 4;
  require_chunking_invariant("abcd\r\nab\nabcde\nok\n", small);
}

TEST_CASE("a line past max_line_bytes is rejected as soon as its extra byte arrives") {
  NdjsonReaderOptions options;
  options.max_line_bytes = 4;
  NdjsonReader reader(options);
  reader.feed("ok\nabcd");
  auto ok = reader.next();
  REQUIRE(ok);
  REQUIRE(*ok);
  CHECK(**ok == "ok");
  auto waiting = reader.next();
  REQUIRE(waiting);
  CHECK_FALSE(*waiting);
  reader.feed("e");  // byte 5, no newline yet
  auto bad = reader.next();
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == Errc::limit_exceeded);
  CHECK(bad.error().find_detail("limit") == std::optional<std::string_view>("max_line_bytes"));
  CHECK(bad.error().find_detail("offset") == std::optional<std::string_view>("3"));
}

TEST_CASE("a 17 MiB line is rejected without a 17 MiB allocation") {
  NdjsonReader reader;  // the default 16 MiB cap
  const std::string chunk(64 * 1024, 'x');
  constexpr std::size_t kSeventeenMiB = std::size_t(17) * 1024 * 1024;
  AllocCounter counter;
  std::size_t fed = 0;
  while (fed < kSeventeenMiB && !reader.poisoned()) {
    reader.feed(chunk);
    fed += chunk.size();
  }
  reader.feed("\n");
  auto r = reader.next();
  const agentkit::testing::AllocStats stats = counter.stats();  // before a reporter allocates
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::limit_exceeded);
  CHECK(fed <= agentkit::wire::kDefaultMaxMessageBytes + chunk.size());
  CHECK(stats.largest <= string_allocation(agentkit::wire::kDefaultMaxMessageBytes));
}

TEST_CASE("a poisoned NDJSON reader never returns a later good line") {
  NdjsonReaderOptions options;
  options.max_line_bytes = 2;
  NdjsonReader reader(options);
  reader.feed("{}\nabc\n{}\n");
  auto first = reader.next();
  REQUIRE(first);
  REQUIRE(*first);
  auto bad = reader.next();
  REQUIRE_FALSE(bad);
  reader.feed("{}\n");
  auto again = reader.next();
  REQUIRE_FALSE(again);
  CHECK(again.error() == bad.error());
  auto end = reader.finish();
  REQUIRE_FALSE(end);
  CHECK(end.error() == bad.error());
}

TEST_CASE("an unterminated last line is a truncation unless the options accept it") {
  const Transcript strict = read_whole("{}\n{\"cut");
  REQUIRE(strict.items == Lines{"{}"});
  REQUIRE(strict.error);
  CHECK(strict.error->code == Errc::protocol_error);

  NdjsonReaderOptions lenient;
  lenient.accept_unterminated_last_line = true;
  const Transcript t = read_whole("{}\n{\"last\":1}\r", lenient);
  REQUIRE_FALSE(t.error);
  REQUIRE(t.items == Lines{"{}", "{\"last\":1}"});
}
