// REQ-OBS-01/02 and issue 16: the loop's GenAI spans (invoke_agent, chat, execute_tool), their
// parenting through the span value, the no-op default, content capture, and OTLP/HTTP JSON and
// file export with every collector misbehaviour the issue names.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/telemetry/otlp.hpp"
#include "agentkit/telemetry/tracer.hpp"
#include "support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::testing;
using namespace std::chrono_literals;
namespace faux = agentkit::providers;
namespace otel = agentkit::telemetry;

namespace {

ToolDefinition tool(std::string name, bool fail,
                    std::function<void(const ToolContext&)> peek = {}) {
  ToolDefinition t;
  t.name = std::move(name);
  t.description = "test tool";
  t.input_schema = Schema();
  t.handler = [fail, peek](const json::Value&, const ToolContext& ctx) {
    if (peek) peek(ctx);
    return fail ? ToolResult::failure("not_found", "no such thing") : ToolResult::text_result("ok");
  };
  return t;
}

std::shared_ptr<faux::FauxProvider> two_turns() {
  auto first = faux::tool_call_response({faux::tool_call("call_1", "lookup", R"({"q":"a"})"),
                                         faux::tool_call("call_2", "broken", R"({})")});
  first.message.usage.input_tokens = 100;
  first.message.usage.cache_read_tokens = 20;
  first.message.usage.output_tokens = 7;
  first.message.response_id = "resp_1";
  auto second = faux::text_response("all done");
  second.message.usage.input_tokens = 130;
  second.message.usage.output_tokens = 3;
  return std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{first, second});
}

RuntimeConfig traced_runtime(std::shared_ptr<faux::FauxProvider> provider,
                             std::shared_ptr<otel::SpanExporter> exporter, bool capture = false) {
  RuntimeConfig rt;
  rt.model.spec = "faux/test-model";
  rt.providers.add("faux", std::move(provider));
  rt.observability.tracing.tracer =
      otel::make_tracer({.service_name = "tests", .seed = 42}, std::move(exporter));
  rt.observability.tracing.agent_name = "coder";
  rt.observability.tracing.capture_content = capture;
  return rt;
}

AgentDefinition two_tools(std::function<void(const ToolContext&)> peek = {}) {
  AgentDefinition def;
  def.instructions = "be brief";
  def.tools.direct.push_back(tool("lookup", false, peek));
  def.tools.direct.push_back(tool("broken", true));
  return def;
}

const otel::SpanData* named(const std::vector<otel::SpanData>& spans, std::string_view prefix,
                            int nth = 0) {
  for (const auto& s : spans) {
    if (s.name.rfind(prefix, 0) == 0 && nth-- == 0) return &s;
  }
  return nullptr;
}

std::vector<otel::SpanData> run_traced(bool capture = false) {
  auto memory = std::make_shared<otel::MemoryExporter>();
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), memory, capture)).value();
  auto result = agent.run(Input("find a"));
  REQUIRE(result);
  return memory->spans();
}

json::Value parse(const std::string& text) { return json::parse(text).value(); }

const json::Value* attr(const json::Value& span, std::string_view key) {
  for (const auto& a : span.find("attributes")->as_array()) {
    if (a.find("key")->as_string() == key) return a.find("value");
  }
  return nullptr;
}

