// agentkit/base/stop_token.hpp — cooperative cancellation: stop_token, stop_source, stop_callback.
//
//   agentkit::stop_source source;
//   agentkit::stop_token token = source.get_token();
//   agentkit::stop_callback wake(token, [&] { cv.notify_all(); });
//   source.request_stop();                      // runs `wake`, and token.stop_requested() is true
//
// Every blocking call in the library takes an agentkit::stop_token. Where the standard library has
// <stop_token> (libstdc++, and libc++ from release 18 on) these are the std types themselves, so a
// std::stop_token can be passed wherever the library asks for one. Elsewhere (libc++ 14) they are
// the library's own types with the std semantics: one shared stop state, request_stop() true once,
// a callback runs at once when registered on a stopped token and otherwise synchronously inside
// request_stop(), and destroying a callback that another thread is running waits for it to finish.
//
// Thread safety: as for the std types — any thread may request a stop or read a token at any time;
// one stop_source, stop_token or stop_callback object is not itself shared between threads
// unguarded.
#pragma once

#include <version>

// AGENTKIT_FORCE_STD_FALLBACKS is for the library's own tests, which run the replacements on
// every standard library; a program defining it would no longer link with the library.
#if defined(__cpp_lib_jthread) && !defined(AGENTKIT_FORCE_STD_FALLBACKS)
#include <stop_token>

namespace agentkit {
using std::nostopstate;
using std::nostopstate_t;
using std::stop_callback;
using std::stop_source;
using std::stop_token;
}  // namespace agentkit
#else
#include <concepts>
#include <type_traits>
#include <utility>

namespace agentkit {

// The state shared by a stop_source and its tokens lives in src/base/stop_token.cpp; the
// callback node is here only because stop_callback is a template.
namespace stop_detail {
class State;
struct CallbackNode {
  explicit CallbackNode(void (*run)(CallbackNode*) noexcept) noexcept : run_(run) {}
  // Registers with `state` (which it keeps alive), or runs at once when a stop was already
  // requested.
  void attach(State* state) noexcept;
  // Unregisters; waits when another thread is running this callback right now.
  void detach() noexcept;

  void (*run_)(CallbackNode*) noexcept;
  CallbackNode* prev_ = nullptr;
  CallbackNode* next_ = nullptr;
  State* state_ = nullptr;
};
}  // namespace stop_detail

struct nostopstate_t {
  explicit nostopstate_t() = default;
};
inline constexpr nostopstate_t nostopstate{};

class stop_token {
 public:
  stop_token() noexcept = default;
  stop_token(const stop_token& other) noexcept;
  stop_token(stop_token&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  stop_token& operator=(const stop_token& other) noexcept;
  stop_token& operator=(stop_token&& other) noexcept;
  ~stop_token();

  [[nodiscard]] bool stop_requested() const noexcept;
  [[nodiscard]] bool stop_possible() const noexcept;
  void swap(stop_token& other) noexcept { std::swap(state_, other.state_); }
  friend bool operator==(const stop_token& a, const stop_token& b) noexcept {
    return a.state_ == b.state_;
  }
  friend void swap(stop_token& a, stop_token& b) noexcept { a.swap(b); }

 private:
  friend class stop_source;
  template <class Callback>
  friend class stop_callback;
  explicit stop_token(stop_detail::State* retained) noexcept : state_(retained) {}

  stop_detail::State* state_ = nullptr;
};

class stop_source {
 public:
  stop_source();  // a fresh stop state (allocates)
  explicit stop_source(nostopstate_t) noexcept {}
  stop_source(const stop_source& other) noexcept;
  stop_source(stop_source&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  stop_source& operator=(const stop_source& other) noexcept;
  stop_source& operator=(stop_source&& other) noexcept;
  ~stop_source();

  // True for the one call that moved the state to stopped, after every callback has run.
  bool request_stop() noexcept;
  [[nodiscard]] stop_token get_token() const noexcept;
  [[nodiscard]] bool stop_requested() const noexcept;
  [[nodiscard]] bool stop_possible() const noexcept { return state_ != nullptr; }
  void swap(stop_source& other) noexcept { std::swap(state_, other.state_); }
  friend bool operator==(const stop_source& a, const stop_source& b) noexcept {
    return a.state_ == b.state_;
  }
  friend void swap(stop_source& a, stop_source& b) noexcept { a.swap(b); }

 private:
  stop_detail::State* state_ = nullptr;
};

template <class Callback>
class [[nodiscard]] stop_callback : private stop_detail::CallbackNode {
  static_assert(std::invocable<Callback> && std::destructible<Callback>);

 public:
  using callback_type = Callback;

  template <class C>
  requires std::constructible_from<Callback, C>
  explicit stop_callback(const stop_token& token,
                         C&& callback) noexcept(std::is_nothrow_constructible_v<Callback, C>)
      : CallbackNode(&invoke), callback_(std::forward<C>(callback)) {
    attach(token.state_);
  }
  template <class C>
  requires std::constructible_from<Callback, C>
  explicit stop_callback(stop_token&& token,
                         C&& callback) noexcept(std::is_nothrow_constructible_v<Callback, C>)
      : stop_callback(static_cast<const stop_token&>(token), std::forward<C>(callback)) {}
  ~stop_callback() { detach(); }

  stop_callback(const stop_callback&) = delete;
  stop_callback& operator=(const stop_callback&) = delete;

 private:
  static void invoke(CallbackNode* node) noexcept {
    std::forward<Callback>(static_cast<stop_callback*>(node)->callback_)();
  }

  Callback callback_;
};

template <class Callback>
stop_callback(stop_token, Callback) -> stop_callback<Callback>;

}  // namespace agentkit
#endif
