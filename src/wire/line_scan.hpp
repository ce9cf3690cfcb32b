// Private: finding line ends in one buffer with one vectorised pass per byte value.
//
//   LineEnds ends(bytes);
//   for (std::size_t at = 0, end; (end = ends.next(at)) != std::string_view::npos; at = end + 1) {}
//
// A reader that asks "where is the next CR or LF" once per line must not look at the same bytes
// again for every line: std::string_view::find_first_of("\r\n") costs a lookup per byte, and a
// fresh memchr for CR on an LF-only stream would rescan the rest of the buffer on every line.
// This keeps, per byte value, the position memchr found last and searches again only once the
// reader has moved past it, so each byte of the buffer is examined at most once for each value.
//
// Thread safety: a value type for one reader's feed() call.
#pragma once

#include <cstring>
#include <string_view>

namespace agentkit::wire::detail {

inline constexpr char kCR = '\r';
inline constexpr char kLF = '\n';

class NextByte {
 public:
  NextByte(std::string_view bytes, char wanted) : bytes_(bytes), wanted_(wanted) {}
  // The first position >= `pos` holding the byte, or npos. Positions asked for never decrease.
  std::size_t from(std::size_t pos) {
    if (searched_ && (found_ == std::string_view::npos || found_ >= pos)) return found_;
    searched_ = true;
    if (pos >= bytes_.size()) return found_ = std::string_view::npos;
    const void* hit = std::memchr(bytes_.data() + pos, wanted_, bytes_.size() - pos);
    found_ = hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - bytes_.data())
                 : std::string_view::npos;
    return found_;
  }

 private:
  std::string_view bytes_;
  char wanted_;
  bool searched_ = false;
  std::size_t found_ = std::string_view::npos;
};

// The first CR or LF at or after a position (memchr2 by two cached memchr passes).
class LineEnds {
 public:
  explicit LineEnds(std::string_view bytes) : cr_(bytes, '\r'), lf_(bytes, '\n') {}
  std::size_t next(std::size_t from) {
    const std::size_t lf = lf_.from(from);
    const std::size_t cr = cr_.from(from);
    return cr < lf ? cr : lf;
  }

 private:
  NextByte cr_;
  NextByte lf_;
};

}  // namespace agentkit::wire::detail