// A collector that accepts, reads the request head and a little of its body, then closes.
class CutCollector {
 public:
  CutCollector() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        if (stopping_) {
          ::close(c);
          return;
        }
        ++accepted_;
        std::string got;
        char buf[512];
        while (got.find("\r\n\r\n") == std::string::npos) {
          ssize_t n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          got.append(buf, static_cast<std::size_t>(n));
        }
        ::close(c);  // mid-request: the body is not all read, nothing is answered
      }
    });
  }
  ~CutCollector() {
    stopping_ = true;
    int c = ::socket(AF_INET, SOCK_STREAM, 0);  // wake accept()
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    thread_.join();
    ::close(c);
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int accepted() const { return accepted_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

}  // namespace

TEST_CASE(
    "a run is one invoke_agent span with a chat span per model call and an execute_tool span per "
    "call") {
  auto spans = run_traced();
  REQUIRE(spans.size() == 5);  // 1 run + 2 chat + 2 tools
  const auto* run = named(spans, "invoke_agent coder");
  const auto* chat1 = named(spans, "chat test-model", 0);
  const auto* chat2 = named(spans, "chat test-model", 1);
  const auto* lookup = named(spans, "execute_tool lookup");
  const auto* broken = named(spans, "execute_tool broken");
  REQUIRE(run);
  REQUIRE(chat1);
  REQUIRE(chat2);
  REQUIRE(lookup);
  REQUIRE(broken);
  CHECK_FALSE(run->parent_span_id);
  for (const auto* child : {chat1, chat2, lookup, broken}) {
    CHECK(child->context.trace_id == run->context.trace_id);
    REQUIRE(child->parent_span_id);
    CHECK(*child->parent_span_id == run->context.span_id);  // parenting through the span value
  }
  CHECK(chat1->kind == tracing::SpanKind::client);
  CHECK(otel::string_attribute(*run, "gen_ai.operation.name") == "invoke_agent");
  CHECK(otel::string_attribute(*run, "gen_ai.agent.name") == "coder");
  CHECK(otel::int_attribute(*run, "agentkit.run.turn_count") == 2);
  CHECK(otel::int_attribute(*run, "gen_ai.usage.input_tokens") == 250);
}

TEST_CASE("a chat span carries the GenAI request, response and usage attributes") {
  auto spans = run_traced();
  const auto* chat = named(spans, "chat test-model");
  REQUIRE(chat);
  CHECK(otel::string_attribute(*chat, "gen_ai.operation.name") == "chat");
  CHECK(otel::string_attribute(*chat, "gen_ai.provider.name") == "faux");
  CHECK(otel::string_attribute(*chat, "gen_ai.request.model") == "test-model");
  CHECK(otel::string_attribute(*chat, "gen_ai.response.id") == "resp_1");
  CHECK(otel::int_attribute(*chat, "gen_ai.usage.input_tokens") == 120);  // cached tokens included
  CHECK(otel::int_attribute(*chat, "gen_ai.usage.cache_read.input_tokens") == 20);
  CHECK(otel::int_attribute(*chat, "gen_ai.usage.output_tokens") == 7);
  const auto* reasons = otel::find_attribute(*chat, "gen_ai.response.finish_reasons");
  REQUIRE(reasons);
  CHECK(std::get<std::vector<std::string>>(*reasons) == std::vector<std::string>{"tool_use"});
  auto stream = otel::find_attribute(*chat, "gen_ai.request.stream");
  REQUIRE(stream);
  CHECK(std::get<bool>(*stream));
  auto ttfc = otel::double_attribute(*chat, "gen_ai.response.time_to_first_chunk");
  REQUIRE(ttfc);
  CHECK(*ttfc >= 0);
  CHECK(chat->start_unix_nano <= chat->end_unix_nano);
}

TEST_CASE("an execute_tool span names the tool and call id, and a failed call carries error.type") {
  auto spans = run_traced();
  const auto* ok = named(spans, "execute_tool lookup");
  const auto* bad = named(spans, "execute_tool broken");
  REQUIRE(ok);
  REQUIRE(bad);
  CHECK(otel::string_attribute(*ok, "gen_ai.tool.name") == "lookup");
  CHECK(otel::string_attribute(*ok, "gen_ai.tool.call.id") == "call_1");
  CHECK(otel::string_attribute(*ok, "gen_ai.tool.type") == "function");
  CHECK(ok->status == tracing::StatusCode::unset);
  CHECK_FALSE(otel::find_attribute(*ok, "error.type"));
  CHECK(otel::string_attribute(*bad, "error.type") == "not_found");
  CHECK(bad->status == tracing::StatusCode::error);
}

TEST_CASE("content is captured only when opted in") {
  auto off = run_traced(false);
  for (const auto& s : off) {
    CHECK_FALSE(otel::find_attribute(s, "gen_ai.input.messages"));
    CHECK_FALSE(otel::find_attribute(s, "gen_ai.tool.call.arguments"));
    CHECK_FALSE(otel::find_attribute(s, "gen_ai.system_instructions"));
  }
  auto on = run_traced(true);
  const auto* chat = named(on, "chat test-model");
  const auto* lookup = named(on, "execute_tool lookup");
  REQUIRE(chat);
  REQUIRE(lookup);
  auto input = otel::string_attribute(*chat, "gen_ai.input.messages");
  REQUIRE(input);
  CHECK(input->find("find a") != std::string::npos);
  CHECK(otel::string_attribute(*lookup, "gen_ai.tool.call.arguments") == R"({"q":"a"})");
}

TEST_CASE("with tracing off the loop sees the shared no-op span, which owns and keeps nothing") {
  auto a = tracing::noop_span();
  auto b = tracing::noop_context()->start_span("x");
  CHECK(a.get() == b.get());
  CHECK(a.use_count() == 0);  // no control block: copying it touches no reference count
  CHECK_FALSE(a->recording());
  CHECK_FALSE(a->context().valid());
  CHECK(a->context().traceparent().empty());
  auto shared = std::make_shared<int>(7);
  a->set_attribute("k", std::string("v"));
  CHECK(shared.use_count() == 1);
  // A run without a tracer hands tools no span.
  bool saw_span = true;
  RuntimeConfig rt;
  rt.model.spec = "faux/test-model";
  rt.providers.add("faux", two_turns());
  auto agent =
      make_agent(two_tools([&](const ToolContext& ctx) { saw_span = ctx.span != nullptr; }), rt)
          .value();
  REQUIRE(agent.run(Input("go")));
  CHECK_FALSE(saw_span);
}

TEST_CASE("a nested span started on its parent records that parent, across threads") {
  auto memory = std::make_shared<otel::MemoryExporter>();
  auto tracer = otel::make_tracer({}, memory);
  auto outer = tracer->start_span("outer");
  std::thread([&] { outer->start_span("inner")->end(); }).join();
  outer->end();
  auto spans = memory->spans();
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].name == "inner");
  REQUIRE(spans[0].parent_span_id);
  CHECK(*spans[0].parent_span_id == spans[1].context.span_id);
  auto tp = outer->context().traceparent();
  CHECK(tp.size() == 55);
  CHECK(tp.substr(0, 3) == "00-");
  CHECK(tp.substr(53) == "01");
}

