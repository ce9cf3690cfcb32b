// OTLP/HTTP JSON encoding (the protobuf JSON mapping with OTLP's exceptions: hex trace and span
// ids, enums as integers) of spans and of the GenAI client histograms.
#include <algorithm>
#include <map>
#include <mutex>

#include "agentkit/json/value.hpp"
#include "agentkit/telemetry/otlp.hpp"

namespace agentkit::telemetry {
namespace {

template <std::size_t N>
void append_hex(std::string& out, const std::array<std::uint8_t, N>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
}

void append_double(std::string& out, double d) {
  // JSON has no NaN or infinity; OTLP JSON writes them as strings, which no GenAI value needs.
  if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
    out += "0";
    return;
  }
  out += json::dump(json::Value(d));
}

void append_scalar(std::string& out, const tracing::AttributeValue& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          out += x ? R"({"boolValue":true})" : R"({"boolValue":false})";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          out += R"({"intValue":")" + std::to_string(x) + "\"}";  // int64 as a decimal string
        } else if constexpr (std::is_same_v<T, double>) {
          out += R"({"doubleValue":)";
          append_double(out, x);
          out += "}";
        } else if constexpr (std::is_same_v<T, std::string>) {
          out += R"({"stringValue":)";
          json::append_quoted(out, x);
          out += "}";
        } else {
          out += R"({"arrayValue":{"values":[)";
          for (std::size_t i = 0; i < x.size(); ++i) {
            if (i) out += ",";
            out += R"({"stringValue":)";
            json::append_quoted(out, x[i]);
            out += "}";
          }
          out += "]}}";
        }
      },
      v);
}

void append_attributes(std::string& out, std::span<const tracing::Attribute> attributes) {
  out += "[";
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    if (i) out += ",";
    out += R"({"key":)";
    json::append_quoted(out, attributes[i].key);
    out += R"(,"value":)";
    append_scalar(out, attributes[i].value);
    out += "}";
  }
  out += "]";
}

void append_scope(std::string& out, const Resource& resource) {
  out += R"({"name":)";
  json::append_quoted(out, resource.scope_name);
  out += R"(,"version":)";
  json::append_quoted(out, resource.scope_version);
  out += "}";
}

void append_span(std::string& out, const SpanData& s) {
  out += R"({"traceId":")";
  append_hex(out, s.context.trace_id);
  out += R"(","spanId":")";
  append_hex(out, s.context.span_id);
  out += "\"";
  if (s.parent_span_id) {
    out += R"(,"parentSpanId":")";
    append_hex(out, *s.parent_span_id);
    out += "\"";
  }
  out += R"(,"flags":)" + std::to_string(256u | s.context.flags);  // HAS_IS_REMOTE, not remote
  out += R"(,"name":)";
  json::append_quoted(out, s.name);
  out += R"(,"kind":)" + std::to_string(static_cast<int>(s.kind));
  out += R"(,"startTimeUnixNano":")" + std::to_string(s.start_unix_nano);
  out += R"(","endTimeUnixNano":")" + std::to_string(s.end_unix_nano) + "\"";
  out += R"(,"attributes":)";
  append_attributes(out, s.attributes);
  out += R"(,"events":[)";
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    if (i) out += ",";
    out += R"({"timeUnixNano":")" + std::to_string(s.events[i].time_unix_nano) + R"(","name":)";
    json::append_quoted(out, s.events[i].name);
    out += R"(,"attributes":)";
    append_attributes(out, s.events[i].attributes);
    out += "}";
  }
  out += R"(],"status":{)";
  if (s.status != tracing::StatusCode::unset) {
    out += R"("code":)" + std::to_string(static_cast<int>(s.status));
    if (!s.status_message.empty()) {
      out += R"(,"message":)";
      json::append_quoted(out, s.status_message);
    }
  }
  out += "}}";
}

}  // namespace

std::string encode_traces_json(const Resource& resource, std::span<const SpanData> spans) {
  std::string out;
  out.reserve(256 + spans.size() * 768);
  out += R"({"resourceSpans":[{"resource":{"attributes":)";
  append_attributes(out, resource.attributes);
  out += R"(},"scopeSpans":[{"scope":)";
  append_scope(out, resource);
  out += R"(,"spans":[)";
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (i) out += ",";
    append_span(out, spans[i]);
  }
  out += "]}]}]}";
  return out;
}

// ---- metrics ---------------------------------------------------------------------------------

namespace {

// Bucket boundaries the GenAI conventions recommend (explicit bucket histograms).
const std::vector<double> kTokenBounds{1,     4,     16,     64,      256,     1024,     4096,
                                       16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};
const std::vector<double> kSecondBounds{0.01, 0.02, 0.04, 0.08,  0.16,  0.32,  0.64,
                                        1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92};

struct Histogram {
  const std::vector<double>* bounds = nullptr;
  std::vector<std::uint64_t> counts;
  std::uint64_t count = 0;
  double sum = 0;
  double min = 0;
  double max = 0;

  void add(double v) {
    if (counts.empty()) counts.assign(bounds->size() + 1, 0);
    std::size_t i = static_cast<std::size_t>(std::lower_bound(bounds->begin(), bounds->end(), v) -
                                             bounds->begin());
    ++counts[i];
    min = count == 0 ? v : std::min(min, v);
    max = count == 0 ? v : std::max(max, v);
    ++count;
    sum += v;
  }
};

// A histogram's identity: its attribute set, as (key, value) strings in a fixed order.
using Key = std::vector<std::pair<std::string, std::string>>;

struct Metric {
  std::string name, description, unit;
  const std::vector<double>* bounds;
  std::map<Key, Histogram> points;
};

}  // namespace

