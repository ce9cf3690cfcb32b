#include "agentkit/http/url.hpp"

#include <string>
#include <vector>

#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::http::HostKind;
using agentkit::http::parse_url;

TEST_CASE("a URL splits into scheme, host, port, path and query") {
  auto u = parse_url("HTTPS://API.Example.COM:8443/v1/chat?stream=true#frag");
  REQUIRE(u);
  CHECK(u->scheme == "https");
  CHECK(u->host == "api.example.com");
  CHECK(u->host_kind == HostKind::name);
  CHECK(u->port == 8443);
  CHECK(u->port_is_explicit);
  CHECK(u->path == "/v1/chat");
  CHECK(u->query == "stream=true");
  CHECK(u->target() == "/v1/chat?stream=true");
  CHECK(u->authority() == "api.example.com:8443");
  CHECK(u->origin() == "https://api.example.com:8443");
  CHECK(u->to_string() == "https://api.example.com:8443/v1/chat?stream=true");
}

TEST_CASE("default ports, an empty path and an empty query are filled in as the wire needs them") {
  auto u = parse_url("http://localhost");
  REQUIRE(u);
  CHECK(u->port == 80);
  CHECK_FALSE(u->port_is_explicit);
  CHECK(u->path == "/");
  CHECK_FALSE(u->query);
  CHECK(u->authority() == "localhost");
  CHECK(parse_url("https://h/").value().port == 443);
  CHECK(parse_url("https://h:443/").value().authority() == "h");
  CHECK(parse_url("http://h?").value().query == "");
  CHECK(parse_url("http://h?a=1").value().target() == "/?a=1");
}

TEST_CASE("IPv6 literals keep their brackets out of the host and in the authority") {
  auto u = parse_url("http://[::1]:8080/x");
  REQUIRE(u);
  CHECK(u->host == "::1");
  CHECK(u->host_kind == HostKind::ipv6);
  CHECK(u->authority() == "[::1]:8080");
  auto v = parse_url("http://[2001:DB8:0:0::1]/");
  REQUIRE(v);
  CHECK(v->host == "2001:db8::1");  // canonical text
  CHECK(v->authority() == "[2001:db8::1]");
}

TEST_CASE("canonical dotted quads are IPv4 hosts") {
  auto u = parse_url("http://127.0.0.1:11434/api/chat");
  REQUIRE(u);
  CHECK(u->host_kind == HostKind::ipv4);
  CHECK(u->host == "127.0.0.1");
  auto named = parse_url("http://Example.COM./");  // a fully qualified name's final dot stays
  REQUIRE(named);
  CHECK(named->host_kind == HostKind::name);
  CHECK(named->host == "example.com.");
  auto lettered = parse_url("http://1.2.3.x4/");  // a last label with a letter is a name
  REQUIRE(lettered);
  CHECK(lettered->host_kind == HostKind::name);
  // Three labels, an empty label after the address, and one after a name: all refused.
  for (const char* bad : {"http://1.2.3/", "http://1.2.3.4../", "http://example../"}) {
    INFO("url: " << bad);
    CHECK(parse_url(bad).error().code == Errc::invalid_argument);
  }
}

TEST_CASE("a request's URL is parsed without allocating beyond its strings") {
  // Every model call parses its URL; the host's labels were a list of their own (one allocation,
  // and the deepest frame of a session's stack). These strings all fit in place (SSO).
  std::size_t allocations = 0;
  bool parsed = false;
  {
    agentkit::testing::AllocCounter counter;
    parsed = parse_url("http://127.0.0.1:8080/v1/x").has_value() &&
             parse_url("http://a.b.example/v1").has_value();
    allocations = counter.stats().count;
  }
  CHECK(parsed);
  CHECK(allocations == 0);  // under TSan the counter reads 0 too
}