TEST_CASE(
    "the OTLP exporter posts hex ids, integer enums and int64 as decimal strings to /v1/traces") {
  otel::testing::Collector collector;
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.headers = {{"x-tenant", "t1"}};
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(10s));
  auto posts = collector.requests_to("/v1/traces");
  REQUIRE(posts.size() == 1);
  CHECK(posts[0].headers.get("Content-Type") == "application/json");
  CHECK(posts[0].headers.get("x-tenant") == "t1");
  json::Value doc = parse(posts[0].body);
  const json::Value& rs = doc.find("resourceSpans")->as_array()[0];
  CHECK(attr(*rs.find("resource"), "service.name")->find("stringValue")->as_string() == "agentkit");
  const json::Value& spans = *rs.find("scopeSpans")->as_array()[0].find("spans");
  REQUIRE(spans.size() == 5);
  for (const auto& s : spans.as_array()) {
    CHECK(s.find("traceId")->as_string().size() == 32);
    CHECK(s.find("spanId")->as_string().size() == 16);
    CHECK(s.find("kind")->is_number());
    CHECK(s.find("startTimeUnixNano")->is_string());
  }
  const json::Value* chat = nullptr;
  for (const auto& s : spans.as_array()) {
    if (s.find("name")->as_string() == "chat test-model" && chat == nullptr) chat = &s;
  }
  REQUIRE(chat);
  CHECK(chat->find("kind")->number_text() == "3");
  CHECK(attr(*chat, "gen_ai.usage.output_tokens")->find("intValue")->as_string() == "7");
  CHECK(attr(*chat, "gen_ai.request.stream")->find("boolValue")->as_bool());
  CHECK(otlp->stats().spans_exported == 5);
}

