#include "message_parser.hpp"

#include <charconv>

#include "agentkit/base/strings.hpp"

namespace agentkit::http::detail {
namespace {

constexpr std::string_view http_1_prefix = "HTTP/1.";
constexpr std::size_t status_line_min = 12;       // "HTTP/1.1 200"
constexpr std::size_t status_code_offset = 9;
constexpr std::size_t status_code_digits = 3;
constexpr int min_status = 100;
constexpr int max_status = 599;
constexpr int switching_protocols = 101;          // RFC 9110 §15.2.2
constexpr int no_content = 204;
constexpr int not_modified = 304;
constexpr int max_interim_responses = 16;         // 1xx answers skipped before giving up
constexpr int max_leading_empty_lines = 4;        // RFC 9112 §2.2 tolerance before a request line
constexpr std::size_t max_chunk_size_digits = 16; // 64 bits of hex
constexpr char delete_char = 0x7F;
constexpr unsigned char first_non_ascii = 0x80;
constexpr std::size_t version_digit_offset = 7;   // "HTTP/1.x": the x
constexpr std::size_t version_text_size = 8;      // "HTTP/1.x"
constexpr int decimal_base = 10;
constexpr int hex_base = 16;
// Errors quote at most this much of what the peer sent: enough to recognise, never a flood.
constexpr std::size_t max_quoted_bytes = 80;

std::string quoted(std::string_view text) { return "'" + std::string(text.substr(0, max_quoted_bytes)) + "'"; }

bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The parser's errors are built out of line, so their temporaries take no room in the frames of
// the functions every message passes through (feed_to, on_line, the head's end): those frames are
// on the deepest path of a session's stack, and a page of it for a thousand sessions is 4 MB.
// cold_error is for an error whose message is one literal.
[[gnu::cold, gnu::noinline]] Error cold_error(Errc code, const char* message) {
  return fail(code, message);
}

[[gnu::cold, gnu::noinline]] Error not_a_status_line(std::string_view line) {
  return fail(Errc::protocol_error, "not an HTTP/1.x status line: " + quoted(line));
}

[[gnu::cold, gnu::noinline]] Error status_out_of_range(int status) {
  return fail(Errc::protocol_error, "HTTP status " + std::to_string(status) + " is out of range");
}

[[gnu::cold, gnu::noinline]] Error line_too_long(MessageKind kind, std::size_t limit) {
  return fail(Errc::limit_exceeded, std::string("a line of the HTTP ") +
                                        (kind == MessageKind::request ? "request" : "response") +
                                        " is longer than the limit of " + std::to_string(limit) +
                                        " bytes")
      .with_detail("limit", std::to_string(limit));
}

[[gnu::cold, gnu::noinline]] Error block_too_large(bool in_head, std::size_t limit) {
  return fail(Errc::limit_exceeded,
              std::string(in_head ? "the header block" : "the trailer block") +
                  " is larger than the limit of " + std::to_string(limit) + " bytes")
      .with_detail("limit", std::to_string(limit));
}

[[gnu::cold, gnu::noinline]] Error both_framings() {
  return fail(
      Errc::protocol_error,
      "the message has both Transfer-Encoding and Content-Length (a request-smuggling shape)");
}

[[gnu::cold, gnu::noinline]] Error unsupported_coding(std::string_view value) {
  return fail(Errc::unsupported,
              "unsupported Transfer-Encoding " + quoted(value) + "; only 'chunked' is supported");
}

[[gnu::cold, gnu::noinline]] Error invalid_length(std::string_view value) {
  return fail(Errc::protocol_error, "invalid Content-Length " + quoted(value));
}

// parse_uint64's rule (the whole text, decimal, no sign) without building its error: a length
// that does not read is reported with its field's value.
std::optional<std::uint64_t> whole_decimal(std::string_view text) noexcept {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Calls `visit(element, field_value)` with each comma-separated element (trimmed) of every `name`
// field in order, the pieces `split` would list, without a list: this runs under every response
// (the lists were its only allocations, and the deepest frames of a session's stack). Stops at
// the first visit that returns false, and returns false then.
template <class Visit>
bool for_each_element(const Headers& headers, std::string_view name, Visit visit) {
  for (const auto& field : headers) {
    if (!iequals(field.name, name)) continue;
    for (std::string_view rest = field.value;;) {
      const std::size_t comma = rest.find(',');
      if (!visit(trim_ows(rest.substr(0, comma)), std::string_view(field.value))) return false;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return true;
}

}  // namespace

bool is_valid_field_value(std::string_view s) noexcept {
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < ' ' && c != '\t') || c == delete_char) return false;
  }
  return true;
}

MessageParser::MessageParser(MessageKind kind, ParserLimits limits) : kind_(kind), limits_(limits) {}

Error MessageParser::fail_with(Error e) {
  state_ = State::failed;
  error_ = e;
  return e;
}

void MessageParser::reset_head() {
  headers_ = Headers{};
  section_bytes_ = 0;
  field_count_ = 0;
  status_ = 0;
  reason_.clear();
  head_complete_ = false;
}

Result<std::size_t> MessageParser::feed(std::string_view input, std::string& body) {
  return feed_to(input, &body);
}

Result<std::size_t> MessageParser::feed_framing(std::string_view input) {
  return feed_to(input, nullptr);
}

// With no `body`, stops where body data begins (raw_body_remaining() > 0): the caller takes it.
Result<std::size_t> MessageParser::feed_to(std::string_view input, std::string* body) {
  if (state_ == State::failed) return *error_;
  std::size_t pos = 0;
  while (pos < input.size() && state_ != State::done && state_ != State::failed) {
    if (body == nullptr && raw_body_remaining() > 0) break;
    if (state_ == State::length_body || state_ == State::chunk_data) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, input.size() - pos));
      body->append(input.substr(pos, n));
      pos += n;
      remaining_ -= n;
      body_bytes_ += n;
      if (remaining_ == 0) state_ = state_ == State::length_body ? State::done : State::chunk_end;
      continue;
    }
    if (state_ == State::until_close) {
      body->append(input.substr(pos));
      body_bytes_ += input.size() - pos;
      pos = input.size();
      continue;
    }
    // Line mode: the line is bounded before it is stored, so memory stays within the limit.
    const std::size_t newline = input.find('\n', pos);
    const std::size_t piece_end = newline == std::string_view::npos ? input.size() : newline;
    if (line_.size() + (piece_end - pos) > limits_.max_line_bytes) {
      consumed_ += pos;
      return fail_with(line_too_long(kind_, limits_.max_line_bytes));
    }
    line_.append(input.substr(pos, piece_end - pos));
    pos = piece_end;
    if (newline == std::string_view::npos) break;
    ++pos;
    std::string_view line = line_;
    // RFC 9112 §2.2: a bare LF ends a line too; a CR anywhere else is an error.
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos) {
      consumed_ += pos;
      return fail_with(cold_error(Errc::protocol_error, "a bare CR inside an HTTP line"));
    }
    auto r = on_line(line);
    line_.clear();
    if (!r) {
      consumed_ += pos;
      return std::move(r).error();
    }
  }
  consumed_ += pos;
  if (state_ == State::failed) return *error_;
  return pos;
}

