#include "strict_reader.hpp"

#include <cmath>

namespace agentkit::catalog::detail {
namespace {

// The largest integer a double (and so every JSON reader) carries exactly (REQ-SEC-12.2).
constexpr std::int64_t kMaxSafeInteger = (std::int64_t{1} << 53) - 1;

}  // namespace

Error shape_error(std::string_view path, std::string_view what) {
  return make_error(Errc::invalid_argument, "catalog: " + std::string(path) + ": " + std::string(what))
      .with_detail("path", std::string(path));
}

StrictObject::StrictObject(const json::Object& object, std::string path)
    : object_(&object), path_(std::move(path)), read_(object.size(), false) {}

Result<StrictObject> StrictObject::open(const json::Value& value, std::string path) {
  const json::Object* object = value.get_object();
  if (object == nullptr) {
    return shape_error(path, "expected an object, found " + std::string(json::type_name(value.type())));
  }
  return StrictObject(*object, std::move(path));
}

std::string StrictObject::member_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const json::Value* StrictObject::take(std::string_view key) {
  std::size_t i = 0;
  for (const auto& member : *object_) {
    if (member.key == key) {
      read_[i] = true;
      return &member.value;
    }
    ++i;
  }
  return nullptr;
}

Result<std::string> StrictObject::required_string(std::string_view key) {
  auto v = optional_string(key);
  if (!v) return v.error();
  if (!*v) return shape_error(member_path(key), "is required");
  return std::move(**v);
}

Result<std::optional<std::string>> StrictObject::optional_string(std::string_view key) {
  const json::Value* v = take(key);
  if (v == nullptr) return std::optional<std::string>{};
  if (!v->is_string()) return shape_error(member_path(key), "expected a string");
  return std::optional<std::string>(v->as_string());
}

Result<std::optional<bool>> StrictObject::optional_bool(std::string_view key) {
  const json::Value* v = take(key);
  if (v == nullptr) return std::optional<bool>{};
  if (!v->is_bool()) return shape_error(member_path(key), "expected true or false");
  return std::optional<bool>(v->as_bool());
}

Result<std::optional<std::int64_t>> StrictObject::optional_count(std::string_view key) {
  const json::Value* v = take(key);
  if (v == nullptr) return std::optional<std::int64_t>{};
  auto n = v->to_int64();
  if (!n || *n < 0 || *n > kMaxSafeInteger) {
    return shape_error(member_path(key), "expected a whole number between 0 and 2^53-1");
  }
  return std::optional<std::int64_t>(*n);
}

Result<std::optional<double>> StrictObject::optional_price(std::string_view key) {
  const json::Value* v = take(key);
  if (v == nullptr) return std::optional<double>{};
  auto d = v->to_double();
  if (!d || !std::isfinite(*d) || *d < 0) {
    return shape_error(member_path(key), "expected a price: a finite number >= 0 (USD per million tokens)");
  }
  return std::optional<double>(*d);
}

Result<std::vector<std::string>> StrictObject::optional_string_list(std::string_view key) {
  std::vector<std::string> out;
  const json::Value* v = take(key);
  if (v == nullptr) return out;
  const json::Array* items = v->get_array();
  if (items == nullptr) return shape_error(member_path(key), "expected an array of strings");
  for (std::size_t i = 0; i < items->size(); ++i) {
    if (!(*items)[i].is_string()) {
      return shape_error(member_path(key) + "[" + std::to_string(i) + "]", "expected a string");
    }
    out.push_back((*items)[i].as_string());
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> StrictObject::optional_string_map(std::string_view key) {
  std::vector<std::pair<std::string, std::string>> out;
  const json::Value* v = take(key);
  if (v == nullptr) return out;
  const json::Object* members = v->get_object();
  if (members == nullptr) return shape_error(member_path(key), "expected an object of strings");
  for (const auto& m : *members) {
    if (!m.value.is_string()) return shape_error(member_path(key) + "." + m.key, "expected a string");
    out.emplace_back(m.key, m.value.as_string());
  }
  return out;
}

Result<void> StrictObject::finish() const {
  std::size_t i = 0;
  for (const auto& member : *object_) {
    if (!read_[i]) return shape_error(member_path(member.key), "unknown key (a typo, or a field this version does not know)");
    ++i;
  }
  return {};
}

}  // namespace agentkit::catalog::detail
