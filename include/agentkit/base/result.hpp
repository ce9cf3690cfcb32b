// agentkit/base/result.hpp — Result<T>: a value or an Error, shaped like std::expected<T, Error>.
//
//   agentkit::Result<int> parse_port(std::string_view s) {
//     if (s.empty()) return agentkit::make_error(agentkit::Errc::invalid_argument, "empty port");
//     return 8080;
//   }
//   auto r = parse_port("8080").transform([](int p) { return p + 1; });
//   if (!r) log(r.error().to_string());
//   int port = r.value_or(80);
//
// The member names and semantics follow C++23 std::expected<T, Error> (has_value, operator bool,
// value, error, operator*, operator->, value_or, and_then, transform, or_else), so the type can
// become an alias of std::expected later without touching callers. Differences: a Result converts
// implicitly from an Error (as well as from Unexpected<Error>), and value() on an error throws
// BadResultAccess, the one exception a caller can provoke, and only by breaking the contract.
//
// Thread safety: a plain value.
#pragma once

#include <cassert>
#include <exception>
#include <functional>
#include <type_traits>
#include <utility>
#include <variant>

#include "agentkit/base/error.hpp"

namespace agentkit {

// Thrown by Result::value() when the Result holds an error: a caller bug, like
// std::bad_expected_access.
class BadResultAccess : public std::exception {
 public:
  explicit BadResultAccess(Error e) : error_(std::move(e)) {}
  const char* what() const noexcept override { return "agentkit::Result::value() on an error"; }
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

template <class T>
class Result;

namespace detail {
template <class R>
struct is_result : std::false_type {};
template <class U>
struct is_result<Result<U>> : std::true_type {};
}  // namespace detail

template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T>, "Result<T&> is not supported");
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>, "Result<Error> is ambiguous");

 public:
  using value_type = T;
  using error_type = Error;
  template <class U>
  using rebind = Result<U>;

  Result()
    requires std::is_default_constructible_v<T>
      : storage_(std::in_place_index<0>) {}
  template <class U = T>
    requires(std::is_constructible_v<T, U &&> &&
             !std::is_same_v<std::remove_cvref_t<U>, Result> &&
             !std::is_same_v<std::remove_cvref_t<U>, Error> &&
             !std::is_same_v<std::remove_cvref_t<U>, Unexpected<Error>> &&
             !std::is_same_v<std::remove_cvref_t<U>, std::in_place_t>)
  Result(U&& v) : storage_(std::in_place_index<0>, std::forward<U>(v)) {}  // NOLINT: implicit
  template <class... Args>
  explicit Result(std::in_place_t, Args&&... args)
      : storage_(std::in_place_index<0>, std::forward<Args>(args)...) {}
  Result(Error e) : storage_(std::in_place_index<1>, std::move(e)) {}  // NOLINT: implicit
  Result(Unexpected<Error> u) : storage_(std::in_place_index<1>, std::move(u).error()) {}

  bool has_value() const noexcept { return storage_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & {
    check();
    return *std::get_if<0>(&storage_);
  }
  const T& value() const& {
    check();
    return *std::get_if<0>(&storage_);
  }
  T&& value() && {
    check();
    return std::move(*std::get_if<0>(&storage_));
  }

  // Precondition: !has_value().
  const Error& error() const& noexcept {
    assert(!has_value());
    return *std::get_if<1>(&storage_);
  }
  Error& error() & noexcept {
    assert(!has_value());
    return *std::get_if<1>(&storage_);
  }
  Error&& error() && noexcept {
    assert(!has_value());
    return std::move(*std::get_if<1>(&storage_));
  }

  // Precondition: has_value().
  T& operator*() & noexcept {
    assert(has_value());
    return *std::get_if<0>(&storage_);
  }
  const T& operator*() const& noexcept {
    assert(has_value());
    return *std::get_if<0>(&storage_);
  }
  T&& operator*() && noexcept {
    assert(has_value());
    return std::move(*std::get_if<0>(&storage_));
  }
  T* operator->() noexcept {
    assert(has_value());
    return std::get_if<0>(&storage_);
  }
  const T* operator->() const noexcept {
    assert(has_value());
    return std::get_if<0>(&storage_);
  }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? **this : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  T value_or(U&& fallback) && {
    return has_value() ? std::move(**this) : static_cast<T>(std::forward<U>(fallback));
  }

  // f(T) -> Result<U>; an error passes through untouched.
  template <class F>
  auto and_then(F&& f) & {
    return and_then_impl(*this, std::forward<F>(f));
  }
  template <class F>
  auto and_then(F&& f) const& {
    return and_then_impl(*this, std::forward<F>(f));
  }
  template <class F>
  auto and_then(F&& f) && {
    return and_then_impl(std::move(*this), std::forward<F>(f));
  }

  // f(T) -> U (possibly void); wraps the answer in Result<U>.
  template <class F>
  auto transform(F&& f) & {
    return transform_impl(*this, std::forward<F>(f));
  }
  template <class F>
  auto transform(F&& f) const& {
    return transform_impl(*this, std::forward<F>(f));
  }
  template <class F>
  auto transform(F&& f) && {
    return transform_impl(std::move(*this), std::forward<F>(f));
  }

  // f(Error) -> Result<T>; a value passes through untouched.
  template <class F>
  Result or_else(F&& f) const& {
    if (has_value()) return *this;
    return std::invoke(std::forward<F>(f), error());
  }
  template <class F>
  Result or_else(F&& f) && {
    if (has_value()) return std::move(*this);
    return std::invoke(std::forward<F>(f), std::move(*this).error());
  }

  friend bool operator==(const Result& a, const Result& b) {
    return a.storage_ == b.storage_;
  }

 private:
  void check() const {
    if (!has_value()) throw BadResultAccess(*std::get_if<1>(&storage_));
  }

  template <class Self, class F>
  static auto and_then_impl(Self&& self, F&& f) {
    using R = std::remove_cvref_t<decltype(std::invoke(std::forward<F>(f), *std::forward<Self>(self)))>;
    static_assert(detail::is_result<R>::value, "and_then's function must return a Result");
    if (!self.has_value()) return R(std::forward<Self>(self).error());
    return std::invoke(std::forward<F>(f), *std::forward<Self>(self));
  }

  template <class Self, class F>
  static auto transform_impl(Self&& self, F&& f) {
    using U = std::remove_cv_t<decltype(std::invoke(std::forward<F>(f), *std::forward<Self>(self)))>;
    if (!self.has_value()) return Result<U>(std::forward<Self>(self).error());
    if constexpr (std::is_void_v<U>) {
      std::invoke(std::forward<F>(f), *std::forward<Self>(self));
      return Result<U>();
    } else {
      return Result<U>(std::in_place, std::invoke(std::forward<F>(f), *std::forward<Self>(self)));
    }
  }

  std::variant<T, Error> storage_;
};

