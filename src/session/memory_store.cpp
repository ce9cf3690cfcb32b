// The in-memory store: copies share one log and one lock, like two opens of a file. Also the
// Store interface's defaults for read_pieces and size_hint.
#include <mutex>

#include "agentkit/session/store.hpp"

namespace agentkit::session {

struct MemoryStore::State {
  mutable std::mutex mutex;
  bool exists = false;
  std::string bytes;
  std::string holder;  // empty: unlocked
};

MemoryStore::MemoryStore() : state_(std::make_shared<State>()) {}
MemoryStore::MemoryStore(const MemoryStore& other) : state_(other.state_) {}
MemoryStore::~MemoryStore() {
  if (!holds_lock_) return;
  std::lock_guard<std::mutex> guard(state_->mutex);
  state_->holder.clear();
}

std::string MemoryStore::bytes() const {
  std::lock_guard<std::mutex> guard(state_->mutex);
  return state_->bytes;
}

Result<void> MemoryStore::lock(std::string_view holder) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  if (holds_lock_) return {};
  if (!state_->holder.empty()) {
    return make_error(Errc::busy, "in-memory session log is already open for writing by " +
                                      state_->holder +
                                      "; only one writer at a time may append to a log");
  }
  state_->holder = holder.empty() ? std::string("an unnamed writer") : std::string(holder);
  holds_lock_ = true;
  return {};
}

Result<void> Store::read_pieces(const std::function<void(std::string_view)>& consume) {
  Result<std::string> bytes = read();
  if (!bytes) return bytes.error();
  consume(*bytes);
  return {};
}

std::optional<std::uint64_t> Store::size_hint() { return std::nullopt; }

Result<std::string> MemoryStore::read() {
  std::lock_guard<std::mutex> guard(state_->mutex);
  if (!state_->exists) return make_error(Errc::not_found, "the in-memory session log is empty");
  return state_->bytes;
}

Result<void> MemoryStore::create(std::string_view first_line) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  if (state_->exists) {
    return make_error(Errc::already_exists, "the in-memory session log already exists");
  }
  state_->exists = true;
  state_->bytes.assign(first_line);
  return {};
}

Result<void> MemoryStore::append(std::string_view lines) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  if (!state_->exists) return make_error(Errc::closed, "the in-memory session log was not created");
  state_->bytes.append(lines);
  return {};
}

Result<void> MemoryStore::sync() { return {}; }

Result<void> MemoryStore::truncate(std::uint64_t size) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  if (size < state_->bytes.size()) state_->bytes.resize(static_cast<std::size_t>(size));
  return {};
}

std::string MemoryStore::describe() const { return "in-memory session log"; }

}  // namespace agentkit::session
