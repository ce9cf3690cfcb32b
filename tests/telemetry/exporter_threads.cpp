// The exporters' one thread against many producers: spans ended concurrently from 8 threads while
// the exporter batches and posts to a loopback collector, a flush in the middle, then shutdown.
// Every span is accounted for exactly once. Run under the tsan preset for the exporter thread.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "agentkit/telemetry/otlp.hpp"
#include "agentkit/telemetry/tracer.hpp"
#include "support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace std::chrono_literals;
namespace otel = agentkit::telemetry;

namespace {

void produce(const std::shared_ptr<tracing::Context>& tracer, int threads, int per_thread) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&tracer, per_thread] {
      auto parent = tracer->start_span("parent");
      for (int i = 0; i < per_thread; ++i) {
        auto child = parent->start_span("chat m", tracing::SpanKind::client);
        child->set_attributes({{"gen_ai.operation.name", std::string("chat")},
                               {"gen_ai.usage.input_tokens", std::int64_t{i}}});
        child->add_event("chunk");
        child->end();
      }
      parent->end();
    });
  }
  for (auto& w : workers) w.join();
}

}  // namespace

TEST_CASE(
    "spans ended on many threads are exported once each while the exporter batches on its thread") {
  otel::testing::Collector collector;
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.batch.max_batch = 64;
  o.batch.max_queue = 100'000;
  o.batch.schedule_delay = 2ms;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto tracer = otel::make_tracer({}, otlp);
  std::thread flusher([&] {
    for (int i = 0; i < 5; ++i) {
      (void)otlp->flush(5s);
      std::this_thread::sleep_for(1ms);
    }
  });
  produce(tracer, 8, 200);
  flusher.join();
  otlp->shutdown();
  auto s = otlp->stats();
  CHECK(s.spans_exported == 8 * 201);
  CHECK(s.spans_dropped == 0);
  CHECK(s.spans_failed == 0);
  CHECK(collector.requests_to("/v1/metrics").size() >= 1);
}

TEST_CASE("the file exporter takes spans from many threads and writes whole lines") {
  testing::TempDir dir;
  auto path = dir.path() / "t.jsonl";
  auto file = std::make_shared<otel::FileExporter>(
      path, otel::BatchOptions{.max_queue = 100'000, .max_batch = 50, .schedule_delay = 1ms});
  produce(otel::make_tracer({}, file), 4, 100);
  file->shutdown();
  CHECK(file->stats().spans_exported == 4 * 101);
  std::size_t spans = 0;
  for (const auto& line : [&] {
         std::vector<std::string> lines;
         std::string text = testing::read_file(path), cur;
         for (char c : text) {
           if (c == '\n') {
             lines.push_back(cur);
             cur.clear();
           } else {
             cur += c;
           }
         }
         return lines;
       }()) {
    auto doc = json::parse(line);
    REQUIRE(doc);
    if (const json::Value* rs = doc->find("resourceSpans")) {
      spans += rs->as_array()[0].find("scopeSpans")->as_array()[0].find("spans")->size();
    }
  }
  CHECK(spans == 4 * 101);
}
