// agentkit/telemetry/tracer.hpp — a recording implementation of the core tracing interfaces
// (agentkit/core/tracing.hpp): spans get random W3C ids and wall-clock times, and each finished
// span is handed, as a SpanData value, to an exporter (otlp.hpp: OTLP/HTTP JSON or a JSON-lines
// file; or MemoryExporter in tests).
//
//   auto exporter = std::make_shared<agentkit::telemetry::OtlpHttpExporter>(
//       agentkit::telemetry::OtlpOptions::from_environment());   // OTEL_EXPORTER_OTLP_*
//   agentkit::RuntimeConfig rt;
//   rt.observability.tracing.tracer =
//       agentkit::telemetry::make_tracer({.service_name = "coder"}, exporter);
//   rt.observability.tracing.agent_name = "coder";
//   ...                                                          // runs are traced
//   exporter->shutdown();                                        // flushes what is queued
//
// Thread safety: the tracer and its spans may be used from any thread; span methods lock the
// span. SpanExporter::on_end is called on the thread that ends the span and must not block.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/core/tracing.hpp"

namespace agentkit::telemetry {

struct SpanEventData {
  std::string name;
  std::uint64_t time_unix_nano = 0;
  std::vector<tracing::Attribute> attributes;
};

// One finished span, as exported.
struct SpanData {
  tracing::SpanContext context;
  std::optional<std::array<std::uint8_t, 8>> parent_span_id;  // nullopt: a root span
  std::string name;
  tracing::SpanKind kind = tracing::SpanKind::internal;
  std::uint64_t start_unix_nano = 0;
  std::uint64_t end_unix_nano = 0;
  std::vector<tracing::Attribute> attributes;  // in the order set; a later key replaces an earlier
  std::vector<SpanEventData> events;
  tracing::StatusCode status = tracing::StatusCode::unset;
  std::string status_message;
};

// Receives finished spans. on_end runs on the ending thread (the agent loop, a tool thread):
// queue and return, never block or do I/O there.
class SpanExporter {
 public:
  virtual ~SpanExporter() = default;
  virtual void on_end(SpanData span) = 0;
};

struct TracerOptions {
  // The resource's service.name.
  std::string service_name = "agentkit";
  // More resource attributes (service.version, deployment.environment.name, ...).
  std::vector<tracing::Attribute> resource_attributes{};
  // Wall clock in Unix nanoseconds; empty = the system clock. Injectable for deterministic tests.
  std::function<std::uint64_t()> clock{};
  // Seeds the id generator; nullopt = std::random_device. Fixed seeds give repeatable ids.
  std::optional<std::uint64_t> seed{};
};

// The resource and scope every exporter writes (the tracer's identity).
struct Resource {
  std::vector<tracing::Attribute> attributes;  // service.name first
  std::string scope_name;                      // "agentkit"
  std::string scope_version;                   // the library version
};

// A tracer (a root tracing::Context) that records spans into `exporter`.
std::shared_ptr<tracing::Context> make_tracer(TracerOptions options,
                                              std::shared_ptr<SpanExporter> exporter);

// The resource make_tracer(options, ...) stamps, for exporters built beside it.
Resource resource_of(const TracerOptions& options);

// Keeps every span it is given, append-only and unbounded: for tests only.
class MemoryExporter final : public SpanExporter {
 public:
  void on_end(SpanData span) override;
  std::vector<SpanData> spans() const;

 private:
  mutable std::mutex mu_;
  std::vector<SpanData> spans_;
};

// Helpers for reading SpanData (tests, the chat example's status line).
const tracing::AttributeValue* find_attribute(const SpanData& span, std::string_view key);
std::optional<std::int64_t> int_attribute(const SpanData& span, std::string_view key);
std::optional<double> double_attribute(const SpanData& span, std::string_view key);
std::optional<std::string> string_attribute(const SpanData& span, std::string_view key);

}  // namespace agentkit::telemetry
