// agentkit/http/resolver.hpp — IP addresses, name resolution, and the connect-time veto.
//
//   agentkit::http::SystemResolver resolver;          // getaddrinfo, cancellable
//   auto addrs = resolver.resolve("localhost", agentkit::http::IoDeadline::after(5s, stop));
//
//   // An SSRF guard wraps the resolver (validates every answer) and also installs
//   // HttpOptions::before_connect, which sees the concrete address the socket is about to
//   // connect to — after resolution, with no second lookup in between (DNS rebinding).
//   options.before_connect = [](const agentkit::http::ConnectTarget& t) -> agentkit::Result<void> {
//     if (t.address.is_loopback()) return agentkit::fail(agentkit::Errc::permission_denied, "loopback");
//     return {};
//   };
//
// Thread safety: IpAddress is a plain value. SystemResolver may be used from many threads at once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/http/stream.hpp"

namespace agentkit::http {

struct IpAddress {
  enum class Family : std::uint8_t { v4, v6 };
  static constexpr std::size_t v4_size = 4;
  static constexpr std::size_t v6_size = 16;

  Family family = Family::v4;
  std::array<std::uint8_t, v6_size> bytes{};  // network byte order; IPv4 uses the first four

  // A dotted quad ("10.0.0.1") or IPv6 text without brackets ("::1"); Errc::invalid_argument
  // otherwise.
  static Result<IpAddress> parse(std::string_view text);
  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) noexcept;

  std::size_t size() const noexcept { return family == Family::v4 ? v4_size : v6_size; }
  // 127.0.0.0/8, ::1, and ::ffff:127.0.0.0/104.
  bool is_loopback() const noexcept;
  // The IPv4 address inside ::ffff:a.b.c.d, or *this.
  IpAddress unmapped() const noexcept;
  // True when the first `prefix_bits` bits equal those of `network` (same family).
  bool in_prefix(const IpAddress& network, unsigned prefix_bits) const noexcept;
  std::string to_string() const;

  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Every address of `host` (a name or an IP literal), in the order to try them. An empty answer
  // is an error (Errc::not_found), never an empty vector. Honours the deadline and stop token.
  virtual Result<std::vector<IpAddress>> resolve(std::string_view host, const IoDeadline& deadline) = 0;
};

// getaddrinfo(3). IP literals are answered without a lookup. A lookup runs on a thread owned by
// the resolver, so a cancelled or timed-out caller returns at once; the destructor joins any
// lookup still running (it ends within the system resolver's own timeout, resolv.conf(5)).
class SystemResolver final : public Resolver {
 public:
  SystemResolver();
  ~SystemResolver() override;
  SystemResolver(const SystemResolver&) = delete;
  SystemResolver& operator=(const SystemResolver&) = delete;

  Result<std::vector<IpAddress>> resolve(std::string_view host, const IoDeadline& deadline) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The concrete address a connection is about to be opened to, shown to HttpOptions::before_connect.
struct ConnectTarget {
  std::string_view host{};    // the host as the URL (or proxy URL) names it
  IpAddress address{};        // the resolved address the socket will connect to
  std::uint16_t port = 0;
  bool to_proxy = false;    // true when this is the proxy, not the origin server
};

}  // namespace agentkit::http
