#include "agentkit/wire/ndjson_reader.hpp"

#include <utility>

#include "bounded_growth.hpp"
#include "line_scan.hpp"

namespace agentkit::wire {
namespace {
using detail::kCR, detail::kLF;
}  // namespace

NdjsonReader::NdjsonReader(NdjsonReaderOptions options) : options_(options) {}

void NdjsonReader::feed(std::string_view bytes) {
  while (!bytes.empty() && !poison_) {
    const std::size_t lf = bytes.find(kLF);
    const std::string_view piece = bytes.substr(0, lf);
    // Checked before the bytes are appended: the buffer never holds more than the cap.
    if (piece.size() > options_.max_line_bytes - line_.size()) {
      poison(make_error(Errc::limit_exceeded,
                        "an NDJSON line starting at stream offset " + std::to_string(line_start_) +
                            " exceeds max_line_bytes (" + std::to_string(options_.max_line_bytes) +
                            ")")
                 .with_detail("limit", "max_line_bytes")
                 .with_detail("max", std::to_string(options_.max_line_bytes))
                 .with_detail("offset", std::to_string(line_start_)));
      return;
    }
    detail::append_within(line_, piece, options_.max_line_bytes);
    stream_offset_ += piece.size();
    if (lf == std::string_view::npos) return;
    bytes.remove_prefix(lf + 1);
    ++stream_offset_;
    end_line();
  }
}

void NdjsonReader::end_line() {
  if (!line_.empty() && line_.back() == kCR) line_.pop_back();
  if (!line_.empty()) ready_.push_back(std::move(line_));
  line_ = std::string();
  line_start_ = stream_offset_;
}

Result<std::optional<std::string>> NdjsonReader::next() {
  if (!ready_.empty()) {
    std::string line = std::move(ready_.front());
    ready_.pop_front();
    return std::optional<std::string>(std::move(line));
  }
  if (poison_) return *poison_;
  return std::optional<std::string>();
}

Result<void> NdjsonReader::finish() {
  if (poison_) return *poison_;
  if (line_.empty()) return {};
  if (options_.accept_unterminated_last_line) {
    end_line();
    return {};
  }
  poison(make_error(Errc::protocol_error,
                    "the stream ended inside an NDJSON line starting at stream offset " +
                        std::to_string(line_start_) + " (" + std::to_string(line_.size()) +
                        " bytes without a newline); the partial message was discarded")
             .with_detail("offset", std::to_string(line_start_)));
  return *poison_;
}

void NdjsonReader::poison(Error error) {
  error.message += "; the stream cannot be resynchronised, close it";
  poison_ = std::move(error);
  line_ = std::string();
}

}  // namespace agentkit::wire
