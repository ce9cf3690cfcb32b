#include "agentkit/http/url.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>

#include "agentkit/base/strings.hpp"

namespace agentkit::http {
namespace {

constexpr std::uint16_t http_default_port = 80;    // RFC 9110 §4.2.1
constexpr std::uint16_t https_default_port = 443;  // RFC 9110 §4.2.2
constexpr std::size_t max_port_digits = 5;
constexpr std::uint64_t max_port = 65535;
constexpr std::size_t max_host_name_length = 253;  // RFC 1035 §2.3.4, without the final dot
constexpr std::size_t ipv4_parts = 4;
constexpr unsigned max_ipv4_part = 255;
constexpr char delete_char = 0x7F;
constexpr unsigned char first_non_ascii = 0x80;
// Error messages quote at most this much of a URL: a hostile megabyte does not belong in a log.
constexpr std::size_t max_quoted_bytes = 200;
constexpr std::string_view hex_digits = "0123456789ABCDEF";
constexpr int nibble_bits = 4;
constexpr unsigned nibble_mask = 0x0F;

Error bad_url(std::string_view text, const std::string& why) {
  return fail(Errc::invalid_argument, "invalid URL '" + std::string(text.substr(0, max_quoted_bytes)) + "': " + why);
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) {
  constexpr int ten = 10;
  if (is_digit(c)) return c - '0';
  return to_lower_ascii(c) - 'a' + ten;
}

// Bytes that have no place anywhere in a URL we send: they are where parsers disagree.
Result<void> check_bytes(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::string what;
    if (c <= ' ' || c == static_cast<unsigned char>(delete_char)) what = "a space or control byte";
    else if (c == '\\') what = "a backslash (ambiguous: some parsers read it as '/')";
    else if (c >= first_non_ascii) what = "a raw non-ASCII byte (percent-encode it; internationalised host names are not supported)";
    if (!what.empty()) return bad_url(text, "contains " + what + " at offset " + std::to_string(i));
  }
  return {};
}

Result<std::uint16_t> parse_port(std::string_view url, std::string_view digits) {
  if (digits.empty()) return bad_url(url, "the port after ':' is empty");
  if (digits.size() > max_port_digits) return bad_url(url, "the port is out of range (1-65535)");
  for (char c : digits) {
    if (!is_digit(c)) return bad_url(url, "the port '" + std::string(digits) + "' is not a decimal number");
  }
  const std::uint64_t port = parse_uint64(digits).value_or(0);
  if (port == 0 || port > max_port) return bad_url(url, "the port is out of range (1-65535)");
  return static_cast<std::uint16_t>(port);
}

bool looks_numeric(std::string_view label) {
  if (label.empty()) return false;
  if (label.size() >= 2 && label[0] == '0' && (label[1] == 'x' || label[1] == 'X')) return true;
  for (char c : label) {
    if (!is_digit(c)) return false;
  }
  return true;
}

// `body` is a host name without its final dot and with no empty label.
bool is_canonical_ipv4(std::string_view body) {
  std::size_t parts = 0;
  for (std::size_t from = 0; from <= body.size(); ++parts) {
    const std::size_t dot = std::min(body.find('.', from), body.size());
    const std::string_view part = body.substr(from, dot - from);
    if (parts == ipv4_parts || part.size() > 3) return false;
    if (part.size() > 1 && part[0] == '0') return false;  // "017" is octal to inet_aton
    for (char c : part) {
      if (!is_digit(c)) return false;
    }
    if (parse_uint64(part).value_or(max_ipv4_part + 1) > max_ipv4_part) return false;
    from = dot + 1;
  }
  return parts == ipv4_parts;
}

// Read in place, label by label: this runs under every request (a list of the labels was the only
// allocation of parsing a request's URL, and this is the deepest point of a session's stack).
Result<void> parse_host_name(std::string_view url, std::string_view host, Url& out) {
  if (host.empty()) return bad_url(url, "the host is empty");
  std::string_view body = host;
  if (body.back() == '.') body.remove_suffix(1);  // a fully qualified name's final dot
  if (body.empty() || body.size() > max_host_name_length) return bad_url(url, "the host name has an invalid length");
  for (char c : body) {
    if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '.' && c != '_') {
      return bad_url(url, std::string("the host contains '") + c + "'; only letters, digits, '-', '_' and '.' are allowed");
    }
  }
  if (body.front() == '.' || body.back() == '.' || body.find("..") != std::string_view::npos) {
    return bad_url(url, "the host has an empty label");
  }
  // WHATWG's "ends in a number" rule: such a host is an IPv4 address to every resolver, in forms
  // (octal, hex, fewer parts) a string comparison would miss. Only the canonical form is accepted.
  const std::size_t last_dot = body.rfind('.');
  const std::string_view last =
      last_dot == std::string_view::npos ? body : body.substr(last_dot + 1);
  if (looks_numeric(last)) {
    if (host.back() == '.' || !is_canonical_ipv4(body)) {
      return bad_url(url, "the numeric host '" + std::string(host) +
                              "' is not a canonical dotted-quad IPv4 address (write it as a.b.c.d in decimal)");
    }
    out.host_kind = HostKind::ipv4;
  }
  out.host = to_lower_ascii(host);
  return {};
}

