// Credential stores: the per-vendor lock table (REQ-AUTH-05), memory and file storage.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include "agentkit/providers/credentials.hpp"

namespace agentkit::providers {

// ---- The lock table ---------------------------------------------------------------------------------

struct SerializedCredentialStore::LockTable {
  struct Entry {
    std::mutex mutex;
    std::size_t users = 0;  // holders and waiters; the entry is erased when it drops to 0
  };
  mutable std::mutex table_mutex;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries;

  // Holds one vendor's lock for its lifetime, and removes the table entry when it was the last user,
  // so the table never grows with every vendor ever seen.
  class Guard {
   public:
    Guard(LockTable& table, std::string_view vendor) : table_(table) {
      {
        std::scoped_lock lock(table_.table_mutex);
        auto it = table_.entries.find(vendor);
        if (it == table_.entries.end()) it = table_.entries.emplace(std::string(vendor), std::make_unique<Entry>()).first;
        it->second->users++;
        key_ = it->first;
        entry_ = it->second.get();
      }
      entry_->mutex.lock();
    }
    ~Guard() {
      entry_->mutex.unlock();
      std::scoped_lock lock(table_.table_mutex);
      if (--entry_->users == 0) table_.entries.erase(key_);
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    LockTable& table_;
    std::string key_;
    Entry* entry_ = nullptr;
  };
};

SerializedCredentialStore::SerializedCredentialStore() : locks_(std::make_unique<LockTable>()) {}
SerializedCredentialStore::~SerializedCredentialStore() = default;

Result<std::optional<StoredCredential>> SerializedCredentialStore::load(std::string_view vendor) const {
  return read(vendor);
}

Result<std::optional<StoredCredential>> SerializedCredentialStore::modify(std::string_view vendor, const Update& update) {
  LockTable::Guard guard(*locks_, vendor);
  auto current = read(vendor);
  if (!current) return current;
  Result<std::optional<StoredCredential>> next = fail(Errc::internal, "credential update did not run");
  try {
    next = update(*current);
  } catch (const std::exception& e) {
    return fail(Errc::internal, "the credential update for vendor '" + std::string(vendor) + "' threw: " + e.what());
  } catch (...) {
    return fail(Errc::internal, "the credential update for vendor '" + std::string(vendor) + "' threw");
  }
  if (!next) return next;
  if (*next != *current) {
    if (auto written = write(vendor, *next); !written) return written.error();
  }
  return next;
}

std::size_t SerializedCredentialStore::locked_vendors() const {
  std::scoped_lock lock(locks_->table_mutex);
  return locks_->entries.size();
}

// ---- Memory --------------------------------------------------------------------------------------------

struct MemoryCredentialStore::State {
  mutable std::mutex mutex;
  std::map<std::string, StoredCredential, std::less<>> entries;
};

MemoryCredentialStore::MemoryCredentialStore() : state_(std::make_unique<State>()) {}
MemoryCredentialStore::~MemoryCredentialStore() = default;

Result<std::optional<StoredCredential>> MemoryCredentialStore::read(std::string_view vendor) const {
  std::scoped_lock lock(state_->mutex);
  auto it = state_->entries.find(vendor);
  if (it == state_->entries.end()) return std::optional<StoredCredential>{};
  return std::optional<StoredCredential>(it->second);
}

Result<void> MemoryCredentialStore::write(std::string_view vendor, const std::optional<StoredCredential>& value) {
  std::scoped_lock lock(state_->mutex);
  if (value) {
    state_->entries.insert_or_assign(std::string(vendor), *value);
  } else if (auto it = state_->entries.find(vendor); it != state_->entries.end()) {
    state_->entries.erase(it);
  }
  return {};
}

// ---- File ----------------------------------------------------------------------------------------------------

namespace {

// Owner read/write only: the mode every credential file is created with.
constexpr mode_t kPrivateFileMode = 0600;
constexpr mode_t kPrivateDirMode = 0700;
constexpr mode_t kGroupOrOtherBits = 0077;
// A credential file larger than this is not a credential file.
constexpr std::size_t kMaxFileBytes = 4 * 1024 * 1024;

Error io_failure(std::string what, const std::filesystem::path& path, int err) {
  return errno_error(Errc::io_error, what + " " + path.string(), err)
      .with_detail("path", path.string());
}

std::int64_t to_epoch_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

Result<StoredCredential> entry_from_json(const json::Value& v, std::string_view vendor) {
  auto bad = [&](std::string what) {
    return make_error(Errc::parse_error, "credential file: entry '" + std::string(vendor) + "': " + what);
  };
  if (!v.is_object()) return bad("expected an object");
  StoredCredential c;
  auto text = [&](std::string_view key) -> std::string {
    const json::Value* m = v.find(key);
    return m && m->is_string() ? m->as_string() : std::string();
  };
  std::string type = text("type");
  if (type == "api_key") {
    c.kind = StoredCredential::Kind::api_key;
    c.api_key = Secret(text("key"));
  } else if (type == "oauth") {
    c.kind = StoredCredential::Kind::oauth;
    c.access_token = Secret(text("access_token"));
    c.refresh_token = Secret(text("refresh_token"));
    if (const json::Value* exp = v.find("expires_at")) {
      auto ms = exp->to_int64();
      if (!ms) return bad("expires_at is not a whole number of milliseconds since the epoch");
      // Zero means "never expires" (REQ-AUTH-06), not 1970.
      if (*ms != 0) c.expires_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(*ms));
    }
  } else {
    return bad("type must be \"api_key\" or \"oauth\"");
  }
  c.base_url = text("base_url");
  return c;
}

// Writes our fields into `entry`, keeping members this version does not know.
void entry_to_json(const StoredCredential& c, json::Object& entry) {
  auto put = [&](std::string key, std::string value) {
    if (value.empty()) {
      entry.erase(key);
    } else {
      entry.set(std::move(key), json::Value(std::move(value)));
    }
  };
  bool oauth = c.kind == StoredCredential::Kind::oauth;
  entry.set("type", json::Value(oauth ? "oauth" : "api_key"));
  put("key", oauth ? std::string() : c.api_key.reveal());
  put("access_token", oauth ? c.access_token.reveal() : std::string());
  put("refresh_token", oauth ? c.refresh_token.reveal() : std::string());
  if (oauth) {
    entry.set("expires_at", json::Value(static_cast<long long>(c.expires_at ? to_epoch_ms(*c.expires_at) : 0)));
  } else {
    entry.erase("expires_at");
  }
  put("base_url", c.base_url);
}

Result<void> write_all_fd(int fd, std::string_view bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_failure("cannot write", path, errno);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace

struct FileCredentialStore::State {
  std::filesystem::path path;
  // Serialises whole-file reads and read-modify-writes. Held only around file I/O, never while an
  // update (an OAuth refresh) runs, so vendors do not wait for each other.
  mutable std::mutex file_mutex;
  std::atomic<std::uint64_t> temp_counter{0};

  Result<json::Value> load_document() const {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return json::Value(json::Object{});
      return io_failure("cannot stat", path, errno);
    }
    if (!S_ISREG(st.st_mode)) return make_error(Errc::invalid_argument, "credential file " + path.string() + " is not a regular file");
    if ((st.st_mode & kGroupOrOtherBits) != 0) {
      return make_error(Errc::permission_denied, "credential file " + path.string() +
                                                     " is readable or writable by group or others; run: chmod 600 " +
                                                     path.string())
          .with_detail("path", path.string());
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_failure("cannot open", path, errno);
    std::string bytes;
    char buf[8192];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::close(fd);
        return io_failure("cannot read", path, err);
      }
      if (n == 0) break;
      bytes.append(buf, static_cast<std::size_t>(n));
      if (bytes.size() > kMaxFileBytes) {
        ::close(fd);
        return make_error(Errc::limit_exceeded, "credential file " + path.string() + " is larger than 4 MiB");
      }
    }
    ::close(fd);
    if (bytes.empty()) return json::Value(json::Object{});
    auto doc = json::parse(bytes);
    // The parse error names an offset, never the (secret-bearing) text around it.
    if (!doc) return make_error(Errc::parse_error, "credential file " + path.string() + " is not valid JSON: " + doc.error().message);
    if (!doc->is_object()) return make_error(Errc::parse_error, "credential file " + path.string() + " is not a JSON object");
    return doc;
  }

