#include "agentkit/wire/frame_reader.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "agentkit/base/strings.hpp"
#include "bounded_growth.hpp"
#include "line_scan.hpp"
#include "reader_text.hpp"

namespace agentkit::wire {
namespace {

using detail::kCR, detail::kLF;
constexpr std::string_view kContentLength = "content-length";

bool iequals(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

FrameReader::FrameReader(FrameReaderOptions options) : options_(options) {}

void FrameReader::feed(std::string_view bytes) {
  while (!bytes.empty() && !poison_) {
    if (in_body_) {
      feed_body(bytes);
    } else {
      feed_header(bytes);
    }
  }
}

Result<std::optional<std::string>> FrameReader::next() {
  if (!ready_.empty()) {
    std::string body = std::move(ready_.front());
    ready_.pop_front();
    return std::optional<std::string>(std::move(body));
  }
  if (poison_) return *poison_;
  return std::optional<std::string>();
}

Result<void> FrameReader::finish() {
  if (poison_) return *poison_;
  const bool mid_frame = in_body_ || header_bytes_ > 0;
  if (!mid_frame) return {};
  poison(make_error(Errc::protocol_error,
                    in_body_ ? "the stream ended inside a Content-Length body (" +
                                   std::to_string(body_.size()) + " of " +
                                   std::to_string(body_expected_) + " bytes arrived)"
                             : std::string("the stream ended inside a Content-Length header block")));
  return *poison_;
}

// The bytes between line ends are taken as one run (found by LineEnds, one pass per buffer); CR
// and LF are examined one at a time for the CRLF rule. Every byte counts against max_header_bytes,
// and the error points at the first byte past the bound, as it would byte by byte.
void FrameReader::feed_header(std::string_view& bytes) {
  detail::LineEnds ends(bytes);
  std::size_t at = 0;
  while (at < bytes.size() && !in_body_ && !poison_) {
    const char c = bytes[at];
    if (after_cr_) {
      if (!count_header_bytes(1)) break;
      if (c != kLF) {
        poison(make_error(Errc::protocol_error, "a CR in a header block not followed by LF"));
        break;
      }
      after_cr_ = false;
      ++at;
      ++stream_offset_;
      end_header_line();
      continue;
    }
    if (c == kLF) {
      if (!count_header_bytes(1)) break;
      poison(make_error(Errc::protocol_error,
                        "a header line ends in a bare LF; Content-Length framing needs CRLF"));
      break;
    }
    if (c == kCR) {
      if (!count_header_bytes(1)) break;
      after_cr_ = true;
      ++at;
      ++stream_offset_;
      continue;
    }
    const std::size_t end = ends.next(at);
    const std::size_t run = (end == std::string_view::npos ? bytes.size() : end) - at;
    const std::size_t room =
        options_.max_header_bytes - std::min(header_bytes_, options_.max_header_bytes);
    const std::size_t take = std::min(run, room);
    header_line_.append(bytes.substr(at, take));
    header_bytes_ += take;
    at += take;
    stream_offset_ += take;
    if (take < run && !count_header_bytes(1)) break;
  }
  bytes.remove_prefix(at);
}

// Counts `n` more header bytes; poisons the reader when that passes max_header_bytes.
bool FrameReader::count_header_bytes(std::size_t n) {
  header_bytes_ += n;
  if (header_bytes_ <= options_.max_header_bytes) return true;
  poison(make_error(Errc::protocol_error,
                    "the Content-Length header block exceeds max_header_bytes (" +
                        std::to_string(options_.max_header_bytes) + ")")
             .with_detail("limit", "max_header_bytes")
             .with_detail("max", std::to_string(options_.max_header_bytes)));
  return false;
}

void FrameReader::end_header_line() {
  if (!header_line_.empty()) {
    parse_header_field(header_line_);
    header_line_.clear();
    return;
  }
  if (!content_length_) {
    poison(make_error(Errc::protocol_error, "a header block without a Content-Length header"));
    return;
  }
  start_body();
}

void FrameReader::parse_header_field(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    poison(make_error(Errc::protocol_error, "a header line without a colon: '" +
                                                detail::printable_prefix(line) + "'"));
    return;
  }
  const std::string_view name = line.substr(0, colon);
  if (!is_token(name)) {
    poison(make_error(Errc::protocol_error,
                      "an invalid header name '" + detail::printable_prefix(name) + "'"));
    return;
  }
  if (!iequals(name, kContentLength)) return;  // Content-Type and the like carry nothing we use
  if (content_length_) {
    poison(make_error(Errc::protocol_error, "Content-Length appears twice in one header block"));
    return;
  }
  parse_content_length(trim_ows(line.substr(colon + 1)));
}

// REQ-SEC-11 (1): the value is read as uint64 and compared with the cap before it is narrowed
// to size_t, so on a 32-bit target 2^32 + 5 cannot wrap into a plausible 5.
void FrameReader::parse_content_length(std::string_view value) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t kRadix = 10;
  if (value.empty()) {
    poison(make_error(Errc::protocol_error, "an empty Content-Length value"));
    return;
  }
  std::uint64_t declared = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') {
      poison(make_error(Errc::protocol_error, "Content-Length '" + detail::printable_prefix(value) +
                                                  "' is not a decimal number"));
      return;
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (declared > (kMax - digit) / kRadix) {
      poison(make_error(Errc::limit_exceeded, "Content-Length '" + detail::printable_prefix(value) +
                                                  "' does not fit in 64 bits")
                 .with_detail("limit", "max_message_bytes")
                 .with_detail("max", std::to_string(options_.max_message_bytes)));
      return;
    }
    declared = declared * kRadix + digit;
  }
  if (declared > static_cast<std::uint64_t>(options_.max_message_bytes)) {
    poison(make_error(Errc::limit_exceeded, "Content-Length " + std::to_string(declared) +
                                                " exceeds max_message_bytes (" +
                                                std::to_string(options_.max_message_bytes) + ")")
               .with_detail("limit", "max_message_bytes")
               .with_detail("max", std::to_string(options_.max_message_bytes))
               .with_detail("declared", std::to_string(declared)));
    return;
  }
  content_length_ = static_cast<std::size_t>(declared);
}

void FrameReader::start_body() {
  body_expected_ = *content_length_;
  content_length_.reset();
  header_bytes_ = 0;
  in_body_ = true;
  body_.clear();
  // An empty body is complete at once; feed() may have no more bytes to trigger it.
  if (body_expected_ == 0) {
    std::string_view none;
    feed_body(none);
  }
}

void FrameReader::feed_body(std::string_view& bytes) {
  const std::size_t take = std::min(bytes.size(), body_expected_ - body_.size());
  // The buffer grows with the bytes that arrived, clamped to the declared length; it is never
  // reserved to the declared length up front.
  detail::append_within(body_, bytes.substr(0, take), body_expected_);
  bytes.remove_prefix(take);
  stream_offset_ += take;
  if (body_.size() < body_expected_) return;
  ready_.push_back(std::move(body_));
  body_ = std::string();
  in_body_ = false;
  ++frames_seen_;
}

void FrameReader::poison(Error error) {
  error.message = "Content-Length frame " + std::to_string(frames_seen_) + " at stream offset " +
                  std::to_string(stream_offset_) + ": " + error.message +
                  "; the stream cannot be resynchronised, close the connection";
  error.with_detail("offset", std::to_string(stream_offset_))
      .with_detail("frame", std::to_string(frames_seen_));
  poison_ = std::move(error);
}

}  // namespace agentkit::wire
