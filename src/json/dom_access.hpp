// Private: how the parser builds values in place (no temporary Value per scalar) and hands an
// object its members in one step, and the hash the object index uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "agentkit/json/value.hpp"

namespace agentkit::json::detail {

// Objects with at most this many members are searched linearly and carry no index: up to here a
// scan that compares lengths first costs about what hashing the key does, and building an index
// for every mid-sized object (API responses are full of 20-member objects) costs more.
inline constexpr std::size_t kIndexThreshold = 32;

// Seeded per process so that keys chosen to collide on one run (hash flooding) do not collide
// on another; the parser's duplicate check and Object lookups both rely on this table.
std::uint64_t hash_key(std::string_view key) noexcept;

struct DomAccess {
  // Each setter's precondition: `v` is null (owns nothing).
  static void set_string(Value& v, const char* data, std::size_t size) {
    ::new (&v.storage_.string) std::string(data, size);
    v.type_ = Type::string;
  }
  static void set_string(Value& v, std::string&& s) noexcept {
    ::new (&v.storage_.string) std::string(std::move(s));
    v.type_ = Type::string;
  }
  static void set_number(Value& v, std::string_view literal) { v.set_number_text(literal); }
  static void set_bool(Value& v, bool b) noexcept {
    v.storage_.boolean = b;
    v.type_ = Type::boolean;
  }
  static void set_array(Value& v, Array&& a) noexcept {
    ::new (&v.storage_.array) Array(std::move(a));
    v.type_ = Type::array;
  }
  static void set_object(Value& v, Object&& o) noexcept {
    ::new (&v.storage_.object) Object(std::move(o));
    v.type_ = Type::object;
  }

  // Makes `v` an empty object and answers its member vector, for the parser to fill; then
  // finish_object builds the index a large object needs.
  static std::vector<Member>& start_object(Value& v) {
    ::new (&v.storage_.object) Object();
    v.type_ = Type::object;
    return v.storage_.object.members_;
  }

  static constexpr std::size_t kNoDuplicate = static_cast<std::size_t>(-1);
  // Builds the index of a large object and answers the position of the first member whose key
  // repeats an earlier one, or kNoDuplicate. Objects small enough to go without an index are not
  // checked here (the parser checks them while reading the keys).
  static std::size_t finish_object(Object& object) {
    return object.members_.size() <= kIndexThreshold ? kNoDuplicate : index_and_check(object);
  }
  static std::size_t index_and_check(Object& object);
};

}  // namespace agentkit::json::detail
