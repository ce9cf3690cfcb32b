#include "agentkit/base/strings.hpp"

#include "support/catch.hpp"

TEST_CASE("ASCII case folding ignores non-ASCII bytes") {
  CHECK(agentkit::to_lower_ascii("Content-TYPE") == "content-type");
  CHECK(agentkit::to_lower_ascii("\xC4\xB0") == "\xC4\xB0");  // U+0130 stays as it is
  CHECK(agentkit::iequals("Transfer-Encoding", "transfer-encoding"));
  CHECK_FALSE(agentkit::iequals("chunked", "chunke"));
  CHECK_FALSE(agentkit::iequals("a-b", "a_b"));
  CHECK(agentkit::iends_with("API.Example.COM", ".example.com"));
  CHECK_FALSE(agentkit::iends_with("com", ".example.com"));
}

TEST_CASE("optional whitespace trimming removes only spaces and tabs") {
  CHECK(agentkit::trim_ows(" \t value \t") == "value");
  CHECK(agentkit::trim_ows("\r value\n") == "\r value\n");
  CHECK(agentkit::trim_ows("   ").empty());
}

TEST_CASE("splitting keeps empty pieces") {
  auto parts = agentkit::split("a,b,,c,", ',');
  REQUIRE(parts.size() == 5);
  CHECK(parts[2].empty());
  CHECK(parts[3] == "c");
  CHECK(agentkit::split("", ',').size() == 1);
}

TEST_CASE("a split sizes its list once, for exactly its pieces") {
  // Five pieces: a list grown by doubling would hold eight, after four allocations.
  const auto labels = agentkit::split("a.b.example.co.uk", '.');
  REQUIRE(labels.size() == 5);
  CHECK(labels.capacity() == 5);
}

TEST_CASE("unsigned parsing takes the whole text or nothing") {
  CHECK(agentkit::parse_uint64("0").value() == 0);
  CHECK(agentkit::parse_uint64("18446744073709551615").value() == UINT64_MAX);
  CHECK(agentkit::parse_uint64("fF", 16).value() == 255);
  CHECK(agentkit::parse_uint64("18446744073709551616").error().code == agentkit::Errc::limit_exceeded);
  CHECK(agentkit::parse_uint64("ffffffffffffffff0", 16).error().code == agentkit::Errc::limit_exceeded);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x1f", "1a", "1.0"}) {
    INFO("input '" << bad << "'");
    auto r = agentkit::parse_uint64(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == agentkit::Errc::parse_error);
  }
  CHECK(agentkit::parse_uint64("1", 8).error().code == agentkit::Errc::invalid_argument);
}

TEST_CASE("exactly the RFC 9110 tchar bytes are token characters") {
  // tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" /
  //         "~" / DIGIT / ALPHA   (RFC 9110 §5.6.2), spelled out independently of the code.
  const std::string_view punctuation = "!#$%&'*+-.^_`|~";
  int tokens = 0;
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const bool alpha = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
    const bool digit = b >= '0' && b <= '9';
    const bool expected =
        alpha || digit || (b != 0 && punctuation.find(c) != std::string_view::npos);
    INFO("byte " << b);
    CHECK(agentkit::is_token_char(c) == expected);
    if (agentkit::is_token_char(c)) ++tokens;
  }
  CHECK(tokens == 26 + 26 + 10 + 15);
}

TEST_CASE("a token is a non-empty run of token characters") {
  CHECK(agentkit::is_token("Content-Type"));
  CHECK(agentkit::is_token("x-mcp-header_1.~"));
  CHECK(agentkit::is_token("GET"));
  CHECK_FALSE(agentkit::is_token(""));
  CHECK_FALSE(agentkit::is_token("Content Type"));
  CHECK_FALSE(agentkit::is_token("name:"));
  CHECK_FALSE(agentkit::is_token(std::string_view("a\0b", 3)));
  CHECK_FALSE(agentkit::is_token("caf\xC3\xA9"));
}
