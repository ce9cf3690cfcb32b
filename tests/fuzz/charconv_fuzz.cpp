// The strtod-based agentkit::from_chars (what libc++ 14 gets; built here with
// AGENTKIT_FORCE_STD_FALLBACKS) against libstdc++'s std::from_chars on arbitrary text, in every
// format but hex: the same error, the same end of match, and the same bits.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "agentkit/base/charconv.hpp"

namespace {
void require(bool condition) {
  if (!condition) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* first = reinterpret_cast<const char*>(data);
  const char* last = first + size;
  for (auto format :
       {std::chars_format::general, std::chars_format::fixed, std::chars_format::scientific}) {
    double ours = 0.5;
    double theirs = 0.5;
    const auto a = agentkit::from_chars(first, last, ours, format);
    const auto b = std::from_chars(first, last, theirs, format);
    require(a.ec == b.ec);
    require(a.ptr == b.ptr);
    require(std::memcmp(&ours, &theirs, sizeof ours) == 0 || (ours != ours && theirs != theirs));
  }
  return 0;
}
