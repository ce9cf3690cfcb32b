// What an OTLP collector answers an export with, on arbitrary bytes: the partial_success reader
// of the OTLP/HTTP exporter (telemetry/reply.hpp). No crash; the kept errorMessage stays within
// its cap and never ends in a split UTF-8 sequence; a count is only ever read from the field asked
// for.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agentkit/base/utf8.hpp"
#include "telemetry/reply.hpp"

namespace {
void require(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace d = agentkit::telemetry::detail;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const bool no_escapes = body.find('\\') == std::string_view::npos;
  for (std::string_view field : {"rejectedSpans", "rejectedDataPoints"}) {
    const d::PartialSuccess p = d::read_partial_success(body, field);
    require(p.message.size() <= d::kMaxCollectorMessageBytes + 3);
    if (p.message.size() > d::kMaxCollectorMessageBytes) {
      const std::string_view kept(p.message.data(), p.message.size() - 3);
      require(p.message.ends_with("..."));
      // The cut never splits a UTF-8 sequence: from valid bytes (no escapes to vary them) it keeps
      // valid bytes.
      if (no_escapes && agentkit::utf8::is_valid(body)) require(agentkit::utf8::is_valid(kept));
    }
    if (p.rejected > 0) require(body.find(field) != std::string_view::npos || !no_escapes);
    if (p.rejected == 0 && p.message.empty()) continue;
    require(body.find("artial") != std::string_view::npos || !no_escapes);
  }
  return 0;
}
