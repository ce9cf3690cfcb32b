// Tracing overhead on the loop thread, per turn: off (the no-op span), on with the OTLP/HTTP
// exporter posting to a loopback collector, on with the file exporter; and the exporter's CPU per
// 10,000 spans (encoding alone, and the whole pipeline: queue, thread, encode, POST).
//
// Each run makes kTurnsPerRun model calls against an instant faux provider, calling a no-op tool on
// every turn but the last: per turn the loop adds one chat and one execute_tool span. The bar: on
// with OTLP adds under 5 us per span to the loop thread.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <time.h>
#include <filesystem>
#include <thread>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/telemetry/otlp.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;
namespace otel = agentkit::telemetry;

namespace {

constexpr int kTurnsPerRun = 50;
constexpr int kRuns = 31;

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double measure(const std::shared_ptr<otel::SpanExporter>& exporter) {
  int turn = 0;
  faux::FauxOptions options;
  options.record_requests = false;
  auto provider = std::make_shared<faux::FauxProvider>(
      std::function<faux::FauxResponse(const Request&)>([&turn](const Request&) {
        ++turn;
        auto r = turn % kTurnsPerRun == 0
                     ? faux::text_response("done")
                     : faux::tool_call_response({faux::tool_call("", "noop", "{}")});
        r.stream_chunks = false;
        return r;
      }),
      options);
  ToolDefinition noop;
  noop.name = "noop";
  noop.description = "does nothing";
  noop.handler = [](const json::Value&, const ToolContext&) {
    return ToolResult::text_result("ok");
  };
  AgentDefinition def;
  def.instructions = "bench";
  def.tools.direct.push_back(noop);
  RuntimeConfig rt;
  rt.model.spec = "faux/bench";
  rt.providers.add("faux", provider);
  if (exporter) rt.observability.tracing.tracer = otel::make_tracer({}, exporter);
  auto agent = make_agent(def, rt).value();
  std::vector<double> per_turn;
  for (int i = 0; i < kRuns; ++i) {
    auto session = agent.start().value();
    // CPU time of the loop thread (the faux provider answers on it, and the single tool call runs
    // on it): what tracing adds to the loop, not what the export thread costs on a loaded machine.
    double t0 = thread_cpu_us();
    auto r = session.run("go");
    double t1 = thread_cpu_us();
    if (!r || r->turn_count != kTurnsPerRun) std::exit(1);
    per_turn.push_back((t1 - t0) / kTurnsPerRun);
  }
  std::sort(per_turn.begin(), per_turn.end());
  return per_turn[per_turn.size() / 2];
}

double cpu_ms() { return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

int main() {
  auto collector =
      http::HttpServer::start({}, [](const http::ServerRequest&, http::ResponseWriter& out) {
        (void)out.respond(200, {{"Content-Type", "application/json"}}, "{}");
      }).value();
  otel::OtlpOptions o;
  o.endpoint = collector.base_url();
  o.batch.max_queue = 1 << 20;  // measure the loop, not drops
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto path = std::filesystem::temp_directory_path() / "agentkit_telemetry_bench.jsonl";
  auto file = std::make_shared<otel::FileExporter>(path, otel::BatchOptions{.max_queue = 1 << 20});

  // A collector that never answers: the loop must not notice (export waits on its own thread).
  auto silent =
      http::HttpServer::start({}, [](const http::ServerRequest&, http::ResponseWriter& out) {
        auto stop = out.stop_token();
        while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }).value();
  otel::OtlpOptions so = o;
  so.endpoint = silent.base_url();
  so.timeout = std::chrono::milliseconds(2000);
  so.max_retries = 0;
  so.export_metrics = false;
  auto stuck = std::make_shared<otel::OtlpHttpExporter>(so);

  double off = measure(nullptr);
  double on_otlp = measure(otlp);
  double on_file = measure(file);
  double on_stuck = measure(stuck);
  stuck->shutdown();
  silent.stop();
  otlp->shutdown();
  file->shutdown();
  std::filesystem::remove(path);
  std::printf(
      "tracing overhead on the loop thread (instant faux provider, 2 spans per turn, median of %d "
      "runs x %d turns)\n",
      kRuns, kTurnsPerRun);
  std::printf("  off (no-op span):     %7.2f us/turn\n", off);
  std::printf(
      "  on, OTLP/HTTP:        %7.2f us/turn   +%.2f us per span   (bar: < 5 us per span)\n",
      on_otlp, (on_otlp - off) / 2);
  std::printf("  on, file exporter:    %7.2f us/turn   +%.2f us per span\n", on_file,
              (on_file - off) / 2);
  std::printf(
      "  on, silent collector: %7.2f us/turn   +%.2f us per span (spans left queued or dropped: "
      "%llu queued; the loop did not wait)\n",
      on_stuck, (on_stuck - off) / 2, static_cast<unsigned long long>(stuck->stats().spans_queued));
  std::printf("  OTLP exported %llu spans, dropped %llu\n",
              static_cast<unsigned long long>(otlp->stats().spans_exported),
              static_cast<unsigned long long>(otlp->stats().spans_dropped));

  // Exporter CPU per 10,000 chat-like spans.
  std::vector<otel::SpanData> spans(10'000);
  for (auto& s : spans) {
    s.name = "chat claude-sonnet-4-5";
    s.kind = tracing::SpanKind::client;
    s.context.trace_id[0] = 1;
    s.context.span_id[0] = 2;
    s.attributes = {{"gen_ai.operation.name", std::string("chat")},
                    {"gen_ai.provider.name", std::string("anthropic")},
                    {"gen_ai.request.model", std::string("claude-sonnet-4-5")},
                    {"gen_ai.usage.input_tokens", std::int64_t{1234}},
                    {"gen_ai.usage.output_tokens", std::int64_t{56}},
                    {"gen_ai.response.finish_reasons", std::vector<std::string>{"end_turn"}},
                    {"gen_ai.response.time_to_first_chunk", 0.42}};
  }
  otel::Resource resource = otel::resource_of({});
  double c0 = cpu_ms();
  std::string body = otel::encode_traces_json(resource, spans);
  double c1 = cpu_ms();
  auto pipeline = std::make_shared<otel::OtlpHttpExporter>(o);
  double c2 = cpu_ms();
  for (const auto& s : spans) pipeline->on_end(s);
  pipeline->shutdown();
  double c3 = cpu_ms();
  std::printf(
      "exporter CPU per 10,000 spans: encode %.1f ms (%zu bytes); whole pipeline %.1f ms of "
      "process CPU "
      "(queue, thread, encode, POST, and the loopback collector's side)\n",
      c1 - c0, body.size(), c3 - c2);
  collector.stop();
  return 0;
}
