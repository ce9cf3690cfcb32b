// Exact source bytes of values inside a JSON text, for the places where a wire must keep what the
// vendor sent byte for byte (REQ-PROV-17: tool-call arguments delivered as a JSON object; REQ-PROV-07:
// compaction blocks). The text must already have passed wire::decode (well-formed, bounded);
// anything malformed is still reported as an error, never read past.
//
//   std::string_view body = ...;                           // validated
//   auto content = member_span(body, "content");           // the bytes of body["content"]
//   for (std::string_view element : element_spans(*content).value()) {
//     auto input = member_span(element, "input");          // e.g. {"b": 1.0,  "a":"\u00e9"}
//   }
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::providers::detail {

// The JSON text of a string: `text` quoted and escaped.
inline std::string json_string(std::string_view text) {
  std::string out;
  json::append_quoted(out, text);
  return out;
}

// The bytes of the value of member `key` of the object `object_text`; Errc::not_found when absent.
Result<std::string_view> member_span(std::string_view object_text, std::string_view key);
// The bytes of each element of the array `array_text`, in order.
Result<std::vector<std::string_view>> element_spans(std::string_view array_text);

}  // namespace agentkit::providers::detail