TEST_CASE("the OTLP exporter posts GenAI histograms to /v1/metrics after a span batch") {
  otel::testing::Collector collector;
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(10s));
  auto posts = collector.requests_to("/v1/metrics");
  REQUIRE(posts.size() == 1);
  json::Value doc = parse(posts[0].body);
  const json::Value& metrics = *doc.find("resourceMetrics")
                                    ->as_array()[0]
                                    .find("scopeMetrics")
                                    ->as_array()[0]
                                    .find("metrics");
  std::vector<std::string> names;
  for (const auto& m : metrics.as_array()) names.push_back(m.find("name")->as_string());
  CHECK(names == std::vector<std::string>{"gen_ai.client.token.usage",
                                          "gen_ai.client.operation.duration",
                                          "gen_ai.client.operation.time_to_first_chunk"});
  const json::Value& tokens = metrics.as_array()[0];
  CHECK(tokens.find("unit")->as_string() == "{token}");
  const json::Value& points = *tokens.find("histogram")->find("dataPoints");
  REQUIRE(points.size() == 2);  // input and output
  std::int64_t total = 0;
  for (const auto& p : points.as_array())
    total += json::parse(p.find("sum")->number_text()).value().to_int64().value_or(0);
  CHECK(total == 120 + 7 + 130 + 3);
  CHECK(points.as_array()[0].find("count")->as_string() == "2");
}

TEST_CASE("a 400 with partial_success and a 413 drop the batch without a retry and say why") {
  for (int status : {400, 413}) {
    otel::testing::Collector collector([status](std::size_t, const http::ServerRequest&,
                                                http::ResponseWriter& out) {
      (void)out.respond(status, {{"Content-Type", "application/json"}},
                        R"({"partialSuccess":{"rejectedSpans":"5","errorMessage":"bad span"}})");
    });
    otel::OtlpOptions o;
    o.endpoint = collector.url();
    o.export_metrics = false;
    o.initial_backoff = 1ms;
    auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
    auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
    auto result = agent.run(Input("find a"));
    REQUIRE(result);
    CHECK(result->final_text == "all done");  // the run is unaffected
    REQUIRE(otlp->flush(10s));
    auto s = otlp->stats();
    CHECK(s.requests == 1);
    CHECK(s.retries == 0);
    CHECK(s.spans_failed == 5);
    CHECK(s.spans_exported == 0);
    CHECK(s.last_error.find(std::to_string(status)) != std::string::npos);
  }
}

TEST_CASE("a 200 with partial_success counts the rejected spans") {
  otel::testing::Collector collector(
      [](std::size_t, const http::ServerRequest&, http::ResponseWriter& out) {
        (void)out.respond(
            200, {{"Content-Type", "application/json"}},
            R"({"partialSuccess":{"rejectedSpans":"2","errorMessage":"2 spans too old"}})");
      });
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(10s));
  auto s = otlp->stats();
  CHECK(s.spans_rejected == 2);
  CHECK(s.spans_exported == 3);
  CHECK(s.last_error.find("2 spans too old") != std::string::npos);
}

