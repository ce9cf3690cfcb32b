// The no-op tracing default and the W3C trace-context text of a span (REQ-OBS-01, A19).
#include "agentkit/core/tracing.hpp"

#include <algorithm>

namespace agentkit::tracing {
namespace {

template <std::size_t N>
std::string hex_of(const std::array<std::uint8_t, N>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(N * 2, '0');
  for (std::size_t i = 0; i < N; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

// Field-less: it has nothing to keep, so nothing it is given can outlive the call.
class NoopSpan final : public Span {
 public:
  std::shared_ptr<Span> start_span(std::string_view, SpanKind) override { return noop_span(); }
  bool recording() const noexcept override { return false; }
  SpanContext context() const noexcept override { return {}; }
  void set_attributes(std::span<const Attribute>) override {}
  void add_event(std::string_view, std::span<const Attribute>) override {}
  void set_status(StatusCode, std::string_view) override {}
  void end() override {}
};

// Immutable and stateless, so sharing one is not shared mutable state.
const NoopSpan kNoopSpan;

}  // namespace

bool SpanContext::valid() const noexcept {
  auto nonzero = [](std::uint8_t b) { return b != 0; };
  return std::any_of(trace_id.begin(), trace_id.end(), nonzero) &&
         std::any_of(span_id.begin(), span_id.end(), nonzero);
}

std::string SpanContext::trace_id_hex() const { return hex_of(trace_id); }
std::string SpanContext::span_id_hex() const { return hex_of(span_id); }

std::string SpanContext::traceparent() const {
  if (!valid()) return {};
  std::array<std::uint8_t, 1> f{flags};
  return "00-" + trace_id_hex() + "-" + span_id_hex() + "-" + hex_of(f);
}

std::shared_ptr<Span> noop_span() noexcept {
  // The aliasing constructor with an empty owner: a non-null pointer with no control block.
  return std::shared_ptr<Span>(std::shared_ptr<void>(), const_cast<NoopSpan*>(&kNoopSpan));
}

std::shared_ptr<Context> noop_context() noexcept {
  return std::shared_ptr<Context>(std::shared_ptr<void>(), const_cast<NoopSpan*>(&kNoopSpan));
}

}  // namespace agentkit::tracing
