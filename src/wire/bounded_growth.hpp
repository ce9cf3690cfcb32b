// Private: appending peer bytes to a buffer whose capacity follows the bytes received, never a
// number the peer declared, and never past a cap (REQ-SEC-11 (2): no pre-allocation to a
// declared size; a peer that declares 16 MiB and sends one byte costs one byte).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace agentkit::wire::detail {

// reserve_within makes room for `needed` bytes in `buffer`, append_within appends `bytes` to it.
// Precondition: needed (buffer.size() + bytes.size()) <= cap. std::string's own growth may double
// the capacity past `cap` (a 16 MiB cap could cost 32 MiB), and libstdc++'s reserve() rounds a
// request below twice the old capacity up to twice it. So the bigger buffer is built fresh, where
// reserve() takes the size asked for: geometric growth, clamped to the cap.
inline void reserve_within(std::string& buffer, std::size_t needed, std::size_t cap) {
  if (needed <= buffer.capacity()) return;
  std::string grown;
  grown.reserve(std::min(std::max(needed, buffer.capacity() * 2), std::max(needed, cap)));
  grown.append(buffer);
  buffer.swap(grown);
}

inline void append_within(std::string& buffer, std::string_view bytes, std::size_t cap) {
  reserve_within(buffer, buffer.size() + bytes.size(), cap);
  buffer.append(bytes);
}

}  // namespace agentkit::wire::detail
