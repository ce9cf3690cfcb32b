// Private: lets the parser build an Object from members it already holds, and the hash the
// object index uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "agentkit/json/value.hpp"

namespace agentkit::json::detail {

// Objects with at most this many members are searched linearly and carry no index: below it a
// scan comparing lengths first beats hashing the key.
inline constexpr std::size_t kIndexThreshold = 16;

// Seeded per process so that keys chosen to collide on one run (hash flooding) do not collide
// on another; the parser's duplicate check and Object lookups both rely on this table.
std::uint64_t hash_key(std::string_view key) noexcept;

struct ObjectAccess {
  static constexpr std::size_t kNoDuplicate = static_cast<std::size_t>(-1);
  // Takes `members` as the object's content. Builds the index when the object is large and
  // answers the position of the first member whose key repeats an earlier one, or kNoDuplicate.
  // Objects small enough to go without an index are not checked here (the parser checks them
  // while reading the keys).
  static std::size_t adopt(Object& object, std::vector<Member>&& members);
};

}  // namespace agentkit::json::detail
