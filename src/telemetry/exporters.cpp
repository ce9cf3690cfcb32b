// OtlpHttpExporter and FileExporter: a Batcher each, and what a batch becomes on the wire.
#include <cstdlib>
#include <fstream>

#include "agentkit/base/strings.hpp"
#include "agentkit/json/value.hpp"
#include "batcher.hpp"
#include "reply.hpp"

namespace agentkit::telemetry {
namespace {

std::uint64_t unix_now() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto hexval = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (s[i] == '%' && i + 2 < s.size() && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hexval(s[i + 1]) * 16 + hexval(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// "k1=v1,k2=v2" (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES); malformed pairs skipped.
std::vector<std::pair<std::string, std::string>> parse_pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = trim(percent_decode(item.substr(0, eq)));
    if (key.empty()) continue;
    out.emplace_back(std::move(key), trim(percent_decode(item.substr(eq + 1))));
  }
  return out;
}

std::optional<long long> parse_int(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (end == nullptr || *end != '\0' || v < 0) return std::nullopt;
  return v;
}

std::string join_path(std::string base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + std::string(path);
}

// Retry-After (RFC 9110 §10.2.3): delta-seconds, or an HTTP date, whose wait is the time from
// now until then (a date in the past is no wait). Anything else is absent: backoff applies.
std::optional<std::chrono::milliseconds> retry_after(const http::Response& r,
                                                     std::chrono::system_clock::time_point now) {
  auto v = r.headers().get("Retry-After");
  if (!v) return std::nullopt;
  std::string s = trim(*v);
  if (s.empty()) return std::nullopt;
  if (s.find_first_not_of("0123456789") == std::string::npos) {
    if (s.size() > 9) return std::nullopt;
    return std::chrono::seconds(std::stoll(s));
  }
  if (auto date = http::parse_http_date(s)) {
    return std::max(std::chrono::ceil<std::chrono::milliseconds>(*date - now),
                    std::chrono::milliseconds(0));
  }
  return std::nullopt;
}

bool retryable(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

}  // namespace

OtlpOptions OtlpOptions::from_environment(
    const std::function<const char*(const char*)>& getenv_fn) {
  auto env = [&](const char* name) -> const char* {
    const char* v = getenv_fn ? getenv_fn(name) : std::getenv(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
  };
  OtlpOptions o;
  if (const char* v = env("OTEL_EXPORTER_OTLP_ENDPOINT")) o.endpoint = v;
  if (const char* v = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) o.traces_endpoint = v;
  if (const char* v = env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")) o.metrics_endpoint = v;
  // Signal-specific headers win over the general ones for the same key; both go to both signals
  // here (one header list per exporter), traces' taking precedence.
  if (const char* v = env("OTEL_EXPORTER_OTLP_HEADERS")) o.headers = parse_pairs(v);
  for (const char* name :
       {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"}) {
    if (const char* v = env(name)) {
      for (auto& [k, val] : parse_pairs(v)) {
        bool replaced = false;
        for (auto& existing : o.headers) {
          if (iequals(existing.first, k)) {
            if (std::string_view(name).find("TRACES") != std::string_view::npos)
              existing.second = val;
            replaced = true;
          }
        }
        if (!replaced) o.headers.emplace_back(k, val);
      }
    }
  }
  if (auto t = parse_int(env("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"))) {
    o.timeout = std::chrono::milliseconds(*t);
  } else if (auto t2 = parse_int(env("OTEL_EXPORTER_OTLP_TIMEOUT"))) {
    o.timeout = std::chrono::milliseconds(*t2);
  }
  if (auto d = parse_int(env("OTEL_BSP_SCHEDULE_DELAY")))
    o.batch.schedule_delay = std::chrono::milliseconds(*d);
  if (auto q = parse_int(env("OTEL_BSP_MAX_QUEUE_SIZE")); q && *q > 0)
    o.batch.max_queue = static_cast<std::size_t>(*q);
  if (auto b = parse_int(env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")); b && *b > 0)
    o.batch.max_batch = static_cast<std::size_t>(*b);
  TracerOptions tracer;
  if (const char* v = env("OTEL_RESOURCE_ATTRIBUTES")) {
    for (auto& [k, val] : parse_pairs(v)) {
      if (k == "service.name") {
        tracer.service_name = val;
      } else {
        tracer.resource_attributes.push_back({k, val});
      }
    }
  }
  if (const char* v = env("OTEL_SERVICE_NAME")) tracer.service_name = v;
  o.resource = resource_of(tracer);
  return o;
}

// ---- OTLP/HTTP -------------------------------------------------------------------------------

struct OtlpHttpExporter::State {
  OtlpOptions options;
  std::string traces_url;
  std::string metrics_url;
  std::shared_ptr<http::HttpTransport> transport;
  GenAiMetrics metrics;
  mutable std::mutex stats_mu;
  ExportStats stats;
  std::unique_ptr<detail::Batcher> batcher;  // last: its thread uses everything above

  void count(const std::function<void(ExportStats&)>& f) {
    std::lock_guard lock(stats_mu);
    f(stats);
  }

  // One POST with retries on 429/502/503/504 and transport failures. Answers the final status
  // (0 = never answered) and the body.
  std::pair<int, std::string> post(const std::string& url, const std::string& body,
                                   agentkit::stop_token abandon) {
    http::Request req;
    req.method = "POST";
    req.url = url;
    req.headers.set("Content-Type", "application/json");
    for (const auto& [k, v] : options.headers) req.headers.set(k, v);
    req.body = body;
    req.first_byte_timeout = options.timeout;
    req.idle_timeout = options.timeout;
    for (int attempt = 0;; ++attempt) {
      count([](ExportStats& s) { ++s.requests; });
      std::optional<std::chrono::milliseconds> wait;
      int status = 0;
      std::string answer;
      auto resp = transport->send(req, abandon);
      if (resp) {
        status = resp->status();
        auto all = resp->read_all(1 << 20);
        if (all) answer = std::move(*all);
        if (status >= 200 && status < 300) return {status, answer};
        wait = retry_after(*resp, std::chrono::system_clock::now());
        std::string why = "collector at " + url + " answered " + std::to_string(status);
        if (!answer.empty()) why += ": " + answer.substr(0, 512);
        count([&](ExportStats& s) { s.last_error = why; });
        if (!retryable(status)) return {status, answer};
      } else {
        count([&](ExportStats& s) {
          s.last_error = "exporting to " + url + " failed: " + resp.error().message;
        });
        if (abandon.stop_requested()) return {0, {}};
      }
      if (attempt >= options.max_retries) return {status, answer};
      std::chrono::milliseconds delay = options.initial_backoff * (1 << std::min(attempt, 16));
      if (wait) delay = *wait;
      delay = std::min(delay, options.max_retry_delay);
      count([](ExportStats& s) { ++s.retries; });
      if (!batcher->sleep(delay)) return {status, answer};
    }
  }

  void send(std::vector<SpanData> batch, agentkit::stop_token abandon) {
    const std::string body = encode_traces_json(options.resource, batch);
    auto [status, answer] = post(traces_url, body, abandon);
    const std::uint64_t n = batch.size();
    if (status >= 200 && status < 300) {
      // Plain variables, not a structured binding: the lambdas below capture them (clang 14).
      const detail::PartialSuccess partial = detail::read_partial_success(answer, "rejectedSpans");
      const std::uint64_t rejected = std::min(partial.rejected, n);
      const std::string& message = partial.message;
      count([&](ExportStats& s) {
        s.spans_exported += n - rejected;
        s.spans_rejected += rejected;
        if (rejected > 0 || !message.empty()) {
          s.last_error = "collector at " + traces_url + " rejected " + std::to_string(rejected) +
                         " span(s)" + (message.empty() ? std::string() : ": " + message);
        }
      });
    } else {
      // A 400 may still carry partial_success: the whole request was refused, so all failed.
      const std::string message = detail::read_partial_success(answer, "rejectedSpans").message;
      if (!message.empty()) count([&](ExportStats& s) { s.last_error += " (" + message + ")"; });
      count([&](ExportStats& s) { s.spans_failed += n; });
    }
    if (!options.export_metrics) return;
    for (const auto& span : batch) metrics.record(span);
    if (metrics.empty() || abandon.stop_requested()) return;
    count([](ExportStats& s) { ++s.metric_requests; });
    (void)post(metrics_url, metrics.encode_json(options.resource, unix_now()), abandon);
  }
};

OtlpHttpExporter::OtlpHttpExporter(OtlpOptions options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options = std::move(options);
  s.traces_url = s.options.traces_endpoint ? *s.options.traces_endpoint
                                           : join_path(s.options.endpoint, "/v1/traces");
  s.metrics_url = s.options.metrics_endpoint ? *s.options.metrics_endpoint
                                             : join_path(s.options.endpoint, "/v1/metrics");
  s.transport = s.options.transport;
  if (!s.transport) {
    http::HttpOptions ho;
    ho.tls = s.options.tls;
    ho.connect_timeout = std::min(ho.connect_timeout, s.options.timeout);
    s.transport = std::make_shared<http::HttpClient>(ho);
  }
  s.batcher = std::make_unique<detail::Batcher>(
      s.options.batch, [&s](std::vector<SpanData> batch, agentkit::stop_token abandon) {
        s.send(std::move(batch), abandon);
      });
}

OtlpHttpExporter::~OtlpHttpExporter() { shutdown(); }

void OtlpHttpExporter::on_end(SpanData span) { state_->batcher->push(std::move(span)); }

bool OtlpHttpExporter::flush(std::chrono::milliseconds timeout) {
  return state_->batcher->flush(timeout);
}

void OtlpHttpExporter::shutdown() { state_->batcher->shutdown(state_->options.timeout); }

ExportStats OtlpHttpExporter::stats() const {
  ExportStats s;
  {
    std::lock_guard lock(state_->stats_mu);
    s = state_->stats;
  }
  s.spans_queued = state_->batcher->queued();
  s.spans_dropped = state_->batcher->dropped();
  return s;
}

// ---- file ------------------------------------------------------------------------------------

struct FileExporter::State {
  std::filesystem::path path;
  Resource resource;
  bool export_metrics = true;
  GenAiMetrics metrics;
  std::ofstream out;
  mutable std::mutex stats_mu;
  ExportStats stats;
  std::unique_ptr<detail::Batcher> batcher;

  void send(std::vector<SpanData> batch, agentkit::stop_token) {
    std::string lines = encode_traces_json(resource, batch);
    lines += '\n';
    if (export_metrics) {
      for (const auto& span : batch) metrics.record(span);
      if (!metrics.empty()) {
        lines += metrics.encode_json(resource, unix_now());
        lines += '\n';
      }
    }
    out.write(lines.data(), static_cast<std::streamsize>(lines.size()));
    out.flush();
    std::lock_guard lock(stats_mu);
    ++stats.requests;
    if (out) {
      stats.spans_exported += batch.size();
    } else {
      stats.spans_failed += batch.size();
      stats.last_error = "cannot write telemetry to " + path.string();
      out.clear();
    }
  }
};

FileExporter::FileExporter(std::filesystem::path path, BatchOptions batch, Resource resource,
                           bool export_metrics)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = std::move(path);
  s.resource = std::move(resource);
  s.export_metrics = export_metrics;
  s.out.open(s.path, std::ios::binary | std::ios::app);
  if (!s.out) s.stats.last_error = "cannot open " + s.path.string() + " for telemetry";
  s.batcher = std::make_unique<detail::Batcher>(
      batch, [&s](std::vector<SpanData> b, agentkit::stop_token abandon) {
        s.send(std::move(b), abandon);
      });
}

FileExporter::~FileExporter() { shutdown(); }
void FileExporter::on_end(SpanData span) { state_->batcher->push(std::move(span)); }
bool FileExporter::flush(std::chrono::milliseconds timeout) {
  return state_->batcher->flush(timeout);
}
void FileExporter::shutdown() { state_->batcher->shutdown(std::chrono::seconds(10)); }

ExportStats FileExporter::stats() const {
  ExportStats s;
  {
    std::lock_guard lock(state_->stats_mu);
    s = state_->stats;
  }
  s.spans_queued = state_->batcher->queued();
  s.spans_dropped = state_->batcher->dropped();
  return s;
}

}  // namespace agentkit::telemetry
