// Routing-header values, RFC 6570 templates, the mcpServers configuration, and the sealing HMAC.
#include "agentkit/base/hex.hpp"
#include "agentkit/mcp/config.hpp"
#include "agentkit/mcp/protocol.hpp"
#include "agentkit/mcp/uri_template.hpp"
#include "request_state.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;

TEST_CASE("a header value that is not header-safe ASCII travels base64-sentinel encoded") {
  // REQ-MCP-CLIENT-02's own example.
  CHECK(mcp::encode_header_value("résumé") == "=?base64?csOpc3Vtw6k=?=");
  CHECK(mcp::encode_header_value("tools/call") == "tools/call");
  CHECK(mcp::encode_header_value(" padded") != " padded");
  CHECK(mcp::encode_header_value("tab\t") != "tab\t");
  CHECK(mcp::encode_header_value("a\r\nX-Injected: 1").starts_with("=?base64?"));
  // A plain value that looks like the sentinel is encoded too, or it would decode to something else.
  CHECK(mcp::encode_header_value("=?base64?YQ==?=") != "=?base64?YQ==?=");
  for (std::string_view v : {"résumé", "tools/call", " padded", "=?base64?YQ==?=", ""}) {
    CHECK(mcp::decode_header_value(mcp::encode_header_value(v)).value() == v);
  }
  CHECK(!mcp::decode_header_value("=?base64?not base64!?="));
  CHECK(!mcp::decode_header_value("=?base64?/w==?="));  // decodes to a lone 0xFF: not UTF-8
}

TEST_CASE("eras: which versions are modern, which legacy, which unknown") {
  CHECK(mcp::era_of("2026-07-28") == mcp::Era::modern);
  CHECK(mcp::era_of("2025-11-25") == mcp::Era::legacy);
  CHECK(mcp::era_of("2025-06-18") == mcp::Era::legacy);
  CHECK(mcp::era_of("2024-11-05") == mcp::Era::legacy);
  CHECK(!mcp::era_of("2024-10-07"));
  CHECK(!mcp::era_of("DRAFT-2026-v1"));
}

TEST_CASE("a template variable does not span a slash; a reserved one does") {
  auto t = mcp::UriTemplate::parse("x://items/{id}").value();
  auto vars = t.match("x://items/7");
  REQUIRE(vars);
  CHECK(*vars == mcp::UriVariables{{"id", "7"}});
  CHECK(!t.match("x://items/7/extra"));
  CHECK(!t.match("x://items/"));
  CHECK(t.match("x://items/a%20b")->front().second == "a b");
  auto deep = mcp::UriTemplate::parse("file:///{+path}").value();
  CHECK(deep.match("file:///a/b/c.txt")->front().second == "a/b/c.txt");
  auto two = mcp::UriTemplate::parse("nightshift://issues/{number}/triage-report").value();
  CHECK(two.match("nightshift://issues/42/triage-report")->front().second == "42");
  CHECK(!two.match("nightshift://issues/42/other"));
}

TEST_CASE("operator expressions match and expand as RFC 6570 section 3.2 describes") {
  const mcp::UriVariables vars{{"var", "value"}, {"hello", "Hello World!"}, {"path", "/foo/bar"}, {"x", "1024"}, {"y", "768"}};
  const auto expand = [&](std::string_view t) { return mcp::UriTemplate::parse(t).value().expand(vars); };
  CHECK(expand("{var}") == "value");
  CHECK(expand("{hello}") == "Hello%20World%21");
  CHECK(expand("{+hello}") == "Hello%20World!");
  CHECK(expand("{+path}/here") == "/foo/bar/here");
  CHECK(expand("{#var}") == "#value");
  CHECK(expand("X{.var}") == "X.value");
  CHECK(expand("{/var,x}/here") == "/value/1024/here");
  CHECK(expand("{;x,y}") == ";x=1024;y=768");
  CHECK(expand("{?x,y}") == "?x=1024&y=768");
  CHECK(expand("?fixed=yes{&x}") == "?fixed=yes&x=1024");
  CHECK(expand("{undefined}") == "");
  auto query = mcp::UriTemplate::parse("x://search{?q,limit}").value();
  auto found = query.match("x://search?q=cats&limit=5");
  REQUIRE(found);
  CHECK(*found == mcp::UriVariables{{"q", "cats"}, {"limit", "5"}});
  CHECK(query.match("x://search"));  // an absent query expression is allowed
  CHECK(!mcp::UriTemplate::parse("x://{id:3}"));
  CHECK(!mcp::UriTemplate::parse("x://{list*}"));
  CHECK(!mcp::UriTemplate::parse("x://{unterminated"));
  CHECK(!mcp::UriTemplate::parse("x://a}b"));
}

