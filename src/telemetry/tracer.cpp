// The recording tracer: W3C ids from a per-tracer generator, wall-clock times, one SpanData per
// finished span handed to the exporter (REQ-OBS-01's binding, outside the core).
#include "agentkit/telemetry/tracer.hpp"

#include <chrono>
#include <algorithm>
#include <random>

#include "agentkit/base/version.hpp"

namespace agentkit::telemetry {
namespace {

std::uint64_t system_now() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

struct TracerState {
  TracerOptions options;
  std::shared_ptr<SpanExporter> exporter;
  std::mutex mu;  // guards the generator
  std::mt19937_64 rng;

  std::uint64_t now() const { return options.clock ? options.clock() : system_now(); }

  template <std::size_t N>
  void fill(std::array<std::uint8_t, N>& bytes) {
    std::lock_guard lock(mu);
    do {
      for (std::size_t i = 0; i < N; i += 8) {
        std::uint64_t r = rng();
        for (std::size_t j = 0; j < 8 && i + j < N; ++j)
          bytes[i + j] = static_cast<std::uint8_t>(r >> (8 * j));
      }
    } while (std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; }));
  }
};

void upsert(std::vector<tracing::Attribute>& into, const tracing::Attribute& a) {
  for (auto& existing : into) {
    if (existing.key == a.key) {
      existing.value = a.value;
      return;
    }
  }
  into.push_back(a);
}

class RecordingSpan final : public tracing::Span,
                            public std::enable_shared_from_this<RecordingSpan> {
 public:
  RecordingSpan(std::shared_ptr<TracerState> tracer, SpanData data)
      : tracer_(std::move(tracer)), data_(std::move(data)) {}
  ~RecordingSpan() override { end(); }  // a span dropped unended still reaches the exporter

  std::shared_ptr<tracing::Span> start_span(std::string_view name,
                                            tracing::SpanKind kind) override {
    SpanData child;
    child.context.trace_id = data_.context.trace_id;
    child.context.flags = data_.context.flags;
    tracer_->fill(child.context.span_id);
    child.parent_span_id = data_.context.span_id;
    child.name = std::string(name);
    child.kind = kind;
    child.start_unix_nano = tracer_->now();
    return std::make_shared<RecordingSpan>(tracer_, std::move(child));
  }
  bool recording() const noexcept override { return true; }
  tracing::SpanContext context() const noexcept override { return data_.context; }
  void set_attributes(std::span<const tracing::Attribute> attributes) override {
    std::lock_guard lock(mu_);
    if (ended_) return;
    for (const auto& a : attributes) upsert(data_.attributes, a);
  }
  void add_event(std::string_view name, std::span<const tracing::Attribute> attributes) override {
    std::lock_guard lock(mu_);
    if (ended_) return;
    data_.events.push_back(
        SpanEventData{std::string(name), tracer_->now(), {attributes.begin(), attributes.end()}});
  }
  void set_status(tracing::StatusCode code, std::string_view description) override {
    std::lock_guard lock(mu_);
    if (ended_) return;
    // OK is final (the OpenTelemetry API rule); a description belongs to an error only.
    if (data_.status == tracing::StatusCode::ok) return;
    data_.status = code;
    data_.status_message =
        code == tracing::StatusCode::error ? std::string(description) : std::string();
  }
  void end() override {
    SpanData out;
    {
      std::lock_guard lock(mu_);
      if (ended_) return;
      ended_ = true;
      data_.end_unix_nano = tracer_->now();
      out = std::move(data_);
    }
    if (tracer_->exporter) tracer_->exporter->on_end(std::move(out));
  }

 private:
  std::shared_ptr<TracerState> tracer_;
  std::mutex mu_;
  bool ended_ = false;
  SpanData data_;
};

class Tracer final : public tracing::Context {
 public:
  explicit Tracer(std::shared_ptr<TracerState> state) : state_(std::move(state)) {}
  std::shared_ptr<tracing::Span> start_span(std::string_view name,
                                            tracing::SpanKind kind) override {
    SpanData root;
    state_->fill(root.context.trace_id);
    state_->fill(root.context.span_id);
    root.context.flags = 1;  // sampled: this tracer records everything it is asked to
    root.name = std::string(name);
    root.kind = kind;
    root.start_unix_nano = state_->now();
    return std::make_shared<RecordingSpan>(state_, std::move(root));
  }

 private:
  std::shared_ptr<TracerState> state_;
};

}  // namespace

std::shared_ptr<tracing::Context> make_tracer(TracerOptions options,
                                              std::shared_ptr<SpanExporter> exporter) {
  auto state = std::make_shared<TracerState>();
  state->rng.seed(options.seed
                      ? *options.seed
                      : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}());
  state->options = std::move(options);
  state->exporter = std::move(exporter);
  return std::make_shared<Tracer>(std::move(state));
}

Resource resource_of(const TracerOptions& options) {
  Resource r;
  r.attributes.push_back({"service.name", options.service_name});
  for (const auto& a : options.resource_attributes) upsert(r.attributes, a);
  upsert(r.attributes, {"telemetry.sdk.name", std::string(kProductName)});
  upsert(r.attributes, {"telemetry.sdk.language", std::string("cpp")});
  upsert(r.attributes, {"telemetry.sdk.version", std::string(kVersion)});
  r.scope_name = "agentkit";
  r.scope_version = std::string(kVersion);
  return r;
}

void MemoryExporter::on_end(SpanData span) {
  std::lock_guard lock(mu_);
  spans_.push_back(std::move(span));
}

std::vector<SpanData> MemoryExporter::spans() const {
  std::lock_guard lock(mu_);
  return spans_;
}

const tracing::AttributeValue* find_attribute(const SpanData& span, std::string_view key) {
  for (const auto& a : span.attributes) {
    if (a.key == key) return &a.value;
  }
  return nullptr;
}

std::optional<std::int64_t> int_attribute(const SpanData& span, std::string_view key) {
  const auto* v = find_attribute(span, key);
  if (v == nullptr || !std::holds_alternative<std::int64_t>(*v)) return std::nullopt;
  return std::get<std::int64_t>(*v);
}

std::optional<double> double_attribute(const SpanData& span, std::string_view key) {
  const auto* v = find_attribute(span, key);
  if (v == nullptr || !std::holds_alternative<double>(*v)) return std::nullopt;
  return std::get<double>(*v);
}

std::optional<std::string> string_attribute(const SpanData& span, std::string_view key) {
  const auto* v = find_attribute(span, key);
  if (v == nullptr || !std::holds_alternative<std::string>(*v)) return std::nullopt;
  return std::get<std::string>(*v);
}

}  // namespace agentkit::telemetry