// Result<void>: success carries nothing.
template <>
class [[nodiscard]] Result<void> {
 public:
  using value_type = void;
  using error_type = Error;
  template <class U>
  using rebind = Result<U>;

  Result() noexcept = default;
  explicit Result(std::in_place_t) noexcept {}
  Result(Error e) : error_(std::move(e)), failed_(true) {}  // NOLINT: implicit
  Result(Unexpected<Error> u) : error_(std::move(u).error()), failed_(true) {}

  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return has_value(); }
  void value() const {
    if (failed_) throw BadResultAccess(error_);
  }
  void operator*() const noexcept { assert(has_value()); }

  const Error& error() const& noexcept {
    assert(failed_);
    return error_;
  }
  Error& error() & noexcept {
    assert(failed_);
    return error_;
  }
  Error&& error() && noexcept {
    assert(failed_);
    return std::move(error_);
  }

  template <class F>
  auto and_then(F&& f) const& {
    using R = std::remove_cvref_t<decltype(std::invoke(std::forward<F>(f)))>;
    static_assert(detail::is_result<R>::value, "and_then's function must return a Result");
    if (failed_) return R(error_);
    return std::invoke(std::forward<F>(f));
  }
  template <class F>
  auto and_then(F&& f) && {
    using R = std::remove_cvref_t<decltype(std::invoke(std::forward<F>(f)))>;
    static_assert(detail::is_result<R>::value, "and_then's function must return a Result");
    if (failed_) return R(std::move(error_));
    return std::invoke(std::forward<F>(f));
  }
  template <class F>
  auto transform(F&& f) const& {
    using U = std::remove_cv_t<decltype(std::invoke(std::forward<F>(f)))>;
    if (failed_) return Result<U>(error_);
    if constexpr (std::is_void_v<U>) {
      std::invoke(std::forward<F>(f));
      return Result<U>();
    } else {
      return Result<U>(std::in_place, std::invoke(std::forward<F>(f)));
    }
  }
  template <class F>
  Result or_else(F&& f) const& {
    if (!failed_) return *this;
    return std::invoke(std::forward<F>(f), error_);
  }
  template <class F>
  Result or_else(F&& f) && {
    if (!failed_) return std::move(*this);
    return std::invoke(std::forward<F>(f), std::move(error_));
  }

  friend bool operator==(const Result& a, const Result& b) {
    return a.failed_ == b.failed_ && (!a.failed_ || a.error_ == b.error_);
  }

 private:
  Error error_;
  bool failed_ = false;
};

// Shorthand for the common failure: return fail(Errc::not_found, "...");
inline Error fail(Errc code, std::string message) { return make_error(code, std::move(message)); }

}  // namespace agentkit
