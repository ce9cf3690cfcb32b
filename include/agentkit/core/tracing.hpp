// agentkit/core/tracing.hpp — the library's two tracing interfaces (REQ-OBS-01, amendment A19)
// and their no-op default. The loop, the batch, the model call and the MCP client speak only to
// these; an exporter (agentkit_telemetry: OTLP/HTTP JSON, a JSON-lines file) implements them.
//
//   std::shared_ptr<agentkit::tracing::Context> root = ...;   // e.g. telemetry::make_tracer(...)
//   auto run = root->start_span("invoke_agent coder", tracing::SpanKind::internal);
//   if (run->recording()) {                                   // skip building attributes when off
//     run->set_attribute("gen_ai.operation.name", "invoke_agent");
//   }
//   auto call = run->start_span("chat claude", tracing::SpanKind::client);  // parent: `run`
//   call->end();
//   run->end();
//
// Parenting travels through the span value: a child is started on its parent (Span is a
// Context), never through a thread-local or the stop token, so work handed to another thread
// (a parallel tool batch) keeps its parent by carrying the span.
//
// Thread safety: implementations must accept start_span/set_*/add_event/end from any thread. The
// no-op default is stateless and shared; it neither inspects nor keeps what it is given.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agentkit::tracing {

// OTLP's numbering (SPAN_KIND_INTERNAL = 1, ...), so an exporter writes the integer as is.
enum class SpanKind : std::uint8_t {
  internal = 1,
  server = 2,
  client = 3,
  producer = 4,
  consumer = 5
};

// OTLP's numbering (STATUS_CODE_UNSET = 0, OK = 1, ERROR = 2).
enum class StatusCode : std::uint8_t { unset = 0, ok = 1, error = 2 };

using AttributeValue =
    std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>>;

struct Attribute {
  std::string key;
  AttributeValue value;
};

// W3C trace context of one span: 16-byte trace id, 8-byte span id, flags (bit 0 = sampled).
struct SpanContext {
  std::array<std::uint8_t, 16> trace_id{};
  std::array<std::uint8_t, 8> span_id{};
  std::uint8_t flags = 0;

  // False for the all-zero ids the W3C format reserves as "none" (the no-op span's context).
  bool valid() const noexcept;
  std::string trace_id_hex() const;
  std::string span_id_hex() const;
  // "00-<trace id>-<span id>-<flags>", or empty when !valid().
  std::string traceparent() const;
  friend bool operator==(const SpanContext&, const SpanContext&) = default;
};

class Span;

// Something spans can be started under: a tracer (the root of a trace) or a span.
class Context {
 public:
  virtual ~Context() = default;
  // A new span whose parent is this context. Never null: a disabled tracer returns noop_span().
  virtual std::shared_ptr<Span> start_span(std::string_view name,
                                           SpanKind kind = SpanKind::internal) = 0;
};

// One timed operation. end() is idempotent; calls after end() are ignored.
class Span : public Context {
 public:
  // False for the no-op span: instrumentation skips building attributes it would throw away.
  virtual bool recording() const noexcept = 0;
  virtual SpanContext context() const noexcept = 0;
  virtual void set_attributes(std::span<const Attribute> attributes) = 0;
  virtual void add_event(std::string_view name, std::span<const Attribute> attributes = {}) = 0;
  virtual void set_status(StatusCode code, std::string_view description = {}) = 0;
  virtual void end() = 0;

  void set_attribute(std::string key, AttributeValue value) {
    Attribute a{std::move(key), std::move(value)};
    set_attributes(std::span<const Attribute>(&a, 1));
  }
  void set_attributes(std::initializer_list<Attribute> attributes) {
    set_attributes(std::span<const Attribute>(attributes.begin(), attributes.size()));
  }
};

// The shared, field-less no-op span (its start_span answers itself). The returned pointer owns
// nothing: copying it touches no reference count and allocates nothing.
std::shared_ptr<Span> noop_span() noexcept;

// A Context whose spans are all the no-op span: the default when no tracer is configured.
std::shared_ptr<Context> noop_context() noexcept;

// What the agent loop traces and how (RuntimeConfig::observability.tracing).
struct TracingConfig {
  // The root of every run's trace. nullptr (the default) = tracing off: the no-op span is used
  // and no attribute is built.
  std::shared_ptr<Context> tracer{};
  // The agent's name in `invoke_agent {name}` and gen_ai.agent.name. Empty = "agentkit".
  std::string agent_name{};
  // Record messages, tool arguments and tool results on spans (gen_ai.input.messages,
  // gen_ai.output.messages, gen_ai.tool.call.arguments/result). Off by default: they may hold
  // secrets and personal data.
  bool capture_content = false;
};

}  // namespace agentkit::tracing
