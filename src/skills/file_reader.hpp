// Reading a file that a repository controls: a regular file only (a FIFO would block the reader
// forever, a device could be endless), and never more than a byte cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::skills::detail {

// The UTF-8 byte order mark some editors put before a file's first line.
inline constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct FileBytes {
  std::string bytes;       // at most the cap
  std::uint64_t size = 0;  // the file's size on disk
  bool truncated = false;  // size > cap
};

// Opens without blocking, checks the opened file is regular, reads up to `max_bytes`. Errors:
// Errc::not_found, Errc::permission_denied, Errc::invalid_argument (not a regular file),
// Errc::io_error; each message names the path.
Result<FileBytes> read_capped(const std::filesystem::path& path, std::size_t max_bytes);

// The same for `name` relative to the open folder `dir_fd` (AT_FDCWD: the current folder), so a
// scan that holds its folder open does not resolve the whole path again; `shown` names the file
// in messages.
Result<FileBytes> read_capped_at(int dir_fd, const char* name, const std::filesystem::path& shown,
                                 std::size_t max_bytes);

// True when `inner` (symlinks resolved) lies inside `root` (symlinks resolved).
bool stays_inside(const std::filesystem::path& root, const std::filesystem::path& inner);

}  // namespace agentkit::skills::detail
