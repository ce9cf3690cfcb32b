// The shared request pipeline against loopback servers: credentials and header precedence on the
// wire, the hooks, transport retry, streaming into a decoder, and every failure mapped to the
// stop_reason convention (REQ-PROV-04, -13, -18, REQ-AUTH-01, REQ-SEC-13).
#include <latch>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/providers/faux.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/wire/decode.hpp"
#include "provider_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::providers;
using agentkit::testing::CountingTransport;
using agentkit::testing::ScriptedResponse;
using agentkit::testing::ScriptedServer;
using namespace std::chrono_literals;

namespace {

const std::string kKey = "sk-ant-api03-0123456789abcdef-KEYEND";
const std::string kSse = "event: message\ndata: {\"text\":\"Hel\"}\n\nevent: message\ndata: {\"text\":\"lo\"}\n\nevent: done\ndata: {}\n\n";

ScriptedResponse sse_ok() {
  ScriptedResponse r;
  r.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  r.pieces = {kSse.substr(0, 20), kSse.substr(20)};  // split mid-event
  return r;
}

ScriptedResponse status(int code, http::Headers h = {}, std::string body = {}) {
  ScriptedResponse r;
  r.status = code;
  r.headers = std::move(h);
  r.body = std::move(body);
  return r;
}

// A miniature wire over the pipeline: text deltas until a "done" event.
struct TinyWire {
  AssistantMessage reply;
  bool done = false;
  SseBodyDecoder decoder{[this](const wire::SseEvent& ev) -> Result<void> {
                           if (ev.type == "done") {
                             done = true;
                             return {};
                           }
                           auto doc = wire::decode(ev.data);
                           if (!doc) return doc.error();
                           if (reply.content.empty()) reply.content.emplace_back(TextBlock{});
                           std::get<TextBlock>(reply.content.back()).text += doc->find("text")->as_string();
                           return {};
                         },
                         [this]() -> Result<void> {
                           if (!done) return fail(Errc::protocol_error, "stream ended before the done event");
                           return {};
                         }};

  AssistantMessage call(const RequestPipeline& p, const Model& m, const StreamOptions& so = {}, agentkit::stop_token stop = {},
                        WireRequest req = {"/v1/messages", R"({"model":"m"})", {{"content-type", "application/json"}}}) {
    reply = start_message(m);
    if (auto failure = p.run(m, std::move(req), so, decoder, stop)) apply_failure(reply, *failure);
    return reply;
  }
};

Model anthropic_model(const std::string& base_url) {
  Model m = catalog::Catalog::builtin().resolve("anthropic/claude-sonnet-5-5").value();
  m.base_url = base_url;
  return m;
}

ProviderOptions options_with(std::map<std::string, std::string, std::less<>> env,
                             std::shared_ptr<http::HttpTransport> transport = nullptr) {
  ProviderOptions o;
  o.credentials.environment = fixed_environment(std::move(env));
  o.http = std::move(transport);
  return o;
}

TransportRetryOptions quick_retry(int n) {
  TransportRetryOptions r;
  r.max_retries = n;
  r.initial_backoff = 1ms;
  r.max_backoff = 2ms;
  return r;
}

}  // namespace

TEST_CASE("a streamed response reaches the decoder and the message ends cleanly with its provenance") {
  ScriptedServer server({sse_ok()});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()));
  CHECK(m.stop_reason == StopReason::stop);
  CHECK(text_of(m) == "Hello");
  CHECK(m.provider == "anthropic");
  CHECK(m.api == "anthropic-messages");
  CHECK(m.model == "claude-sonnet-5-5");
  auto seen = server.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].path == "/v1/messages");
  CHECK(seen[0].headers.get("x-api-key") == std::optional<std::string_view>(kKey));
}

