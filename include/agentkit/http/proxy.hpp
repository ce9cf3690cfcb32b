// agentkit/http/proxy.hpp — which proxy a request goes through: HTTPS_PROXY, HTTP_PROXY, NO_PROXY.
//
//   auto settings = agentkit::http::ProxySettings::from_environment();
//   auto policy = agentkit::http::ProxyPolicy::make(settings);        // Result<ProxyPolicy>
//   auto url = agentkit::http::parse_url("https://api.openai.com/v1/models");
//   std::optional<agentkit::http::Url> proxy = policy->proxy_for(*url);  // nullopt: go direct
//
// Rules, as curl and most tools apply them:
// - https:// requests use https_proxy / HTTPS_PROXY and go through a CONNECT tunnel (TLS stays end
//   to end); http:// requests use http_proxy / HTTP_PROXY and send the absolute URL to the proxy.
// - The lowercase variable wins when both forms are set. Uppercase HTTP_PROXY is ignored when
//   REQUEST_METHOD is set: under CGI it can be injected by a client's "Proxy:" header ("httpoxy").
// - A proxy value without a scheme means http:// ("proxy.corp:3128"); "user:pass@" in it becomes
//   Proxy-Authorization: Basic. https:// and socks proxies are not supported and are an error.
// - NO_PROXY / no_proxy: comma- or space-separated entries. "*" bypasses the proxy for everything.
//   "example.com" matches example.com and every subdomain, never "evilexample.com";
//   ".example.com" and "*.example.com" match subdomains only; "host:8080" matches that port only;
//   IP literals ("10.1.2.3", "::1", "[::1]:8080") and CIDR ranges ("10.0.0.0/8", "fe80::/10") match
//   requests whose URL host is an IP literal (no DNS lookup is made to decide). Case-insensitive.
// - Loopback destinations (localhost, *.localhost, 127.0.0.0/8, ::1) never use the proxy unless
//   ProxySettings::proxy_loopback is set: a local model server is not behind the corporate proxy.
//
// Thread safety: plain values; ProxyPolicy is immutable after make().
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/http/resolver.hpp"
#include "agentkit/http/url.hpp"

namespace agentkit::http {

struct ProxySettings {
  std::optional<std::string> http_proxy{};   // proxy for http:// URLs
  std::optional<std::string> https_proxy{};  // proxy for https:// URLs (CONNECT tunnel)
  std::string no_proxy{};                    // NO_PROXY list, rules above
  bool proxy_loopback = false;             // also send loopback destinations through the proxy

  // Reads the variables named above through `getenv` (the process environment by default;
  // inject a function to test or to scope the configuration). Empty values count as unset.
  static ProxySettings from_environment();
  static ProxySettings from_environment(
      const std::function<std::optional<std::string>(std::string_view name)>& getenv);
};

class ProxyPolicy {
 public:
  // Parses the proxy URLs and the NO_PROXY list. A malformed proxy URL is Errc::invalid_argument
  // naming the setting; a malformed NO_PROXY entry is skipped (curl does the same).
  static Result<ProxyPolicy> make(const ProxySettings& settings);

  // The proxy to use for `target`, or nullopt to connect directly.
  std::optional<Url> proxy_for(const Url& target) const;
  // True when NO_PROXY (or the loopback rule) sends `target` direct.
  bool bypasses(const Url& target) const;

 private:
  struct Rule {
    enum class Kind { any, domain, subdomains_only, address, network } kind = Kind::any;
    std::string name;                     // lowercase, no leading dot
    std::optional<IpAddress> address;     // address / network
    unsigned prefix_bits = 0;             // network
    std::optional<std::uint16_t> port;
  };
  static std::optional<Rule> parse_rule(std::string_view entry);
  static bool rule_matches(const Rule& rule, const Url& target);

  std::optional<Url> http_proxy_;
  std::optional<Url> https_proxy_;
  std::vector<Rule> rules_;
  bool proxy_loopback_ = false;
};

}  // namespace agentkit::http