TEST_CASE(
    "a collector's errorMessage of half a megabyte is cut to its bound; a huge count is none") {
  const std::string huge(std::size_t(512) << 10, 'x');  // within the 1 MiB the exporter reads
  otel::testing::Collector collector(
      [&huge](std::size_t, const http::ServerRequest&, http::ResponseWriter& out) {
        (void)out.respond(200, {{"Content-Type", "application/json"}},
                          R"({"partialSuccess":{"rejectedSpans":"18446744073709551616",)"
                          R"("errorMessage":")" +
                              huge + R"("}})");
      });
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(10s));
  auto s = otlp->stats();
  CHECK(s.spans_rejected == 0);  // 2^64 is no count
  CHECK(s.spans_exported == 5);
  CHECK(s.last_error.find("xxxx...") != std::string::npos);
  CHECK(s.last_error.size() < 2048);
}

TEST_CASE(
    "a 503 with Retry-After 3600 is retried, the wait capped, and only 429/502/503/504 retry") {
  otel::testing::Collector collector(
      [](std::size_t n, const http::ServerRequest&, http::ResponseWriter& out) {
        if (n == 0) {
          (void)out.respond(503, {{"Retry-After", "3600"}}, "busy");
        } else {
          (void)out.respond(200, {{"Content-Type", "application/json"}}, "{}");
        }
      });
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  o.max_retry_delay = 20ms;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(10s));
  auto s = otlp->stats();
  CHECK(s.requests == 2);
  CHECK(s.retries == 1);
  CHECK(s.spans_exported == 5);
  CHECK(collector.requests_to("/v1/traces")[0].body == collector.requests_to("/v1/traces")[1].body);
}

// Retry-After as an HTTP date (RFC 9110 §10.2.3). The waits are told apart by counts, not clocks:
// a backoff of ten minutes never ends within the test, a wait of zero ends at once.
TEST_CASE(
    "a 503 with Retry-After as an HTTP date in the past is retried at once, not after backoff") {
  otel::testing::Collector collector(
      [](std::size_t n, const http::ServerRequest&, http::ResponseWriter& out) {
        if (n == 0) {
          (void)out.respond(503, {{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}}, "busy");
        } else {
          (void)out.respond(200, {{"Content-Type", "application/json"}}, "{}");
        }
      });
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  o.initial_backoff = 10min;  // what a date read as absent would wait
  o.max_retry_delay = 10min;
  o.timeout = 2s;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(20s));
  auto s = otlp->stats();
  CHECK(s.requests == 2);
  CHECK(s.retries == 1);
  CHECK(s.spans_exported == 5);
}

TEST_CASE(
    "a 503 with Retry-After as a future HTTP date waits for it (up to the cap), not backoff") {
  otel::testing::Collector collector(
      [](std::size_t n, const http::ServerRequest&, http::ResponseWriter& out) {
        if (n == 0) {
          (void)out.respond(503, {{"Retry-After", "Fri, 31 Dec 2100 23:59:59 GMT"}}, "busy");
        } else {
          (void)out.respond(200, {{"Content-Type", "application/json"}}, "{}");
        }
      });
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  o.initial_backoff = 1ms;    // what a date read as absent would wait
  o.max_retry_delay = 10min;  // the date's wait, capped, still outlasts the test
  o.timeout = 200ms;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
  auto result = agent.run(Input("find a"));
  REQUIRE(result);
  CHECK(result->final_text == "all done");  // the loop never waits on the exporter's wait
  CHECK_FALSE(otlp->flush(500ms));
  auto s = otlp->stats();
  CHECK(s.requests == 1);
  CHECK(s.retries == 1);
  CHECK(s.spans_exported == 0);
  otlp->shutdown();  // abandons the wait
}

