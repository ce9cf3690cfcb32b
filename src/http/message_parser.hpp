// Private: an incremental HTTP/1.1 message parser (RFC 9112) with no I/O of its own. Bytes are
// pushed in whatever pieces the network delivers; the parser keeps at most one line in memory,
// bounded by ParserLimits, so a hostile peer cannot make it grow. Shared by the client (responses)
// and the server (requests), and driven directly by the fuzz target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/http/message.hpp"

namespace agentkit::http::detail {

struct ParserLimits {
  std::size_t max_line_bytes = 8 * 1024;      // start line, one header line, one chunk-size line
  std::size_t max_header_bytes = 64 * 1024;   // the whole header block (and, separately, trailers)
  std::size_t max_header_count = 256;         // fields in the header block (and in trailers)
};

enum class MessageKind { request, response };
enum class BodyFraming { none, content_length, chunked, until_close };

class MessageParser {
 public:
  MessageParser(MessageKind kind, ParserLimits limits);

  // For a response to HEAD (or a successful CONNECT): the head is the whole message.
  void set_response_has_no_body() noexcept { no_body_expected_ = true; }

  // Consumes bytes of `input`; decoded body bytes are appended to `body`. Returns how many bytes
  // were consumed: fewer than given only once the message is complete (the rest belongs to
  // whatever follows on the connection). After an error the parser stays failed.
  Result<std::size_t> feed(std::string_view input, std::string& body);
  // Like feed, but decodes no body data: it stops where body bytes begin (raw_body_remaining() >
  // 0), so a reader copies them itself, straight from its own buffer into the caller's, with
  // consume_raw_body. Consumes the head, chunk-size lines, chunk ends and trailers.
  Result<std::size_t> feed_framing(std::string_view input);
  // Body bytes a reader may take straight from the connection into its own buffer, with nothing
  // to decode: the rest of a Content-Length body or of the current chunk, or any amount of a
  // read-until-close body (UINT64_MAX); 0 in every other state. Reading no more than this never
  // reads past the message.
  std::uint64_t raw_body_remaining() const noexcept;
  // Counts `n` such bytes (at most raw_body_remaining()) as consumed and decoded, as feed() would
  // have: the reader already holds them.
  void consume_raw_body(std::size_t n) noexcept;
  // The peer closed the connection: completes a read-until-close body; anywhere else it is a
  // truncated message (Errc::protocol_error).
  Result<void> finish();

  bool head_complete() const noexcept { return head_complete_; }
  bool complete() const noexcept { return state_ == State::done; }
  // Bytes consumed so far (0 means the peer sent nothing at all).
  std::uint64_t bytes_consumed() const noexcept { return consumed_; }

  // The head (valid once head_complete()).
  int status() const noexcept { return status_; }
  const std::string& reason() const noexcept { return reason_; }
  const std::string& method() const noexcept { return method_; }
  const std::string& target() const noexcept { return target_; }
  int version_minor() const noexcept { return version_minor_; }
  const Headers& headers() const noexcept { return headers_; }
  const Headers& trailers() const noexcept { return trailers_; }
  BodyFraming framing() const noexcept { return framing_; }
  std::optional<std::uint64_t> content_length() const noexcept { return content_length_; }
  // Decoded body bytes so far.
  std::uint64_t body_bytes() const noexcept { return body_bytes_; }
  // Whether the connection may carry another message after this one (version, Connection
  // header, framing).
  bool keep_alive() const noexcept;
  // How many 1xx interim responses were skipped before the final one.
  int interim_responses() const noexcept { return interim_count_; }

 private:
  enum class State { start_line, headers, length_body, chunk_size, chunk_data, chunk_end, trailers, until_close, done, failed };

  Result<std::size_t> feed_to(std::string_view input, std::string* body);
  Result<void> on_line(std::string_view line);
  Result<void> on_start_line(std::string_view line);
  Result<void> on_status_line(std::string_view line);
  Result<void> on_request_line(std::string_view line);
  Result<void> on_field_line(std::string_view line, Headers& into, std::size_t& count);
  Result<void> on_head_end();
  Result<void> decide_framing();
  Result<void> on_chunk_size(std::string_view line);
  Error fail_with(Error e);
  void reset_head();

  MessageKind kind_;
  ParserLimits limits_;
  State state_ = State::start_line;
  std::string line_;
  std::size_t section_bytes_ = 0;
  std::size_t field_count_ = 0;
  std::uint64_t consumed_ = 0;
  bool no_body_expected_ = false;
  bool head_complete_ = false;
  int interim_count_ = 0;
  int leading_empty_lines_ = 0;

  int status_ = 0;
  std::string reason_;
  std::string method_;
  std::string target_;
  int version_minor_ = 1;
  Headers headers_;
  Headers trailers_;
  BodyFraming framing_ = BodyFraming::none;
  std::optional<std::uint64_t> content_length_;
  std::uint64_t remaining_ = 0;
  std::uint64_t body_bytes_ = 0;
  std::optional<Error> error_;
};

// A field value we may send or accept: no CR, LF, NUL or other control bytes except tab.
bool is_valid_field_value(std::string_view s) noexcept;

}  // namespace agentkit::http::detail