std::uint64_t MessageParser::raw_body_remaining() const noexcept {
  if (state_ == State::length_body || state_ == State::chunk_data) return remaining_;
  if (state_ == State::until_close) return UINT64_MAX;
  return 0;
}

void MessageParser::consume_raw_body(std::size_t n) noexcept {
  consumed_ += n;
  body_bytes_ += n;
  if (state_ == State::until_close) return;
  remaining_ -= n;
  if (remaining_ == 0) state_ = state_ == State::length_body ? State::done : State::chunk_end;
}

Result<void> MessageParser::on_line(std::string_view line) {
  const bool in_head = state_ == State::start_line || state_ == State::headers;
  if (in_head || state_ == State::trailers) {
    section_bytes_ += line.size() + 2;
    if (section_bytes_ > limits_.max_header_bytes) {
      return fail_with(block_too_large(in_head, limits_.max_header_bytes));
    }
  }
  switch (state_) {
    case State::start_line: return on_start_line(line);
    case State::headers:
      if (line.empty()) return on_head_end();
      return on_field_line(line, headers_, field_count_);
    case State::chunk_size: return on_chunk_size(line);
    case State::chunk_end:
      if (!line.empty())
        return fail_with(
            cold_error(Errc::protocol_error, "chunk data is longer than its declared size"));
      state_ = State::chunk_size;
      return {};
    case State::trailers:
      if (line.empty()) {
        state_ = State::done;
        return {};
      }
      return on_field_line(line, trailers_, field_count_);
    default:
      return fail_with(cold_error(Errc::internal, "HTTP parser received a line in a body state"));
  }
}

