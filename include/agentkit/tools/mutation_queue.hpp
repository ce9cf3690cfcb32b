// agentkit/tools/mutation_queue.hpp — the file mutation queue: write_file and
// edit_file calls of one parallel batch serialise per FILE, not per spelling of its path.
//
//   auto queue = std::make_shared<agentkit::tools::FileMutationQueue>();
//   {
//     auto held = queue->lock("/ws/link.txt", stop);   // Result<FileMutationQueue::Lock>
//     if (!held) return held.error();                 // resolution failed, or stop fired
//     // ... read, edit, write the file: no other holder of this file runs here ...
//   }                                                 // released; the entry is gone at refcount 0
//
// The key is the symlink-resolved absolute path (resolve_symlinks of workspace.hpp, which also
// resolves a dangling link and keeps components that do not exist yet lexically), so
// `ws/link.txt` -> `real.txt` and `./real.txt` share one lock while distinct files stay
// concurrent. A path that cannot be resolved for any other reason than "does not exist" (a
// component the process may not examine, a name too long, a link loop) is an error the caller
// sees; it is never swallowed into a lock on the raw spelling. Entries are reference counted and
// removed when the last holder or waiter leaves, so the table never grows past the number of
// files being mutated at once.
//
// coding_tools() gives write_file and edit_file ONE shared queue; tools built one at a time share
// a queue only when CodingToolsOptions::mutation_queue names the same object. Readers (read_file)
// take no lock: write_file and edit_file replace a file atomically (rename), so a reader sees the
// old bytes or the new, never a mix.
//
// Thread safety: all members may be called from any thread. A Lock belongs to the thread that
// holds it and is released by its destructor (or release()).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include "agentkit/base/stop_token.hpp"
#include <string>

#include "agentkit/base/result.hpp"

namespace agentkit::tools {

class FileMutationQueue {
 public:
  FileMutationQueue();
  ~FileMutationQueue();
  FileMutationQueue(const FileMutationQueue&) = delete;
  FileMutationQueue& operator=(const FileMutationQueue&) = delete;

  struct Entry;

  // Exclusive use of one file until destroyed. Move-only.
  class Lock {
   public:
    Lock(Lock&& other) noexcept;
    Lock& operator=(Lock&& other) noexcept;
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    ~Lock();

    // The key this lock holds: the symlink-resolved absolute path.
    const std::filesystem::path& path() const noexcept { return key_; }
    // Releases early (idempotent).
    void release() noexcept;

   private:
    friend class FileMutationQueue;
    Lock(FileMutationQueue* queue, std::shared_ptr<Entry> entry, std::filesystem::path key) noexcept;
    FileMutationQueue* queue_ = nullptr;
    std::shared_ptr<Entry> entry_;
    std::filesystem::path key_;
  };

  // Resolves `path` (a relative path is taken against the current folder) and waits until no one
  // else holds that file. Errors: the resolution's (io_error, limit_exceeded, invalid_argument),
  // or cancelled when `stop` fires while waiting (nothing is held then).
  Result<Lock> lock(const std::filesystem::path& path, agentkit::stop_token stop = {});

  // The key lock() would use for `path`.
  static Result<std::filesystem::path> key_for(const std::filesystem::path& path);

  // Files currently held or waited for (the size of the table).
  std::size_t size() const;

 private:
  void unlock(const std::shared_ptr<Entry>& entry, const std::filesystem::path& key) noexcept;

  struct Table;
  std::unique_ptr<Table> table_;
};

}  // namespace agentkit::tools
