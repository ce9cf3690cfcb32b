#include "agentkit/http/proxy.hpp"

#include <cstdlib>

#include "agentkit/base/strings.hpp"

namespace agentkit::http {
namespace {

std::optional<std::string> process_getenv(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

// The lowercase form first (curl's order), then the uppercase one; empty counts as unset.
std::optional<std::string> first_set(const std::function<std::optional<std::string>(std::string_view)>& getenv,
                                     std::string_view lower, std::string_view upper) {
  for (auto name : {lower, upper}) {
    if (name.empty()) continue;
    auto v = getenv(name);
    if (v && !trim_ows(*v).empty()) return std::string(trim_ows(*v));
  }
  return std::nullopt;
}

Result<std::optional<Url>> parse_proxy_url(const std::optional<std::string>& value, std::string_view setting) {
  if (!value) return std::optional<Url>{};
  std::string text = *value;
  if (text.find("://") == std::string::npos) text = "http://" + text;  // "proxy:3128" means http
  auto url = parse_url(text, UrlOptions{.allow_userinfo = true});
  if (!url) {
    return fail(url.error().code, "the proxy setting " + std::string(setting) + " is not a usable proxy URL: " +
                                            url.error().message + "; fix or unset it")
        .with_detail("setting", std::string(setting));
  }
  if (url->is_https()) {
    return fail(Errc::unsupported, "the proxy setting " + std::string(setting) +
                                       " names an https:// proxy; only http:// proxies are supported "
                                       "(https:// destinations still get an end-to-end TLS tunnel through them)")
        .with_detail("setting", std::string(setting));
  }
  return std::optional<Url>(std::move(*url));
}

bool is_loopback_host(const Url& url) {
  if (url.host_kind == HostKind::name) {
    std::string_view h = url.host;
    if (!h.empty() && h.back() == '.') h.remove_suffix(1);
    return h == "localhost" || iends_with(h, ".localhost");
  }
  auto ip = IpAddress::parse(url.host);
  return ip && ip->is_loopback();
}

// Splits "host:port" / "[v6]:port" / "v6" into host and optional port.
std::pair<std::string_view, std::optional<std::uint16_t>> split_port(std::string_view entry) {
  auto parse_port = [](std::string_view digits) -> std::optional<std::uint16_t> {
    constexpr std::uint64_t highest_port = 65535;
    auto n = parse_uint64(digits);
    if (!n || *n == 0 || *n > highest_port) return std::nullopt;
    return static_cast<std::uint16_t>(*n);
  };
  if (!entry.empty() && entry.front() == '[') {
    const std::size_t close = entry.find(']');
    if (close == std::string_view::npos) return {entry, std::nullopt};
    const std::string_view host = entry.substr(1, close - 1);
    const std::string_view rest = entry.substr(close + 1);
    if (rest.size() > 1 && rest.front() == ':') return {host, parse_port(rest.substr(1))};
    return {host, std::nullopt};
  }
  const std::size_t colon = entry.find(':');
  if (colon == std::string_view::npos || entry.find(':', colon + 1) != std::string_view::npos) {
    return {entry, std::nullopt};  // no port, or a bare IPv6 address
  }
  return {entry.substr(0, colon), parse_port(entry.substr(colon + 1))};
}

}  // namespace

ProxySettings ProxySettings::from_environment() { return from_environment(process_getenv); }

ProxySettings ProxySettings::from_environment(
    const std::function<std::optional<std::string>(std::string_view name)>& getenv) {
  ProxySettings s;
  const bool cgi = getenv("REQUEST_METHOD").has_value();
  s.http_proxy = first_set(getenv, "http_proxy", cgi ? "" : "HTTP_PROXY");
  s.https_proxy = first_set(getenv, "https_proxy", "HTTPS_PROXY");
  s.no_proxy = first_set(getenv, "no_proxy", "NO_PROXY").value_or("");
  return s;
}

std::optional<ProxyPolicy::Rule> ProxyPolicy::parse_rule(std::string_view entry) {
  Rule rule;
  const std::string lower = to_lower_ascii(entry);
  std::string_view e = lower;
  if (e == "*") return rule;
  if (const std::size_t slash = e.find('/'); slash != std::string_view::npos) {
    auto ip = IpAddress::parse(e.substr(0, slash));
    auto bits = parse_uint64(e.substr(slash + 1));
    constexpr std::uint64_t address_bits_per_byte = 8;
    if (!ip || !bits || *bits > ip->size() * address_bits_per_byte) return std::nullopt;
    rule.kind = Rule::Kind::network;
    rule.address = *ip;
    rule.prefix_bits = static_cast<unsigned>(*bits);
    return rule;
  }
  auto [host, port] = split_port(e);
  rule.port = port;
  if (auto ip = IpAddress::parse(host)) {
    rule.kind = Rule::Kind::address;
    rule.address = ip->unmapped();
    return rule;
  }
  if (host.starts_with("*.")) host.remove_prefix(1);
  rule.kind = Rule::Kind::domain;
  if (host.starts_with(".")) {
    rule.kind = Rule::Kind::subdomains_only;
    host.remove_prefix(1);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (host.empty()) return std::nullopt;
  rule.name = std::string(host);
  return rule;
}

Result<ProxyPolicy> ProxyPolicy::make(const ProxySettings& settings) {
  ProxyPolicy policy;
  auto http = parse_proxy_url(settings.http_proxy, "HTTP_PROXY/http_proxy");
  if (!http) return std::move(http).error();
  auto https = parse_proxy_url(settings.https_proxy, "HTTPS_PROXY/https_proxy");
  if (!https) return std::move(https).error();
  policy.http_proxy_ = std::move(*http);
  policy.https_proxy_ = std::move(*https);
  policy.proxy_loopback_ = settings.proxy_loopback;
  std::string list = settings.no_proxy;
  for (char& c : list) {
    if (c == ' ' || c == '\t') c = ',';
  }
  for (auto entry : split(list, ',')) {
    entry = trim_ows(entry);
    if (entry.empty()) continue;
    if (auto rule = parse_rule(entry)) policy.rules_.push_back(std::move(*rule));
  }
  return policy;
}

bool ProxyPolicy::rule_matches(const Rule& rule, const Url& target) {
  if (rule.port && *rule.port != target.port) return false;
  switch (rule.kind) {
    case Rule::Kind::any: return true;
    case Rule::Kind::address:
    case Rule::Kind::network: {
      if (target.host_kind == HostKind::name) return false;
      auto ip = IpAddress::parse(target.host);
      if (!ip) return false;
      // ::ffff:10.0.0.1 is 10.0.0.1: compare both the written and the unmapped form.
      const IpAddress a = ip->unmapped();
      if (rule.kind == Rule::Kind::address) return a == *rule.address;
      return a.in_prefix(*rule.address, rule.prefix_bits) || ip->in_prefix(*rule.address, rule.prefix_bits);
    }
    case Rule::Kind::domain:
    case Rule::Kind::subdomains_only: {
      std::string_view host = target.host;
      if (!host.empty() && host.back() == '.') host.remove_suffix(1);
      if (rule.kind == Rule::Kind::domain && host == rule.name) return true;
      // A label boundary is required: "example.com" must not match "evilexample.com".
      return host.size() > rule.name.size() && host.ends_with(rule.name) &&
             host[host.size() - rule.name.size() - 1] == '.';
    }
  }
  return false;
}

bool ProxyPolicy::bypasses(const Url& target) const {
  if (!proxy_loopback_ && is_loopback_host(target)) return true;
  for (const auto& rule : rules_) {
    if (rule_matches(rule, target)) return true;
  }
  return false;
}

std::optional<Url> ProxyPolicy::proxy_for(const Url& target) const {
  const auto& proxy = target.is_https() ? https_proxy_ : http_proxy_;
  if (!proxy || bypasses(target)) return std::nullopt;
  return proxy;
}

}  // namespace agentkit::http
