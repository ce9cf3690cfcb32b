// libFuzzer target for json::parse and json::dump. Arbitrary bytes either fail with a
// parse or limit error, or parse to a value whose printed form (compact, ASCII-only and
// indented) reads back equal and prints identically again. Number literals that parse also go
// through the typed readers, which must answer without crashing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/json/value.hpp"

using namespace agentkit;

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void exercise_numbers(const json::Value& v) {
  if (v.is_number()) {
    (void)v.to_int64();
    (void)v.to_uint64();
    (void)v.to_double();
    return;
  }
  if (const json::Array* a = v.get_array()) {
    for (const json::Value& e : *a) exercise_numbers(e);
  } else if (const json::Object* o = v.get_object()) {
    for (const json::Member& m : *o) {
      require(o->find(m.key) == &m.value);  // the index finds each member where it is
      exercise_numbers(m.value);
    }
  }
}

void check_round_trip(const json::Value& value, const json::DumpOptions& options) {
  const std::string once = json::dump(value, options);
  const auto again = json::parse(once);
  require(again.has_value());
  require(again.value() == value);
  require(json::dump(again.value(), options) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = json::parse(text);
  if (!parsed.has_value()) {
    const Errc code = parsed.error().code;
    require(code == Errc::parse_error || code == Errc::limit_exceeded);
    require(parsed.error().find_detail("offset").has_value() || code == Errc::limit_exceeded);
    // A number literal parses exactly when Value::number accepts it.
    (void)json::Value::number(text);
    return 0;
  }
  const json::Value& value = parsed.value();
  check_round_trip(value, {});
  check_round_trip(value, json::DumpOptions{-1, true});
  check_round_trip(value, json::DumpOptions{2, false});
  exercise_numbers(value);
  // Allowing duplicate keys never changes the answer for a document without them.
  json::ParseOptions lenient;
  lenient.reject_duplicate_keys = false;
  const auto relaxed = json::parse(text, lenient);
  require(relaxed.has_value() && relaxed.value() == value);
  return 0;
}
