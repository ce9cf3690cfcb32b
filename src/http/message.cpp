#include "agentkit/http/message.hpp"

#include <algorithm>
#include <cstring>

#include "agentkit/base/strings.hpp"
#include "view_reader.hpp"

namespace agentkit::http {
namespace {

// The body of Response::with_body: bytes already in memory, lent whole to read_view.
class StringBody final : public detail::ViewReader {
 public:
  explicit StringBody(std::string body) : body_(std::move(body)) {}
  Result<std::size_t> read_some(std::span<char> buffer) override {
    const std::size_t n = std::min(buffer.size(), body_.size() - offset_);
    std::memcpy(buffer.data(), body_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  Result<std::string_view> read_view() override {
    const std::string_view rest = std::string_view(body_).substr(offset_);
    offset_ = body_.size();
    return rest;
  }

 private:
  std::string body_;
  std::size_t offset_ = 0;
};

const Headers& no_headers() {
  static const Headers empty;  // immutable, shared
  return empty;
}

}  // namespace

void Headers::add(std::string name, std::string value) {
  // Room for a typical message's fields at once: a list grown by doubling from one field made
  // four allocations on the way to eight.
  constexpr std::size_t kFirstRoom = 8;
  if (fields_.capacity() == 0) fields_.reserve(kFirstRoom);
  fields_.push_back({std::move(name), std::move(value)});
}

void Headers::set(std::string name, std::string value) {
  remove(name);
  add(std::move(name), std::move(value));
}

std::size_t Headers::remove(std::string_view name) {
  return std::erase_if(fields_, [&](const Header& h) { return iequals(h.name, name); });
}

std::optional<std::string_view> Headers::get(std::string_view name) const {
  for (const auto& h : fields_) {
    if (iequals(h.name, name)) return std::string_view(h.value);
  }
  return std::nullopt;
}

std::vector<std::string_view> Headers::get_all(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& h : fields_) {
    if (iequals(h.name, name)) out.emplace_back(h.value);
  }
  return out;
}

bool Headers::has_token(std::string_view name, std::string_view token) const {
  for (const auto& h : fields_) {
    if (!iequals(h.name, name)) continue;
    // Piece by piece, without a list: this is asked of every response.
    for (std::string_view rest = h.value;;) {
      const std::size_t comma = rest.find(',');
      if (iequals(trim_ows(rest.substr(0, comma)), token)) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

const Headers& BodyReader::trailers() const { return no_headers(); }

Response::Response(int status, std::string reason, Headers headers, std::unique_ptr<BodyReader> body)
    : status_(status), reason_(std::move(reason)), headers_(std::move(headers)), body_(std::move(body)) {
  complete_ = body_ == nullptr;
  view_ = dynamic_cast<detail::ViewReader*>(body_.get());
}

Response Response::with_body(int status, Headers headers, std::string body) {
  return Response(status, {}, std::move(headers), std::make_unique<StringBody>(std::move(body)));
}

Result<std::size_t> Response::read_some(std::span<char> buffer) {
  if (complete_ || buffer.empty()) return std::size_t{0};
  if (!body_) return fail(Errc::closed, "the response body was discarded");
  auto n = body_->read_some(buffer);
  if (!n) {
    discard();  // an error ends the body for good; the connection is closed
    return n;
  }
  if (*n == 0) complete_ = true;
  return n;
}

Result<std::string_view> Response::read_view() {
  if (complete_) return std::string_view();
  if (!body_) return fail(Errc::closed, "the response body was discarded");
  if (view_) {
    auto bytes = view_->read_view();
    if (!bytes) {
      discard();
      return bytes;
    }
    if (bytes->empty()) complete_ = true;
    return bytes;
  }
  constexpr std::size_t kViewBufferBytes = 16 * 1024;
  if (!view_buffer_) view_buffer_.reset(new char[kViewBufferBytes]);
  auto n = read_some(std::span<char>(view_buffer_.get(), kViewBufferBytes));
  if (!n) return std::move(n).error();
  return std::string_view(view_buffer_.get(), *n);
}

Result<std::string> Response::read_all(std::size_t max_bytes) {
  constexpr std::size_t read_block = 16 * 1024;
  std::string out;
  std::string block(read_block, '\0');
  while (true) {
    auto n = read_some(block);
    if (!n) return std::move(n).error();
    if (*n == 0) return out;
    if (out.size() + *n > max_bytes) {
      discard();
      return fail(Errc::limit_exceeded, "the response body is larger than the limit of " +
                                            std::to_string(max_bytes) + " bytes")
          .with_detail("limit", std::to_string(max_bytes));
    }
    out.append(block.data(), *n);
  }
}

const Headers& Response::trailers() const { return body_ ? body_->trailers() : no_headers(); }

void Response::discard() noexcept {
  view_ = nullptr;
  body_.reset();
}

}  // namespace agentkit::http
