#include "wire_format.hpp"

#include <ctime>

#include "agentkit/base/strings.hpp"
#include "message_parser.hpp"

namespace agentkit::http::detail {

Result<void> check_outgoing_headers(const Headers& headers, std::initializer_list<std::string_view> reserved) {
  for (const auto& h : headers) {
    if (!is_token(h.name)) {
      constexpr std::size_t max_quoted = 64;
      return fail(Errc::invalid_argument, "header name '" + h.name.substr(0, max_quoted) +
                                              "' is not a valid HTTP token (RFC 9110 §5.6.2)");
    }
    if (!is_valid_field_value(h.value)) {
      return fail(Errc::invalid_argument, "the value of header '" + h.name +
                                              "' contains a control byte (CR, LF, NUL, ...); refusing to send it")
          .with_detail("header", h.name);
    }
    for (auto name : reserved) {
      if (iequals(h.name, name)) {
        return fail(Errc::invalid_argument, "header '" + h.name + "' is set by the HTTP layer itself; remove it from the request")
            .with_detail("header", h.name);
      }
    }
  }
  return {};
}

void append_fields(std::string& out, const Headers& headers) {
  for (const auto& h : headers) {
    out += h.name;
    out += ": ";
    out += h.value;
    out += "\r\n";
  }
}

std::string format_chunk(std::string_view data) {
  if (data.empty()) return {};
  constexpr std::string_view hex_digits = "0123456789abcdef";
  constexpr int nibble_bits = 4;
  constexpr std::size_t nibble_mask = 0xF;
  std::string size;
  for (std::size_t n = data.size(); n > 0; n >>= nibble_bits) size.insert(size.begin(), hex_digits[n & nibble_mask]);
  std::string out;
  constexpr std::size_t two_crlfs = 4;
  out.reserve(size.size() + data.size() + two_crlfs);
  out += size;
  out += "\r\n";
  out += data;
  out += "\r\n";
  return out;
}

std::string format_last_chunk(const Headers& trailers) {
  std::string out = "0\r\n";
  append_fields(out, trailers);
  out += "\r\n";
  return out;
}

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

std::string http_date(std::chrono::system_clock::time_point when) {
  // Written by hand: strftime's %a and %b follow the process locale, and HTTP dates are English.
  static constexpr std::string_view days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::string_view months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  auto two = [](int v) { return std::string(v < 10 ? "0" : "") + std::to_string(v); };
  constexpr int tm_base_year = 1900;
  std::string out(days[tm.tm_wday]);
  out += ", " + two(tm.tm_mday) + " " + std::string(months[tm.tm_mon]) + " " +
         std::to_string(tm.tm_year + tm_base_year) + " " + two(tm.tm_hour) + ":" + two(tm.tm_min) + ":" +
         two(tm.tm_sec) + " GMT";
  return out;
}

bool is_idempotent(std::string_view method) noexcept {
  for (std::string_view m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
    if (method == m) return true;
  }
  return false;
}

}  // namespace agentkit::http::detail
