// agentkit/telemetry/otlp.hpp — OTLP/HTTP JSON export of spans and GenAI metrics, and a file
// exporter writing the same JSON documents as lines.
//
//   agentkit::telemetry::OtlpOptions o = agentkit::telemetry::OtlpOptions::from_environment();
//   o.endpoint = "http://127.0.0.1:4318";           // POST /v1/traces and /v1/metrics below it
//   auto otlp = std::make_shared<agentkit::telemetry::OtlpHttpExporter>(o);
//   auto tracer = agentkit::telemetry::make_tracer({.service_name = "coder"}, otlp);
//   ...
//   otlp->shutdown();                                 // exports what is queued, joins the thread
//   agentkit::telemetry::ExportStats s = otlp->stats();   // dropped, rejected, retried, ...
//
// Spans are queued by on_end (bounded: a full queue drops the span and counts it; the agent loop
// never waits) and exported in batches by one thread per exporter. Requests follow the OTLP/HTTP
// JSON encoding: lowerCamelCase fields, hex trace and span ids, enums as integers, 64-bit integers
// as decimal strings. Only 429, 502, 503 and 504 are retried, with exponential backoff or the
// Retry-After the collector sends (delta-seconds or an HTTP date; capped by max_retry_delay: a
// batch never waits longer); any other answer drops the batch and is counted. A 200 with
// partial_success adds its rejected count.
// Metrics (gen_ai.client.token.usage, gen_ai.client.operation.duration,
// gen_ai.client.operation.time_to_first_chunk) are aggregated from the finished chat spans into
// cumulative histograms and exported after each span batch.
//
// Thread safety: on_end, flush, stats and shutdown may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/telemetry/tracer.hpp"

namespace agentkit::telemetry {

struct BatchOptions {
  // Spans waiting for export; one more is dropped (counted in ExportStats::spans_dropped).
  std::size_t max_queue = 2048;
  // Spans per request.
  std::size_t max_batch = 512;
  // How long a partial batch waits before it is sent (OTEL_BSP_SCHEDULE_DELAY).
  std::chrono::milliseconds schedule_delay{5000};
};

struct OtlpOptions {
  // Base URL; requests go to <endpoint>/v1/traces and <endpoint>/v1/metrics.
  std::string endpoint = "http://localhost:4318";
  // Full URLs that override the base for one signal (used as given, no path appended).
  std::optional<std::string> traces_endpoint{};
  std::optional<std::string> metrics_endpoint{};
  // Sent with every request (after Content-Type, which is always application/json).
  std::vector<std::pair<std::string, std::string>> headers{};
  // One request, first byte to last.
  std::chrono::milliseconds timeout{10'000};
  // Retries of one batch on 429/502/503/504 and on transport failures.
  int max_retries = 5;
  std::chrono::milliseconds initial_backoff{1000};
  // The longest wait between attempts, whatever Retry-After says (a batch never waits longer).
  std::chrono::milliseconds max_retry_delay{30'000};
  bool export_metrics = true;
  BatchOptions batch{};
  Resource resource = resource_of(TracerOptions{});
  // The HTTP client; nullptr = an HttpClient of this exporter with `tls` (for https://).
  std::shared_ptr<http::HttpTransport> transport{};
  std::shared_ptr<http::TlsProvider> tls{};

  // Defaults overridden by OTEL_EXPORTER_OTLP_ENDPOINT, _TRACES_ENDPOINT, _METRICS_ENDPOINT,
  // _HEADERS, _TRACES_HEADERS, _METRICS_HEADERS (comma-separated key=value, percent-decoded),
  // _TIMEOUT (ms), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and OTEL_BSP_SCHEDULE_DELAY,
  // OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE. `getenv` is injectable for tests.
  static OtlpOptions from_environment(const std::function<const char*(const char*)>& getenv = {});
};

// What an exporter did. Every span handed to on_end ends in exactly one of exported, dropped,
// rejected or failed (after shutdown()).
struct ExportStats {
  std::uint64_t spans_queued = 0;
  std::uint64_t spans_dropped = 0;   // the queue was full (or the exporter shut down)
  std::uint64_t spans_exported = 0;  // accepted by the collector
  std::uint64_t spans_rejected = 0;  // partial_success.rejectedSpans
  std::uint64_t spans_failed = 0;    // their batch was refused (4xx) or ran out of retries
  std::uint64_t requests = 0;        // HTTP requests sent (retries included)
  std::uint64_t retries = 0;
  std::uint64_t metric_requests = 0;
  std::string last_error;  // the collector's or the transport's words, latest
};

// Encodes spans as one ExportTraceServiceRequest (OTLP JSON).
std::string encode_traces_json(const Resource& resource, std::span<const SpanData> spans);

// Cumulative GenAI client histograms, fed from finished chat spans.
class GenAiMetrics {
 public:
  GenAiMetrics();
  ~GenAiMetrics();
  GenAiMetrics(GenAiMetrics&&) noexcept;
  GenAiMetrics& operator=(GenAiMetrics&&) noexcept;
  // Records a span whose gen_ai.operation.name is "chat" (others are ignored).
  void record(const SpanData& span);
  bool empty() const noexcept;
  // One ExportMetricsServiceRequest (OTLP JSON); `now` stamps the data points.
  std::string encode_json(const Resource& resource, std::uint64_t now_unix_nano) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class OtlpHttpExporter final : public SpanExporter {
 public:
  explicit OtlpHttpExporter(OtlpOptions options = OtlpOptions::from_environment());
  ~OtlpHttpExporter() override;  // shutdown()
  OtlpHttpExporter(const OtlpHttpExporter&) = delete;
  OtlpHttpExporter& operator=(const OtlpHttpExporter&) = delete;

  void on_end(SpanData span) override;
  // Sends everything queued now and waits up to `timeout` for it; false on timeout.
  bool flush(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Flushes (bounded by the options' timeout), stops retrying, joins the thread. Idempotent.
  void shutdown();
  ExportStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Writes each batch as one line holding the ExportTraceServiceRequest JSON (and a line of
// ExportMetricsServiceRequest after it), appending to `path`; what a collector's file receiver
// or `otel-cli` reads. Same queue and thread as the OTLP exporter.
class FileExporter final : public SpanExporter {
 public:
  FileExporter(std::filesystem::path path, BatchOptions batch = {},
               Resource resource = resource_of(TracerOptions{}), bool export_metrics = true);
  ~FileExporter() override;
  FileExporter(const FileExporter&) = delete;
  FileExporter& operator=(const FileExporter&) = delete;

  void on_end(SpanData span) override;
  bool flush(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  void shutdown();
  ExportStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace agentkit::telemetry
