#include "agentkit/base/strings.hpp"

#include <algorithm>
#include <charconv>

namespace agentkit {
namespace {
// Error messages quote at most this much of a rejected input, so a hostile megabyte stays out of logs.
constexpr std::size_t max_echoed_chars = 64;
}  // namespace

bool is_token_char(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_token_char(c)) return false;
  }
  return true;
}

std::string to_lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = to_lower_ascii(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (to_lower_ascii(a[i]) != to_lower_ascii(b[i])) return false;
  }
  return true;
}

bool iends_with(std::string_view s, std::string_view suffix) noexcept {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

std::string_view trim_ows(std::string_view s) noexcept {
  auto is_ows = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  // Sized first: one allocation, not one per doubling (a host's four labels were three).
  out.reserve(static_cast<std::size_t>(std::count(s.begin(), s.end(), separator)) + 1);
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(separator, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

Result<std::uint64_t> parse_uint64(std::string_view text, int base) {
  if (base != 10 && base != 16) {
    return fail(Errc::invalid_argument, "parse_uint64 supports base 10 and 16, not " + std::to_string(base));
  }
  // from_chars accepts neither a sign nor a prefix for unsigned types, but it does stop at the first
  // non-digit; requiring ptr == end makes the whole text count.
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (ec == std::errc::result_out_of_range) {
    return fail(Errc::limit_exceeded, "number '" + std::string(text.substr(0, max_echoed_chars)) + "' does not fit in 64 bits");
  }
  if (text.empty() || ec != std::errc() || ptr != end) {
    return fail(Errc::parse_error, "'" + std::string(text.substr(0, max_echoed_chars)) + "' is not an unsigned base-" +
                                       std::to_string(base) + " number");
  }
  return value;
}

}  // namespace agentkit
