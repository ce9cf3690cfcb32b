#include "output_window.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace agentkit::tools::detail {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kSpillTemplate = "agentkit-output-XXXXXX.log";
constexpr int kSpillSuffixLength = 4;  // ".log"
}  // namespace

TailWindow::TailWindow(std::size_t cap, bool spill, fs::path spill_dir, bool keep_head)
    : cap_(cap), spill_(spill), keep_head_(keep_head), spill_dir_(std::move(spill_dir)) {}

TailWindow::~TailWindow() {
  if (spill_fd_ >= 0) ::close(spill_fd_);
}

void TailWindow::open_spill() {
  std::error_code ec;
  fs::path dir = spill_dir_.empty() ? fs::temp_directory_path(ec) : spill_dir_;
  if (ec) {
    spill_failed_ = true;
    return;
  }
  std::string name = (fs::absolute(dir, ec) / std::string(kSpillTemplate)).string();
  spill_fd_ = ::mkstemps(name.data(), kSpillSuffixLength);
  if (spill_fd_ < 0) {
    spill_failed_ = true;
    return;
  }
  ::fcntl(spill_fd_, F_SETFD, FD_CLOEXEC);
  spill_path_ = name;
}

void TailWindow::write_spill(std::string_view bytes) {
  while (!bytes.empty() && spill_fd_ >= 0) {
    ssize_t n = ::write(spill_fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(spill_fd_);
      spill_fd_ = -1;
      spill_failed_ = true;
      return;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void TailWindow::append(std::string_view bytes) {
  if (bytes.empty()) return;
  bool was_within = total_ <= cap_;
  total_ += bytes.size();
  if (spill_ && !spill_failed_) {
    if (was_within && total_ > cap_) {
      open_spill();
      write_spill(window_);  // nothing was dropped yet: the window is the stream so far
    }
    if (total_ > cap_) write_spill(bytes);
  }
  if (keep_head_) {
    if (window_.size() < cap_) window_.append(bytes.substr(0, cap_ - window_.size()));
    return;
  }
  if (bytes.size() >= cap_) {
    window_.assign(bytes.substr(bytes.size() - cap_));
    return;
  }
  window_.append(bytes);
  if (window_.size() > 2 * cap_) window_.erase(0, window_.size() - cap_);
}

std::string TailWindow::tail() const {
  std::string_view w = window_;
  if (keep_head_) return std::string(w);
  if (w.size() > cap_) w.remove_prefix(w.size() - cap_);
  if (truncated()) {
    // Never start in the middle of a UTF-8 sequence.
    std::size_t skip = 0;
    while (skip < w.size() && skip < 3 && (static_cast<unsigned char>(w[skip]) & 0xC0) == 0x80) ++skip;
    w.remove_prefix(skip);
  }
  return std::string(w);
}

std::optional<fs::path> TailWindow::spill_path() const {
  if (spill_path_.empty() || spill_failed_) return std::nullopt;
  return spill_path_;
}

}  // namespace agentkit::tools::detail
