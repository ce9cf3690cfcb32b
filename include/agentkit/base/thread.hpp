// agentkit/base/thread.hpp — a joining thread that carries a stop token (std::jthread's contract).
//
//   agentkit::jthread worker([](agentkit::stop_token stop) {
//     while (!stop.stop_requested()) poll_once();
//   });
//   // leaving the scope requests a stop and joins
//
// Where the standard library has std::jthread this is it; elsewhere (libc++ 14) it is the library's
// own class with the same contract: the callable gets the thread's stop token as its first argument
// when it accepts one, and destruction or move-assignment over a running thread requests a stop and
// joins.
//
// Thread safety: as for std::jthread — request_stop() and the stop token may be used from any
// thread; join(), detach() and assignment are for the owning thread.
#pragma once

#include <thread>
#include <version>

#include "agentkit/base/stop_token.hpp"

#if defined(__cpp_lib_jthread) && !defined(AGENTKIT_FORCE_STD_FALLBACKS)
namespace agentkit {
using std::jthread;
}  // namespace agentkit
#else
#include <functional>
#include <type_traits>
#include <utility>

namespace agentkit {

class jthread {
 public:
  using id = std::thread::id;
  using native_handle_type = std::thread::native_handle_type;

  jthread() noexcept : source_(nostopstate) {}
  template <class F, class... Args>
  requires(!std::is_same_v<std::remove_cvref_t<F>, jthread>) explicit jthread(F&& f, Args&&... args)
      : thread_(start(source_, std::forward<F>(f), std::forward<Args>(args)...)) {}
  jthread(jthread&& other) noexcept = default;
  jthread& operator=(jthread&& other) noexcept {
    if (this != &other) {
      stop_and_join();
      source_ = std::move(other.source_);
      thread_ = std::move(other.thread_);
    }
    return *this;
  }
  jthread(const jthread&) = delete;
  jthread& operator=(const jthread&) = delete;
  ~jthread() { stop_and_join(); }

  [[nodiscard]] bool joinable() const noexcept { return thread_.joinable(); }
  void join() { thread_.join(); }
  void detach() { thread_.detach(); }
  [[nodiscard]] id get_id() const noexcept { return thread_.get_id(); }
  [[nodiscard]] native_handle_type native_handle() { return thread_.native_handle(); }
  [[nodiscard]] stop_source get_stop_source() noexcept { return source_; }
  [[nodiscard]] stop_token get_stop_token() const noexcept { return source_.get_token(); }
  bool request_stop() noexcept { return source_.request_stop(); }
  void swap(jthread& other) noexcept {
    std::swap(source_, other.source_);
    std::swap(thread_, other.thread_);
  }
  friend void swap(jthread& a, jthread& b) noexcept { a.swap(b); }
  [[nodiscard]] static unsigned hardware_concurrency() noexcept {
    return std::thread::hardware_concurrency();
  }

 private:
  template <class F, class... Args>
  static std::thread start(const stop_source& source, F&& f, Args&&... args) {
    if constexpr (std::is_invocable_v<std::decay_t<F>, stop_token, std::decay_t<Args>...>) {
      return std::thread(std::forward<F>(f), source.get_token(), std::forward<Args>(args)...);
    } else {
      return std::thread(std::forward<F>(f), std::forward<Args>(args)...);
    }
  }
  void stop_and_join() noexcept {
    if (!thread_.joinable()) return;
    source_.request_stop();
    thread_.join();
  }

  stop_source source_;  // declared first: the thread starts with its token
  std::thread thread_;
};

}  // namespace agentkit
#endif
