#include "agentkit/tools/address.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "text.hpp"

namespace agentkit::tools {
namespace {

Error bad_address(std::string_view text, std::string_view why) {
  return fail(Errc::invalid_argument, detail::quoted(text) + " is not an IP address: " + std::string(why));
}

Result<std::array<std::uint8_t, 4>> parse_v4(std::string_view s, std::string_view whole) {
  std::array<std::uint8_t, 4> out{};
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (s.empty() || s.front() != '.') return bad_address(whole, "expected four dot-separated numbers");
      s.remove_prefix(1);
    }
    std::size_t n = 0;
    unsigned value = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9' && n < 4) value = value * 10 + static_cast<unsigned>(s[n++] - '0');
    if (n == 0 || n > 3 || value > 255) return bad_address(whole, "each IPv4 part is a number 0-255");
    if (n > 1 && s[0] == '0') return bad_address(whole, "leading zeros are ambiguous (octal?)");
    out[static_cast<std::size_t>(part)] = static_cast<std::uint8_t>(value);
    s.remove_prefix(n);
  }
  if (!s.empty()) return bad_address(whole, "trailing characters");
  return out;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<IpAddress> parse_v6(std::string_view s, std::string_view whole) {
  if (s.find('%') != std::string_view::npos) return bad_address(whole, "a zone id is not accepted");
  std::vector<std::uint16_t> head, tail;
  bool seen_gap = false;
  std::optional<std::array<std::uint8_t, 4>> v4;
  if (s.starts_with("::")) {
    seen_gap = true;
    s.remove_prefix(2);
  } else if (s.starts_with(":")) {
    return bad_address(whole, "a single leading ':'");
  }
  while (!s.empty()) {
    std::size_t colon = s.find(':');
    std::string_view group = s.substr(0, colon);
    if (group.find('.') != std::string_view::npos) {
      if (colon != std::string_view::npos) return bad_address(whole, "an IPv4 part must come last");
      auto q = parse_v4(group, whole);
      if (!q) return q.error();
      v4 = *q;
      s = {};
      break;
    }
    if (group.empty() || group.size() > 4) return bad_address(whole, "each group is 1-4 hex digits");
    unsigned value = 0;
    for (char c : group) {
      int d = hex(c);
      if (d < 0) return bad_address(whole, "not a hex digit");
      value = value * 16 + static_cast<unsigned>(d);
    }
    (seen_gap ? tail : head).push_back(static_cast<std::uint16_t>(value));
    if (colon == std::string_view::npos) {
      s = {};
      break;
    }
    s.remove_prefix(colon + 1);
    if (s.starts_with(":")) {
      if (seen_gap) return bad_address(whole, "'::' may appear once");
      seen_gap = true;
      s.remove_prefix(1);
    } else if (s.empty()) {
      return bad_address(whole, "a trailing ':'");
    }
  }
  std::size_t groups = head.size() + tail.size() + (v4 ? 2 : 0);
  if (groups > 8 || (!seen_gap && groups != 8) || (seen_gap && groups == 8)) {
    return bad_address(whole, "an IPv6 address has eight groups");
  }
  IpAddress a;
  a.is_v4 = false;
  std::size_t i = 0;
  for (auto g : head) {
    a.bytes[i++] = static_cast<std::uint8_t>(g >> 8);
    a.bytes[i++] = static_cast<std::uint8_t>(g & 0xFF);
  }
  i = 16 - tail.size() * 2 - (v4 ? 4 : 0);
  for (auto g : tail) {
    a.bytes[i++] = static_cast<std::uint8_t>(g >> 8);
    a.bytes[i++] = static_cast<std::uint8_t>(g & 0xFF);
  }
  if (v4) for (auto b : *v4) a.bytes[i++] = b;
  return a;
}

bool in_v4(const IpAddress& a, std::uint8_t b0, std::uint8_t b1, std::uint8_t b2, std::uint8_t b3, int prefix) {
  std::uint32_t addr = (std::uint32_t(a.bytes[0]) << 24) | (std::uint32_t(a.bytes[1]) << 16) | (std::uint32_t(a.bytes[2]) << 8) | a.bytes[3];
  std::uint32_t net = (std::uint32_t(b0) << 24) | (std::uint32_t(b1) << 16) | (std::uint32_t(b2) << 8) | b3;
  std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t(0) << (32 - prefix);
  return (addr & mask) == (net & mask);
}

bool prefix_v6(const IpAddress& a, std::initializer_list<std::uint8_t> net, int prefix_bits) {
  int k = 0;
  for (std::uint8_t b : net) {
    int bits = std::min(8, prefix_bits - k * 8);
    if (bits <= 0) break;
    std::uint8_t mask = static_cast<std::uint8_t>(0xFF << (8 - bits));
    if ((a.bytes[static_cast<std::size_t>(k)] & mask) != (b & mask)) return false;
    ++k;
  }
  return true;
}

IpAddress v4_from(const IpAddress& a, std::size_t offset) {
  IpAddress out;
  for (std::size_t k = 0; k < 4; ++k) out.bytes[k] = a.bytes[offset + k];
  return out;
}

AddressClass classify_v4(const IpAddress& a) {
  if (in_v4(a, 0, 0, 0, 0, 8)) return AddressClass::unspecified;
  if (in_v4(a, 127, 0, 0, 0, 8)) return AddressClass::loopback;
  if (in_v4(a, 10, 0, 0, 0, 8) || in_v4(a, 172, 16, 0, 0, 12) || in_v4(a, 192, 168, 0, 0, 16)) return AddressClass::private_network;
  if (in_v4(a, 100, 64, 0, 0, 10)) return AddressClass::carrier_grade_nat;
  if (in_v4(a, 169, 254, 0, 0, 16)) return AddressClass::link_local;
  if (in_v4(a, 224, 0, 0, 0, 4)) return AddressClass::multicast;
  if (in_v4(a, 192, 0, 0, 0, 24) || in_v4(a, 192, 0, 2, 0, 24) || in_v4(a, 198, 18, 0, 0, 15) ||
      in_v4(a, 198, 51, 100, 0, 24) || in_v4(a, 203, 0, 113, 0, 24) || in_v4(a, 240, 0, 0, 0, 4)) {
    return AddressClass::reserved;  // 240/4 includes 255.255.255.255
  }
  return AddressClass::public_address;
}

}  // namespace

