// fetch_url and its SSRF guard (REQ-TOOL-07, REQ-SEC-05, REQ-SEC-09). See fetch.hpp for the rules.
#include "agentkit/tools/fetch.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "agentkit/http/client.hpp"
#include "agentkit/http/url.hpp"
#include "fetch_guard.hpp"
#include "text.hpp"

namespace agentkit::tools {
namespace {

using Clock = std::chrono::steady_clock;

// RFC 9110 §15.4: the redirect statuses that carry a Location to follow.
constexpr std::array<int, 5> kRedirectStatuses = {301, 302, 303, 307, 308};
constexpr int kSeeOther = 303;
constexpr int kMovedPermanently = 301, kFound = 302;
// Header fields the client owns (framing, routing); a caller setting them is refused.
constexpr std::array<std::string_view, 4> kClientOwnedHeaders = {"host", "content-length", "transfer-encoding",
                                                                 "connection"};
constexpr std::size_t kBodyReadChunk = 16 * 1024;

bool is_redirect(int status) {
  return std::find(kRedirectStatuses.begin(), kRedirectStatuses.end(), status) != kRedirectStatuses.end();
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

Error scheme_refused(std::string_view url, std::string_view why) {
  return fail(Errc::permission_denied, "fetch_url refused '" + std::string(url) + "': " + std::string(why))
      .with_detail("code", std::string(kSchemeNotAllowed));
}

// REQ-SEC-09: https only unless allowed. parse_url already refuses every non-http(s) scheme.
Result<http::Url> parse_target(std::string_view text, const FetchOptions& options) {
  auto url = http::parse_url(text);
  if (!url) {
    if (url.error().code == Errc::unsupported) return scheme_refused(text, "only https:// URLs can be fetched");
    return url.error();
  }
  if (!url->is_https() && !options.allow_http) {
    return scheme_refused(text, "only https:// URLs can be fetched (plain http:// is off; FetchOptions::allow_http)");
  }
  return url;
}

Result<void> check_headers(const http::Headers& headers) {
  for (const auto& h : headers) {
    for (auto owned : kClientOwnedHeaders) {
      if (iequals(h.name, owned)) {
        return fail(Errc::invalid_argument, "header '" + h.name + "' is set by the HTTP client; leave it out");
      }
    }
  }
  return {};
}

Result<std::string> normalised_method(std::string_view method) {
  std::string m;
  for (char c : method) m += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  static constexpr std::array<std::string_view, 7> kMethods = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
  if (std::find(kMethods.begin(), kMethods.end(), m) == kMethods.end()) {
    return fail(Errc::invalid_argument, "method '" + std::string(method) +
                                            "' is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
  }
  return m;
}

// RFC 3986 §5.2.4, on a path without query.
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t slash = path.find('/', pos);
    std::string_view seg = path.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    bool last = slash == std::string_view::npos;
    if (seg == "..") {
      if (out.size() > 1) out.pop_back();
      if (last) out.emplace_back("");
    } else if (seg == ".") {
      if (last) out.emplace_back("");
    } else {
      out.push_back(seg);
    }
    if (last) break;
    pos = slash + 1;
  }
  std::string joined;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0) joined += '/';
    joined.append(out[i]);
  }
  return joined.empty() || joined.front() != '/' ? "/" + joined : joined;
}

bool has_scheme(std::string_view ref) {
  std::size_t colon = ref.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  return std::all_of(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
  }) && ref.find_first_of("/?#") > colon;
}

// A Location value resolved against the URL that sent it (RFC 3986 §5.2, without fragments).
std::string resolve_location(const http::Url& base, std::string_view location) {
  while (!location.empty() && (location.front() == ' ' || location.front() == '\t')) location.remove_prefix(1);
  while (!location.empty() && (location.back() == ' ' || location.back() == '\t')) location.remove_suffix(1);
  location = location.substr(0, location.find('#'));
  if (has_scheme(location)) return std::string(location);
  if (location.starts_with("//")) return base.scheme + ":" + std::string(location);
  const std::string origin = base.scheme + "://" + base.authority();
  if (location.empty()) return origin + base.target();
  if (location.front() == '?') return origin + base.path + std::string(location);
  std::string_view query;
  if (std::size_t q = location.find('?'); q != std::string_view::npos) {
    query = location.substr(q);
    location = location.substr(0, q);
  }
  std::string path = location.front() == '/' ? std::string(location)
                                             : base.path.substr(0, base.path.rfind('/') + 1) + std::string(location);
  return origin + remove_dot_segments(path) + std::string(query);
}

bool same_origin(const http::Url& a, const http::Url& b) {
  return a.scheme == b.scheme && a.host == b.host && a.port == b.port;
}