TEST_CASE(
    "a collector that never answers or closes mid-request costs the run nothing and is counted") {
  SECTION("never answers") {
    otel::testing::Collector collector(
        [](std::size_t, const http::ServerRequest&, http::ResponseWriter& out) {
          auto stop = out.stop_token();
          while (!stop.stop_requested()) std::this_thread::sleep_for(5ms);
        });
    otel::OtlpOptions o;
    o.endpoint = collector.url();
    o.export_metrics = false;
    o.timeout = 100ms;
    o.max_retries = 1;
    o.initial_backoff = 1ms;
    o.batch.schedule_delay = 1ms;
    auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
    auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
    auto result = agent.run(Input("find a"));  // the loop never waits on export
    REQUIRE(result);
    CHECK(result->final_text == "all done");
    otlp->flush(10s);
    auto s = otlp->stats();
    CHECK(s.requests >= 2);
    CHECK(s.spans_exported == 0);
    CHECK(s.spans_failed + s.spans_dropped == 5);
    CHECK_FALSE(s.last_error.empty());
  }
  SECTION("closes mid-request") {
    CutCollector cut;  // reads part of each request, then closes without answering
    otel::OtlpOptions o;
    o.endpoint = cut.url();
    o.export_metrics = false;
    o.max_retries = 2;
    o.initial_backoff = 1ms;
    auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
    auto agent = make_agent(two_tools(), traced_runtime(two_turns(), otlp)).value();
    auto result = agent.run(Input("find a"));
    REQUIRE(result);
    CHECK(result->final_text == "all done");
    REQUIRE(otlp->flush(10s));
    auto s = otlp->stats();
    CHECK(s.requests == 3);  // retried as a transport failure, then given up
    CHECK(s.retries == 2);
    CHECK(s.spans_failed == 5);
    CHECK(s.spans_exported == 0);
    CHECK(s.last_error.find("failed") != std::string::npos);
    CHECK(cut.accepted() >= 3);
  }
}

TEST_CASE("a full export queue drops spans and counts them; on_end never waits") {
  otel::testing::Collector collector(
      [](std::size_t, const http::ServerRequest&, http::ResponseWriter& out) {
        auto stop = out.stop_token();
        while (!stop.stop_requested()) std::this_thread::sleep_for(5ms);
      });
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  o.timeout = 200ms;
  o.max_retries = 0;
  o.batch.max_queue = 4;
  o.batch.max_batch = 2;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);
  auto tracer = otel::make_tracer({}, otlp);
  for (int i = 0; i < 100; ++i) tracer->start_span("s")->end();
  CHECK(otlp->stats().spans_dropped >= 90);  // dropped at on_end, not later at shutdown
  otlp->shutdown();
  auto s = otlp->stats();
  CHECK(s.spans_dropped >= 90);
  CHECK(s.spans_exported + s.spans_failed + s.spans_dropped == 100);  // each span accounted once
  CHECK(s.spans_exported == 0);
}

