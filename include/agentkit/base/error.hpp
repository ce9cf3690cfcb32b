// agentkit/base/error.hpp — the one error currency of the library.
//
//   agentkit::Error e = agentkit::make_error(agentkit::Errc::not_found,
//                                            "no tool named 'grep'");
//   e.with_detail("tool", "grep");
//   std::error_code ec = e.code;            // compares equal to Errc::not_found
//   assert(e.find_detail("tool") == std::optional<std::string_view>{"grep"});
//   if (::open(path, O_RDONLY) < 0)
//     return agentkit::errno_error(agentkit::Errc::io_error, "cannot open " + path, errno);
//     // "cannot open /etc/x: No such file or directory"
//
// An Error carries a machine-checkable code, a message written for the person reading the log
// (what failed, on what, what to do), and optional structured detail as ordered key/value pairs
// (both owners of a duplicate name, the offending JSON path, the HTTP status).
//
// Thread safety: a plain value; distinct objects may be used from distinct threads freely.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

// What went wrong, coarse enough to branch on. Zero is reserved for success as std::error_code
// requires; every value here is a failure.
enum class Errc : int {
  invalid_argument = 1,   // the caller passed something malformed or inconsistent
  parse_error,            // bytes that are not the format they claim to be
  limit_exceeded,         // a configured bound (size, depth, count) was crossed
  not_found,              // a named thing does not exist
  already_exists,         // a name is taken (duplicate tool, duplicate key)
  unsupported,            // valid request, but not available in this build or on this peer
  io_error,               // the operating system refused a read, write, spawn or connect
  timeout,                // a deadline passed
  cancelled,              // a stop_token fired
  busy,                   // the resource is in use (a second concurrent run)
  closed,                 // used after close()
  protocol_error,         // a peer broke the protocol (HTTP, JSON-RPC, MCP, SSE)
  permission_denied,      // refused by policy (path containment, SSRF, interceptor)
  unauthenticated,        // credentials missing, rejected or expired
  provider_error,         // an LLM provider answered with an error
  validation_error,       // arguments failed a schema
  overrun,                // an event consumer fell too far behind and was cut off
  internal,               // a bug in this library; please report it
};

// The std::error_category of Errc; its name() is "agentkit".
const std::error_category& error_category() noexcept;
std::error_code make_error_code(Errc code) noexcept;
// Short stable name of a code ("not_found"), for logs and serialised forms.
std::string_view errc_name(Errc code) noexcept;

// One structured fact attached to an error.
struct ErrorDetail {
  std::string key;
  std::string value;
  friend bool operator==(const ErrorDetail&, const ErrorDetail&) = default;
};

struct Error {
  Errc code = Errc::internal;
  std::string message;
  std::vector<ErrorDetail> detail;

  // Appends a detail and returns *this, so errors can be built in one expression.
  Error& with_detail(std::string key, std::string value) &;
  Error&& with_detail(std::string key, std::string value) &&;
  // The first detail with this key, if any.
  std::optional<std::string_view> find_detail(std::string_view key) const noexcept;
  // "not_found: no tool named 'grep' [tool=grep]" — for logs and test failure output.
  std::string to_string() const;

  friend bool operator==(const Error&, const Error&) = default;
};

inline Error make_error(Errc code, std::string message) {
  return Error{code, std::move(message), {}};
}

// The operating system's text for an errno value ("No such file or directory"). Safe to call from
// many threads at once, unlike std::strerror, whose buffer is shared.
std::string errno_text(int err);

// An error whose message is `what`, a colon and errno_text(err). Pass errno right after the
// failing call: anything in between may change it.
Error errno_error(Errc code, std::string what, int err);

// std::unexpected's counterpart, so a function returning Result<T> may write
// `return Unexpected(make_error(...));` exactly as it would with std::expected.
template <class E>
class Unexpected {
 public:
  explicit Unexpected(E e) : error_(std::move(e)) {}
  const E& error() const& noexcept { return error_; }
  E& error() & noexcept { return error_; }
  E&& error() && noexcept { return std::move(error_); }

 private:
  E error_;
};
template <class E>
Unexpected(E) -> Unexpected<E>;

}  // namespace agentkit

template <>
struct std::is_error_code_enum<agentkit::Errc> : std::true_type {};
