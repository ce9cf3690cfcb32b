#include "vendor_error.hpp"

#include <optional>

#include "agentkit/json/value.hpp"
#include "wire_client_base.hpp"

namespace agentkit::providers::detail {
namespace {

// How much of an error object without a message is quoted: enough to show its fields, short
// enough for one log line.
constexpr std::size_t kMaxQuotedErrorBytes = 300;

std::optional<std::string> message_of(const json::Value& v) {
  if (v.is_string() && !v.as_string().empty()) return v.as_string();
  if (!v.is_object()) return std::nullopt;
  if (std::string message = string_at(&v, "message"); !message.empty()) {
    std::string kind = string_at(&v, "type");
    if (kind.empty() || kind == "error") kind = string_at(&v, "code");
    return kind.empty() ? message : kind + ": " + message;
  }
  return std::nullopt;
}

}  // namespace

std::string vendor_error_text(const json::Value& source) {
  if (auto m = message_of(source)) return *m;
  if (const json::Value* error = source.find("error")) {
    if (auto m = message_of(*error)) return *m;
  }
  if (const json::Value* response = source.find("response")) {
    if (const json::Value* error = response->find("error")) {
      if (auto m = message_of(*error)) return *m;
    }
  }
  std::string quoted = json::dump(source);
  if (quoted.size() > kMaxQuotedErrorBytes) {
    std::size_t cut = kMaxQuotedErrorBytes;
    // Cut at a code point boundary: the message must stay valid UTF-8.
    while (cut > 0 && (static_cast<unsigned char>(quoted[cut]) & 0xC0) == 0x80) --cut;
    quoted = quoted.substr(0, cut) + "...";
  }
  return "the reply reported a failure without a message: " + quoted;
}

Error vendor_error(const json::Value& source) {
  return make_error(Errc::provider_error, vendor_error_text(source));
}

}  // namespace agentkit::providers::detail