  // Temporary file in the same directory (so rename is atomic), 0600 from its creation.
  Result<void> store_document(const json::Value& doc) {
    std::filesystem::path dir = path.parent_path();
    if (!dir.empty()) {
      std::error_code ec;
      if (!std::filesystem::exists(dir, ec)) {
        std::filesystem::create_directories(dir, ec);
        if (ec) return io_failure("cannot create the directory of", path, ec.value());
        ::chmod(dir.c_str(), kPrivateDirMode);
      }
    }
    std::filesystem::path tmp = path;
    tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(temp_counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode);
    if (fd < 0) return io_failure("cannot create", tmp, errno);
    std::string bytes = json::dump(doc, {.indent = 2}) + "\n";
    auto written = write_all_fd(fd, bytes, tmp);
    if (written && ::fsync(fd) != 0) written = io_failure("cannot flush", tmp, errno);
    ::close(fd);
    if (written && ::rename(tmp.c_str(), path.c_str()) != 0) written = io_failure("cannot replace", path, errno);
    if (!written) {
      ::unlink(tmp.c_str());
      return written;
    }
    // The rename itself must reach the disk, or a crash could bring the old file back.
    int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
    return {};
  }
};

FileCredentialStore::FileCredentialStore(std::filesystem::path path) : state_(std::make_unique<State>()) {
  state_->path = std::move(path);
}
FileCredentialStore::~FileCredentialStore() = default;

const std::filesystem::path& FileCredentialStore::path() const noexcept { return state_->path; }

Result<std::optional<StoredCredential>> FileCredentialStore::read(std::string_view vendor) const {
  std::scoped_lock lock(state_->file_mutex);
  auto doc = state_->load_document();
  if (!doc) return doc.error();
  const json::Value* entry = doc->find(vendor);
  if (entry == nullptr) return std::optional<StoredCredential>{};
  auto c = entry_from_json(*entry, vendor);
  if (!c) return c.error();
  return std::optional<StoredCredential>(std::move(*c));
}

Result<void> FileCredentialStore::write(std::string_view vendor, const std::optional<StoredCredential>& value) {
  std::scoped_lock lock(state_->file_mutex);
  auto doc = state_->load_document();  // re-read: another vendor may have written since our read
  if (!doc) return doc.error();
  json::Object& entries = doc->as_object();
  if (!value) {
    entries.erase(vendor);
  } else {
    json::Value* existing = entries.find(vendor);
    json::Object entry = existing && existing->is_object() ? existing->as_object() : json::Object{};
    entry_to_json(*value, entry);
    entries.set(std::string(vendor), json::Value(std::move(entry)));
  }
  return state_->store_document(*doc);
}

}  // namespace agentkit::providers
