// agentkit/tools/address.hpp — the address classifier of the SSRF guard.
//
//   using namespace agentkit::tools;
//   auto a = parse_ip_address("[::ffff:10.0.0.1]").value();
//   classify(a);                 // AddressClass::private_network (unmapped to 10.0.0.1 first)
//   is_public(classify(a));      // false: fetch_url refuses to connect
//
// The classifier is a pure function. fetch_url (later, on agentkit_http) applies it to EVERY
// address a name resolves to and again to the concrete address at connect time, so a DNS rebind
// cannot slip through. IPv4-mapped IPv6 (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
// (64:ff9b::/96) and 6to4 (2002::/16) forms are reduced to their IPv4 address BEFORE
// classification: the trap is classifying ::ffff:127.0.0.1 as "some IPv6 address".
// Ranges (IANA special-purpose registries): 0/8 unspecified; 10/8, 172.16/12, 192.168/16 private;
// 100.64/10 CGNAT; 127/8 loopback; 169.254/16 link-local; 192.0.0/24, 192.0.2/24, 198.18/15,
// 198.51.100/24, 203.0.113/24, 240/4, 255.255.255.255 reserved; 224/4 multicast; ::/128
// unspecified; ::1 loopback; fc00::/7 unique-local; fe80::/10 link-local; fec0::/10 (deprecated
// site-local) private; ff00::/8 multicast; 2001:db8::/32 and 100::/64 reserved.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::tools {

struct IpAddress {
  bool is_v4 = true;
  // IPv4 in the first four bytes; IPv6 in all sixteen, network order.
  std::array<std::uint8_t, 16> bytes{};
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

enum class AddressClass : std::uint8_t {
  public_address,
  unspecified,
  loopback,
  private_network,
  link_local,
  multicast,
  carrier_grade_nat,
  unique_local,
  reserved,
};
std::string_view address_class_name(AddressClass c) noexcept;

// Parses dotted-quad IPv4 (exactly four decimal parts, no leading zeros) or RFC 4291 IPv6
// (with `::` and a trailing dotted quad), optionally in brackets. A zone id (`%eth0`) is an
// error: a scoped address is never a fetch target. Errors: invalid_argument.
Result<IpAddress> parse_ip_address(std::string_view text);

// The IPv4 address an IPv6 form embeds (mapped, compatible, NAT64, 6to4); otherwise unchanged.
IpAddress unmap(const IpAddress& address) noexcept;

// Classifies after unmap().
AddressClass classify(const IpAddress& address) noexcept;

inline bool is_public(AddressClass c) noexcept { return c == AddressClass::public_address; }

std::string to_string(const IpAddress& address);

}  // namespace agentkit::tools
