// Invariants of the UTF-8 decoder on arbitrary bytes:
// - validity, find_invalid, decode and count_code_points agree with each other;
// - a valid input re-encodes from its code points to the identical bytes;
// - truncation always returns a valid prefix within the requested bound.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/base/utf8.hpp"

namespace utf8 = agentkit::utf8;

namespace {
void require(bool condition) {
  if (!condition) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto bad = utf8::find_invalid(bytes);
  const auto decoded = utf8::decode(bytes);
  const auto count = utf8::count_code_points(bytes);
  require(utf8::is_valid(bytes) == !bad.has_value());
  require(decoded.has_value() == !bad.has_value());
  require(count.has_value() == !bad.has_value());
  if (bad) {
    require(*bad < size);
    require(utf8::is_valid(bytes.substr(0, *bad)));
    require(decoded.error().find_detail("offset") == std::to_string(*bad));
  } else {
    std::string again;
    for (char32_t cp : *decoded) require(utf8::append(again, cp).has_value());
    require(again == bytes);
    require(*count == decoded->size());
  }
  const std::size_t limit = size / 2;
  const auto by_bytes = utf8::truncate_bytes(bytes, limit);
  require(by_bytes.size() <= limit && utf8::is_valid(by_bytes));
  const auto by_points = utf8::truncate_code_points(bytes, limit);
  require(utf8::is_valid(by_points) && utf8::count_code_points(by_points).value() <= limit);
  return 0;
}