[[gnu::noinline]] Result<void> MessageParser::on_start_line(std::string_view line) {
  if (line.empty()) {
    // A stray CRLF before a request line is tolerated (RFC 9112 §2.2), a few times.
    if (kind_ == MessageKind::request && ++leading_empty_lines_ <= max_leading_empty_lines) {
      section_bytes_ = 0;
      return {};
    }
    return fail_with(
        cold_error(Errc::protocol_error, "the HTTP message starts with an empty line"));
  }
  return kind_ == MessageKind::response ? on_status_line(line) : on_request_line(line);
}

[[gnu::noinline]] Result<void> MessageParser::on_status_line(std::string_view line) {
  const bool shape_ok = line.size() >= status_line_min && line.substr(0, http_1_prefix.size()) == http_1_prefix &&
                        (line[version_digit_offset] == '0' || line[version_digit_offset] == '1') &&
                        line[version_text_size] == ' ' &&
                        (line.size() == status_line_min || line[status_line_min] == ' ');
  if (!shape_ok) return fail_with(not_a_status_line(line));
  int status = 0;
  for (std::size_t i = status_code_offset; i < status_code_offset + status_code_digits; ++i) {
    if (line[i] < '0' || line[i] > '9')
      return fail_with(
          cold_error(Errc::protocol_error, "the HTTP status code is not three digits"));
    status = status * decimal_base + (line[i] - '0');
  }
  if (status < min_status || status > max_status) return fail_with(status_out_of_range(status));
  const std::string_view reason = line.size() > status_line_min ? line.substr(status_line_min + 1) : std::string_view{};
  if (!is_valid_field_value(reason))
    return fail_with(cold_error(Errc::protocol_error, "the HTTP reason phrase has control bytes"));
  version_minor_ = line[version_digit_offset] - '0';
  status_ = status;
  reason_.assign(reason);
  state_ = State::headers;
  return {};
}

[[gnu::noinline]] Result<void> MessageParser::on_request_line(std::string_view line) {
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
    return fail_with(
        cold_error(Errc::protocol_error, "the request line is not 'METHOD target HTTP/1.x'"));
  }
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  const std::string_view version = line.substr(second + 1);
  if (!is_token(method))
    return fail_with(cold_error(Errc::protocol_error, "the request method is not a token"));
  if (target.empty())
    return fail_with(cold_error(Errc::protocol_error, "the request target is empty"));
  for (char c : target) {
    const auto b = static_cast<unsigned char>(c);
    if (b <= ' ' || c == delete_char || b >= first_non_ascii)
      return fail_with(
          cold_error(Errc::protocol_error, "the request target has a byte outside visible ASCII"));
  }
  if (version.size() != version_text_size || version.substr(0, http_1_prefix.size()) != http_1_prefix ||
      (version[version_digit_offset] != '0' && version[version_digit_offset] != '1')) {
    return fail_with(fail(Errc::unsupported, "unsupported HTTP version " + quoted(version)));
  }
  method_ = std::string(method);
  target_ = std::string(target);
  version_minor_ = version[version_digit_offset] - '0';
  state_ = State::headers;
  return {};
}

[[gnu::noinline]] Result<void> MessageParser::on_field_line(std::string_view line, Headers& into,
                                                            std::size_t& count) {
  if (line.front() == ' ' || line.front() == '\t') {
    // RFC 9112 §5.2: obsolete line folding is rejected rather than guessed at.
    return fail_with(
        cold_error(Errc::protocol_error, "obsolete header line folding is not accepted"));
  }
  const std::size_t colon = line.find(':');
  const std::string_view name = line.substr(0, colon);
  // A space before the colon would let two parsers disagree on the name (RFC 9112 §5.1).
  if (colon == std::string_view::npos || !is_token(name)) {
    return fail_with(fail(Errc::protocol_error, "malformed header line " + quoted(line)));
  }
  const std::string_view value = trim_ows(line.substr(colon + 1));
  if (!is_valid_field_value(value)) {
    return fail_with(fail(Errc::protocol_error, "header '" + std::string(name) + "' has control bytes in its value"));
  }
  if (++count > limits_.max_header_count) {
    return fail_with(fail(Errc::limit_exceeded, "more than " + std::to_string(limits_.max_header_count) + " header fields")
                         .with_detail("limit", std::to_string(limits_.max_header_count)));
  }
  into.add(std::string(name), std::string(value));
  return {};
}

Result<void> MessageParser::on_head_end() {
  if (kind_ == MessageKind::response && status_ < 200 && status_ != switching_protocols) {
    // 100 Continue, 103 Early Hints: an interim answer; the real one follows.
    if (++interim_count_ > max_interim_responses) {
      return fail_with(cold_error(Errc::protocol_error, "too many 1xx interim responses"));
    }
    reset_head();
    state_ = State::start_line;
    return {};
  }
  head_complete_ = true;
  return decide_framing();
}