TEST_CASE("matching takes the shortest value that lets the rest of the template match") {
  auto t = mcp::UriTemplate::parse("x://{+a}/mid/{+b}").value();
  auto v = t.match("x://p/q/mid/r/mid/s");
  REQUIRE(v);
  CHECK((*v)[0].second == "p/q");
  CHECK((*v)[1].second == "r/mid/s");
}

TEST_CASE("the mcpServers shape parses stdio and HTTP servers and refuses ambiguous ones") {
  auto servers = mcp::parse_servers_config(R"({"mcpServers":{
      "files":{"command":"npx","args":["-y","server-filesystem","/srv"],"env":{"TOKEN":"${T}"},"disabled":false},
      "remote":{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer ${T}"},"negotiation":"modern",
                "allowSampling":true,"callLimit":5,"timeoutMs":1500}}})");
  REQUIRE(servers);
  REQUIRE(servers->size() == 2);
  const auto& files = std::get<mcp::StdioLaunch>((*servers)[0].transport);
  CHECK(files.command == "npx");
  CHECK(files.args.size() == 3);
  CHECK(files.env.front().second == "${T}");  // resolved at spawn, not at parse (NFR-SEC-03)
  const auto& remote = (*servers)[1];
  CHECK(std::get<mcp::HttpTarget>(remote.transport).url == "https://example.com/mcp");
  CHECK(remote.negotiation == mcp::Negotiation::modern);
  CHECK(remote.allow_sampling == true);
  CHECK(remote.call_limit == 5u);
  CHECK(remote.request_timeout == std::chrono::milliseconds(1500));
  CHECK(!mcp::parse_servers_config(R"({"mcpServers":{"both":{"command":"a","url":"http://x"}}})"));
  CHECK(!mcp::parse_servers_config(R"({"mcpServers":{"none":{}}})"));
  CHECK(!mcp::parse_servers_config(R"({"mcpServers":{"a__b":{"command":"a"}}})"));
  CHECK(!mcp::parse_servers_config(
      R"({"mcpServers":{"odd":{"url":"http://x","type":"websocket"}}})"));
  CHECK(!mcp::parse_servers_config(R"({"mcpServers":{"bad":{"command":"a","negotiation":"sometimes"}}})"));
}

TEST_CASE("interpolation names every missing variable and never passes the literal on") {
  const mcp::EnvLookup env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "HOME") return std::string("/home/me");
    if (name == "EMPTY") return std::string();
    return std::nullopt;
  };
  CHECK(mcp::interpolate("${HOME}/x", env).value() == "/home/me/x");
  CHECK(mcp::interpolate("cost: $5 and ${EMPTY}.", env).value() == "cost: $5 and .");
  auto missing = mcp::interpolate("${A} and ${B}", env);
  REQUIRE(!missing);
  CHECK(missing.error().message.find("${A}") != std::string::npos);
  CHECK(missing.error().message.find("${B}") != std::string::npos);
  CHECK(!mcp::interpolate("${unterminated", env));
}

TEST_CASE("the sealing HMAC agrees with Python's hmac module") {
  auto python = testing::find_program("python3");
  REQUIRE(python);  // the CI installs python3; a missing peer is a failure, not a skip
  std::array<std::uint8_t, 32> key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(i * 7 + 1);
  const std::string message = "cursor\ntools\nitem_2 — with UTF-8";
  const auto mac = mcp::detail::hmac_sha256(key, message);
  const std::string ours = hex::encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
  auto theirs = testing::run_program(
      {"python3", "-c",
       "import hmac,hashlib,sys\nkey=bytes((i*7+1)%256 for i in range(32))\n"
       "print(hmac.new(key, sys.stdin.buffer.read(), hashlib.sha256).hexdigest(), end='')"},
      message);
  REQUIRE(theirs.exit_code == 0);
  CHECK(ours == theirs.out);
}

TEST_CASE("a sealed token opens only with its own key and only untouched") {
  mcp::detail::SealKey key;
  mcp::detail::SealKey other;
  const std::string token = key.seal("payload");
  CHECK(key.open(token).value() == "payload");
  CHECK(!other.open(token));
  std::string tampered = token;
  tampered[1] = tampered[1] == 'A' ? 'B' : 'A';
  CHECK(!key.open(tampered));
  CHECK(!key.open("no-dot-here"));
}
