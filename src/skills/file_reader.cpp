#include "file_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace agentkit::skills::detail {
namespace {

Error errno_error(const std::filesystem::path& path, int err) {
  const Errc code = err == ENOENT   ? Errc::not_found
                    : err == EACCES ? Errc::permission_denied
                                    : Errc::io_error;
  return make_error(code,
                    "cannot read '" + path.string() + "': " + std::system_category().message(err));
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Result<FileBytes> read_capped(const std::filesystem::path& path, std::size_t max_bytes) {
  return read_capped_at(AT_FDCWD, path.c_str(), path, max_bytes);
}

Result<FileBytes> read_capped_at(int dir_fd, const char* name, const std::filesystem::path& path,
                                 std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer that never comes.
  Fd fd(::openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return Unexpected(errno_error(path, errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Unexpected(errno_error(path, errno));
  if (!S_ISREG(st.st_mode)) {
    return Unexpected(
        make_error(Errc::invalid_argument, "'" + path.string() +
                                               "' is not a regular file (a folder, FIFO, "
                                               "socket or device); it was not read"));
  }
  FileBytes out;
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.truncated = out.size > max_bytes;
  out.bytes.resize(out.truncated ? max_bytes : static_cast<std::size_t>(out.size));
  std::size_t got = 0;
  while (got < out.bytes.size()) {
    ssize_t n = ::read(fd.get(), out.bytes.data() + got, out.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unexpected(errno_error(path, errno));
    if (n == 0) break;  // the file shrank while we read it
    got += static_cast<std::size_t>(n);
  }
  out.bytes.resize(got);
  return out;
}

bool stays_inside(const std::filesystem::path& root, const std::filesystem::path& inner) {
  std::error_code ec;
  auto r = std::filesystem::canonical(root, ec);
  if (ec) return false;
  auto i = std::filesystem::canonical(inner, ec);
  if (ec) return false;
  auto rel = i.lexically_relative(r);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace agentkit::skills::detail