TEST_CASE("OTEL_EXPORTER_OTLP_* environment variables configure the exporter") {
  std::map<std::string, std::string> env{
      {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"},
      {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:9999/custom"},
      {"OTEL_EXPORTER_OTLP_HEADERS", "api-key=abc%20def, x-b = 2"},
      {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-b=3"},
      {"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"},
      {"OTEL_SERVICE_NAME", "svc"},
      {"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=prod,service.name=ignored"},
      {"OTEL_BSP_SCHEDULE_DELAY", "250"},
  };
  auto o = otel::OtlpOptions::from_environment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  CHECK(o.endpoint == "http://collector:4318/");
  CHECK(o.traces_endpoint == "http://traces:9999/custom");
  CHECK_FALSE(o.metrics_endpoint);
  REQUIRE(o.headers.size() == 2);
  CHECK(o.headers[0] == std::pair<std::string, std::string>{"api-key", "abc def"});
  CHECK(o.headers[1] == std::pair<std::string, std::string>{"x-b", "3"});
  CHECK(o.timeout == 2500ms);
  CHECK(o.batch.schedule_delay == 250ms);
  CHECK(std::get<std::string>(o.resource.attributes[0].value) == "svc");
  bool env_attr = false;
  for (const auto& a : o.resource.attributes) env_attr |= a.key == "deployment.environment.name";
  CHECK(env_attr);
}

TEST_CASE("the file exporter writes the same OTLP JSON documents as lines") {
  TempDir dir;
  auto path = dir.path() / "spans.jsonl";
  auto file = std::make_shared<otel::FileExporter>(path);
  auto agent = make_agent(two_tools(), traced_runtime(two_turns(), file)).value();
  REQUIRE(agent.run(Input("find a")));
  file->shutdown();
  std::ifstream in(path);
  std::string traces, metrics;
  REQUIRE(std::getline(in, traces));
  REQUIRE(std::getline(in, metrics));
  json::Value t = parse(traces);
  CHECK(t.find("resourceSpans")
            ->as_array()[0]
            .find("scopeSpans")
            ->as_array()[0]
            .find("spans")
            ->size() == 5);
  CHECK(parse(metrics).find("resourceMetrics"));
  CHECK(file->stats().spans_exported == 5);
}

namespace {

// A conversation in a 2,000-token window, compacting above 1,600: the second run's request is
// over the line, so it compacts first. Summary calls (session id ".../compaction") answer
// `summary_text`, or fail when it is empty.
std::vector<otel::SpanData> run_compacting(const std::string& summary_text) {
  auto memory = std::make_shared<otel::MemoryExporter>();
  auto provider = std::make_shared<faux::FauxProvider>([summary_text](const Request& r) {
    const std::string_view id = r.session_id;
    if (id.size() > 11 && id.substr(id.size() - 11) == "/compaction") {
      if (summary_text.empty()) return faux::error_response("summary refused");
      return faux::text_response(summary_text);
    }
    return faux::text_response(std::string(2'400, 'r'));  // about 600 estimated tokens
  });
  RuntimeConfig rt = traced_runtime(provider, memory);
  rt.compaction.enabled = true;
  rt.compaction.context_window = 2'000;
  rt.compaction.reserve_tokens = 400;
  rt.compaction.keep_recent_tokens = 400;
  AgentDefinition def;
  def.instructions = "be brief";
  auto agent = make_agent(std::move(def), std::move(rt)).value();
  auto session = agent.start().value();
  for (int i = 0; i < 3; ++i) REQUIRE(session.run(Turn(Input(std::string(1'200, 'u')))));
  return memory->spans();
}

}  // namespace

TEST_CASE("a compaction is a span under its run, with the summary call as a chat span beneath it") {
  auto spans = run_compacting("SUMMARY");
  const auto* compaction = named(spans, "compaction");
  REQUIRE(compaction);
  REQUIRE(compaction->parent_span_id);
  const otel::SpanData* run = nullptr;
  for (const auto& s : spans) {
    if (s.context.span_id == *compaction->parent_span_id) run = &s;
  }
  REQUIRE(run);
  CHECK(run->name == "invoke_agent coder");
  CHECK(otel::string_attribute(*compaction, "agentkit.compaction.trigger") == "threshold");
  CHECK(otel::int_attribute(*compaction, "agentkit.compaction.tokens_before") > 1'600);
  CHECK(otel::int_attribute(*compaction, "agentkit.compaction.tokens_after") <
        otel::int_attribute(*compaction, "agentkit.compaction.tokens_before"));
  CHECK(otel::int_attribute(*compaction, "agentkit.compaction.messages_summarised") > 0);
  int summary_chats = 0;
  for (const auto& s : spans) {
    if (s.name.rfind("chat ", 0) == 0 && s.parent_span_id &&
        *s.parent_span_id == compaction->context.span_id) {
      ++summary_chats;
    }
  }
  CHECK(summary_chats == 1);
}

TEST_CASE("a failed compaction's span carries error.type and an error status") {
  auto spans = run_compacting("");
  const auto* compaction = named(spans, "compaction");
  REQUIRE(compaction);
  CHECK(otel::string_attribute(*compaction, "error.type") == "compaction_failed");
  CHECK(compaction->status == tracing::StatusCode::error);
  CHECK_FALSE(otel::find_attribute(*compaction, "agentkit.compaction.tokens_after"));
}
