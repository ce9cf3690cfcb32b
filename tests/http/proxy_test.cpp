#include "agentkit/http/proxy.hpp"

#include <map>
#include <string>

#include "support/catch.hpp"

using agentkit::http::parse_url;
using agentkit::http::ProxyPolicy;
using agentkit::http::ProxySettings;

namespace {

ProxySettings from_env(std::map<std::string, std::string> env) {
  return ProxySettings::from_environment([env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

bool bypasses(const std::string& no_proxy, const std::string& url) {
  auto policy = ProxyPolicy::make({.http_proxy = "http://proxy:3128", .https_proxy = "http://proxy:3128", .no_proxy = no_proxy});
  REQUIRE(policy);
  auto u = parse_url(url);
  REQUIRE(u);
  return !policy->proxy_for(*u).has_value();
}

}  // namespace

TEST_CASE("proxy variables: lowercase wins, empty counts as unset, NO_PROXY in either case") {
  auto s = from_env({{"HTTPS_PROXY", "http://upper:1"}, {"https_proxy", "http://lower:2"},
                     {"HTTP_PROXY", "http://plain:3"}, {"http_proxy", ""}, {"NO_PROXY", "internal"}});
  CHECK(s.https_proxy == "http://lower:2");
  CHECK(s.http_proxy == "http://plain:3");
  CHECK(s.no_proxy == "internal");
  CHECK(from_env({{"no_proxy", "a"}, {"NO_PROXY", "b"}}).no_proxy == "a");
  CHECK_FALSE(from_env({}).https_proxy);
}

TEST_CASE("under CGI the uppercase HTTP_PROXY is ignored (httpoxy)") {
  auto s = from_env({{"REQUEST_METHOD", "GET"}, {"HTTP_PROXY", "http://attacker:80"}});
  CHECK_FALSE(s.http_proxy);
  auto t = from_env({{"REQUEST_METHOD", "GET"}, {"http_proxy", "http://mine:80"}, {"HTTPS_PROXY", "http://p:1"}});
  CHECK(t.http_proxy == "http://mine:80");
  CHECK(t.https_proxy == "http://p:1");
}

TEST_CASE("each scheme uses its own proxy, and a bare host:port means http") {
  auto policy = ProxyPolicy::make({.http_proxy = "plainproxy:3128", .https_proxy = "http://tunnel:8080"});
  REQUIRE(policy);
  auto via_http = policy->proxy_for(parse_url("http://example.com/").value());
  REQUIRE(via_http);
  CHECK(via_http->origin() == "http://plainproxy:3128");
  auto via_https = policy->proxy_for(parse_url("https://example.com/").value());
  REQUIRE(via_https);
  CHECK(via_https->origin() == "http://tunnel:8080");
  auto only_https = ProxyPolicy::make({.https_proxy = "http://tunnel:8080"});
  CHECK_FALSE(only_https->proxy_for(parse_url("http://example.com/").value()));
}

TEST_CASE("malformed or unsupported proxy URLs are errors naming the setting") {
  auto bad = ProxyPolicy::make({.https_proxy = "http://proxy:99999"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == agentkit::Errc::invalid_argument);
  CHECK(bad.error().message.find("HTTPS_PROXY") != std::string::npos);
  auto tls_proxy = ProxyPolicy::make({.http_proxy = "https://proxy:443"});
  REQUIRE_FALSE(tls_proxy);
  CHECK(tls_proxy.error().code == agentkit::Errc::unsupported);
  CHECK(ProxyPolicy::make({.http_proxy = "socks5://proxy:1080"}).error().code == agentkit::Errc::unsupported);
}

TEST_CASE("NO_PROXY domain entries match the domain and its subdomains on a label boundary") {
  CHECK(bypasses("example.com", "https://example.com/"));
  CHECK(bypasses("example.com", "https://api.example.com/"));
  CHECK(bypasses("example.com", "https://a.b.example.com/"));
  CHECK(bypasses("EXAMPLE.com", "https://Api.Example.COM/"));
  CHECK_FALSE(bypasses("example.com", "https://evilexample.com/"));
  CHECK_FALSE(bypasses("example.com", "https://example.com.evil.net/"));
  CHECK_FALSE(bypasses("example.com", "https://example.org/"));
  CHECK(bypasses("example.com.", "https://example.com/"));
  CHECK(bypasses("example.com", "https://example.com./"));
}

TEST_CASE("NO_PROXY leading-dot and wildcard entries match subdomains only") {
  CHECK(bypasses(".example.com", "https://api.example.com/"));
  CHECK_FALSE(bypasses(".example.com", "https://example.com/"));
  CHECK(bypasses("*.example.com", "https://api.example.com/"));
  CHECK_FALSE(bypasses("*.example.com", "https://example.com/"));
  CHECK_FALSE(bypasses(".example.com", "https://evilexample.com/"));
}

TEST_CASE("NO_PROXY '*' bypasses everything and lists may use commas or spaces") {
  CHECK(bypasses("*", "https://anything.net/"));
  CHECK(bypasses("foo.org, example.com", "http://x.example.com/"));
  CHECK(bypasses("foo.org example.com", "http://x.example.com/"));
  CHECK_FALSE(bypasses("foo.org,,bar.org", "http://example.com/"));
  CHECK_FALSE(bypasses("", "http://example.com/"));
}

TEST_CASE("NO_PROXY entries with a port match that port only") {
  CHECK(bypasses("example.com:8080", "http://example.com:8080/"));
  CHECK_FALSE(bypasses("example.com:8080", "http://example.com/"));
  CHECK(bypasses("example.com:443", "https://api.example.com/"));
  CHECK(bypasses("[2001:db8::1]:8443", "https://[2001:db8::1]:8443/"));
  CHECK_FALSE(bypasses("[2001:db8::1]:8443", "https://[2001:db8::1]/"));
}

TEST_CASE("NO_PROXY IP and CIDR entries match IP-literal hosts without a lookup") {
  CHECK(bypasses("10.1.2.3", "http://10.1.2.3/"));
  CHECK_FALSE(bypasses("10.1.2.3", "http://10.1.2.4/"));
  CHECK(bypasses("10.0.0.0/8", "http://10.200.0.1:9000/"));
  CHECK_FALSE(bypasses("10.0.0.0/8", "http://11.0.0.1/"));
  CHECK(bypasses("192.168.1.0/24", "http://192.168.1.77/"));
  CHECK_FALSE(bypasses("192.168.1.0/24", "http://192.168.2.1/"));
  CHECK(bypasses("2001:db8::/32", "http://[2001:db8:1::5]/"));
  CHECK(bypasses("2001:db8::1", "http://[2001:db8::1]/"));
  CHECK(bypasses("10.0.0.0/8", "http://[::ffff:10.0.0.9]/"));  // IPv4-mapped
  CHECK_FALSE(bypasses("10.0.0.0/8", "http://ten.example/"));   // names are not resolved to decide
  CHECK_FALSE(bypasses("10.0.0.0/33", "http://10.0.0.1/"));     // a malformed entry is skipped
}

TEST_CASE("loopback destinations go direct unless the proxy is asked to take them") {
  CHECK(bypasses("", "http://localhost:11434/"));
  CHECK(bypasses("", "http://127.0.0.1:8080/"));
  CHECK(bypasses("", "http://127.9.9.9/"));
  CHECK(bypasses("", "http://[::1]:8080/"));
  CHECK(bypasses("", "http://model.localhost/"));
  auto policy = ProxyPolicy::make({.http_proxy = "http://proxy:3128", .proxy_loopback = true});
  REQUIRE(policy);
  CHECK(policy->proxy_for(parse_url("http://127.0.0.1/").value()));
}
