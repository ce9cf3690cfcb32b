// agentkit/base/condition_variable.hpp — a condition variable whose waits also end on a stop token.
//
//   std::mutex m;
//   agentkit::condition_variable_any cv;
//   std::unique_lock lock(m);
//   if (!cv.wait(lock, stop, [&] { return ready; })) return;  // a stop came first
//
// std::condition_variable_any with the stop-token waits of C++20, on every standard library: the
// token overloads of the std class take a std::stop_token, which libc++ 14 lacks, so the library
// uses this one class everywhere rather than two code paths. A stop request wakes the waiter at
// once: its stop callback notifies under the internal mutex that a waiter holds from its stop check
// until it sleeps, so a request between the check and the sleep is never lost.
//
// Thread safety: as std::condition_variable_any — notify from any thread, with or without the
// lock; each waiter holds its own lock on the mutex that guards the predicate's data.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <type_traits>

#include "agentkit/base/stop_token.hpp"

namespace agentkit {

class condition_variable_any {
 public:
  condition_variable_any() : mutex_(std::make_shared<std::mutex>()) {}
  condition_variable_any(const condition_variable_any&) = delete;
  condition_variable_any& operator=(const condition_variable_any&) = delete;

  void notify_one() noexcept {
    std::lock_guard guard(*mutex_);
    cv_.notify_one();
  }
  void notify_all() noexcept {
    std::lock_guard guard(*mutex_);
    cv_.notify_all();
  }

  template <class Lock>
  void wait(Lock& lock) {
    (void)sleep(lock, nullptr, kForever);
  }
  template <class Lock, class Predicate>
  void wait(Lock& lock, Predicate ready) {
    while (!ready()) wait(lock);
  }
  template <class Lock, class Clock, class Duration>
  std::cv_status wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& deadline) {
    return sleep(lock, nullptr, deadline);
  }
  template <class Lock, class Clock, class Duration, class Predicate>
  bool wait_until(Lock& lock, const std::chrono::time_point<Clock, Duration>& deadline,
                  Predicate ready) {
    while (!ready()) {
      if (wait_until(lock, deadline) == std::cv_status::timeout) return ready();
    }
    return true;
  }
  template <class Lock, class Rep, class Period>
  std::cv_status wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& timeout) {
    return wait_until(lock, std::chrono::steady_clock::now() + timeout);
  }
  template <class Lock, class Rep, class Period, class Predicate>
  bool wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& timeout, Predicate ready) {
    return wait_until(lock, std::chrono::steady_clock::now() + timeout, std::move(ready));
  }

  // The stop-token waits: each returns ready() as it stands when it stops waiting, whether
  // because the predicate held, the stop was requested, or the deadline passed.
  template <class Lock, class Predicate>
  bool wait(Lock& lock, stop_token stop, Predicate ready) {
    return wait_stoppable(lock, stop, kForever, ready);
  }
  template <class Lock, class Clock, class Duration, class Predicate>
  bool wait_until(Lock& lock, stop_token stop,
                  const std::chrono::time_point<Clock, Duration>& deadline, Predicate ready) {
    return wait_stoppable(lock, stop, deadline, ready);
  }
  template <class Lock, class Rep, class Period, class Predicate>
  bool wait_for(Lock& lock, stop_token stop, const std::chrono::duration<Rep, Period>& timeout,
                Predicate ready) {
    return wait_stoppable(lock, stop, std::chrono::steady_clock::now() + timeout, ready);
  }

 private:
  struct Forever {};
  static constexpr Forever kForever{};

  template <class Lock, class Until, class Predicate>
  bool wait_stoppable(Lock& lock, const stop_token& stop, const Until& until, Predicate& ready) {
    if (stop.stop_requested()) return ready();
    stop_callback wake(stop, [this] { notify_all(); });
    while (!ready()) {
      if (sleep(lock, &stop, until) == std::cv_status::timeout || stop.stop_requested())
        return ready();
    }
    return true;
  }

  // Relocks the caller's lock on scope exit, after the internal lock (declared later) is released:
  // holding the internal mutex while waiting for the caller's would invert the notifiers' order.
  template <class Lock>
  struct Relock {
    Lock& lock;
    ~Relock() { lock.lock(); }
  };

  // One sleep with the caller's lock released. With a token, the stop check happens under the
  // internal mutex, which the stop callback's notify_all also takes.
  template <class Lock, class Until>
  std::cv_status sleep(Lock& lock, const stop_token* stop, const Until& until) {
    const std::shared_ptr<std::mutex> keep =
        mutex_;  // the waiter may outlive a notify-then-destroy
    std::unique_lock<std::mutex> first(*keep);
    if (stop != nullptr && stop->stop_requested()) return std::cv_status::no_timeout;
    lock.unlock();
    const Relock<Lock> relock{lock};
    std::unique_lock<std::mutex> inner(std::move(first));
    if constexpr (std::is_same_v<Until, Forever>) {
      cv_.wait(inner);
      return std::cv_status::no_timeout;
    } else {
      return cv_.wait_until(inner, until);
    }
  }

  std::shared_ptr<std::mutex> mutex_;
  std::condition_variable cv_;
};

}  // namespace agentkit
