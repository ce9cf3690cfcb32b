#include "agentkit/wire/decode.hpp"

#include <string>
#include <utility>

namespace agentkit::wire {
namespace {

// json::parse names its own option fields; a wire caller configures wire::Limits.
std::string_view wire_limit_name(std::string_view json_limit) {
  if (json_limit == "max_bytes") return "max_message_bytes";
  return json_limit;  // max_depth and max_container share their names
}

// Restates a json::parse error for the untrusted surface: the message names wire::Limits (the
// knob a caller of decode has) instead of json::ParseOptions, and says the message was refused.
Error restate(Error error) {
  constexpr std::string_view kParseOptionsHint = "; raise ParseOptions::";
  if (const std::size_t hint = error.message.find(kParseOptionsHint); hint != std::string::npos) {
    error.message.resize(hint);
  }
  for (ErrorDetail& d : error.detail) {
    if (d.key == "limit") {
      d.value = std::string(wire_limit_name(d.value));
      error.message += " (wire::Limits::" + d.value + ")";
    }
  }
  error.message = "untrusted JSON message rejected: " + error.message;
  return error;
}

Error oversized(std::size_t size, const Limits& limits) {
  return make_error(Errc::limit_exceeded,
                    "untrusted JSON message rejected: " + std::to_string(size) +
                        " bytes exceeds the limit max_message_bytes = " +
                        std::to_string(limits.max_message_bytes) +
                        " (wire::Limits::max_message_bytes)")
      .with_detail("limit", "max_message_bytes")
      .with_detail("max", std::to_string(limits.max_message_bytes))
      .with_detail("size", std::to_string(size))
      .with_detail("offset", "0");
}

json::ParseOptions options_for(const Limits& limits) {
  json::ParseOptions options;
  options.max_bytes = limits.max_message_bytes;
  options.max_depth = limits.max_depth;
  options.max_container = limits.max_container;
  options.reject_duplicate_keys = true;  // REQ-SEC-11 (3): never let the last one win
  return options;
}

}  // namespace

Result<json::Value> decode(std::string_view bytes, const Limits& limits) {
  return decode(bytes, limits, {});
}

Result<json::Value> decode(std::string_view bytes, const Limits& limits,
                           std::span<const std::string_view> skip) {
  // Checked here, before json::parse sees the bytes, so nothing is allocated for an oversized
  // message whatever the parser does first.
  if (bytes.size() > limits.max_message_bytes) return oversized(bytes.size(), limits);
  json::ParseOptions options = options_for(limits);
  options.skip_members = skip;
  auto value = json::parse(bytes, options);
  if (!value) return restate(std::move(value).error());
  return value;
}

Result<bool> decode_flat(std::string_view bytes, const Limits& limits,
                         const std::function<void(const json::FlatMember&)>& visit) {
  if (bytes.size() > limits.max_message_bytes) return oversized(bytes.size(), limits);
  auto flat = json::parse_flat(bytes, options_for(limits), visit);
  if (!flat) return restate(std::move(flat).error());
  return flat;
}

}  // namespace agentkit::wire
