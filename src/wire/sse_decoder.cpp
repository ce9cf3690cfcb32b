#include "agentkit/wire/sse_decoder.hpp"

#include <limits>
#include <utility>

#include "bounded_growth.hpp"
#include "line_scan.hpp"

namespace agentkit::wire {
namespace {

using detail::kCR, detail::kLF;
// WHATWG: the UTF-8 decoder strips one leading byte order mark.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// WHATWG "retry": only ASCII digits count; anything else (or a number too large for 64 bits,
// which no real server sends) leaves the reconnection time unchanged.
std::optional<std::uint64_t> parse_retry(std::string_view value) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t kRadix = 10;
  if (value.empty()) return std::nullopt;
  std::uint64_t n = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (n > (kMax - digit) / kRadix) return std::nullopt;
    n = n * kRadix + digit;
  }
  return n;
}

}  // namespace

SseDecoder::SseDecoder(SseDecoderOptions options) : options_(options) {}

void SseDecoder::feed(std::string_view bytes) {
  if (halted()) return;
  if (!bom_settled_) {
    bytes.remove_prefix(take_bom(bytes));
    if (!bom_settled_) return;
  }
  feed_lines(bytes);
}

// Consumes the BOM bytes at the start of the stream, even when the BOM is split across chunks.
// When the stream turns out not to start with a BOM, the bytes held back are replayed as text.
std::size_t SseDecoder::take_bom(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size() && !bom_settled_) {
    if (bytes[used] != kUtf8Bom[bom_matched_]) {
      bom_settled_ = true;
      const std::size_t held = bom_matched_;
      bom_matched_ = 0;
      stream_offset_ -= held;  // they are counted again as text
      feed_lines(kUtf8Bom.substr(0, held));
      return used;
    }
    ++used;
    ++stream_offset_;
    if (++bom_matched_ == kUtf8Bom.size()) {
      bom_settled_ = true;
      line_start_ = stream_offset_;
    }
  }
  return used;
}

namespace {

// The limit errors are built out of line: every event passes through feed_lines and its inlined
// callees, and their temporaries would take room in its frame, which is on the deepest path of a
// session's stack (under it, the event's JSON is parsed).
// `what` is "an SSE line starting" or "an SSE event ending"; `limit` names the option.
[[gnu::cold, gnu::noinline]] Error over_limit(const char* what, const char* limit,
                                              std::uint64_t offset, std::size_t max) {
  return make_error(Errc::limit_exceeded, std::string(what) + " at stream offset " +
                                              std::to_string(offset) + " exceeds " + limit + " (" +
                                              std::to_string(max) + ")")
      .with_detail("limit", limit)
      .with_detail("max", std::to_string(max))
      .with_detail("offset", std::to_string(offset));
}

}  // namespace

// One pass over the buffer per line-end byte (LineEnds), and a line that arrives whole is parsed
// where it lies: only a line split across feeds is copied into line_.
void SseDecoder::feed_lines(std::string_view bytes) {
  detail::LineEnds ends(bytes);
  std::size_t at = 0;
  while (at < bytes.size() && !halted()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (bytes[at] == kLF) {
        ++at;
        ++stream_offset_;
        continue;
      }
    }
    const std::size_t end = ends.next(at);
    const std::string_view piece =
        bytes.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (piece.size() > options_.max_line_bytes - line_.size()) {
      poison(over_limit("an SSE line starting", "max_line_bytes", line_start_,
                        options_.max_line_bytes));
      return;
    }
    stream_offset_ += piece.size();
    if (end == std::string_view::npos) {
      detail::append_within(line_, piece, options_.max_line_bytes);
      return;
    }
    // A CR may be the first half of a CRLF whose LF is in the next chunk: remember, don't peek.
    skip_lf_ = bytes[end] == kCR;
    at = end + 1;
    ++stream_offset_;
    if (line_.empty()) {
      end_line(piece);
    } else {
      detail::append_within(line_, piece, options_.max_line_bytes);
      end_line(line_);
    }
    line_.clear();
    line_start_ = stream_offset_;
  }
}

