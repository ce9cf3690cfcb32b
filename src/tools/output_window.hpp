// Private: the streaming output accumulator of REQ-TOOL-15 for process output. Keeps the last
// `cap` bytes while bytes arrive (peak memory about 2 × cap: the window may grow to twice the cap
// before its head is dropped, which keeps appends amortised O(1)), and on the first overflow
// lazily opens a spill file that receives the whole stream from its first byte.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit::tools::detail {

class TailWindow {
 public:
  TailWindow(std::size_t cap, bool spill, std::filesystem::path spill_dir, bool keep_head = false);
  ~TailWindow();
  TailWindow(const TailWindow&) = delete;
  TailWindow& operator=(const TailWindow&) = delete;

  void append(std::string_view bytes);
  std::uint64_t total() const noexcept { return total_; }
  bool truncated() const noexcept { return total_ > cap_; }
  // The kept tail, starting on a UTF-8 boundary when the head was cut.
  std::string tail() const;
  // The spill file's absolute path, when one was written.
  std::optional<std::filesystem::path> spill_path() const;

 private:
  void open_spill();
  void write_spill(std::string_view bytes);

  std::size_t cap_;
  bool spill_;
  bool keep_head_;
  std::filesystem::path spill_dir_;
  std::string window_;
  std::uint64_t total_ = 0;
  int spill_fd_ = -1;
  bool spill_failed_ = false;
  std::filesystem::path spill_path_;
};

}  // namespace agentkit::tools::detail