struct GenAiMetrics::State {
  mutable std::mutex mu;
  std::uint64_t start_unix_nano = 0;
  Metric tokens{"gen_ai.client.token.usage",
                "Number of input and output tokens used.",
                "{token}",
                &kTokenBounds,
                {}};
  Metric duration{
      "gen_ai.client.operation.duration", "GenAI operation duration.", "s", &kSecondBounds, {}};
  Metric first_chunk{"gen_ai.client.operation.time_to_first_chunk",
                     "Time from the request to the first chunk of the streamed response.",
                     "s",
                     &kSecondBounds,
                     {}};
};

GenAiMetrics::GenAiMetrics() : state_(std::make_unique<State>()) {}
GenAiMetrics::~GenAiMetrics() = default;
GenAiMetrics::GenAiMetrics(GenAiMetrics&&) noexcept = default;
GenAiMetrics& GenAiMetrics::operator=(GenAiMetrics&&) noexcept = default;

void GenAiMetrics::record(const SpanData& span) {
  if (string_attribute(span, "gen_ai.operation.name") != "chat") return;
  Key base;
  auto add_key = [&](std::string_view attr) {
    if (auto v = string_attribute(span, attr)) base.emplace_back(std::string(attr), *v);
  };
  add_key("gen_ai.operation.name");
  add_key("gen_ai.provider.name");
  add_key("gen_ai.request.model");
  add_key("gen_ai.response.model");
  Key with_error = base;
  if (auto e = string_attribute(span, "error.type")) with_error.emplace_back("error.type", *e);
  std::lock_guard lock(state_->mu);
  if (state_->start_unix_nano == 0) state_->start_unix_nano = span.start_unix_nano;
  auto histogram = [](Metric& m, const Key& key) -> Histogram& {
    Histogram& h = m.points[key];
    h.bounds = m.bounds;
    return h;
  };
  double seconds =
      static_cast<double>(span.end_unix_nano - std::min(span.start_unix_nano, span.end_unix_nano)) /
      1e9;
  histogram(state_->duration, with_error).add(seconds);
  if (auto ttfc = double_attribute(span, "gen_ai.response.time_to_first_chunk")) {
    histogram(state_->first_chunk, base).add(*ttfc);
  }
  if (span.status == tracing::StatusCode::error) return;  // usage of a failed call is not reported
  for (auto [attr, type] : {std::pair{"gen_ai.usage.input_tokens", "input"},
                            std::pair{"gen_ai.usage.output_tokens", "output"}}) {
    if (auto n = int_attribute(span, attr)) {
      Key key = base;
      key.emplace_back("gen_ai.token.type", type);
      histogram(state_->tokens, key).add(static_cast<double>(*n));
    }
  }
}

bool GenAiMetrics::empty() const noexcept {
  std::lock_guard lock(state_->mu);
  return state_->duration.points.empty();
}

std::string GenAiMetrics::encode_json(const Resource& resource, std::uint64_t now_unix_nano) const {
  std::lock_guard lock(state_->mu);
  std::string out = R"({"resourceMetrics":[{"resource":{"attributes":)";
  append_attributes(out, resource.attributes);
  out += R"(},"scopeMetrics":[{"scope":)";
  append_scope(out, resource);
  out += R"(,"metrics":[)";
  bool first_metric = true;
  for (const Metric* m : {&state_->tokens, &state_->duration, &state_->first_chunk}) {
    if (m->points.empty()) continue;
    if (!first_metric) out += ",";
    first_metric = false;
    out += R"({"name":)";
    json::append_quoted(out, m->name);
    out += R"(,"description":)";
    json::append_quoted(out, m->description);
    out += R"(,"unit":)";
    json::append_quoted(out, m->unit);
    out += R"(,"histogram":{"aggregationTemporality":2,"dataPoints":[)";  // 2 = CUMULATIVE
    bool first_point = true;
    for (const auto& [key, h] : m->points) {
      if (!first_point) out += ",";
      first_point = false;
      std::vector<tracing::Attribute> attrs;
      for (const auto& [k, v] : key) attrs.push_back({k, v});
      out += R"({"attributes":)";
      append_attributes(out, attrs);
      out += R"(,"startTimeUnixNano":")" + std::to_string(state_->start_unix_nano);
      out += R"(","timeUnixNano":")" + std::to_string(now_unix_nano);
      out += R"(","count":")" + std::to_string(h.count) + R"(","sum":)";
      append_double(out, h.sum);
      out += R"(,"bucketCounts":[)";
      for (std::size_t i = 0; i < h.counts.size(); ++i)
        out += (i ? ",\"" : "\"") + std::to_string(h.counts[i]) + "\"";
      out += R"(],"explicitBounds":[)";
      for (std::size_t i = 0; i < m->bounds->size(); ++i) {
        if (i) out += ",";
        append_double(out, (*m->bounds)[i]);
      }
      out += R"(],"min":)";
      append_double(out, h.min);
      out += R"(,"max":)";
      append_double(out, h.max);
      out += "}";
    }
    out += "]}}";
  }
  out += "]}]}]}";
  return out;
}

}  // namespace agentkit::telemetry
