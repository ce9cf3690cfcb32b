// agentkit/wire/frame_reader.hpp — incremental reader of Content-Length framed messages
// (the LSP-style `Content-Length: N\r\n\r\n<body>` framing).
//
//   agentkit::wire::FrameReader reader;               // 16 MiB bodies, 8 KiB header blocks
//   reader.feed(bytes_from_the_pipe);                 // any chunking: one byte or many frames
//   while (true) {
//     auto frame = reader.next();                     // Result<std::optional<std::string>>
//     if (!frame) return tear_down(frame.error());    // poisoned: every later call says the same
//     if (!*frame) break;                             // needs more bytes
//     handle(**frame);                                // one complete body
//   }
//   auto end = reader.finish();                       // at EOF: fails if a frame was cut short
//
// Bytes we did not produce: the declared length is parsed as an unsigned 64-bit
// number and compared with the cap before it is narrowed; no buffer is ever sized from it (a
// peer that declares 16 MiB and sends one byte costs one byte); the header block is bounded.
// The first malformed frame poisons the reader: it is never resynchronised, later frames are
// never returned, and every later next()/finish() reports the original error. Frames completed
// before the bad one are still returned, in order, before the error.
//
// Header lines must end in CRLF. Header names are case-insensitive; Content-Length is required
// exactly once; other headers (Content-Type) are accepted and ignored.
//
// Thread safety: none; one reader belongs to one connection and one thread at a time.
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

// LSP header blocks are two short lines; 8 KiB matches the common HTTP server limit for a
// header line and leaves ample room, while bounding what a peer can make us hold.
inline constexpr std::size_t kDefaultMaxHeaderBytes = std::size_t(8) * 1024;

// Settings for a FrameReader. Safe to copy; read once when the reader is built.
struct FrameReaderOptions {
  // A Content-Length above this is a limit_exceeded error (checked in 64 bits, before narrowing).
  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  // A header block (all header lines and the blank line) longer than this is a protocol error.
  std::size_t max_header_bytes = kDefaultMaxHeaderBytes;
};

class FrameReader {
 public:
  explicit FrameReader(FrameReaderOptions options = {});

  // Takes the next bytes of the stream. Never fails by itself: a framing error is recorded and
  // reported by next() once the frames before it have been taken. Bytes fed to a poisoned
  // reader are dropped.
  void feed(std::string_view bytes);
  // The next complete body; nullopt when more bytes are needed; the poisoning error forever
  // once the frames completed before it have been returned.
  Result<std::optional<std::string>> next();
  // Declares the end of the stream. Fails (protocol_error) when it ends inside a frame, and with
  // the poisoning error when poisoned. Complete frames stay available through next().
  Result<void> finish();
  // True once a malformed frame has been seen (even if earlier frames are still queued).
  bool poisoned() const noexcept { return poison_.has_value(); }

 private:
  void feed_header(std::string_view& bytes);
  bool count_header_bytes(std::size_t n);
  void feed_body(std::string_view& bytes);
  void end_header_line();
  void parse_header_field(std::string_view line);
  void parse_content_length(std::string_view value);
  void start_body();
  void poison(Error error);

  FrameReaderOptions options_;
  std::deque<std::string> ready_;      // complete bodies not yet taken
  std::optional<Error> poison_;
  std::uint64_t stream_offset_ = 0;    // bytes consumed so far, for error locations
  std::uint64_t frames_seen_ = 0;      // complete frames so far, for error locations
  // Header state.
  bool in_body_ = false;
  bool after_cr_ = false;              // the previous header byte was CR; LF must follow
  std::size_t header_bytes_ = 0;       // bytes of the current header block, CRLFs included
  std::string header_line_;            // the header line being read (bounded by the block)
  std::optional<std::size_t> content_length_;
  // Body state.
  std::size_t body_expected_ = 0;
  std::string body_;
};

}  // namespace agentkit::wire
