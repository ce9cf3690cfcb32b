#include "agentkit/base/hex.hpp"

namespace agentkit::hex {
namespace {

constexpr std::string_view digits = "0123456789abcdef";
constexpr int nibble_bits = 4;
constexpr unsigned nibble_mask = 0x0F;
constexpr int decimal_digits = 10;

int value_of(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + decimal_digits;
  if (c >= 'A' && c <= 'F') return c - 'A' + decimal_digits;
  return -1;
}

}  // namespace

std::string encode(std::string_view bytes) {
  // Sized once and written by index: push_back's capacity check per digit cost more than the
  // digits (every audit record encodes two hashes).
  std::string out(bytes.size() * 2, '\0');
  char* p = out.data();
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    *p++ = digits[b >> nibble_bits];
    *p++ = digits[b & nibble_mask];
  }
  return out;
}

Result<std::string> decode(std::string_view text) {
  if (text.size() % 2 != 0) {
    return fail(Errc::parse_error, "hex text has an odd length (" + std::to_string(text.size()) +
                                       "); every byte needs two hex digits")
        .with_detail("offset", std::to_string(text.size()));
  }
  std::string out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = value_of(text[i]);
    const int lo = value_of(text[i + 1]);
    if (hi < 0 || lo < 0) {
      const std::size_t at = hi < 0 ? i : i + 1;
      return fail(Errc::parse_error, "invalid hex digit at character " + std::to_string(at) +
                                         "; only 0-9, a-f and A-F are allowed")
          .with_detail("offset", std::to_string(at));
    }
    out.push_back(static_cast<char>((hi << nibble_bits) | lo));
  }
  return out;
}

}  // namespace agentkit::hex
