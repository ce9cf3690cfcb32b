// agentkit/http/url.hpp — strict parsing of http:// and https:// URLs.
//
//   auto url = agentkit::http::parse_url("https://API.example.com:8443/v1/chat?x=1");
//   if (!url) return url.error();
//   url->scheme;        // "https"
//   url->host;          // "api.example.com" (lowercased; an IPv6 literal has no brackets)
//   url->port;          // 8443 (the scheme's default when the URL names none)
//   url->target();      // "/v1/chat?x=1", the request-target sent on the wire
//   url->authority();   // "api.example.com:8443", the Host header
//
// The parser refuses what two readers could understand differently instead of guessing:
// userinfo ("https://good.com@evil.com/" — RFC 9110 §4.2.4 tells senders never to generate it),
// backslashes (browsers read them as '/'), spaces, control bytes and raw non-ASCII bytes (percent-
// encode them), empty or out-of-range ports, malformed percent escapes, IPv6 zone identifiers, and
// numeric host names that are not canonical dotted quads ("127.1", "0x7f.0.0.1", "2130706433"),
// which getaddrinfo would silently read as an IPv4 address — an SSRF filter's blind spot. The
// fragment is dropped: it is never sent. Characters RFC 3986 excludes but that mean only one thing
// (" < > ^ ` { | }) are percent-encoded in the path and query.
//
// Thread safety: plain values and free functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::http {

enum class HostKind { name, ipv4, ipv6 };

struct Url {
  std::string scheme{};                 // "http" or "https", lowercase
  std::string host{};                   // lowercase name, dotted quad, or IPv6 text without brackets
  HostKind host_kind = HostKind::name;
  std::uint16_t port = 0;             // explicit, or 80 / 443 from the scheme
  bool port_is_explicit = false;
  std::string path = "/";             // never empty; starts with '/'
  std::optional<std::string> query{};   // without the '?'; nullopt when the URL has no '?'
  std::optional<std::string> userinfo{};  // only with UrlOptions::allow_userinfo (proxy URLs)

  bool is_https() const noexcept { return scheme == "https"; }
  // The scheme's default port (80 or 443).
  std::uint16_t default_port() const noexcept;
  // host[:port] as sent in the Host header: brackets around IPv6, port omitted when default.
  std::string authority() const;
  // path[?query]: the origin-form request-target (RFC 9112 §3.2.1).
  std::string target() const;
  // scheme://host:port with the port always present: the key of a connection pool.
  std::string origin() const;
  // scheme://authority/path?query (no userinfo, no fragment).
  std::string to_string() const;

  friend bool operator==(const Url&, const Url&) = default;
};

struct UrlOptions {
  // Accept "user:password@" before the host (proxy URLs carry credentials this way). Even then a
  // second '@' is refused. Default off: request URLs never carry userinfo.
  bool allow_userinfo = false;
};

// Parses an absolute http:// or https:// URL. Errors are Errc::invalid_argument naming what is
// wrong and where; another scheme is Errc::unsupported.
Result<Url> parse_url(std::string_view text, UrlOptions options = {});

// Decodes %XX escapes; a malformed escape is Errc::parse_error. Used for proxy credentials.
Result<std::string> percent_decode(std::string_view text);

// One value of an application/x-www-form-urlencoded body or query (WHATWG URL §5.2): ASCII
// letters, digits and `*-._` as they are, every other byte as %XX (a space too, which every form
// decoder reads as it reads '+'). Used for OAuth token requests and client_secret_basic.
std::string form_encode(std::string_view value);

}  // namespace agentkit::http
