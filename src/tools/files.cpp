#include "agentkit/tools/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "agentkit/base/base64.hpp"
#include "agentkit/images/image.hpp"
#include "agentkit/tools/process.hpp"
#include "text.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;

namespace {

using detail::kBinarySniffBytes;
constexpr std::size_t kFileReadChunk = 64 * 1024;
constexpr int kLineNumberWidth = 6;  // the `cat -n` layout

Error io_failure(std::string_view what, const fs::path& p) {
  return errno_error(Errc::io_error, std::string(what) + " '" + p.string() + "'", errno);
}

class FileHandle {
 public:
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  int get() const noexcept { return fd_; }
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// Sequential line reader over a descriptor, one chunk in memory at a time.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd), buf_(kFileReadChunk, '\0') {}

  // Reads the next line without its '\n'. Keeps at most `keep` bytes in `out` and reports the
  // line's full length, scanning at most `scan_limit` bytes of it (`length_capped` when it
  // stopped there). Answers false at end of file when no byte was read.
  bool next(std::string& out, std::size_t keep, std::uint64_t scan_limit, std::uint64_t& length,
            bool& length_capped) {
    out.clear();
    length = 0;
    length_capped = false;
    bool any = false;
    while (true) {
      if (pos_ == len_ && !fill()) return any;
      any = true;
      std::string_view avail(buf_.data() + pos_, len_ - pos_);
      std::size_t nl = avail.find('\n');
      std::string_view piece = avail.substr(0, nl);
      if (out.size() < keep) out.append(piece.substr(0, keep - out.size()));
      length += piece.size();
      pos_ += piece.size();
      if (nl != std::string_view::npos) {
        ++pos_;
        return true;
      }
      if (length >= scan_limit) {
        length_capped = true;
        return true;
      }
    }
  }

  // Skips one line; false at end of file.
  bool skip() {
    std::string ignored;
    std::uint64_t length;
    bool capped;
    return next(ignored, 0, UINT64_MAX, length, capped);
  }

  bool at_eof() { return pos_ == len_ && !fill(); }

 private:
  bool fill() {
    if (eof_) return false;
    ssize_t n;
    do {
      n = ::read(fd_, buf_.data(), buf_.size());
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    pos_ = 0;
    len_ = static_cast<std::size_t>(n);
    return true;
  }

  int fd_;
  std::string buf_;
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
};

std::uint64_t count_lines(int fd, std::uint64_t size) {
  std::string buf(kFileReadChunk * 16, '\0');
  std::uint64_t lines = 0, off = 0;
  char last = '\n';
  while (off < size) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(off));
    if (n <= 0) break;
    std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    for (std::size_t p = chunk.find('\n'); p != std::string_view::npos; p = chunk.find('\n', p + 1)) ++lines;
    last = chunk.back();
    off += static_cast<std::uint64_t>(n);
  }
  if (off > 0 && last != '\n') ++lines;
  return lines;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string numbered(std::size_t line_no, std::string_view text) {
  char num[32];
  std::snprintf(num, sizeof num, "%*zu\t", kLineNumberWidth, line_no);
  std::string out(num);
  detail::append_sanitized(out, text);
  out += '\n';
  return out;
}

Result<TextContent> read_text(int fd, std::uint64_t size, const fs::path& path, const ReadRequest& req,
                              const ReadOptions& opts) {
  TextContent t;
  if (size <= opts.line_count_scan_limit) t.total_lines = count_lines(fd, size);
  LineReader reader(fd);
  const std::size_t offset = req.offset == 0 ? 1 : req.offset;
  for (std::size_t n = 1; n < offset; ++n) {
    if (!reader.skip()) {
      return fail(Errc::invalid_argument, "offset " + std::to_string(offset) + " is past the end of '" +
                                              path.string() + "' (" + std::to_string(n - 1) + " lines)");
    }
  }
  const std::size_t want = std::min(req.limit.value_or(opts.max_lines), opts.max_lines);
  std::size_t line_no = offset;
  std::string line;
  std::uint64_t length = 0;
  bool capped = false;
  std::size_t shown = 0;
  while (shown < want) {
    if (!reader.next(line, opts.max_bytes + 1, opts.line_count_scan_limit, length, capped)) break;
    if (length > opts.max_bytes) {
      t.more_available = true;
      t.truncated_by = "bytes";
      if (shown == 0) {
        // REQ-TOOL-09c: the line alone is over the cap; say how to get at it instead.
        t.marker = "[Line " + std::to_string(line_no) + " is " + (capped ? "more than " : "") +
                   format_size(length) + ", exceeds " + format_size(opts.max_bytes) +
                   " limit. Use execute: sed -n '" + std::to_string(line_no) + "p' " +
                   shell_quote(path.string()) + " | head -c " + std::to_string(opts.max_bytes) + "]";
        t.content = t.marker;
        return t;
      }
      break;
    }
    std::string formatted = numbered(line_no, line);
    if (t.content.size() + formatted.size() > opts.max_bytes) {
      t.more_available = true;
      t.truncated_by = "bytes";
      break;
    }
    t.content += formatted;
    if (shown == 0) t.first_line = line_no;
    t.last_line = line_no;
    ++shown;
    ++line_no;
  }
  if (!t.more_available && shown == want) {
    t.more_available = !reader.at_eof();
    if (t.more_available && want == opts.max_lines) t.truncated_by = "lines";
  }
  if (t.more_available) {
    std::size_t next = t.last_line == 0 ? offset : t.last_line + 1;
    t.marker = "[Showing lines " + std::to_string(t.first_line) + "-" + std::to_string(t.last_line) +
               (t.total_lines ? " of " + std::to_string(*t.total_lines) : std::string()) +
               ". Use offset=" + std::to_string(next) + " to continue.]";
    t.content += t.marker;
  }
  return t;
}

}  // namespace