TEST_CASE("headers reach the wire in precedence order, and a per-request delete removes a default") {
  ScriptedServer server({sse_ok()});
  ProviderOptions o = options_with({{"ANTHROPIC_API_KEY", kKey}});
  o.headers = {{"X-Config", "config"}, {"X-Both", "config"}};
  RequestPipeline p(o);
  Model model = anthropic_model(server.base_url());
  model.headers = {{"X-Catalog", "catalog"}, {"X-Both", "catalog"}, {"content-type", "application/json; charset=utf-8"}};
  StreamOptions so;
  so.headers = {{"x-api-key", std::nullopt}, {"X-Both", "request"}, {"X-Test", "1"}};
  TinyWire w;
  REQUIRE(w.call(p, model, so).stop_reason == StopReason::stop);
  const http::Headers h = server.request_at(0).headers;
  CHECK_FALSE(h.contains("x-api-key"));
  CHECK(h.get("X-Both") == std::optional<std::string_view>("request"));
  CHECK(h.get("X-Config") == std::optional<std::string_view>("config"));
  CHECK(h.get("X-Catalog") == std::optional<std::string_view>("catalog"));
  CHECK(h.get("X-Test") == std::optional<std::string_view>("1"));
  CHECK(h.get("content-type") == std::optional<std::string_view>("application/json; charset=utf-8"));  // catalog > wire
}

TEST_CASE("a resolver's own header and base URL authenticate the request, with no empty x-api-key or Authorization") {
  ScriptedServer server({sse_ok()});
  ProviderOptions o = options_with({});
  std::string gateway = server.base_url() + "/gw";
  o.credentials.resolvers["anthropic"] = [gateway](const Model&, const AuthContext&) -> Result<ModelAuth> {
    ModelAuth auth;
    auth.state = CredentialState::key;
    auth.headers = {{"X-Gw-Key", "k"}};
    auth.base_url = gateway;
    return auth;
  };
  RequestPipeline p(o);
  TinyWire w;
  REQUIRE(w.call(p, anthropic_model("https://api.anthropic.com")).stop_reason == StopReason::stop);
  const auto req = server.request_at(0);
  CHECK(req.path == "/gw/v1/messages");
  CHECK(req.headers.get("X-Gw-Key") == std::optional<std::string_view>("k"));
  CHECK_FALSE(req.headers.contains("x-api-key"));
  CHECK_FALSE(req.headers.contains("Authorization"));
}

TEST_CASE("attribution headers are sent lowest, replaced or removed by the caller, and off with AGENTKIT_TELEMETRY=0") {
  ScriptedServer server({sse_ok()});
  Model model = catalog::Catalog::builtin().resolve("openrouter/openai/gpt-6.2-sol").value();
  model.base_url = server.base_url();
  auto x_title = [&](std::map<std::string, std::string, std::less<>> env, HeaderOverrides request) {
    env["OPENROUTER_API_KEY"] = "or-key";
    RequestPipeline p(options_with(env));
    StreamOptions so;
    so.headers = std::move(request);
    TinyWire w;
    AssistantMessage m = w.call(p, model, so);
    INFO(m.error_message);
    CHECK(m.stop_reason == StopReason::stop);
    agentkit::testing::ReceivedRequest last = server.last_request();
    auto v = last.headers.get("X-Title");
    return v ? std::optional<std::string>(*v) : std::nullopt;
  };
  CHECK(x_title({}, {}) == "AgentKit for C++");
  CHECK(x_title({}, {{"X-Title", "mine"}}) == "mine");
  CHECK(x_title({}, {{"X-Title", std::nullopt}}) == std::nullopt);
  CHECK(x_title({{"AGENTKIT_TELEMETRY", "0"}}, {}) == std::nullopt);
  ProviderOptions off = options_with({{"OPENROUTER_API_KEY", "k"}});
  off.attribution = false;
  RequestPipeline p(off);
  TinyWire w;
  w.call(p, model);
  CHECK_FALSE(server.requests().back().headers.contains("X-Title"));
}

