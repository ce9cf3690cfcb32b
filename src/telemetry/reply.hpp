// The collector's answer to an export request, read from untrusted bytes: the partial_success of
// an Export{Trace,Metrics}ServiceResponse in the OTLP/HTTP JSON encoding.
//
//   PartialSuccess p = read_partial_success(R"({"partialSuccess":{"rejectedSpans":"2"}})",
//                                           "rejectedSpans");   // p.rejected == 2
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace agentkit::telemetry::detail {

// The longest errorMessage kept (bytes, cut on a UTF-8 boundary, "..." appended): it lands in
// ExportStats::last_error, which a status line prints.
inline constexpr std::size_t kMaxCollectorMessageBytes = 1024;

struct PartialSuccess {
  // rejectedSpans / rejectedDataPoints: an int64 written as a decimal string (the JSON mapping)
  // or a number; 0 when absent, negative, not an integer or beyond 64 bits.
  std::uint64_t rejected = 0;
  std::string message;  // errorMessage, at most kMaxCollectorMessageBytes (+ "...")
};

// Both fields are optional; a body that is empty, not JSON, beyond the library's bounds on
// untrusted bytes, or without a partialSuccess (or partial_success) object answers {0, ""}.
PartialSuccess read_partial_success(std::string_view body, std::string_view count_field);

}  // namespace agentkit::telemetry::detail