std::optional<std::string> sniff_image_type(std::string_view head) {
  constexpr std::string_view kPng = "\x89PNG\r\n\x1a\n";
  constexpr std::string_view kJpeg = "\xFF\xD8\xFF";
  constexpr std::size_t kWebpTagOffset = 8;
  if (head.starts_with(kPng)) return "image/png";
  if (head.starts_with(kJpeg)) return "image/jpeg";
  if (head.starts_with("GIF87a") || head.starts_with("GIF89a")) return "image/gif";
  if (head.starts_with("RIFF") && head.size() >= kWebpTagOffset + 4 &&
      head.substr(kWebpTagOffset, 4) == "WEBP") {
    return "image/webp";
  }
  return std::nullopt;
}

Result<FileContent> read_file(const Workspace& workspace, std::string_view path, const ReadRequest& request,
                              const ReadOptions& options) {
  auto resolved = workspace.resolve(path);
  if (!resolved) return resolved.error();
  FileHandle fd(::open(resolved->c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      return fail(Errc::not_found, "file '" + std::string(path) + "' does not exist")
          .with_detail("path", resolved->string());
    }
    return io_failure("cannot open", *resolved);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return io_failure("cannot examine", *resolved);
  if (S_ISDIR(st.st_mode)) {
    return fail(Errc::invalid_argument, detail::quoted(path) + " is a folder; use list_files");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::string head(kBinarySniffBytes, '\0');
  ssize_t got = ::pread(fd.get(), head.data(), head.size(), 0);
  if (got < 0) return io_failure("cannot read", *resolved);
  head.resize(static_cast<std::size_t>(got));

  FileContent out;
  out.path = *resolved;
  if (auto mime = sniff_image_type(head)) {
    if (size > options.max_image_bytes) {
      return fail(Errc::limit_exceeded, "image '" + std::string(path) + "' is " + format_size(size) +
                                            ", over the " + format_size(options.max_image_bytes) + " limit");
    }
    std::string bytes(size, '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::pread(fd.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    // The headers must be readable and the image still: an animated, CMYK or broken file would
    // otherwise sit in history as bytes no provider accepts.
    Result<images::ImageInfo> info =
        images::probe({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
    if (!info || info->animated) {
      return fail(Errc::unsupported,
                  "image '" + std::string(path) + "' cannot be sent to a model: " +
                      (info ? std::string("it is animated") : info.error().message))
          .with_detail("code", "unsupported_image");
    }
    out.image = ImageContent{*mime, base64::encode(bytes), done};
    return out;
  }
  if (head.find('\0') != std::string::npos) {
    return fail(Errc::unsupported, "'" + std::string(path) + "' is a binary file (" + format_size(size) +
                                       "); read_file shows text and images only")
        .with_detail("code", "binary_file");
  }
  auto text = read_text(fd.get(), size, *resolved, request, options);
  if (!text) return text.error();
  out.text = std::move(*text);
  return out;
}

Result<WriteResult> write_file_atomically(const fs::path& target, std::string_view content) {
  struct stat existing {};
  bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) {
    return fail(Errc::invalid_argument, detail::quoted(target.string()) + " is a folder; pass a file path");
  }
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    return fail(Errc::io_error, "cannot create folder '" + target.parent_path().string() + "': " + ec.message());
  }
  std::random_device rd;
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".agentkit-%08x.tmp", rd());
  std::string temp_name = ".";  // appended, not "." + ...: see detail::quoted
  temp_name.append(target.filename().string()).append(suffix);
  fs::path temp = target.parent_path() / temp_name;
  // 0666 minus the umask for a new file, as the kernel applies it at creation.
  constexpr mode_t kNewFileMode = 0666;
  FileHandle fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kNewFileMode));
  if (fd.get() < 0) return io_failure("cannot create a temporary file beside", target);
  auto abandon = [&](std::string_view what) {
    Error e = io_failure(what, target);
    ::unlink(temp.c_str());
    return e;
  };
  if (exists) {
    constexpr mode_t kPermissionBits = 07777;
    if (::fchmod(fd.get(), existing.st_mode & kPermissionBits) != 0) return abandon("cannot keep the mode of");
    [[maybe_unused]] int ignored = ::fchown(fd.get(), existing.st_uid, existing.st_gid);  // best effort
  }
  std::string_view rest = content;
  while (!rest.empty()) {
    ssize_t n = ::write(fd.get(), rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon("cannot write");
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(fd.get()) != 0) return abandon("cannot flush");
  if (::close(fd.release()) != 0) return abandon("cannot close");
  if (::rename(temp.c_str(), target.c_str()) != 0) return abandon("cannot replace");
  return WriteResult{target, content.size(), !exists};
}

Result<WriteResult> write_file(const Workspace& workspace, std::string_view path, std::string_view content) {
  auto resolved = workspace.resolve(path);
  if (!resolved) return resolved.error();
  return write_file_atomically(*resolved, content);
}

}  // namespace agentkit::tools
