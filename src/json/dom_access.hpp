// Private: how the parser builds values in place (no temporary Value per scalar) and hands an
// object its members in one step, and the hash the object index uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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
  // set_number for a literal inside a buffer that ends at `limit`. A short literal with a whole
  // inline buffer's worth of bytes after its start is copied with one fixed-size copy (the bytes
  // past the literal are never read back), which is cheaper than a copy of variable length.
  static void set_number_within(Value& v, std::string_view literal, const char* limit) {
    constexpr std::size_t kInline = Value::kInlineNumber;
    if (literal.size() <= kInline && static_cast<std::size_t>(limit - literal.data()) >= kInline) {
      std::memcpy(v.storage_.number_inline, literal.data(), kInline);
      v.number_size_ = static_cast<std::uint8_t>(literal.size());
      v.type_ = Type::number;
      return;
    }
    v.set_number_text(literal);
  }
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

  // Moves `from` into `to` (null, owning nothing) without a call, objects included: once per
  // parsed member.
  static void move_into(Value& to, Value& from) noexcept {
    if (from.type_ != Type::object) return to.move_from(from);
    ::new (&to.storage_.object) Object(std::move(from.storage_.object));
    from.storage_.object.~Object();
    to.type_ = Type::object;
    from.type_ = Type::null;
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