TEST_CASE("on_payload may replace the bytes sent, and its error stops the call before any I/O with its text") {
  ScriptedServer server({sse_ok()});
  auto transport = std::make_shared<CountingTransport>();
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}, transport));
  StreamOptions so;
  so.on_payload = [](std::string& body) -> Result<void> {
    body.insert(body.size() - 1, R"(,"foo":"bar")");
    return {};
  };
  TinyWire w;
  REQUIRE(w.call(p, anthropic_model(server.base_url()), so).stop_reason == StopReason::stop);
  CHECK(server.requests().at(0).body == R"({"model":"m","foo":"bar"})");
  so.on_payload = [](std::string&) -> Result<void> { return fail(Errc::permission_denied, "payload vetoed by policy 7"); };
  int before = transport->sends;
  AssistantMessage vetoed = w.call(p, anthropic_model(server.base_url()), so);
  CHECK(transport->sends == before);
  CHECK(vetoed.stop_reason == StopReason::error);
  CHECK(vetoed.error_message == "payload vetoed by policy 7");
}

TEST_CASE("a missing credential fails before any I/O") {
  auto transport = std::make_shared<CountingTransport>();
  RequestPipeline p(options_with({}, transport));
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model("http://127.0.0.1:9"));
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find("ANTHROPIC_API_KEY") != std::string::npos);
  CHECK(transport->sends == 0);
}

TEST_CASE("a header with a control byte is refused before any I/O") {
  auto transport = std::make_shared<CountingTransport>();
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}, transport));
  StreamOptions so;
  so.headers = {{"X-Evil", "a\r\nX-Injected: yes"}};
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model("http://127.0.0.1:9"), so);
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find("control byte") != std::string::npos);
  CHECK(transport->sends == 0);
}

TEST_CASE("a 429 then a 200 succeeds with transport retry, and on_response sees both answers") {
  ScriptedServer server({status(429, {}, R"({"error":{"type":"rate_limit_error","message":"slow"}})"), sse_ok()});
  ProviderOptions o = options_with({{"ANTHROPIC_API_KEY", kKey}});
  o.retry = quick_retry(2);
  RequestPipeline p(o);
  std::vector<int> statuses;
  StreamOptions so;
  so.on_response = [&](int code, const std::vector<std::pair<std::string, std::string>>&) { statuses.push_back(code); };
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()), so);
  CHECK(m.stop_reason == StopReason::stop);
  CHECK(text_of(m) == "Hello");
  CHECK(statuses == std::vector<int>{429, 200});
}

TEST_CASE("an error status becomes an error message quoting the vendor's error body") {
  ScriptedServer server({status(500, http::Headers({{"x-should-retry", "false"}}),
                                R"({"type":"error","error":{"type":"api_error","message":"Internal server error"}})")});
  ProviderOptions o = options_with({{"ANTHROPIC_API_KEY", kKey}});
  o.retry = quick_retry(3);
  RequestPipeline p(o);
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()));
  CHECK(server.request_count() == 1);  // x-should-retry: false on a 500
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message == "HTTP 500 from " + server.base_url().substr(7) + ": api_error: Internal server error");
}

TEST_CASE("Retry-After in both forms from an independent server is honoured through the pipeline") {
  agentkit::testing::PythonPeer peer("retry_peer.py");
  REQUIRE(peer.started());
  ProviderOptions o = options_with({{"ANTHROPIC_API_KEY", kKey}});
  o.retry = quick_retry(2);
  RequestPipeline p(o);
  for (std::string route : {"/seconds-then-ok?key=p1", "/date-then-ok?key=p2"}) {
    INFO(route);
    TinyWire w;
    auto started = std::chrono::steady_clock::now();
    AssistantMessage m = w.call(p, anthropic_model(peer.base_url()), {}, {}, {route, "{}", {}});
    CHECK(m.stop_reason == StopReason::stop);
    CHECK(text_of(m) == "ok");
    CHECK(std::chrono::steady_clock::now() - started >= 1000ms);
  }
  TinyWire w;
  AssistantMessage far = w.call(p, anthropic_model(peer.base_url()), {}, {}, {"/far-date?key=p3", "{}", {}});
  CHECK(far.stop_reason == StopReason::error);
  CHECK(far.error_message.find("exceeds the ceiling") != std::string::npos);
  CHECK_FALSE(is_retryable_error(far));
}

