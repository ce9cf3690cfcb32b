// Invariants of the incremental HTTP/1.1 parser (responses and requests) on arbitrary bytes:
// - feeding the message in pieces (split where the first input bytes say) gives exactly the same
//   outcome as feeding it whole: same error code or same status, headers, trailers and body;
// - no line, header block or header count ever exceeds the configured limits;
// - the decoded body size matches the parser's own count;
// - reading raw body bytes straight past the parser (raw_body_remaining, consume_raw_body), as the
//   client does into the reader's buffer, gives the same outcome as feeding them;
// - so does feeding only the framing (feed_framing) and copying every body byte past the parser,
//   as the client's response body does from its read buffer.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/message_parser.hpp"

using agentkit::http::detail::MessageKind;
using agentkit::http::detail::MessageParser;
using agentkit::http::detail::ParserLimits;

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

struct Outcome {
  bool failed = false;
  agentkit::Errc code = agentkit::Errc::internal;
  bool complete = false;
  std::string body;
};

constexpr ParserLimits fuzz_limits{.max_line_bytes = 256, .max_header_bytes = 1024, .max_header_count = 16};

// feed: the parser decodes every body byte. straight: body bytes the parser says need no decoding
// are taken past it, as the client's straight reads take them. framing: the parser reads only the
// framing (feed_framing) and every body byte is taken past it, as the client's response body does.
enum class Mode { feed, straight, framing };

// Feeds `piece` to the parser in `mode`, taking raw body bytes (at most what raw_body_remaining
// allows) where the mode says. Answers the bytes used, or nullopt after recording a failure.
std::optional<std::size_t> take(MessageParser& parser, std::string_view piece, Mode mode,
                                Outcome& out) {
  if (mode != Mode::feed) {
    if (const std::uint64_t raw = parser.raw_body_remaining(); raw > 0) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(raw, piece.size()));
      out.body.append(piece.substr(0, n));
      parser.consume_raw_body(n);
      return n;
    }
  }
  auto used = mode == Mode::framing ? parser.feed_framing(piece) : parser.feed(piece, out.body);
  if (!used) {
    out.failed = true;
    out.code = used.error().code;
    return std::nullopt;
  }
  return *used;
}

Outcome run(MessageParser& parser, std::string_view message, const std::vector<std::size_t>& cuts,
            Mode mode = Mode::feed) {
  Outcome out;
  std::size_t start = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(message.size());
  for (std::size_t end : ends) {
    if (end < start) continue;
    std::string_view piece = message.substr(start, end - start);
    start = end;
    while (!piece.empty()) {
      auto used = take(parser, piece, mode, out);
      if (!used) return out;
      if (*used == 0 || parser.complete()) break;  // the rest belongs to the next message
      piece.remove_prefix(*used);
    }
    if (parser.complete()) break;
  }
  if (auto f = parser.finish(); !f) {
    out.failed = true;
    out.code = f.error().code;
  }
  out.complete = parser.complete();
  return out;
}

void check_one(MessageKind kind, std::string_view message, const std::vector<std::size_t>& cuts) {
  MessageParser whole(kind, fuzz_limits);
  MessageParser pieces(kind, fuzz_limits);
  MessageParser straight(kind, fuzz_limits);
  MessageParser framing(kind, fuzz_limits);
  const Outcome a = run(whole, message, {});
  const Outcome b = run(pieces, message, cuts);
  const Outcome c = run(straight, message, cuts, Mode::straight);
  const Outcome d = run(framing, message, cuts, Mode::framing);
  require(a.failed == b.failed);
  require(a.failed == c.failed);
  require(a.failed == d.failed);
  if (a.failed) {
    require(a.code == b.code);
    require(a.code == c.code);
    require(a.code == d.code);
    return;
  }
  require(a.body == d.body);
  require(a.complete == d.complete);
  require(framing.body_bytes() == d.body.size());
  require(framing.trailers() == whole.trailers());
  require(framing.bytes_consumed() == whole.bytes_consumed());
  require(a.body == c.body);
  require(a.complete == c.complete);
  require(straight.body_bytes() == c.body.size());
  require(straight.trailers() == whole.trailers());
  require(straight.bytes_consumed() == whole.bytes_consumed());
  require(a.body == b.body);
  require(a.complete == b.complete);
  require(whole.status() == pieces.status());
  require(whole.method() == pieces.method());
  require(whole.target() == pieces.target());
  require(whole.headers() == pieces.headers());
  require(whole.trailers() == pieces.trailers());
  require(whole.body_bytes() == a.body.size());
  require(whole.headers().size() <= fuzz_limits.max_header_count);
  for (const auto& h : whole.headers()) require(h.name.size() + h.value.size() <= fuzz_limits.max_line_bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first byte picks up to 8 cut points from the next bytes; the rest is the message.
  const std::size_t cut_count = data[0] % 8;
  if (size < 1 + cut_count) return 0;
  const std::string_view message(reinterpret_cast<const char*>(data + 1 + cut_count), size - 1 - cut_count);
  std::vector<std::size_t> cuts;
  std::size_t at = 0;
  for (std::size_t i = 0; i < cut_count; ++i) {
    at += data[1 + i];
    cuts.push_back(at < message.size() ? at : message.size());
  }
  check_one(MessageKind::response, message, cuts);
  check_one(MessageKind::request, message, cuts);
  return 0;
}
