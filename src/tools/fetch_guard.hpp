// Private: the SSRF guard of fetch_url, as the three checks the HTTP client is wired with.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "agentkit/http/resolver.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/tools/address.hpp"

namespace agentkit::tools::detail {

IpAddress from_http(const http::IpAddress& address) noexcept;

class FetchGuard {
 public:
  explicit FetchGuard(std::vector<IpAddress> permitted) : permitted_(std::move(permitted)) {}

  // Public, or permitted exactly (compared after unmapping both sides).
  Result<void> check(const IpAddress& address, std::string_view host) const;
  // 1. Before any I/O: an IP-literal host is checked as it stands.
  Result<void> check_url(const http::Url& url) const;
  // 3. Just before a TCP connect, on the concrete address (HttpOptions::before_connect).
  Result<void> check_connect(const http::ConnectTarget& target) const;

 private:
  std::vector<IpAddress> permitted_;
};

// 2. A resolver whose answer is refused whole when ANY address in it fails the guard: trying the
// public one of a public+private answer would still let the other be tried next (the client
// falls through to later addresses when a connect fails).
class GuardedResolver final : public http::Resolver {
 public:
  GuardedResolver(std::shared_ptr<http::Resolver> inner, std::shared_ptr<const FetchGuard> guard)
      : inner_(std::move(inner)), guard_(std::move(guard)) {}
  Result<std::vector<http::IpAddress>> resolve(std::string_view host, const http::IoDeadline& deadline) override;

 private:
  std::shared_ptr<http::Resolver> inner_;
  std::shared_ptr<const FetchGuard> guard_;
};

}  // namespace agentkit::tools::detail
