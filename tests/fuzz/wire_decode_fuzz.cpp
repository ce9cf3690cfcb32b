// The strict decoder on arbitrary bytes: no crash, no hang, and anything it accepts obeys the
// bounds it was given, has no duplicate keys, and survives dump → decode unchanged. The first
// byte picks tight limits so the bounds themselves are exercised. decode_flat, under the same
// limits, refuses with decode's error or visits exactly the members decode found.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

#include "agentkit/json/value.hpp"
#include "agentkit/wire/decode.hpp"

namespace json = agentkit::json;

namespace {
constexpr std::size_t kDepthChoices = 8;
constexpr std::size_t kContainerChoices = 32;

void require(bool condition) {
  if (!condition) std::abort();
}

// Depth of containers, and every container within `max_container` with unique keys.
std::size_t check_tree(const json::Value& v, std::size_t max_container) {
  std::size_t deepest = 0;
  if (const json::Array* a = v.get_array()) {
    require(a->size() <= max_container);
    for (const json::Value& e : *a) deepest = std::max(deepest, check_tree(e, max_container));
    return deepest + 1;
  }
  if (const json::Object* o = v.get_object()) {
    require(o->size() <= max_container);
    std::unordered_set<std::string_view> keys;
    for (const json::Member& m : *o) {
      require(keys.insert(m.key).second);
      deepest = std::max(deepest, check_tree(m.value, max_container));
    }
    return deepest + 1;
  }
  return 0;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  agentkit::wire::Limits tight;
  tight.max_depth = 1 + data[0] % kDepthChoices;
  tight.max_container = 1 + (data[0] / kDepthChoices) % kContainerChoices;

  const auto loose = agentkit::wire::decode(bytes);
  const auto strict = agentkit::wire::decode(bytes, tight);
  std::size_t visited = 0;
  const auto flat = agentkit::wire::decode_flat(bytes, tight, [&](const json::FlatMember& m) {
    require(strict.has_value() && visited < strict->as_object().size() &&
            strict->as_object().begin()[visited].key == m.key &&
            strict->as_object().begin()[visited].value.type() == m.type);
    ++visited;
  });
  if (!flat) require(!strict.has_value() && flat.error().to_string() == strict.error().to_string());
  if (flat && *flat) require(strict.has_value() && visited == strict->as_object().size());
  if (strict) {
    require(loose.has_value() && *loose == *strict);  // tighter bounds never accept more
    require(check_tree(*strict, tight.max_container) <= tight.max_depth);
  }
  if (loose) {
    check_tree(*loose, agentkit::wire::kDefaultMaxContainer);
    const std::string text = json::dump(*loose);
    const auto again = agentkit::wire::decode(text);
    require(again.has_value() && *again == *loose && json::dump(*again) == text);
  } else {
    require(!loose.error().message.empty());
  }
  return 0;
}