TEST_CASE("cancelling during the backoff ends the call aborted with an empty error message") {
  ScriptedServer server({status(503, http::Headers({{"Retry-After", "30"}}))});
  ProviderOptions o = options_with({{"ANTHROPIC_API_KEY", kKey}});
  o.retry = quick_retry(3);
  RequestPipeline p(o);
  agentkit::stop_source stop;
  agentkit::jthread canceller([&] {
    server.wait_for_requests(1);
    std::this_thread::sleep_for(50ms);
    stop.request_stop();
  });
  auto started = std::chrono::steady_clock::now();
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()), {}, stop.get_token());
  CHECK(std::chrono::steady_clock::now() - started < 10s);
  CHECK(m.stop_reason == StopReason::aborted);
  CHECK(m.error_message.empty());
  CHECK(server.request_count() == 1);
}

TEST_CASE("cancelling mid-stream keeps the partial content and ends aborted") {
  ScriptedResponse hanging = sse_ok();
  hanging.pieces = {"event: message\ndata: {\"text\":\"Hel\"}\n\n"};
  hanging.hang_after_pieces = true;
  ScriptedServer server({hanging});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  agentkit::stop_source stop;
  TinyWire w;
  agentkit::jthread canceller([&] {
    server.wait_for_requests(1);
    std::this_thread::sleep_for(100ms);
    stop.request_stop();
  });
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()), {}, stop.get_token());
  CHECK(m.stop_reason == StopReason::aborted);
  CHECK(text_of(m) == "Hel");
  CHECK_FALSE(m.error_message.empty());
}

TEST_CASE("the whole-call timeout is a retryable error, not an abort") {
  ScriptedResponse stalled = sse_ok();
  stalled.pieces = {"event: message\ndata: {\"text\":\"Hel\"}\n\n"};
  stalled.hang_after_pieces = true;
  ScriptedServer server({stalled});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  StreamOptions so;
  so.timeout = 150ms;
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()), so);
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message == "request timed out after 150 ms (StreamOptions::timeout)");
  CHECK(text_of(m) == "Hel");
  CHECK(is_retryable_error(m));
}

TEST_CASE("a body cut off mid-stream is a retryable error that keeps what arrived") {
  agentkit::testing::RawResponder raw(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
      "23\r\nevent: message\ndata: {\"text\":\"H\"}\n\n\r\n");  // no terminating chunk: the connection just closes
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(raw.base_url()));
  INFO(m.error_message);
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find("stream ended before the response was complete") != std::string::npos);
  CHECK(text_of(m) == "H");
  CHECK(is_retryable_error(m));
}

TEST_CASE("a complete body without the final event fails with the decoder's reason") {
  ScriptedResponse truncated = sse_ok();
  truncated.pieces = {"event: message\ndata: {\"text\":\"Hel\"}\n\n"};
  ScriptedServer server({truncated});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()));
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message == "stream ended before the done event");
  CHECK(is_retryable_error(m));  // the semantic layer retries it; the transport layer saw a 200
}

TEST_CASE("a connection refused is an error naming the host") {
  agentkit::testing::RawResponder closed("");  // accepts and closes without a byte
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(closed.base_url()));
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find("could not complete the request to 127.0.0.1") != std::string::npos);
}

