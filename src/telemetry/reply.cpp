// Reading the collector's partial_success (reply.hpp).
#include "reply.hpp"

#include "agentkit/json/value.hpp"

namespace agentkit::telemetry::detail {
namespace {

// `text` cut to at most `limit` bytes without splitting a UTF-8 sequence.
std::string cut_utf8(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  constexpr unsigned char kContinuationMask = 0xC0;
  constexpr unsigned char kContinuationTag = 0x80;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & kContinuationMask) == kContinuationTag)
    --end;
  return std::string(text.substr(0, end)) + "...";
}

std::uint64_t read_count(const json::Value& n) {
  if (n.is_number()) return n.to_uint64().value_or(0);
  if (!n.is_string()) return 0;
  auto number = json::Value::number(n.as_string());
  return number ? number->to_uint64().value_or(0) : 0;
}

}  // namespace

PartialSuccess read_partial_success(std::string_view body, std::string_view count_field) {
  if (body.empty()) return {};
  json::ParseOptions bounds;  // the library-wide bounds on untrusted bytes (ARCHITECTURE §6)
  bounds.max_bytes = std::size_t(16) << 20;
  bounds.max_depth = 64;
  bounds.max_container = 1'000'000;
  auto parsed = json::parse(body, bounds);
  if (!parsed) return {};
  const json::Value* ps = parsed->find("partialSuccess");
  if (ps == nullptr) ps = parsed->find("partial_success");
  if (ps == nullptr || !ps->is_object()) return {};
  PartialSuccess out;
  if (const json::Value* n = ps->find(count_field)) out.rejected = read_count(*n);
  if (const json::Value* m = ps->find("errorMessage"); m && m->is_string())
    out.message = cut_utf8(m->as_string(), kMaxCollectorMessageBytes);
  return out;
}

}  // namespace agentkit::telemetry::detail