// RFC 9112 §6.3, minus the guesses: anything ambiguous is refused.
Result<void> MessageParser::decide_framing() {
  const bool response = kind_ == MessageKind::response;
  if (response && (no_body_expected_ || status_ == switching_protocols || status_ == no_content ||
                   status_ == not_modified)) {
    framing_ = BodyFraming::none;
    state_ = State::done;
    return {};
  }
  const bool has_te = headers_.contains("transfer-encoding");
  const bool has_cl = headers_.contains("content-length");
  if (has_te) {
    if (has_cl) return fail_with(both_framings());
    std::size_t codings = 0;
    bool chunked = false;
    for_each_element(headers_, "transfer-encoding", [&](std::string_view coding, std::string_view) {
      chunked = ++codings == 1 && iequals(coding, "chunked");
      return codings == 1;
    });
    if (codings != 1 || !chunked) {
      return fail_with(unsupported_coding(*headers_.get("transfer-encoding")));
    }
    framing_ = BodyFraming::chunked;
    state_ = State::chunk_size;
    return {};
  }
  if (has_cl) {
    std::optional<std::uint64_t> length;
    std::string_view bad;
    const bool agreed = for_each_element(headers_, "content-length",
                                         [&](std::string_view token, std::string_view value) {
                                           const auto n = whole_decimal(token);
                                           if (!n || (length && *length != *n)) {
                                             bad = value;
                                             return false;
                                           }
                                           length = *n;
                                           return true;
                                         });
    if (!agreed) return fail_with(invalid_length(bad));
    framing_ = BodyFraming::content_length;
    content_length_ = length;
    remaining_ = *length;
    state_ = remaining_ == 0 ? State::done : State::length_body;
    return {};
  }
  framing_ = response ? BodyFraming::until_close : BodyFraming::none;
  state_ = response ? State::until_close : State::done;
  return {};
}

[[gnu::noinline]] Result<void> MessageParser::on_chunk_size(std::string_view line) {
  std::size_t digits = 0;
  while (digits < line.size() && is_hex_digit(line[digits])) ++digits;
  if (digits == 0)
    return fail_with(cold_error(Errc::protocol_error, "a chunk size is not a hexadecimal number"));
  std::string_view hex = line.substr(0, digits);
  while (hex.size() > 1 && hex.front() == '0') hex.remove_prefix(1);
  if (hex.size() > max_chunk_size_digits)
    return fail_with(cold_error(Errc::protocol_error, "a chunk size does not fit in 64 bits"));
  // After the digits only optional whitespace and a ';' chunk extension may follow (RFC 9112 §7.1.1).
  std::string_view rest = line.substr(digits);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (!rest.empty() && rest.front() != ';') {
    return fail_with(fail(Errc::protocol_error, "unexpected text after a chunk size: " + quoted(line)));
  }
  const std::uint64_t size = parse_uint64(hex, hex_base).value_or(0);
  if (size == 0) {
    state_ = State::trailers;
    section_bytes_ = 0;
    field_count_ = 0;
    return {};
  }
  remaining_ = size;
  state_ = State::chunk_data;
  return {};
}

Result<void> MessageParser::finish() {
  const std::string noun = kind_ == MessageKind::request ? "request" : "response";
  switch (state_) {
    case State::done: return {};
    case State::failed: return *error_;
    case State::until_close:
      state_ = State::done;
      return {};
    case State::start_line:
      if (consumed_ == 0 && line_.empty()) {
        return fail_with(fail(Errc::io_error, "the peer closed the connection without sending a " + noun));
      }
      [[fallthrough]];
    case State::headers:
      return fail_with(fail(Errc::protocol_error, "the peer closed the connection in the middle of the " + noun + " head"));
    case State::length_body:
      return fail_with(fail(Errc::protocol_error, "the peer closed the connection after " + std::to_string(body_bytes_) +
                                                      " of " + std::to_string(*content_length_) + " body bytes")
                           .with_detail("received", std::to_string(body_bytes_)));
    default:
      return fail_with(cold_error(Errc::protocol_error,
                                  "the peer closed the connection in the middle of a chunked body")
                           .with_detail("received", std::to_string(body_bytes_)));
  }
}

bool MessageParser::keep_alive() const noexcept {
  if (framing_ == BodyFraming::until_close || status_ == switching_protocols) return false;
  if (headers_.has_token("connection", "close")) return false;
  if (version_minor_ == 0) return headers_.has_token("connection", "keep-alive");
  return true;
}

}  // namespace agentkit::http::detail
