// Invariants of the URL parser on arbitrary text:
// - a parsed URL prints (to_string) to text that parses back to the same URL (a fixed point;
//   only whether a default port was written out may differ);
// - what it prints holds no byte the parser would refuse, and its host is lowercase;
// - the port is never 0 and the path always starts with '/'.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agentkit/http/url.hpp"

namespace {
void require(bool condition) {
  if (!condition) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool allow_userinfo : {false, true}) {
    auto url = agentkit::http::parse_url(text, {.allow_userinfo = allow_userinfo});
    if (!url) continue;
    require(url->port != 0);
    require(!url->path.empty() && url->path.front() == '/');
    for (char c : url->host) require(!(c >= 'A' && c <= 'Z'));
    const std::string printed = url->to_string();
    for (char c : printed) {
      const auto b = static_cast<unsigned char>(c);
      require(b > ' ' && b < 0x7F && c != '\\');
    }
    auto again = agentkit::http::parse_url(printed);
    require(again.has_value());
    agentkit::http::Url expected = *url;
    expected.userinfo.reset();  // to_string() never prints credentials
    // to_string() drops a default port written explicitly ("http://h:80/"): same URL, same port.
    expected.port_is_explicit = again->port_is_explicit;
    require(*again == expected);
  }
  return 0;
}