TEST_CASE("a secret echoed back by the vendor never reaches the error message") {
  ScriptedServer server({status(401, {}, R"({"error":{"type":"authentication_error","message":"invalid x-api-key )" + kKey + R"("}})")});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  TinyWire w;
  AssistantMessage m = w.call(p, anthropic_model(server.base_url()));
  CHECK(m.stop_reason == StopReason::error);
  CHECK(m.error_message.find(kKey) == std::string::npos);
  CHECK(m.error_message.find("sk-a***YEND") != std::string::npos);
  CHECK_FALSE(is_retryable_error(m));
}

TEST_CASE("an NDJSON body is read line by line") {
  ScriptedResponse ndjson;
  ndjson.headers = http::Headers({{"Content-Type", "application/x-ndjson"}});
  ndjson.pieces = {"{\"message\":{\"content\":\"Hi\"}}\n{\"do", "ne\":true}\n"};
  ScriptedServer server({ndjson});
  Model local = catalog::Catalog::builtin().resolve("ollama/qwen3").value();
  local.base_url = server.base_url();
  RequestPipeline p(options_with({}));
  std::vector<std::string> lines;
  NdjsonBodyDecoder decoder([&](std::string_view line) -> Result<void> {
    lines.emplace_back(line);
    return {};
  });
  auto failure = p.run(local, {"/api/chat", "{}", {}}, {}, decoder);
  CHECK_FALSE(failure);
  CHECK(lines == std::vector<std::string>{R"({"message":{"content":"Hi"}})", R"({"done":true})"});
  CHECK_FALSE(server.requests().at(0).headers.contains("Authorization"));  // a local server, no key
}

TEST_CASE("prepare shows the exact request without sending it") {
  auto transport = std::make_shared<CountingTransport>();
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}, {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9/proxy/"}}, transport));
  auto req = p.prepare(anthropic_model("https://api.anthropic.com"), {"/v1/messages", "{}", {{"anthropic-version", "2023-06-01"}}}, {});
  REQUIRE(req);
  CHECK(req->url == "http://127.0.0.1:9/proxy/v1/messages");
  CHECK(req->headers.get("anthropic-version") == std::optional<std::string_view>("2023-06-01"));
  CHECK(transport->sends == 0);
}

TEST_CASE("register_defaults adds the built-in wires and leaves other registrations alone") {
  ProviderRegistry registry;
  auto faux = std::make_shared<FauxProvider>();
  registry.add("faux", faux);
  auto added = register_defaults(registry, options_with({}));
  CHECK(added.size() == builtin_wire_apis().size());
  CHECK_FALSE(builtin_wire_apis().empty());
  CHECK(registry.find("faux").value() == faux);
  for (auto api : builtin_wire_apis()) CHECK(registry.find(api));
  CHECK(registry.apis().size() == builtin_wire_apis().size() + 1);
}

