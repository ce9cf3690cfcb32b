// Provider machinery benchmarks: what the shared per-request work costs next to a model call.
// Prints figures; asserts nothing (budgets are tests elsewhere, counted not timed).
//   send-time repair on a clean transcript (the common case: no copy) and on a damaged one;
//   catalog load and resolution; header merging; cost; the semantic classifier;
//   a full pipeline round trip over keep-alive loopback next to the bare HttpClient.
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/providers/cost.hpp"
#include "agentkit/providers/headers.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/repair.hpp"
#include "agentkit/providers/retry.hpp"

using namespace agentkit;
using namespace agentkit::providers;
using BenchClock = std::chrono::steady_clock;

namespace {

volatile std::size_t g_sink = 0;  // keeps results observable so loops are not optimised away

template <class F>
double ns_per_op(std::size_t iterations, F&& f) {
  auto start = BenchClock::now();
  for (std::size_t i = 0; i < iterations; ++i) f();
  auto elapsed = std::chrono::duration<double, std::nano>(BenchClock::now() - start).count();
  return elapsed / static_cast<double>(iterations);
}

Model claude() { return catalog::Catalog::builtin().resolve("anthropic/claude-sonnet-5-5").value(); }

// A long tool-using session from `producer`, `turns` tool round trips.
std::vector<Message> session(const Model& producer, int turns, bool damaged) {
  std::vector<Message> h;
  h.push_back(user_text("refactor the parser"));
  for (int t = 0; t < turns; ++t) {
    AssistantMessage a;
    a.provider = producer.vendor;
    a.api = producer.api;
    a.model = producer.id;
    a.content.push_back(ThinkingBlock{"considering the next file", "sig", false, ""});
    a.content.push_back(TextBlock{"Reading the next file."});
    std::string id = "call:" + std::to_string(t) + "/x";
    a.content.push_back(ToolUseBlock{id, "read_file", json::Raw(R"({"path":"src/a.cpp"})"), ""});
    if (damaged && t % 10 == 9) a.stop_reason = StopReason::aborted;
    h.push_back(a);
    ToolResultMessage r;
    r.tool_use_id = id;
    r.tool_name = "read_file";
    r.content.push_back(TextBlock{std::string(2000, 'x')});
    h.push_back(r);
  }
  return h;
}

void bench_repair() {
  Model target = claude();
  Model other = catalog::Catalog::builtin().resolve("openai/gpt-6.2-sol").value();
  auto clean = session(target, 100, false);
  auto damaged = session(other, 100, true);
  double clean_ns = ns_per_op(2000, [&] { g_sink = g_sink + repair_for_send(clean, target).messages().size(); });
  double damaged_ns = ns_per_op(200, [&] { g_sink = g_sink + repair_for_send(damaged, target).messages().size(); });
  std::printf("repair_for_send, 201-message same-model transcript (no copy): %10.0f ns/request  (%.1f ns/message)\n",
              clean_ns, clean_ns / static_cast<double>(clean.size()));
  std::printf("repair_for_send, 201-message cross-model damaged transcript:   %10.0f ns/request  (%.1f ns/message)\n",
              damaged_ns, damaged_ns / static_cast<double>(damaged.size()));
}

void bench_catalog() {
  auto start = BenchClock::now();
  const auto& cat = catalog::Catalog::builtin();
  double load_ms = std::chrono::duration<double, std::milli>(BenchClock::now() - start).count();
  std::size_t rows = 0;
  for (const auto& v : cat.vendors()) rows += v.models.size();
  std::printf("catalog: built-in load (first use), %zu vendors, %zu rows:    %10.3f ms\n", cat.vendors().size(), rows, load_ms);
  double exact = ns_per_op(100000, [&] { g_sink = g_sink + cat.resolve("anthropic/claude-sonnet-5-5")->id.size(); });
  double clone = ns_per_op(100000, [&] { g_sink = g_sink + cat.resolve("anthropic/claude-sonnet-9")->id.size(); });
  double gateway = ns_per_op(100000, [&] { g_sink = g_sink + cat.resolve("openrouter/anthropic/claude-sonnet-5.5")->id.size(); });
  std::printf("catalog: resolve exact row:                                   %10.0f ns/op\n", exact);
  std::printf("catalog: resolve unknown id (sibling clone):                  %10.0f ns/op\n", clone);
  std::printf("catalog: resolve gateway id with slashes:                     %10.0f ns/op\n", gateway);
  Model m = claude();
  double clamp = ns_per_op(1000000, [&] { g_sink = g_sink + static_cast<std::size_t>(catalog::clamp_max_tokens(m, 64000, 123456)); });
  std::printf("catalog: clamp_max_tokens:                                    %10.1f ns/op\n", clamp);
}

void bench_small_things() {
  HeaderOverrides wire = {{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}, {"accept", "text/event-stream"}};
  HeaderOverrides credential = {{"x-api-key", "sk-ant-api03-0123456789"}};
  HeaderOverrides config = {{"X-Team", "infra"}};
  HeaderOverrides request = {{"x-api-key", std::nullopt}, {"X-Gw-Key", "k"}};
  std::array layers = {HeaderLayer{"provider default", &wire}, HeaderLayer{"credential", &credential, true},
                       HeaderLayer{"configuration", &config}, HeaderLayer{"per request", &request}};
  double merge = ns_per_op(200000, [&] { g_sink = g_sink + merge_headers(layers)->size(); });
  std::printf("merge_headers, 4 layers, 7 entries:                           %10.0f ns/op\n", merge);
  Model m = claude();
  Usage u;
  u.input_tokens = 1200;
  u.output_tokens = 800;
  u.cache_read_tokens = 90000;
  u.cache_write_tokens = 3000;
  u.cache_write_1h_tokens = 1000;
  double cost = ns_per_op(1000000, [&] { g_sink = g_sink + static_cast<std::size_t>(price_usage(u, m.pricing, "flex").total * 1e6); });
  std::printf("price_usage:                                                  %10.1f ns/op\n", cost);
  double classify = ns_per_op(200000, [&] {
    g_sink = g_sink + is_retryable_error_text("HTTP 529 from api.anthropic.com: overloaded_error: Overloaded");
  });
  std::printf("is_retryable_error_text (allow-list hit, 62 bytes):           %10.0f ns/op\n", classify);
}

void bench_round_trips() {
  const std::string sse = "event: message\ndata: {\"text\":\"hi\"}\n\nevent: done\ndata: {}\n\n";
  auto server = http::HttpServer::start({}, [&](const http::ServerRequest&, http::ResponseWriter& out) {
    (void)out.respond(200, {{"Content-Type", "text/event-stream"}}, sse);
  });
  if (!server) {
    std::printf("round trips: cannot start the loopback server: %s\n", server.error().message.c_str());
    return;
  }
  auto client = std::make_shared<http::HttpClient>();
  constexpr int kRequests = 3000;
  http::Request bare{.method = "POST", .url = server->base_url() + "/v1/messages", .body = "{}"};
  bare.headers.add("content-type", "application/json");
  auto start = BenchClock::now();
  for (int i = 0; i < kRequests; ++i) {
    auto r = client->send(bare);
    if (r) g_sink = g_sink + r->read_all()->size();
  }
  double bare_s = std::chrono::duration<double>(BenchClock::now() - start).count();

  ProviderOptions o;
  o.http = client;
  o.credentials.environment = fixed_environment({{"ANTHROPIC_API_KEY", "sk-ant-api03-bench-0123456789"}});
  RequestPipeline pipeline(o);
  Model m = claude();
  m.base_url = server->base_url();
  start = BenchClock::now();
  for (int i = 0; i < kRequests; ++i) {
    SseBodyDecoder decoder([](const wire::SseEvent& ev) -> Result<void> {
      g_sink = g_sink + ev.data.size();
      return {};
    });
    auto failure = pipeline.run(m, {"/v1/messages", "{}", {{"content-type", "application/json"}}}, {}, decoder);
    if (failure) g_sink = g_sink + 1;
  }
  double pipe_s = std::chrono::duration<double>(BenchClock::now() - start).count();
  std::printf("round trips, keep-alive loopback, bare HttpClient:            %10.0f req/s\n", kRequests / bare_s);
  std::printf("round trips, keep-alive loopback, RequestPipeline + SSE:      %10.0f req/s  (%.1f us/request added)\n",
              kRequests / pipe_s, (pipe_s - bare_s) / kRequests * 1e6);
}

}  // namespace

int main() {
  bench_catalog();  // first: it times the built-in catalog's first load
  bench_repair();
  bench_small_things();
  bench_round_trips();
  return g_sink == 42 ? 1 : 0;
}