std::chrono::milliseconds left(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds{1},
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

Error timed_out(const std::string& url, std::chrono::milliseconds limit) {
  return fail(Errc::timeout, "fetching '" + url + "' took longer than " + std::to_string(limit.count()) +
                                 " ms; give timeout_s a larger value or fetch something smaller");
}

// Reads at most `cap` bytes, then one byte more to learn whether the body goes on: a large or
// endless body costs what the cap costs (REQ-TOOL-07).
Result<void> read_capped(http::Response& response, std::size_t cap, Clock::time_point deadline,
                         const std::string& url, std::chrono::milliseconds limit, FetchResult& out) {
  std::array<char, kBodyReadChunk> buffer{};
  while (out.body.size() < cap) {
    if (Clock::now() >= deadline) return timed_out(url, limit);
    std::size_t want = std::min(buffer.size(), cap - out.body.size());
    auto n = response.read_some(std::span<char>(buffer.data(), want));
    if (!n) return n.error().code == Errc::timeout ? timed_out(url, limit) : n.error();
    if (*n == 0) return {};
    out.body.append(buffer.data(), *n);
  }
  char probe = 0;
  auto more = response.read_some(std::span<char>(&probe, 1));
  out.truncated = !more || *more > 0;  // an error after the cap: the body did not end there
  response.discard();
  return {};
}

http::HttpOptions client_options(const FetchOptions& options, std::shared_ptr<detail::FetchGuard> guard,
                                 std::chrono::milliseconds limit) {
  http::HttpOptions o;
  o.connect_timeout = limit;
  o.first_byte_timeout = limit;
  o.idle_timeout = limit;
  o.max_idle_per_origin = 0;                // one client per call: nothing to pool
  o.proxy = http::ProxySettings{};          // never a proxy: it would resolve names out of the guard's sight
  o.resolver = std::make_shared<detail::GuardedResolver>(
      options.resolver ? options.resolver : std::make_shared<http::SystemResolver>(), guard);
  o.tls = options.tls;
  o.before_connect = [guard](const http::ConnectTarget& target) { return guard->check_connect(target); };
  o.user_agent = options.user_agent;
  return o;
}

}  // namespace

Result<void> check_fetch_address(const IpAddress& address, std::string_view host, const FetchOptions& options) {
  return detail::FetchGuard(options.permitted_addresses).check(address, host);
}

Result<FetchResult> fetch_url(const FetchRequest& request, const FetchOptions& options, agentkit::stop_token stop) {
  const auto started = Clock::now();
  const std::chrono::milliseconds limit = std::min(request.timeout.value_or(options.default_timeout), options.max_timeout);
  if (limit.count() <= 0) return fail(Errc::invalid_argument, "the fetch time limit must be positive");
  const auto deadline = started + limit;
  auto method = normalised_method(request.method);
  if (!method) return method.error();
  if (auto h = check_headers(request.headers); !h) return h.error();
  auto url = parse_target(request.url, options);
  if (!url) return url.error();

  auto guard = std::make_shared<detail::FetchGuard>(options.permitted_addresses);
  const http::Url first = *url;
  http::Request hop{*method, url->to_string(), request.headers, request.body, {}, {}};
  bool caller_headers = true;
  FetchResult out;
  for (int redirects = 0;; ++redirects) {
    // Every hop: the literal-host check before any I/O (names are checked by the resolver and
    // the connect hook, which the client runs for this hop too).
    if (auto ok = guard->check_url(*url); !ok) return ok.error();
    hop.first_byte_timeout = left(deadline);
    hop.idle_timeout = left(deadline);
    // A client per hop: its connect timeout is the time left, and nothing is pooled anyway.
    http::HttpClient client(client_options(options, guard, left(deadline)));
    auto response = client.send(hop, stop);
    if (!response) return response.error().code == Errc::timeout ? timed_out(hop.url, limit) : response.error();
    auto location = response->headers().get("location");
    if (!is_redirect(response->status()) || !location) {
      out.status = response->status();
      out.reason = response->reason();
      out.final_url = hop.url;
      out.redirects = redirects;
      out.headers = response->headers();
      if (hop.method != "HEAD") {
        if (auto r = read_capped(*response, options.max_body_bytes, deadline, hop.url, limit, out); !r) return r.error();
      }
      out.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
      return out;
    }
    if (redirects >= options.max_redirects) {
      return fail(Errc::limit_exceeded, "fetching '" + request.url + "' was redirected more than " +
                                            std::to_string(options.max_redirects) + " times")
          .with_detail("code", std::string(kTooManyRedirects));
    }
    const std::string next_text = resolve_location(*url, *location);
    const int status = response->status();
    response->discard();
    auto next = parse_target(next_text, options);  // the scheme rule, again, for every hop
    if (!next) return next.error().with_detail("redirect_from", hop.url);
    if (status == kSeeOther || ((status == kMovedPermanently || status == kFound) && hop.method == "POST")) {
      hop.method = hop.method == "HEAD" ? "HEAD" : "GET";
      hop.body.clear();
    }
    caller_headers = caller_headers && same_origin(first, *next);
    hop.headers = caller_headers ? request.headers : http::Headers{};
    url = std::move(next);
    hop.url = url->to_string();
    if (stop.stop_requested()) return fail(Errc::cancelled, "fetch cancelled");
  }
}

}  // namespace agentkit::tools