void SseDecoder::end_line(std::string_view line) {
  if (line.empty()) {
    dispatch();
  } else if (line.front() != ':') {  // a leading colon marks a comment
    const std::size_t colon = line.find(':');
    std::string_view value;
    if (colon != std::string_view::npos) {
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    process_field(line.substr(0, colon), value);
  }
}

void SseDecoder::process_field(std::string_view field, std::string_view value) {
  if (field == "data") {
    event_started_ = true;
    append_data(value);
  } else if (field == "event") {
    event_started_ = true;
    if (!fits_event(data_.size(), value.size())) return;
    type_.assign(value);
  } else if (field == "id") {
    event_started_ = true;
    // WHATWG: an id containing NUL is ignored (it could not be sent back in Last-Event-ID).
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (auto ms = parse_retry(value)) retry_ms_ = ms;
  }
}

void SseDecoder::append_data(std::string_view value) {
  // +1 for the "\n" that joins data lines.
  if (!fits_event(data_.size() + value.size() + 1, type_.size())) return;
  const std::size_t cap = options_.max_event_bytes - type_.size();
  // Room for the joining newline too: a line that fills the buffer would otherwise grow it twice.
  detail::reserve_within(data_, data_.size() + value.size() + 1, cap);
  data_.append(value);
  data_.push_back('\n');
}

// Sizes are of buffers we hold (data, type) and one line bounded by max_line_bytes, so the sum
// cannot overflow.
bool SseDecoder::fits_event(std::size_t data_bytes, std::size_t type_bytes) {
  if (data_bytes + type_bytes <= options_.max_event_bytes) return true;
  poison(over_limit("an SSE event ending", "max_event_bytes", stream_offset_,
                    options_.max_event_bytes));
  return false;
}

void SseDecoder::dispatch() {
  event_started_ = false;
  if (data_.empty()) {  // WHATWG: no data, no event; the type does not carry over
    type_.clear();
    return;
  }
  data_.pop_back();  // the "\n" after the last data line
  if (visitor_ != nullptr) {
    // Lent, not queued: the buffers change hands and come back with their capacity.
    lent_.type.assign(type_.empty() ? std::string_view("message") : std::string_view(type_));
    lent_.data.swap(data_);
    lent_.id.assign(last_id_);
    Result<void> ok = (*visitor_)(lent_);
    data_.swap(lent_.data);
    data_.clear();
    type_.clear();
    if (!ok) failed_ = std::move(ok).error();
    return;
  }
  SseEvent event;
  if (!type_.empty()) event.type = std::move(type_);
  event.data = std::move(data_);
  event.id = last_id_;
  if (!ready_) ready_.emplace();
  ready_->push_back(std::move(event));
  data_ = std::string();
  type_ = std::string();
}

Result<std::optional<SseEvent>> SseDecoder::next() {
  if (ready_ && !ready_->empty()) {
    SseEvent event = std::move(ready_->front());
    ready_->pop_front();
    return std::optional<SseEvent>(std::move(event));
  }
  if (failed_) return *failed_;
  if (poison_) return *poison_;
  return std::optional<SseEvent>();
}

Result<void> SseDecoder::feed_each(std::string_view bytes, const EventVisitor& on_event) {
  while (ready_ && !ready_->empty() && !failed_) {
    SseEvent event = std::move(ready_->front());
    ready_->pop_front();
    if (auto ok = on_event(event); !ok) failed_ = std::move(ok).error();
  }
  if (!failed_) {
    visitor_ = &on_event;
    feed(bytes);
    visitor_ = nullptr;
  }
  if (failed_) return *failed_;
  if (poison_) return *poison_;
  return {};
}

Result<void> SseDecoder::finish() {
  if (failed_) return *failed_;
  if (poison_) return *poison_;
  const bool cut = event_started_ || !line_.empty() || (!bom_settled_ && bom_matched_ > 0);
  if (!cut) return {};
  poison(make_error(Errc::protocol_error,
                    "the SSE stream ended in the middle of an event (after stream offset " +
                        std::to_string(stream_offset_) +
                        "); the partial event was discarded, not dispatched")
             .with_detail("offset", std::to_string(stream_offset_)));
  return *poison_;
}

void SseDecoder::poison(Error error) {
  error.message += "; the stream cannot be resynchronised";
  poison_ = std::move(error);
  line_ = std::string();
  data_ = std::string();
  type_ = std::string();
}

}  // namespace agentkit::wire
