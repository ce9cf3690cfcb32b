// The library's own stop state, for standard libraries without <stop_token> (libc++ before 18).
// With the std types available this file compiles to nothing.
#include "agentkit/base/stop_token.hpp"

#if !defined(__cpp_lib_jthread) || defined(AGENTKIT_FORCE_STD_FALLBACKS)

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace agentkit {
namespace stop_detail {

// One stop state, shared by its sources, tokens and registered callbacks. `owners` counts every
// holder (the state is freed when it reaches zero); `sources` counts the stop_sources alone, since
// a token whose sources are all gone and which was never stopped can no longer be stopped.
class State {
 public:
  void retain() noexcept { owners_.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept {
    if (owners_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  void retain_source() noexcept {
    sources_.fetch_add(1, std::memory_order_relaxed);
    retain();
  }
  void release_source() noexcept {
    sources_.fetch_sub(1, std::memory_order_acq_rel);
    release();
  }

  bool stop_requested() const noexcept { return stopped_.load(std::memory_order_acquire); }
  bool stop_possible() const noexcept {
    return stop_requested() || sources_.load(std::memory_order_acquire) > 0;
  }

  bool request_stop() noexcept;
  bool add(CallbackNode* node) noexcept;
  void remove(CallbackNode* node) noexcept;

 private:
  void unlink(CallbackNode* node) noexcept;

  std::atomic<unsigned> owners_{1};
  std::atomic<unsigned> sources_{1};
  std::atomic<bool> stopped_{false};
  std::mutex mutex_;                       // guards the fields below
  std::condition_variable callback_done_;  // signalled after each callback request_stop runs
  CallbackNode* head_ = nullptr;
  CallbackNode* running_ = nullptr;  // the callback request_stop is running now, if any
  std::thread::id stopping_thread_;
};

void State::unlink(CallbackNode* node) noexcept {
  if (node->prev_ != nullptr) node->prev_->next_ = node->next_;
  if (node->next_ != nullptr) node->next_->prev_ = node->prev_;
  if (head_ == node) head_ = node->next_;
  node->prev_ = node->next_ = nullptr;
}

bool State::request_stop() noexcept {
  std::unique_lock lock(mutex_);
  if (stopped_.load(std::memory_order_relaxed)) return false;
  stopped_.store(true, std::memory_order_release);
  stopping_thread_ = std::this_thread::get_id();
  while (head_ != nullptr) {
    CallbackNode* node = head_;
    unlink(node);
    running_ = node;
    // Callbacks run unlocked: one may register or destroy other callbacks, or destroy itself.
    // After run_ returns, `node` may be gone, so it is not touched again.
    lock.unlock();
    node->run_(node);
    lock.lock();
    running_ = nullptr;
    callback_done_.notify_all();
  }
  return true;
}

bool State::add(CallbackNode* node) noexcept {
  std::lock_guard lock(mutex_);
  if (stopped_.load(std::memory_order_relaxed)) return false;
  node->next_ = head_;
  if (head_ != nullptr) head_->prev_ = node;
  head_ = node;
  return true;
}

void State::remove(CallbackNode* node) noexcept {
  std::unique_lock lock(mutex_);
  if (node == head_ || node->prev_ != nullptr) {
    unlink(node);
    return;
  }
  // Not listed: it already ran, or is running now. A callback destroyed from inside itself (the
  // stopping thread) must not wait for itself; from any other thread, its destruction waits so the
  // callback never outlives the objects it uses.
  if (std::this_thread::get_id() == stopping_thread_) return;
  callback_done_.wait(lock, [&] { return running_ != node; });
}

void CallbackNode::attach(State* state) noexcept {
  if (state == nullptr) return;
  if (state->add(this)) {
    state->retain();
    state_ = state;
  } else {
    run_(this);
  }
}

void CallbackNode::detach() noexcept {
  if (state_ == nullptr) return;
  state_->remove(this);
  state_->release();
}

}  // namespace stop_detail

stop_token::stop_token(const stop_token& other) noexcept : state_(other.state_) {
  if (state_ != nullptr) state_->retain();
}

stop_token& stop_token::operator=(const stop_token& other) noexcept {
  stop_token(other).swap(*this);
  return *this;
}

stop_token& stop_token::operator=(stop_token&& other) noexcept {
  stop_token(std::move(other)).swap(*this);
  return *this;
}

stop_token::~stop_token() {
  if (state_ != nullptr) state_->release();
}

bool stop_token::stop_requested() const noexcept {
  return state_ != nullptr && state_->stop_requested();
}

bool stop_token::stop_possible() const noexcept {
  return state_ != nullptr && state_->stop_possible();
}

stop_source::stop_source() : state_(new stop_detail::State) {}

stop_source::stop_source(const stop_source& other) noexcept : state_(other.state_) {
  if (state_ != nullptr) state_->retain_source();
}

stop_source& stop_source::operator=(const stop_source& other) noexcept {
  stop_source(other).swap(*this);
  return *this;
}

stop_source& stop_source::operator=(stop_source&& other) noexcept {
  stop_source(std::move(other)).swap(*this);
  return *this;
}

stop_source::~stop_source() {
  if (state_ != nullptr) state_->release_source();
}

bool stop_source::request_stop() noexcept { return state_ != nullptr && state_->request_stop(); }

stop_token stop_source::get_token() const noexcept {
  if (state_ != nullptr) state_->retain();
  return stop_token(state_);
}

bool stop_source::stop_requested() const noexcept {
  return state_ != nullptr && state_->stop_requested();
}

}  // namespace agentkit

#endif
