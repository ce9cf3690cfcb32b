// Invariants of the strict base64 decoders on arbitrary text, for both alphabets:
// - whatever decodes re-encodes to the same text (one accepted encoding per byte string; for the
//   URL-safe alphabet, modulo the optional padding);
// - arbitrary bytes encode and decode back to themselves.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/base/base64.hpp"

namespace base64 = agentkit::base64;
using agentkit::base64::Alphabet;

namespace {
void require(bool condition) {
  if (!condition) std::abort();
}

std::string_view without_padding(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto standard = base64::decode(text, Alphabet::standard)) {
    require(base64::encode(*standard, Alphabet::standard) == text);
  }
  if (auto url = base64::decode(text, Alphabet::url)) {
    require(base64::encode(*url, Alphabet::url) == without_padding(text));
  }
  for (Alphabet a : {Alphabet::standard, Alphabet::url}) {
    const std::string encoded = base64::encode(text, a);
    require(encoded.size() == base64::encoded_size(size, a));
    const auto back = base64::decode(encoded, a);
    require(back.has_value() && *back == text);
  }
  return 0;
}
