// agentkit/http/message.hpp — HTTP header fields, requests, and streamed responses.
//
//   agentkit::http::Request req{.method = "POST", .url = "http://127.0.0.1:11434/api/chat"};
//   req.headers.add("Content-Type", "application/json");
//   req.body = R"({"model":"llama3"})";
//
//   auto resp = client.send(req, stop);              // returns when the status and headers are in
//   if (!resp) return resp.error();
//   resp->status();                                   // 200
//   resp->headers().get("content-type");              // case-insensitive lookup
//   while (true) {                                    // pull the body as it arrives (SSE, NDJSON)
//     auto bytes = resp->read_view();                 // the connection's own buffer: no copy
//     if (!bytes) return bytes.error();               // timeout, cancelled, truncated, ...
//     if (bytes->empty()) break;                      // the body is complete
//     decoder.feed(*bytes);
//   }
//
// A Response is move-only and owns its connection until the body has been read to the end; only
// then can the connection go back to the keep-alive pool. Dropping a Response early closes the
// connection (the unread rest of a body must never be mistaken for the next response).
//
// Thread safety: values; a Response is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"

namespace agentkit::http {

struct Header {
  std::string name{};
  std::string value{};
  friend bool operator==(const Header&, const Header&) = default;
};

// An ordered list of header fields with case-insensitive name lookup (RFC 9110 §5.1). Order and
// repeated names are kept as given.
class Headers {
 public:
  Headers() = default;
  Headers(std::initializer_list<Header> fields) : fields_(fields) {}

  void add(std::string name, std::string value);
  // Replaces every field named `name` with one field.
  void set(std::string name, std::string value);
  // Removes every field named `name`; returns how many were removed.
  std::size_t remove(std::string_view name);

  // The first value of `name`.
  std::optional<std::string_view> get(std::string_view name) const;
  std::vector<std::string_view> get_all(std::string_view name) const;
  bool contains(std::string_view name) const { return get(name).has_value(); }
  // True when a comma-separated list in any `name` field holds `token`, case-insensitively
  // ("Connection: keep-alive, Close" has the token "close").
  bool has_token(std::string_view name, std::string_view token) const;

  std::size_t size() const noexcept { return fields_.size(); }
  bool empty() const noexcept { return fields_.empty(); }
  auto begin() const noexcept { return fields_.begin(); }
  auto end() const noexcept { return fields_.end(); }

  friend bool operator==(const Headers&, const Headers&) = default;

 private:
  std::vector<Header> fields_;
};

struct Request {
  std::string method = "GET";
  std::string url{};          // absolute http:// or https:// URL (see url.hpp for what is refused)
  Headers headers{};          // Host, Content-Length and Transfer-Encoding are set by the client
  std::string body{};         // sent with Content-Length; empty for none
  // Overrides of the client's HttpOptions for this request only.
  std::optional<std::chrono::milliseconds> first_byte_timeout{};
  std::optional<std::chrono::milliseconds> idle_timeout{};
  // Called by HttpClient once the body has been written in full and it will not read the body
  // again for this send (no resend of it can follow): the owner may shrink `body` while the
  // answer is awaited, and must restore it before sending the request again. Another transport
  // need not call it.
  std::function<void()> on_body_written{};
};

namespace detail {
class ViewReader;
}  // namespace detail

// The body stream behind a Response. The default client implements it over its connection; an
// embedder's transport (libcurl, Beast) implements it over theirs.
class BodyReader {
 public:
  virtual ~BodyReader() = default;
  // Reads the next body bytes as they arrive: at least one, at most buffer.size(); 0 once the
  // body is complete. Errors end the body for good.
  virtual Result<std::size_t> read_some(std::span<char> buffer) = 0;
  // Trailer fields of a chunked body, known once read_some has returned 0.
  virtual const Headers& trailers() const;
};

class Response {
 public:
  // Largest body read_all() accepts unless told otherwise (a bound, not a preallocation).
  static constexpr std::size_t default_max_body_bytes = 64 * 1024 * 1024;

  Response() = default;
  Response(int status, std::string reason, Headers headers, std::unique_ptr<BodyReader> body);
  // A response whose body is already in memory (fakes, tests, and transports that buffer).
  static Response with_body(int status, Headers headers, std::string body);

  int status() const noexcept { return status_; }
  const std::string& reason() const noexcept { return reason_; }
  const Headers& headers() const noexcept { return headers_; }

  // See BodyReader::read_some. After the body completes, keeps returning 0.
  Result<std::size_t> read_some(std::span<char> buffer);
  // The next body bytes as they arrive, as a view valid until the next read of this response;
  // empty once the body is complete (and after). The default client's connection and with_body
  // lend their own bytes, so nothing is copied; any other BodyReader is read through read_some
  // into a 16 KB buffer the response makes on first use.
  Result<std::string_view> read_view();
  // Reads the rest of the body; Errc::limit_exceeded (and the connection closed) once it passes
  // `max_bytes`.
  Result<std::string> read_all(std::size_t max_bytes = default_max_body_bytes);
  // True once the body has been read to its end.
  bool complete() const noexcept { return complete_; }
  // Trailer fields of a chunked body (empty before the body completes).
  const Headers& trailers() const;
  // Abandons the rest of the body and closes the connection (the destructor does the same).
  void discard() noexcept;

 private:
  int status_ = 0;
  std::string reason_;
  Headers headers_;
  std::unique_ptr<BodyReader> body_;
  detail::ViewReader* view_ = nullptr;   // body_, when it lends its own bytes
  std::unique_ptr<char[]> view_buffer_;  // read_view's buffer for any other reader
  bool complete_ = false;
};

// An HTTP date (RFC 9110 §5.6.7: IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", the obsolete RFC 850
// and asctime forms) as a time point; nullopt when the text is none of the three. Retry-After and
// Date carry one.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text);

}  // namespace agentkit::http
