// The JSONL file store: exclusive creation, write(2) per append, an open-file-description lock.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "agentkit/session/store.hpp"

namespace agentkit::session {
namespace {

Error os_error(std::string_view what, const std::filesystem::path& path, int err) {
  // std::error_code::message is thread-safe where strerror is not.
  return make_error(Errc::io_error, std::string(what) + " '" + path.string() + "': " +
                                        std::error_code(err, std::generic_category()).message())
      .with_detail("errno", std::to_string(err));
}

// Writes all of `bytes`, retrying short writes and EINTR. Answers the bytes written and errno.
std::pair<std::size_t, int> write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {done, n < 0 ? errno : EIO};
    done += static_cast<std::size_t>(n);
  }
  return {done, 0};
}

// Asks for transparent huge pages over the 2 MiB-aligned part of a large buffer before it is
// first touched: a 40 MB log then costs some twenty page faults instead of ten thousand (a
// third of the time of reading it, measured on a loaded VM). Advice only; ignored elsewhere.
void advise_huge_pages([[maybe_unused]] char* data, [[maybe_unused]] std::size_t size) {
#if defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

class FileStore final : public Store {
 public:
  explicit FileStore(std::filesystem::path path) : path_(std::move(path)) {}
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;
  ~FileStore() override {
    if (fd_ >= 0) ::close(fd_);  // closing the description releases its lock
  }

  Result<void> lock(std::string_view holder) override {
    if (fd_ < 0) {
      if (auto opened = open_existing(); !opened) return opened.error();
    }
    // An OFD lock, not a POSIX record lock: it conflicts between two opens in one process too,
    // and closing some other descriptor of the same file does not drop it.
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
      if (errno != EAGAIN && errno != EACCES) return os_error("cannot lock", path_, errno);
      return make_error(Errc::busy, "session log '" + path_.string() +
                                        "' is already open for writing by " + read_holder() +
                                        "; only one writer at a time may append to a log")
          .with_detail("path", path_.string());
    }
    write_holder(holder);
    return {};
  }

  Result<std::string> read() override {
    Result<int> fd = open_for_reading();
    if (!fd) return fd.error();
    Result<std::string> bytes = read_fd(*fd);
    ::close(*fd);
    return bytes;
  }

  Result<void> read_pieces(const std::function<void(std::string_view)>& consume) override {
    Result<int> fd = open_for_reading();
    if (!fd) return fd.error();
    Result<void> done = read_fd_pieces(*fd, consume);
    ::close(*fd);
    return done;
  }

  std::optional<std::uint64_t> size_hint() override {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
  }

  Result<void> create(std::string_view first_line) override {
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, kLogMode);
    if (fd < 0) {
      if (errno == EEXIST) {
        return make_error(Errc::already_exists,
                          "a session log already exists at '" + path_.string() +
                              "'; open it to append, or choose another path")
            .with_detail("path", path_.string());
      }
      return os_error("cannot create session log", path_, errno);
    }
    fd_ = fd;
    good_size_ = 0;
    created_ = true;
    return append(first_line);
  }

  Result<void> append(std::string_view lines) override {
    if (fd_ < 0) return not_open();
    // A previous write that tore left bytes past good_size_: cut them before writing, or this
    // line would be glued onto half a line and both lost.
    if (torn_ && ::ftruncate(fd_, static_cast<off_t>(good_size_)) != 0) {
      return os_error("cannot cut a torn write from", path_, errno);
    }
    torn_ = false;
    auto [written, err] = write_all(fd_, lines);
    if (err == 0) {
      good_size_ += written;
      return {};
    }
    torn_ = written > 0;
    if (torn_ && ::ftruncate(fd_, static_cast<off_t>(good_size_)) == 0) torn_ = false;
    return os_error("cannot append to session log", path_, err);
  }

  Result<void> sync() override {
    if (fd_ < 0) return not_open();
    if (::fdatasync(fd_) != 0) return os_error("cannot sync session log", path_, errno);
    if (created_) {
      // A new file survives power loss only once its directory entry is synced too.
      created_ = false;
      std::filesystem::path dir = path_.parent_path().empty() ? "." : path_.parent_path();
      int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
      }
    }
    return {};
  }

  Result<void> truncate(std::uint64_t size) override {
    if (fd_ < 0) return not_open();
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return os_error("cannot truncate session log", path_, errno);
    }
    good_size_ = size;
    return {};
  }

  std::string describe() const override { return path_.string(); }

 private:
  Result<void> open_existing() {
    int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) {
        return make_error(Errc::not_found, "no session log at '" + path_.string() + "'");
      }
      return os_error("cannot open session log", path_, errno);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return os_error("cannot stat session log", path_, err);
    }
    fd_ = fd;
    good_size_ = static_cast<std::uint64_t>(st.st_size);
    return {};
  }

  // The log opened for reading, refused when it is a directory. The descriptor is the caller's.
  Result<int> open_for_reading() const {
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) {
        return make_error(Errc::not_found, "no session log at '" + path_.string() + "'");
      }
      return os_error("cannot open session log", path_, errno);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      return os_error("cannot stat session log", path_, err);
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return make_error(Errc::io_error, "session log path '" + path_.string() +
                                            "' is a directory, not a file");
    }
    return fd;
  }

  // One buffer, filled by read(2) and handed on, again and again: the file is never held whole,
  // so loading a large log costs neither a second copy of it in memory nor the page faults of
  // a fresh buffer its size (most of the kernel's share of a load), and the loader reads bytes
  // still in the processor's cache. A mapping of the file would save the copy too, but a writer
  // cutting a torn tail meanwhile would make reading the mapping past the new end a SIGBUS.
  Result<void> read_fd_pieces(int fd, const std::function<void(std::string_view)>& consume) {
    std::unique_ptr<char[]> buffer(new char[kReadPiece]);  // not zeroed: read(2) fills it
    for (;;) {
      ssize_t n = ::read(fd, buffer.get(), kReadPiece);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return os_error("cannot read session log", path_, errno);
      if (n == 0) return {};
      consume(std::string_view(buffer.get(), static_cast<std::size_t>(n)));
    }
  }

  Result<std::string> read_fd(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return os_error("cannot stat session log", path_, errno);
    // Read straight into the string (sized from fstat, grown if the file grew meanwhile): a
    // second buffer would double the peak memory of loading a large log.
    std::string bytes;
    bytes.reserve(static_cast<std::size_t>(st.st_size));
    advise_huge_pages(bytes.data(), bytes.capacity());
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t filled = 0;
    for (;;) {
      if (filled == bytes.size()) bytes.resize(bytes.size() + kReadChunk);
      ssize_t n = ::read(fd, bytes.data() + filled, bytes.size() - filled);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return os_error("cannot read session log", path_, errno);
      if (n == 0) break;
      filled += static_cast<std::size_t>(n);
    }
    bytes.resize(filled);
    return bytes;
  }

  Error not_open() const {
    return make_error(Errc::closed, "session log '" + path_.string() + "' is not open");
  }

  std::filesystem::path lock_path() const { return path_.string() + ".lock"; }

  void write_holder(std::string_view holder) {
    // Best effort: the lock itself is the exclusion; this file only names who holds it.
    int fd = ::open(lock_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    (void)write_all(fd, holder);
    ::close(fd);
  }

  std::string read_holder() const {
    int fd = ::open(lock_path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "another writer";
    char buffer[kMaxHolderBytes];
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    ::close(fd);
    if (n <= 0) return "another writer";
    return std::string(buffer, static_cast<std::size_t>(n));
  }

  // A log holds the whole conversation (file contents, command output, whatever a tool
  // printed): readable and writable by its owner only, as shells keep their history.
  static constexpr mode_t kLogMode = 0600;
  static constexpr std::size_t kReadChunk = 1 << 16;
  // A piece of the file handed to the loader: small enough to stay in the processor's cache
  // between read(2) writing it and the loader reading it, large enough that the calls are few.
  static constexpr std::size_t kReadPiece = std::size_t{256} << 10;
  // The holder text is a short description ("pid 4242 (agentdemo)"); more is not shown.
  static constexpr std::size_t kMaxHolderBytes = 256;

  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t good_size_ = 0;  // bytes known to end on a whole line
  bool torn_ = false;            // a failed write left bytes past good_size_
  bool created_ = false;         // the directory entry has not been synced yet
};

}  // namespace

std::unique_ptr<Store> file_store(std::filesystem::path path) {
  return std::make_unique<FileStore>(std::move(path));
}

}  // namespace agentkit::session