Result<std::string_view> parse_ipv6_literal(std::string_view url, std::string_view bracketed, Url& out) {
  const std::size_t close = bracketed.find(']');
  if (close == std::string_view::npos) return bad_url(url, "an IPv6 literal is missing its ']'");
  const std::string literal(bracketed.substr(1, close - 1));
  if (literal.find('%') != std::string::npos) return bad_url(url, "IPv6 zone identifiers are not supported");
  std::array<unsigned char, sizeof(in6_addr)> bytes{};
  if (literal.empty() || ::inet_pton(AF_INET6, literal.c_str(), bytes.data()) != 1) {
    return bad_url(url, "'[" + literal + "]' is not a valid IPv6 address");
  }
  std::array<char, INET6_ADDRSTRLEN> canonical{};
  ::inet_ntop(AF_INET6, bytes.data(), canonical.data(), canonical.size());
  out.host = canonical.data();
  out.host_kind = HostKind::ipv6;
  return bracketed.substr(close + 1);
}

Result<void> parse_authority(std::string_view url, std::string_view authority, const UrlOptions& options, Url& out) {
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    if (!options.allow_userinfo) {
      return bad_url(url, "it contains userinfo ('...@' before the host); credentials do not belong in a URL, "
                          "and 'a.com@b.com' really means host b.com");
    }
    if (authority.find('@') != at) return bad_url(url, "the userinfo contains more than one '@'");
    out.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  std::string_view rest;
  if (!authority.empty() && authority.front() == '[') {
    auto after = parse_ipv6_literal(url, authority, out);
    if (!after) return std::move(after).error();
    rest = *after;
  } else {
    const std::size_t colon = authority.find(':');
    const std::string_view host = authority.substr(0, colon);
    if (auto r = parse_host_name(url, host, out); !r) return r;
    rest = colon == std::string_view::npos ? std::string_view{} : authority.substr(colon);
  }
  if (rest.empty()) return {};
  if (rest.front() != ':') return bad_url(url, "unexpected text after the host");
  auto port = parse_port(url, rest.substr(1));
  if (!port) return std::move(port).error();
  out.port = *port;
  out.port_is_explicit = true;
  return {};
}

// Checks %XX escapes and percent-encodes the characters RFC 3986 excludes but that are unambiguous.
Result<std::string> normalise_component(std::string_view url, std::string_view part) {
  constexpr std::string_view encode_these = "\"<>^`{|}";
  std::string out;
  out.reserve(part.size());
  for (std::size_t i = 0; i < part.size(); ++i) {
    const char c = part[i];
    if (c == '%') {
      if (part.size() < i + 3 || !is_hex(part[i + 1]) || !is_hex(part[i + 2])) {
        return bad_url(url, "a '%' is not followed by two hex digits");
      }
    }
    if (encode_these.find(c) != std::string_view::npos) {
      const auto b = static_cast<unsigned char>(c);
      out += '%';
      out += hex_digits[b >> nibble_bits];
      out += hex_digits[b & nibble_mask];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::uint16_t Url::default_port() const noexcept { return is_https() ? https_default_port : http_default_port; }

std::string Url::authority() const {
  std::string out = host_kind == HostKind::ipv6 ? "[" + host + "]" : host;
  if (port != default_port()) out += ":" + std::to_string(port);
  return out;
}

std::string Url::target() const { return query ? path + "?" + *query : path; }

std::string Url::origin() const {
  const std::string h = host_kind == HostKind::ipv6 ? "[" + host + "]" : host;
  return scheme + "://" + h + ":" + std::to_string(port);
}

std::string Url::to_string() const { return scheme + "://" + authority() + target(); }

Result<Url> parse_url(std::string_view text, UrlOptions options) {
  if (auto r = check_bytes(text); !r) return std::move(r).error();
  const std::size_t sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0) return bad_url(text, "it does not start with 'http://' or 'https://'");
  Url url;
  url.scheme = to_lower_ascii(text.substr(0, sep));
  if (url.scheme != "http" && url.scheme != "https") {
    return fail(Errc::unsupported, "unsupported URL scheme '" + url.scheme + "' in '" +
                                       std::string(text.substr(0, max_quoted_bytes)) + "'; only http and https are supported");
  }
  std::string_view rest = text.substr(sep + 3);
  rest = rest.substr(0, rest.find('#'));
  const std::size_t authority_end = rest.find_first_of("/?");
  if (auto r = parse_authority(text, rest.substr(0, authority_end), options, url); !r) return std::move(r).error();
  if (!url.port_is_explicit) url.port = url.default_port();
  if (authority_end == std::string_view::npos) return url;
  rest.remove_prefix(authority_end);
  const std::size_t question = rest.find('?');
  const std::string_view path = rest.substr(0, question);
  if (!path.empty()) {
    auto p = normalise_component(text, path);
    if (!p) return std::move(p).error();
    url.path = std::move(*p);
  }
  if (question != std::string_view::npos) {
    auto q = normalise_component(text, rest.substr(question + 1));
    if (!q) return std::move(q).error();
    url.query = std::move(*q);
  }
  return url;
}

Result<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (text.size() < i + 3 || !is_hex(text[i + 1]) || !is_hex(text[i + 2])) {
      return fail(Errc::parse_error, "malformed percent escape at offset " + std::to_string(i));
    }
    out += static_cast<char>((hex_value(text[i + 1]) << nibble_bits) | hex_value(text[i + 2]));
    i += 2;
  }
  return out;
}

std::string form_encode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (const unsigned char c : value) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '*' || c == '-' || c == '.' || c == '_';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> nibble_bits];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace agentkit::http
