#include "agentkit/base/error.hpp"

#include <cstring>

namespace agentkit {
namespace {

class AgentkitCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "agentkit"; }
  std::string message(int value) const override {
    return std::string(errc_name(static_cast<Errc>(value)));
  }
};

// strerror_r comes in two shapes depending on the C library and feature macros: the XSI one
// fills the buffer and answers 0, the GNU one answers a pointer that may or may not be the
// buffer. Overloading on the return type accepts either without a configure-time probe.
[[maybe_unused]] const char* strerror_result(int rc, const char* buffer) noexcept {
  return rc == 0 ? buffer : nullptr;
}
[[maybe_unused]] const char* strerror_result(const char* text, const char*) noexcept {
  return text;
}

// Long enough for every message glibc and musl have (the longest is under 60 bytes).
constexpr std::size_t kErrnoTextBytes = 256;

}  // namespace

std::string errno_text(int err) {
  char buffer[kErrnoTextBytes] = {};
  const char* text = strerror_result(::strerror_r(err, buffer, sizeof buffer), buffer);
  if (text == nullptr || *text == '\0') return "unknown error " + std::to_string(err);
  return text;
}

Error errno_error(Errc code, std::string what, int err) {
  what += ": ";
  what += errno_text(err);
  return make_error(code, std::move(what));
}

const std::error_category& error_category() noexcept {
  static const AgentkitCategory category;  // immutable; function-local so it is never half-built
  return category;
}

std::error_code make_error_code(Errc code) noexcept {
  return {static_cast<int>(code), error_category()};
}

std::string_view errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::parse_error: return "parse_error";
    case Errc::limit_exceeded: return "limit_exceeded";
    case Errc::not_found: return "not_found";
    case Errc::already_exists: return "already_exists";
    case Errc::unsupported: return "unsupported";
    case Errc::io_error: return "io_error";
    case Errc::timeout: return "timeout";
    case Errc::cancelled: return "cancelled";
    case Errc::busy: return "busy";
    case Errc::closed: return "closed";
    case Errc::protocol_error: return "protocol_error";
    case Errc::permission_denied: return "permission_denied";
    case Errc::unauthenticated: return "unauthenticated";
    case Errc::provider_error: return "provider_error";
    case Errc::validation_error: return "validation_error";
    case Errc::overrun: return "overrun";
    case Errc::internal: return "internal";
  }
  return "unknown";
}

Error& Error::with_detail(std::string key, std::string value) & {
  detail.push_back({std::move(key), std::move(value)});
  return *this;
}

Error&& Error::with_detail(std::string key, std::string value) && {
  detail.push_back({std::move(key), std::move(value)});
  return std::move(*this);
}

std::optional<std::string_view> Error::find_detail(std::string_view key) const noexcept {
  for (const auto& d : detail) {
    if (d.key == key) return std::string_view(d.value);
  }
  return std::nullopt;
}

std::string Error::to_string() const {
  std::string out(errc_name(code));
  out += ": ";
  out += message;
  if (!detail.empty()) {
    out += " [";
    for (std::size_t i = 0; i < detail.size(); ++i) {
      if (i != 0) out += ", ";
      out += detail[i].key;
      out += '=';
      out += detail[i].value;
    }
    out += ']';
  }
  return out;
}

}  // namespace agentkit