TEST_CASE("ambiguous or malformed URLs are refused, not guessed at") {
  const std::vector<std::string> bad = {
      "http://good.com@evil.com/",            // userinfo trick
      "http://user:pw@host/",                 // any userinfo
      "http://a@b@c/",
      "http://exa mple.com/",                 // space
      "http://example.com/a b",
      "http://example.com/\x01",              // control byte
      std::string("http://example.com/\0x", 21),
      "http://example.com\\@evil.com/",       // backslash
      "http://example.com/a\\b",
      "http://example.com:/",                 // empty port
      "http://example.com:0/",                // port 0
      "http://example.com:65536/",            // port out of range
      "http://example.com:123456/",
      "http://example.com:8o/",               // non-digit port
      "http://example.com:-1/",
      "http://example.com:80:81/",
      "http://[::1/",                         // unclosed bracket
      "http://[::1]x/",
      "http://[fe80::1%25eth0]/",             // zone id
      "http://[not-ipv6]/",
      "http://127.1/",                        // short IPv4 forms
      "http://2130706433/",                   // integer IPv4
      "http://0x7f.0.0.1/",                   // hex IPv4
      "http://017.0.0.1/",                    // octal IPv4
      "http://256.0.0.1/",
      "http://1.2.3.4.5/",
      "http://1.2.3.4./",
      "http://example.123/",                  // ends in a number
      "http:///path",                         // empty host
      "http://a..b/",
      "http://.example.com/",
      "http://ex%41mple.com/",                // percent in host
      "http://example.com/%zz",               // bad escape
      "http://example.com/%4",
      "http://example.com/?q=%",
      "http://ex\xC3\xA4mple.com/",           // raw non-ASCII
      "http:/example.com/",                   // missing //
      "example.com/path",
      "://example.com",
  };
  for (const auto& text : bad) {
    INFO("url: " << text);
    auto u = parse_url(text);
    REQUIRE_FALSE(u);
    CHECK(u.error().code == Errc::invalid_argument);
  }
}

TEST_CASE("only http and https are supported schemes") {
  for (const char* text : {"ftp://example.com/", "file:///etc/passwd", "ws://example.com/", "javascript://x"}) {
    INFO("url: " << text);
    auto u = parse_url(text);
    REQUIRE_FALSE(u);
    CHECK(u.error().code == Errc::unsupported);
  }
}

TEST_CASE("unambiguous characters RFC 3986 excludes are percent-encoded") {
  auto u = parse_url("http://h/a|b{c}?x=\"<y>\"^`");
  REQUIRE(u);
  CHECK(u->path == "/a%7Cb%7Bc%7D");
  CHECK(u->query == "x=%22%3Cy%3E%22%5E%60");
  CHECK(parse_url("http://h/%2F%41").value().path == "/%2F%41");  // valid escapes stay as written
}

TEST_CASE("proxy URLs may carry userinfo when asked, still with one '@' at most") {
  agentkit::http::UrlOptions proxy{.allow_userinfo = true};
  auto u = parse_url("http://us%40er:p%3Ass@proxy.corp:3128", proxy);
  REQUIRE(u);
  CHECK(u->userinfo == "us%40er:p%3Ass");
  CHECK(u->host == "proxy.corp");
  CHECK(agentkit::http::percent_decode(*u->userinfo).value() == "us@er:p:ss");
  CHECK_FALSE(parse_url("http://a@b@proxy:1", proxy));
  CHECK_FALSE(agentkit::http::percent_decode("%g0"));
}

TEST_CASE("form_encode leaves exactly the form's unreserved bytes plain and decodes back") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string encoded = agentkit::http::form_encode(all);
  CHECK(agentkit::http::percent_decode(encoded).value() == all);
  std::string plain;
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '%') {
      i += 2;
    } else {
      plain += encoded[i];
    }
  }
  CHECK(plain == "*-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
  CHECK(agentkit::http::form_encode("a b~c/d+e") == "a%20b%7Ec%2Fd%2Be");
}
