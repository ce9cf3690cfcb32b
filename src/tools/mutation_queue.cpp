#include "agentkit/tools/mutation_queue.hpp"

#include <condition_variable>
#include <mutex>
#include <unordered_map>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/tools/workspace.hpp"

namespace agentkit::tools {
namespace fs = std::filesystem;

// One file's slot. Guarded by Table::mu (one mutex for the whole table keeps the refcount and the
// held flag consistent with the map, so an entry can never be erased under a waiter).
struct FileMutationQueue::Entry {
  bool held = false;
  std::size_t refs = 0;  // the holder plus every waiter
  agentkit::condition_variable_any released;
};

struct FileMutationQueue::Table {
  mutable std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries;
};

FileMutationQueue::FileMutationQueue() : table_(std::make_unique<Table>()) {}
FileMutationQueue::~FileMutationQueue() = default;

Result<fs::path> FileMutationQueue::key_for(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) {
    return fail(Errc::io_error, "cannot make '" + path.string() + "' absolute: " + ec.message());
  }
  // REQ-LOOP-12: the symlink-resolved absolute path. resolve_symlinks keeps a missing tail
  // lexically (the "not yet existing -> absolute form" rule) and reports every other failure.
  return resolve_symlinks(absolute);
}

Result<FileMutationQueue::Lock> FileMutationQueue::lock(const fs::path& path, agentkit::stop_token stop) {
  auto key = key_for(path);
  if (!key) return key.error();
  std::unique_lock guard(table_->mu);
  std::shared_ptr<Entry>& slot = table_->entries[key->string()];
  if (!slot) slot = std::make_shared<Entry>();
  std::shared_ptr<Entry> entry = slot;
  ++entry->refs;
  bool free = entry->released.wait(guard, stop, [&] { return !entry->held; });
  if (!free) {
    if (--entry->refs == 0) table_->entries.erase(key->string());
    return fail(Errc::cancelled, "cancelled while waiting for another change to '" + key->string() + "'");
  }
  entry->held = true;
  return Lock(this, std::move(entry), std::move(*key));
}

void FileMutationQueue::unlock(const std::shared_ptr<Entry>& entry, const fs::path& key) noexcept {
  std::lock_guard guard(table_->mu);
  entry->held = false;
  if (--entry->refs == 0) {
    table_->entries.erase(key.string());
    return;
  }
  // Every waiter re-checks: one whose stop fired at the same moment must not swallow the wake-up.
  entry->released.notify_all();
}

std::size_t FileMutationQueue::size() const {
  std::lock_guard guard(table_->mu);
  return table_->entries.size();
}

FileMutationQueue::Lock::Lock(FileMutationQueue* queue, std::shared_ptr<Entry> entry, fs::path key) noexcept
    : queue_(queue), entry_(std::move(entry)), key_(std::move(key)) {}

FileMutationQueue::Lock::Lock(Lock&& other) noexcept
    : queue_(std::exchange(other.queue_, nullptr)), entry_(std::move(other.entry_)), key_(std::move(other.key_)) {}

FileMutationQueue::Lock& FileMutationQueue::Lock::operator=(Lock&& other) noexcept {
  if (this != &other) {
    release();
    queue_ = std::exchange(other.queue_, nullptr);
    entry_ = std::move(other.entry_);
    key_ = std::move(other.key_);
  }
  return *this;
}

FileMutationQueue::Lock::~Lock() { release(); }

void FileMutationQueue::Lock::release() noexcept {
  if (queue_ == nullptr) return;
  queue_->unlock(entry_, key_);
  queue_ = nullptr;
  entry_.reset();
}

}  // namespace agentkit::tools
