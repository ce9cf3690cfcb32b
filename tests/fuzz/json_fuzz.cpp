// libFuzzer target for json::parse, json::parse_flat and json::dump. Arbitrary bytes either fail
// with a parse or limit error, or parse to a value whose printed form (compact, ASCII-only and
// indented) reads back equal and prints identically again. Number literals that parse also go
// through the typed readers, which must answer without crashing. parse_flat is held to its
// contract against parse: the same error, or the same members, or "not flat" only for what is
// not a flat object. A parse with skip_members is held to parse's answer with those members null.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

std::string flat_text_of(const json::Value& v) {
  switch (v.type()) {
    case json::Type::string: return v.as_string();
    case json::Type::number: return std::string(v.number_text());
    case json::Type::boolean: return v.as_bool() ? "true" : "false";
    case json::Type::null: return "null";
    case json::Type::array: return "[]";
    default: return "{}";
  }
}

bool is_flat_object(const json::Value& v) {
  const json::Object* o = v.get_object();
  if (o == nullptr || o->size() > 32) return false;
  for (const json::Member& m : *o) {
    if (m.value.is_array() && !m.value.as_array().empty()) return false;
    if (m.value.is_object() && !m.value.as_object().empty()) return false;
  }
  return true;
}

void check_flat(std::string_view text, const Result<json::Value>& parsed) {
  std::vector<std::pair<std::string, std::string>> seen;
  const auto flat = json::parse_flat(text, {}, [&](const json::FlatMember& m) {
    seen.emplace_back(std::string(m.key), std::string(m.text));
    require(m.type != json::Type::raw);
  });
  if (!flat.has_value()) {
    require(!parsed.has_value() && flat.error().to_string() == parsed.error().to_string());
    return;
  }
  if (!*flat) {
    require(seen.empty() && (!parsed.has_value() || !is_flat_object(parsed.value())));
    return;
  }
  require(parsed.has_value());
  const json::Object& object = parsed.value().as_object();
  require(seen.size() == object.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    require(seen[i].first == object.begin()[i].key);
    require(seen[i].second == flat_text_of(object.begin()[i].value));
  }
}

// ParseOptions::skip_members against parse: the same error unless parse's was a duplicate key
// (not looked for inside a skipped value), else the same value with the skipped members null.
void check_skipped(std::string_view text, const Result<json::Value>& parsed) {
  static constexpr std::string_view kPointers[] = {"/a", "/b/c", "/response/output", "/x~1y"};
  json::ParseOptions options;
  options.skip_members = kPointers;
  const auto skipped = json::parse(text, options);
  if (!parsed.has_value()) {
    const bool duplicate = parsed.error().message.find("duplicate key") != std::string::npos;
    require(duplicate ||
            (!skipped.has_value() && skipped.error().to_string() == parsed.error().to_string()));
    return;
  }
  require(skipped.has_value());
  json::Value expected = parsed.value();
  const std::vector<std::vector<std::string>> paths = {
      {"a"}, {"b", "c"}, {"response", "output"}, {"x/y"}};
  for (const auto& path : paths) {
    json::Value* at = &expected;
    for (const std::string& key : path) at = at && at->is_object() ? at->find(key) : nullptr;
    if (at != nullptr) *at = json::Value();
  }
  require(skipped.value() == expected);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = json::parse(text);
  check_flat(text, parsed);
  check_skipped(text, parsed);
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
