#include "reader_text.hpp"

namespace agentkit::wire::detail {
namespace {
// Enough of a bad header or line to recognise it, not enough to let a peer fill the log.
constexpr std::size_t kQuotedPrefixBytes = 64;
constexpr char kHexDigits[] = "0123456789abcdef";
constexpr unsigned char kFirstPrintable = 0x20;
constexpr unsigned char kLastPrintable = 0x7e;
constexpr unsigned kNibbleBits = 4;
constexpr unsigned kNibbleMask = 0xf;
}  // namespace

std::string printable_prefix(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, kQuotedPrefixBytes)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= kFirstPrintable && u <= kLastPrintable && c != '\\') {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHexDigits[u >> kNibbleBits]);
      out.push_back(kHexDigits[u & kNibbleMask]);
    }
  }
  if (s.size() > kQuotedPrefixBytes) out += "...";
  return out;
}

}  // namespace agentkit::wire::detail
