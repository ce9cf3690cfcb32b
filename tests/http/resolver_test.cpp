#include "agentkit/http/resolver.hpp"

#include "support/catch.hpp"

using agentkit::Errc;
using agentkit::http::IoDeadline;
using agentkit::http::IpAddress;
using agentkit::http::SystemResolver;

TEST_CASE("IP addresses parse strictly and print canonically") {
  CHECK(IpAddress::parse("10.0.0.1").value() == IpAddress::v4(10, 0, 0, 1));
  CHECK(IpAddress::parse("2001:DB8::1").value().to_string() == "2001:db8::1");
  CHECK(IpAddress::parse("::1").value().family == IpAddress::Family::v6);
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "01.2.3.4", "256.1.1.1", "0x7f.0.0.1", "[::1]", "::1%lo", "host"}) {
    INFO("address '" << bad << "'");
    CHECK(IpAddress::parse(bad).error().code == Errc::invalid_argument);
  }
}

TEST_CASE("loopback covers 127/8, ::1 and their IPv4-mapped forms") {
  CHECK(IpAddress::v4(127, 0, 0, 1).is_loopback());
  CHECK(IpAddress::v4(127, 255, 1, 2).is_loopback());
  CHECK_FALSE(IpAddress::v4(128, 0, 0, 1).is_loopback());
  CHECK(IpAddress::parse("::1").value().is_loopback());
  CHECK(IpAddress::parse("::ffff:127.0.0.1").value().is_loopback());
  CHECK_FALSE(IpAddress::parse("::2").value().is_loopback());
  CHECK(IpAddress::parse("::ffff:10.1.2.3").value().unmapped() == IpAddress::v4(10, 1, 2, 3));
}

TEST_CASE("prefix matching compares whole and partial bytes") {
  const auto net = IpAddress::v4(172, 16, 0, 0);
  CHECK(IpAddress::v4(172, 16, 5, 1).in_prefix(net, 12));
  CHECK(IpAddress::v4(172, 31, 255, 255).in_prefix(net, 12));
  CHECK_FALSE(IpAddress::v4(172, 32, 0, 0).in_prefix(net, 12));
  CHECK(IpAddress::v4(1, 2, 3, 4).in_prefix(net, 0));
  CHECK_FALSE(IpAddress::v4(1, 2, 3, 4).in_prefix(IpAddress::parse("::").value(), 0));  // family differs
  CHECK_FALSE(IpAddress::v4(1, 2, 3, 4).in_prefix(net, 33));
  CHECK(IpAddress::parse("fe80::1").value().in_prefix(IpAddress::parse("fe80::").value(), 10));
}

TEST_CASE("the system resolver answers literals without a lookup and names from the hosts file") {
  SystemResolver resolver;
  auto literal = resolver.resolve("192.0.2.7", {});
  REQUIRE(literal);
  CHECK(*literal == std::vector{IpAddress::v4(192, 0, 2, 7)});
  auto local = resolver.resolve("localhost", IoDeadline::after(std::chrono::seconds(10)));
  REQUIRE(local);
  REQUIRE_FALSE(local->empty());
  for (const auto& a : *local) CHECK(a.is_loopback());
}

TEST_CASE("a lookup with a fired stop token is cancelled") {
  SystemResolver resolver;
  agentkit::stop_source stop;
  stop.request_stop();
  auto r = resolver.resolve("localhost", IoDeadline{stop.get_token()});
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::cancelled);
}
