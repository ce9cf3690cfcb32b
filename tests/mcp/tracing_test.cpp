// The MCP client's tracing (issue 16): a tools/call made under a caller's span gets a client span
// `tools/call {tool}` under it, and the server receives that span's W3C trace context —
// `_meta.traceparent` over stdio (logged by the Python peer), the `traceparent` header over HTTP
// (seen by a recording proxy in front of our HTTP server). Without a span nothing is sent.
#include <algorithm>
#include <atomic>
#include <mutex>

#include "agentkit/base/strings.hpp"
#include "agentkit/core/tracing.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/server.hpp"
#include "mcp_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;

namespace {

// A minimal recording implementation of the core interfaces, independent of agentkit_telemetry.
struct SpanLog {
  std::mutex mu;
  std::vector<std::string> started;  // "name <- parent span id byte"
  std::vector<std::string> attributes;
  int ended = 0;
  std::atomic<std::uint8_t> next{1};
};

class TestSpan final : public tracing::Span {
 public:
  TestSpan(std::shared_ptr<SpanLog> log, std::uint8_t id) : log_(std::move(log)) {
    ctx_.trace_id.fill(0xab);
    ctx_.span_id.fill(0);
    ctx_.span_id[7] = id;
    ctx_.flags = 1;
  }
  std::shared_ptr<tracing::Span> start_span(std::string_view name, tracing::SpanKind) override {
    auto child = std::make_shared<TestSpan>(log_, log_->next++);
    std::lock_guard lock(log_->mu);
    log_->started.push_back(std::string(name) + " <- " + std::to_string(ctx_.span_id[7]));
    return child;
  }
  bool recording() const noexcept override { return true; }
  tracing::SpanContext context() const noexcept override { return ctx_; }
  void set_attributes(std::span<const tracing::Attribute> attributes) override {
    std::lock_guard lock(log_->mu);
    for (const auto& a : attributes) {
      if (const auto* s = std::get_if<std::string>(&a.value))
        log_->attributes.push_back(a.key + "=" + *s);
    }
  }
  void add_event(std::string_view, std::span<const tracing::Attribute>) override {}
  void set_status(tracing::StatusCode, std::string_view) override {}
  void end() override {
    std::lock_guard lock(log_->mu);
    ++log_->ended;
  }

 private:
  std::shared_ptr<SpanLog> log_;
  tracing::SpanContext ctx_;
};

json::Value args(std::string_view text) { return json::parse(text).value(); }

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE(
    "an MCP call over stdio carries traceparent in _meta, from its own client span, in both eras") {
  for (std::string mode : {"modern", "legacy"}) {
    testing::TempDir dir;
    auto client =
        mcp::Client::connect(mcp_test::fake(mode, dir.path() / "log"), mcp_test::quick_options());
    REQUIRE(client);
    auto log = std::make_shared<SpanLog>();
    TestSpan parent(log, 0x10);
    mcp::CallControl control;
    control.span = &parent;
    REQUIRE(client->call_tool("ok", args("{}"), control));
    REQUIRE(client->call_tool("ok", args("{}")));  // untraced
    std::vector<std::string> calls;
    for (const auto& line : mcp_test::read_lines(dir.path() / "log")) {
      if (line.find("tools/call") != std::string::npos) calls.push_back(line);
    }
    REQUIRE(calls.size() == 2);
    // The child span got id 1: the server sees the MCP span's context, not the caller's.
    const std::string expected =
        R"("traceparent":"00-abababababababababababababababab-0000000000000001-01")";
    INFO(calls[0]);
    CHECK(calls[0].find(expected) != std::string::npos);
    CHECK(calls[1].find("traceparent") == std::string::npos);
    std::lock_guard lock(log->mu);
    CHECK(log->started == std::vector<std::string>{"tools/call ok <- 16"});
    CHECK(has(log->attributes, "mcp.method.name=tools/call"));
    CHECK(has(log->attributes, "network.transport=pipe"));
    CHECK(log->ended == 1);
  }
}

TEST_CASE("an MCP call over HTTP carries traceparent as a header, and not in _meta") {
  mcp::Server server;
  REQUIRE(
      server.add_tool({.name = "count", .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
                         return mcp::ServerToolResult::text("counted");
                       }}));
  mcp::HttpServeOptions serve;
  serve.api_key = "k";
  auto service = server.serve_http(serve);
  REQUIRE(service);
  // A recording proxy in front of it: what headers and bodies reach the server.
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> seen;  // traceparent header (or "-"), body
  http::HttpClient upstream;
  const std::string target = service->url();
  auto proxy =
      http::HttpServer::start({}, [&](const http::ServerRequest& req, http::ResponseWriter& out) {
        {
          std::lock_guard lock(mu);
          auto tp = req.headers.get("traceparent");
          seen.emplace_back(tp ? std::string(*tp) : "-", req.body);
        }
        http::Request fwd{.method = req.method, .url = target};
        for (const auto& h : req.headers) {
          if (!agentkit::iequals(h.name, "Host") && !agentkit::iequals(h.name, "Content-Length"))
            fwd.headers.add(h.name, h.value);
        }
        fwd.body = req.body;
        auto resp =
            upstream.send(fwd, out.stop_token());  // streams (SSE) pass through as they come
        if (!resp) {
          (void)out.respond(502, {}, resp.error().message);
          return;
        }
        http::Headers back;
        for (const auto& h : resp->headers()) {
          if (!agentkit::iequals(h.name, "Content-Length") &&
              !agentkit::iequals(h.name, "Transfer-Encoding") &&
              !agentkit::iequals(h.name, "Connection")) {
            back.add(h.name, h.value);
          }
        }
        if (!out.start_stream(resp->status(), back)) return;
        char buf[4096];
        while (true) {
          auto n = resp->read_some(std::span<char>(buf, sizeof buf));
          if (!n || *n == 0 || !out.write(std::string_view(buf, *n))) break;
        }
        (void)out.finish();
      });
  REQUIRE(proxy);
  mcp::ServerConfig config{.name = "web",
                           .transport = mcp::HttpTarget{.url = proxy->base_url() + "/mcp",
                                                        .headers = {{"X-API-Key", "k"}}}};
  auto client = mcp::Client::connect(config, mcp_test::quick_options());
  REQUIRE(client);
  auto log = std::make_shared<SpanLog>();
  TestSpan parent(log, 0x20);
  mcp::CallControl control;
  control.span = &parent;
  REQUIRE(client->call_tool("count", args("{}"), control));
  proxy->stop();
  std::lock_guard lock(mu);
  std::vector<std::pair<std::string, std::string>> calls;
  for (const auto& s : seen) {
    if (s.second.find("tools/call") != std::string::npos) calls.push_back(s);
  }
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].first == "00-abababababababababababababababab-0000000000000001-01");
  CHECK(calls[0].second.find("traceparent") == std::string::npos);
  std::lock_guard span_lock(log->mu);
  CHECK(has(log->attributes, "network.transport=tcp"));
}
