// What each side of the harness writes per (scenario, wire), and how two of them are compared.
//
// A record is one JSON file, written by the node reference producers and by our drivers alike:
//   {"scenario":"one_tool","wire":"anthropic-messages","side":"reference"|"ours",
//    "request":{"method":"POST","target":"/v1/messages","headers":[[name,value],...],
//               "body":"<exact bytes>" | "body_base64":"..."}}          (request direction)
//   {..., "view":{"text":...,"tool_calls":[...],"stop_reason":...,"usage":{...},"error":true}}
//                                                                      (response direction)
//   {..., "error":"our wire 'ollama-chat' is not available"}            (the side produced nothing)
//
// Thread safety: plain values and pure functions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/json/value.hpp"
#include "compare.hpp"

namespace agentkit::difftest {

struct CapturedRequest {
  std::string method;
  std::string target;  // path and query as sent: "/v1/models/x:streamGenerateContent?alt=sse"
  std::vector<std::pair<std::string, std::string>> headers;  // as received; names compared lowercased
  std::string body;    // exact bytes
};

struct Record {
  std::string scenario;
  std::string wire;
  std::string side;
  std::optional<CapturedRequest> request;  // request direction
  std::optional<json::Value> view;         // response direction
  std::string error;                       // set when the side produced nothing
};

Result<Record> parse_record(std::string_view text);
Result<Record> load_record(const std::filesystem::path& file);
std::string serialise_record(const Record& record);

// Headers whose presence is compared but whose value is not meaningful across two recorders:
// `host` carries each recorder's own ephemeral port, and `content-length` restates the body,
// which is compared structurally. Every other header's value is compared; vendor telemetry
// (user-agent, x-stainless-*) is accepted only through ledger entries.
bool header_value_is_incidental(std::string_view lowercase_name) noexcept;

// The comparable document of a captured request: {"method","target","headers":{name: value},
// "body": <parsed JSON, or the text when it is not JSON>}; header names lowercased and sorted
// (header order carries no meaning), repeated headers joined with ", " (RFC 9110 §5.3).
json::Value request_document(const CapturedRequest& request);

// Compares the two sides of one (scenario, wire). When a side produced nothing the result is one
// divergence at "$": `missing` for ours (carrying its message), `reference_failed` for the SDK.
struct PairComparison {
  Comparison comparison;
  bool compared = false;  // both sides produced something and were compared
};
PairComparison compare_records(const std::optional<Record>& reference, const std::optional<Record>& ours,
                               const CompareOptions& options);

}  // namespace agentkit::difftest
