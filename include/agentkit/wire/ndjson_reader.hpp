// agentkit/wire/ndjson_reader.hpp — incremental reader of newline-delimited messages (NDJSON,
// as MCP stdio and Ollama stream them).
//
//   agentkit::wire::NdjsonReader reader;              // lines up to 16 MiB
//   reader.feed(chunk);                               // any chunking
//   while (true) {
//     auto line = reader.next();                      // Result<std::optional<std::string>>
//     if (!line) return tear_down(line.error());      // poisoned: every later call says the same
//     if (!*line) break;                              // needs more bytes
//     auto msg = agentkit::wire::decode(**line);      // one line, without its terminator
//   }
//   auto end = reader.finish();                       // at EOF: an unterminated line is an error
//
// Lines end in LF; a CR just before the LF is dropped, so CRLF streams read the same. Empty lines
// (nothing, or a lone CR, before the LF) are skipped: MCP stdio forbids newlines inside a message,
// so an empty line carries no message, and peers that emit a blank keep-alive line stay readable.
// A whitespace-only line is not empty and is returned (the JSON decoder rejects it).
//
// Bytes we did not produce: a line longer than max_line_bytes is rejected as soon
// as its byte max_line_bytes + 1 arrives, and the line buffer never grows past the cap (a 17 MiB
// line costs at most the 16 MiB cap, never a 17 MiB or doubled allocation). The first error
// poisons the reader: lines completed before it are still returned, then the error, forever.
//
// Thread safety: none; one reader belongs to one stream and one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/wire/limits.hpp"

namespace agentkit::wire {

// Settings for an NdjsonReader. Safe to copy; read once when the reader is built.
struct NdjsonReaderOptions {
  // The most bytes in one line, counting a trailing CR but not the LF (16 MiB, the message bound).
  std::size_t max_line_bytes = kDefaultMaxMessageBytes;
  // What finish() does with bytes after the last LF. false (default): the stream was cut in the
  // middle of a message, a protocol_error. true: they are one last line (for files whose final
  // line has no newline).
  bool accept_unterminated_last_line = false;
};

class NdjsonReader {
 public:
  explicit NdjsonReader(NdjsonReaderOptions options = {});

  // Takes the next bytes of the stream. Never fails by itself: an error is recorded and reported
  // by next() after the lines before it. Bytes fed to a poisoned reader are dropped.
  void feed(std::string_view bytes);
  // The next complete line without its terminator; nullopt when more bytes are needed; the
  // poisoning error forever once the lines completed before it have been returned.
  Result<std::optional<std::string>> next();
  // Declares the end of the stream; see NdjsonReaderOptions::accept_unterminated_last_line.
  Result<void> finish();
  bool poisoned() const noexcept { return poison_.has_value(); }

 private:
  void end_line();
  void poison(Error error);

  NdjsonReaderOptions options_;
  std::deque<std::string> ready_;
  std::optional<Error> poison_;
  std::string line_;
  std::uint64_t stream_offset_ = 0;   // bytes consumed so far
  std::uint64_t line_start_ = 0;      // stream offset of the line being read
};

}  // namespace agentkit::wire