std::string_view address_class_name(AddressClass c) noexcept {
  switch (c) {
    case AddressClass::public_address: return "public";
    case AddressClass::unspecified: return "unspecified";
    case AddressClass::loopback: return "loopback";
    case AddressClass::private_network: return "private";
    case AddressClass::link_local: return "link_local";
    case AddressClass::multicast: return "multicast";
    case AddressClass::carrier_grade_nat: return "carrier_grade_nat";
    case AddressClass::unique_local: return "unique_local";
    case AddressClass::reserved: return "reserved";
  }
  return "unknown";
}

Result<IpAddress> parse_ip_address(std::string_view text) {
  std::string_view s = text;
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  if (s.find(':') == std::string_view::npos) {
    auto v4 = parse_v4(s, text);
    if (!v4) return v4.error();
    IpAddress a;
    for (std::size_t k = 0; k < 4; ++k) a.bytes[k] = (*v4)[k];
    return a;
  }
  return parse_v6(s, text);
}

IpAddress unmap(const IpAddress& a) noexcept {
  if (a.is_v4) return a;
  bool first_ten_zero = prefix_v6(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 80);
  if (first_ten_zero && a.bytes[10] == 0xFF && a.bytes[11] == 0xFF) return v4_from(a, 12);  // ::ffff:a.b.c.d
  if (first_ten_zero && a.bytes[10] == 0 && a.bytes[11] == 0) {
    // ::a.b.c.d (IPv4-compatible); :: and ::1 keep their IPv6 meaning.
    bool small = a.bytes[12] == 0 && a.bytes[13] == 0 && a.bytes[14] == 0 && a.bytes[15] <= 1;
    if (!small) return v4_from(a, 12);
  }
  if (prefix_v6(a, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 96)) return v4_from(a, 12);  // NAT64
  if (prefix_v6(a, {0x20, 0x02}, 16)) return v4_from(a, 2);  // 6to4
  return a;
}

AddressClass classify(const IpAddress& address) noexcept {
  IpAddress a = unmap(address);
  if (a.is_v4) return classify_v4(a);
  bool all_zero = prefix_v6(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 128);
  if (all_zero) return AddressClass::unspecified;
  if (prefix_v6(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128)) return AddressClass::loopback;
  if (prefix_v6(a, {0xfc}, 7)) return AddressClass::unique_local;
  if (prefix_v6(a, {0xfe, 0x80}, 10)) return AddressClass::link_local;
  if (prefix_v6(a, {0xfe, 0xc0}, 10)) return AddressClass::private_network;
  if (prefix_v6(a, {0xff}, 8)) return AddressClass::multicast;
  if (prefix_v6(a, {0x20, 0x01, 0x0d, 0xb8}, 32) || prefix_v6(a, {0x01, 0x00, 0, 0, 0, 0, 0, 0}, 64)) return AddressClass::reserved;
  return AddressClass::public_address;
}

std::string to_string(const IpAddress& a) {
  char buf[64];
  if (a.is_v4) {
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]);
    return buf;
  }
  std::string out;
  for (std::size_t g = 0; g < 8; ++g) {
    if (g) out += ':';
    std::snprintf(buf, sizeof buf, "%x", (a.bytes[2 * g] << 8) | a.bytes[2 * g + 1]);
    out += buf;
  }
  return out;
}

}  // namespace agentkit::tools
