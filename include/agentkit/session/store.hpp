// agentkit/session/store.hpp — where the bytes of a session log live: the storage seam.
//
//   #include "agentkit/session/store.hpp"
//   using namespace agentkit;
//   std::unique_ptr<session::Store> disk = session::file_store("chat.jsonl");
//   session::MemoryStore memory;                     // the same log kept in memory (tests)
//   session::MemoryStore second = memory;            // a second handle: contends for the lock
//   assert(memory.lock("pid 1 (writer)").has_value());
//   assert(second.lock("pid 2 (writer)").error().code == Errc::busy);  // names "pid 1 (writer)"
//
// A log is a sequence of whole lines that only ever grows. The log writer (session::Log) talks to
// storage through this interface only, so an embedder can keep sessions in its own database: one
// row per appended line keyed by (log, sequence) is enough — create() inserts the first row only
// when none exists, append() inserts rows in one transaction, read() concatenates them in order,
// truncate() is needed only for a file whose last write tore, and lock() is a lease row naming its
// holder. The JSONL file store is the default; the memory store serves tests and embedders that
// persist elsewhere.
//
// Thread safety: a Store is used by one writer at a time; none of its methods may be called
// concurrently on the same object. Distinct objects (even over the same file) are independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"

namespace agentkit::session {

class Store {
 public:
  virtual ~Store() = default;

  // Takes the single-writer lock for `holder` (who is writing, e.g. "pid 4242 (agentdemo)") and
  // keeps it until the store is destroyed. Fails with Errc::busy, naming the current holder, when
  // another store object holds it.
  virtual Result<void> lock(std::string_view holder) = 0;
  // Every byte stored so far. Errc::not_found when the log does not exist, Errc::io_error when it
  // cannot be read (a directory, no permission).
  virtual Result<std::string> read() = 0;
  // Passes every byte stored so far to `consume`, in order, in pieces of any size (each valid
  // only during its call), so that a reader never needs the whole log in memory at once. The
  // loader reads through this. The file store reads the file in pieces into one reused buffer;
  // this default passes read()'s bytes as one piece. Errors as read(); after an error some
  // pieces may already have been passed.
  virtual Result<void> read_pieces(const std::function<void(std::string_view)>& consume);
  // How many bytes read() would answer now, when the store can tell without reading them (the
  // file store: the file's size); nullopt otherwise, as in this default. The loader sizes its
  // entry list from it; only a hint, as the log may grow meanwhile.
  virtual std::optional<std::uint64_t> size_hint();
  // Starts a new log with `first_line`. Never replaces one: Errc::already_exists, with the stored
  // bytes untouched, when the log exists.
  virtual Result<void> create(std::string_view first_line) = 0;
  // Appends whole lines. A failed append leaves no partial bytes behind for the next append to
  // be concatenated onto (the file store cuts them off before writing again).
  virtual Result<void> append(std::string_view lines) = 0;
  // Makes everything appended so far survive a power failure.
  virtual Result<void> sync() = 0;
  // Cuts the log to its first `size` bytes: used once, at open, to drop a torn last line.
  virtual Result<void> truncate(std::uint64_t size) = 0;
  // The log's name in error messages (a path for the file store).
  virtual std::string describe() const = 0;
};

// The default store: a JSONL file at `path`, created with O_CREAT|O_EXCL (never clobbered),
// appended with write(2) as each entry is recorded (no user-space buffer, so a killed process
// loses at most the line it was writing), locked with an open-file-description lock whose holder
// is written to `<path>.lock`. Nothing touches the disk until a method is called.
std::unique_ptr<Store> file_store(std::filesystem::path path);

// A log kept in memory. Copies share the bytes and the lock, like two opens of one file; the
// lock taken by one copy is released when that copy is destroyed.
class MemoryStore final : public Store {
 public:
  MemoryStore();
  MemoryStore(const MemoryStore& other);
  MemoryStore& operator=(const MemoryStore&) = delete;
  ~MemoryStore() override;

  // The stored bytes, for inspection.
  std::string bytes() const;

  Result<void> lock(std::string_view holder) override;
  Result<std::string> read() override;
  Result<void> create(std::string_view first_line) override;
  Result<void> append(std::string_view lines) override;
  Result<void> sync() override;
  Result<void> truncate(std::uint64_t size) override;
  std::string describe() const override;

 private:
  struct State;
  std::shared_ptr<State> state_;
  bool holds_lock_ = false;
};

}  // namespace agentkit::session