TEST_CASE("the pipeline hands the body it sent back on every outcome, after on_payload") {
  // A 2xx streamed to its end, a status that is not retried, a transport that could not connect,
  // and a call that never got as far as a request (no key): the last leaves sent_body empty.
  ScriptedServer server({sse_ok(), status(400, {}, R"({"error":{"message":"bad"}})")});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  StreamOptions rewrite;
  rewrite.on_payload = [](std::string& body) -> Result<void> {
    body += " ";
    return {};
  };
  const std::string body(20'000, 'x');  // over the client's inline size: written from the buffer
  for (const bool ok : {true, false}) {
    TinyWire wire;
    std::string sent;
    auto failure = p.run(anthropic_model(server.base_url()), {"/v1/messages", body, {}}, rewrite,
                         wire.decoder, {}, &sent);
    CHECK(failure.has_value() != ok);
    CHECK(sent == body + " ");
  }
  TinyWire refused;
  std::string sent;
  CHECK(p.run(anthropic_model("http://127.0.0.1:1"), {"/v1/messages", body, {}}, {},
              refused.decoder, {}, &sent));
  CHECK(sent == body);
  RequestPipeline keyless(options_with({}));
  std::string none = "untouched";
  CHECK(keyless.run(anthropic_model(server.base_url()), {"/v1/messages", body, {}}, {},
                    refused.decoder, {}, &none));
  CHECK(none == "untouched");
}

namespace {
// Counts what it is fed and keeps nothing, so what a call allocates is the pipeline's own.
struct CountingDecoder final : BodyDecoder {
  std::size_t bytes = 0;
  Result<void> feed(std::string_view piece) override {
    bytes += piece.size();
    return {};
  }
  Result<void> finish() override { return {}; }
};
}  // namespace

TEST_CASE(
    "the decoder reads the body where the connection's buffer holds it, through no buffer of the "
    "pipeline's") {
  std::string sse;
  for (int i = 0; i < 48; ++i) sse += "event: message\ndata: " + std::string(500, 'x') + "\n\n";
  ScriptedResponse answer;
  answer.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  answer.body = sse;
  ScriptedServer server({answer, answer, answer});
  RequestPipeline p(options_with({{"ANTHROPIC_API_KEY", kKey}}));
  const Model m = anthropic_model(server.base_url());
  for (int i = 0; i < 3; ++i) {
    CountingDecoder decoder;
    std::size_t requested = 0;
    {
      agentkit::testing::AllocCounter counter;
      auto failure =
          p.run(m, {"/v1/messages", R"({"model":"m"})", {{"content-type", "application/json"}}}, {},
                decoder);
      REQUIRE(!failure);
      requested = counter.stats().bytes;
    }
    CHECK(decoder.bytes == sse.size());
    // The connection's 16 KB read buffer and the request's own strings; a buffer of the
    // pipeline's for the body to be copied into would add 16 KB more.
    INFO("bytes requested: " << requested);
    if (i > 0) CHECK(requested < 24 * 1024);  // the first call also opens the connection
  }
}

TEST_CASE(
    "a body shrunk once written is whole again for a retry, and comes back shrunk on every "
    "outcome") {
  // The kept history's long strings leave a body through the model's wait
  // (WireRequest::shrink_body): the 429's retry must send the same bytes, the 200's body comes
  // back shrunk, and so does the body of a call whose transport never said it was written.
  ScriptedServer server({status(429, {}, R"({"error":{"message":"slow"}})"), sse_ok()});
  ProviderOptions o = options_with({{"ANTHROPIC_API_KEY", kKey}});
  o.retry = quick_retry(2);
  RequestPipeline p(o);
  const std::string long_part(20'000, 'x');
  const std::string body = R"({"model":"m","note":")" + long_part + R"("})";
  constexpr std::size_t kAt = 21;  // where the long part starts
  std::vector<std::size_t> shrunk_to;
  auto request = [&] {
    WireRequest r{"/v1/messages", body, {{"content-type", "application/json"}}};
    r.shrink_body = [&](std::string& b) {
      b.erase(kAt, long_part.size());
      shrunk_to.push_back(b.size());
    };
    r.restore_body = [&](std::string& b) { b.insert(kAt, long_part); };
    return r;
  };
  TinyWire wire;
  std::string sent;
  CHECK_FALSE(p.run(anthropic_model(server.base_url()), request(), {}, wire.decoder, {}, &sent));
  CHECK(text_of(wire.reply) == "Hello");
  REQUIRE(server.request_count() == 2);
  CHECK(server.request_at(0).body == body);
  CHECK(server.request_at(1).body == body);  // restored before the resend
  // Shrunk once written, each time: before the answer arrived, not after it.
  CHECK(shrunk_to ==
        std::vector<std::size_t>{body.size() - long_part.size(), body.size() - long_part.size()});
  CHECK(sent == body.substr(0, kAt) + body.substr(kAt + long_part.size()));

  // A transport that never calls on_body_written: the body still comes back shrunk.
  TinyWire refused;
  std::string refused_sent;
  CHECK(p.run(anthropic_model("http://127.0.0.1:1"), request(), {}, refused.decoder, {},
              &refused_sent));
  CHECK(refused_sent == sent);
}
