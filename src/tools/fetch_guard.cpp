#include "fetch_guard.hpp"

#include <algorithm>

#include "agentkit/tools/fetch.hpp"

namespace agentkit::tools::detail {

IpAddress from_http(const http::IpAddress& address) noexcept {
  IpAddress out;
  out.is_v4 = address.family == http::IpAddress::Family::v4;
  out.bytes = address.bytes;
  return out;
}

Result<void> FetchGuard::check(const IpAddress& address, std::string_view host) const {
  const IpAddress plain = unmap(address);
  const bool permitted = std::any_of(permitted_.begin(), permitted_.end(),
                                     [&](const IpAddress& p) { return unmap(p) == plain; });
  const AddressClass cls = classify(address);  // classify() unmaps first (the ::ffff:10.0.0.1 trap)
  if (permitted || is_public(cls)) return {};
  // The address as it is classified: ::ffff:10.0.0.1 is shown (and recorded) as 10.0.0.1.
  std::string shown = to_string(plain);
  if (!(plain == address)) shown += " (written " + to_string(address) + ")";
  std::string kind(address_class_name(cls));
  std::replace(kind.begin(), kind.end(), '_', ' ');
  return fail(Errc::permission_denied,
              "fetch_url refused '" + std::string(host) + "': it resolves to " + shown + ", a " + kind +
                  " address; only public internet addresses can be fetched (SSRF guard)")
      .with_detail("code", std::string(kAddressNotAllowed))
      .with_detail("host", std::string(host))
      .with_detail("address", to_string(plain))
      .with_detail("class", std::string(address_class_name(cls)));
}

Result<void> FetchGuard::check_url(const http::Url& url) const {
  if (url.host_kind == http::HostKind::name) return {};  // checked when resolved and at connect
  auto literal = parse_ip_address(url.host);
  if (!literal) {
    return fail(Errc::invalid_argument, "fetch_url cannot read the address '" + url.host + "': " + literal.error().message);
  }
  return check(*literal, url.host);
}

Result<void> FetchGuard::check_connect(const http::ConnectTarget& target) const {
  return check(from_http(target.address), target.host);
}

Result<std::vector<http::IpAddress>> GuardedResolver::resolve(std::string_view host, const http::IoDeadline& deadline) {
  auto answer = inner_->resolve(host, deadline);
  if (!answer) return answer.error();
  for (const auto& address : *answer) {  // EVERY address, not just the first
    if (auto ok = guard_->check(from_http(address), host); !ok) return ok.error();
  }
  return answer;
}

}  // namespace agentkit::tools::detail
