// Versions, eras and the routing-header value encoding (2026-07-28 Streamable HTTP).
#include "agentkit/mcp/protocol.hpp"

#include "agentkit/base/base64.hpp"
#include "agentkit/base/utf8.hpp"

namespace agentkit::mcp {
namespace {

constexpr std::string_view kSentinelOpen = "=?base64?";
constexpr std::string_view kSentinelClose = "?=";

bool looks_like_sentinel(std::string_view value) noexcept {
  return value.size() >= kSentinelOpen.size() + kSentinelClose.size() && value.starts_with(kSentinelOpen) &&
         value.ends_with(kSentinelClose);
}

bool is_header_char(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x21 && u <= 0x7E) || c == ' ' || c == '\t';
}

}  // namespace

std::string_view era_name(Era era) noexcept { return era == Era::modern ? "modern" : "legacy"; }

std::optional<Era> era_of(std::string_view version) noexcept {
  for (auto v : kModernVersions) {
    if (v == version) return Era::modern;
  }
  for (auto v : kLegacyVersions) {
    if (v == version) return Era::legacy;
  }
  return std::nullopt;
}

json::Value Implementation::to_json() const {
  json::Object o;
  o.append_unique("name", name);
  if (!title.empty()) o.append_unique("title", title);
  o.append_unique("version", version);
  return json::Value(std::move(o));
}

bool is_plain_header_value(std::string_view value) noexcept {
  for (char c : value) {
    if (!is_header_char(c)) return false;
  }
  if (!value.empty()) {
    const char first = value.front();
    const char last = value.back();
    if (first == ' ' || first == '\t' || last == ' ' || last == '\t') return false;
  }
  return !looks_like_sentinel(value);
}

std::string encode_header_value(std::string_view value) {
  if (is_plain_header_value(value)) return std::string(value);
  std::string out(kSentinelOpen);
  out += base64::encode(value);
  out += kSentinelClose;
  return out;
}

Result<std::string> decode_header_value(std::string_view value) {
  if (looks_like_sentinel(value)) {
    std::string_view payload = value.substr(kSentinelOpen.size(),
                                            value.size() - kSentinelOpen.size() - kSentinelClose.size());
    auto bytes = base64::decode(payload);
    if (!bytes) return fail(Errc::protocol_error, "header value has a sentinel with invalid base64");
    if (!utf8::is_valid(*bytes)) return fail(Errc::protocol_error, "header value decodes to invalid UTF-8");
    return std::move(*bytes);
  }
  for (char c : value) {
    if (!is_header_char(c)) return fail(Errc::protocol_error, "header value holds a byte that is not visible ASCII");
  }
  return std::string(value);
}

}  // namespace agentkit::mcp
