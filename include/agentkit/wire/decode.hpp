// agentkit/wire/decode.hpp — the strict, bounded JSON decoder for bytes we did not produce.
//
//   auto doc = agentkit::wire::decode(R"({"jsonrpc":"2.0","id":1})");   // default Limits
//   if (!doc) return reject(doc.error());   // says which bound or rule, and the byte offset
//   const agentkit::json::Value* id = doc->find("id");
//
// The size is checked before a byte is parsed or copied; nesting deeper than
// max_depth, containers larger than max_container, duplicate keys (case-sensitive: "id" and "Id"
// are two keys, neither shadows the other) and invalid UTF-8 are all rejections. Errors:
// Errc::limit_exceeded with details "limit" (the Limits field crossed), "max" and "offset";
// Errc::parse_error with details "offset" and "reason".
//
// Thread safety: a pure function.
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/wire/limits.hpp"

namespace agentkit::wire {

// Parses exactly one JSON document from untrusted bytes under `limits`.
Result<json::Value> decode(std::string_view bytes, const Limits& limits = {});

// decode, with the members at `skip` checked but not built: each reads as null (JSON Pointers,
// as json::ParseOptions::skip_members). For a message of which the caller reads a few members
// and the rest is an echo, such as a streamed reply's copy of the request's tools.
Result<json::Value> decode(std::string_view bytes, const Limits& limits,
                           std::span<const std::string_view> skip);

// decode's bounds and errors for a message that is one flat object (json::parse_flat): each
// member is visited, with no tree built, once the whole message is checked. Answers false, with
// nothing visited, when the message is not such an object: decode it whole then.
Result<bool> decode_flat(std::string_view bytes, const Limits& limits,
                         const std::function<void(const json::FlatMember&)>& visit);

}  // namespace agentkit::wire
