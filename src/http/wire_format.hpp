// Private: writing HTTP/1.1 heads and chunks, and checking what callers ask us to send.
#pragma once

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/http/message.hpp"

namespace agentkit::http::detail {

// Refuses header fields that would corrupt the message: names that are not tokens, values with
// CR/LF/NUL or other control bytes (header injection), and names in `reserved`, which the library
// sets itself (Host, Content-Length, Transfer-Encoding).
Result<void> check_outgoing_headers(const Headers& headers, std::initializer_list<std::string_view> reserved);

// "Name: value\r\n" for every field.
void append_fields(std::string& out, const Headers& headers);

// One chunk of a chunked body ("1a\r\n<data>\r\n"); empty data gives an empty string, because a
// zero-size chunk would end the body.
std::string format_chunk(std::string_view data);
// The last chunk and the trailer section.
std::string format_last_chunk(const Headers& trailers);

// The standard reason phrase for a status ("Not Found"), or "Status" for unknown codes.
std::string_view reason_phrase(int status) noexcept;

// IMF-fixdate (RFC 9110 §5.6.7): "Sun, 06 Nov 1994 08:49:37 GMT".
std::string http_date(std::chrono::system_clock::time_point when);

// Methods a client may safely resend after a dropped keep-alive connection (RFC 9110 §9.2.2).
bool is_idempotent(std::string_view method) noexcept;

}  // namespace agentkit::http::detail
