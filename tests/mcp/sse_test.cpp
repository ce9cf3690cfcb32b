// The 2024-11-05 HTTP+SSE client transport against a loopback SSE front for our own server (the
// official TypeScript SDK's SSEServerTransport is the peer in tests/interop), and its bad inputs.
#include <condition_variable>
#include <deque>

#include "agentkit/base/strings.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/server.hpp"
#include "agentkit/wire/sse_decoder.hpp"
#include "mcp_test_support.hpp"
#include "sse_channel.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kKey = "sse-upstream-key";

// GET /sse streams `endpoint` then every answer; POST /messages forwards to our server's HTTP
// mode and queues what it answers onto the stream.
class SseFront {
 public:
  std::string endpoint_event = "/messages?sessionId=1";  // empty: never sent
  std::atomic<int> posts{0};

  SseFront() {
    (void)server_.add_tool(
        {.name = "echo", .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
           const json::Value* t = call.arguments.find("text");
           return mcp::ServerToolResult::text("echo " + (t ? t->as_string() : std::string()));
         }});
    upstream_.emplace(server_.serve_http({.api_key = std::string(kKey)}).value());
    front_.emplace(http::HttpServer::start({}, [this](const http::ServerRequest& req,
                                                      http::ResponseWriter& out) {
                     if (req.path == "/sse") {
                       stream(out);
                     } else if (req.path == "/messages" && req.method == "POST") {
                       forward(req, out);
                     } else {
                       (void)out.respond(404, {}, "");
                     }
                   }).value());
  }
  ~SseFront() {
    front_->stop();
    upstream_->stop();
  }
  std::string url() const { return front_->base_url() + "/sse"; }
  std::uint16_t port() const { return front_->port(); }

 private:
  void stream(http::ResponseWriter& out) {
    if (!out.start_stream(200,
                          {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}}))
      return;
    if (!endpoint_event.empty() && !out.write("event: endpoint\ndata: " + endpoint_event + "\n\n"))
      return;
    auto stop = out.stop_token();
    while (!stop.stop_requested()) {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, 50ms, [&] { return !outbox_.empty(); });
      while (!outbox_.empty()) {
        std::string msg = std::move(outbox_.front());
        outbox_.pop_front();
        lock.unlock();
        if (!out.write("event: message\ndata: " + msg + "\n\n")) return;
        lock.lock();
      }
      lock.unlock();
      if (!out.write(": keep-alive\n\n")) return;
    }
  }

  void push(std::string msg) {
    {
      std::lock_guard lock(mu_);
      outbox_.push_back(std::move(msg));
    }
    cv_.notify_all();
  }

  void forward(const http::ServerRequest& req, http::ResponseWriter& out) {
    ++posts;
    http::HttpClient client;
    http::Request up{.method = "POST", .url = upstream_->url(), .body = req.body};
    up.headers.add("Content-Type", "application/json");
    up.headers.add("Accept", "application/json, text/event-stream");
    up.headers.add("Authorization", "Bearer " + std::string(kKey));
    if (auto v = req.headers.get("MCP-Protocol-Version"))
      up.headers.add("MCP-Protocol-Version", std::string(*v));
    {
      std::lock_guard lock(mu_);
      if (!session_.empty()) up.headers.add("Mcp-Session-Id", session_);
    }
    auto resp = client.send(up);
    if (!resp) {
      (void)out.respond(502, {}, resp.error().message);
      return;
    }
    if (auto sid = resp->headers().get("Mcp-Session-Id")) {
      std::lock_guard lock(mu_);
      session_ = std::string(*sid);
    }
    const std::string type(resp->headers().get("Content-Type").value_or(""));
    auto body = resp->read_all().value_or("");
    if (type.starts_with("text/event-stream")) {
      wire::SseDecoder sse;
      sse.feed(body);
      while (auto ev = sse.next()) {
        if (!*ev) break;
        if (!(*ev)->data.empty()) push((*ev)->data);
      }
    } else if (!body.empty()) {
      push(body);
    }
    (void)out.respond(202, {{"Content-Type", "text/plain"}}, "Accepted");
  }

  mcp::Server server_;
  std::optional<mcp::HttpService> upstream_;
  std::optional<http::HttpServer> front_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> outbox_;
  std::string session_;
};

mcp::ServerConfig sse_config(const std::string& url) {
  return mcp::ServerConfig{.name = "old",
                           .transport = mcp::HttpTarget{.url = url, .kind = mcp::HttpKind::sse}};
}

}  // namespace

TEST_CASE(
    "HTTP+SSE: the endpoint event is resolved against the stream URL, POSTs go there, answers come "
    "on the stream") {
  SseFront front;
  auto options = mcp_test::quick_options();
  auto client = mcp::Client::connect(sse_config(front.url()), options);
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::legacy);
  auto tools = client->list_tools();
  REQUIRE(tools);
  REQUIRE(tools->size() == 1);
  auto r = client->call_tool("echo", json::Object{{"text", "old"}});
  REQUIRE(r);
  CHECK(r->content.at(0).find("text")->as_string() == "echo old");
  CHECK(front.posts.load() >= 3);  // initialize, initialized, tools/list, tools/call
}

TEST_CASE(
    "HTTP+SSE: an endpoint event naming another origin is refused before anything is posted") {
  SseFront front;
  front.endpoint_event =
      "http://127.0.0.1:" + std::to_string(front.port() == 65535 ? 1 : front.port() + 1) +
      "/messages";
  auto client = mcp::Client::connect(sse_config(front.url()), mcp_test::quick_options());
  REQUIRE(!client);
  CHECK(client.error().message.find("MCP server 'old'") != std::string::npos);
  CHECK(client.error().message.find("another origin") != std::string::npos);
  CHECK(front.posts.load() == 0);
}

TEST_CASE("HTTP+SSE: a stream that never sends endpoint fails within the request timeout") {
  SseFront front;
  front.endpoint_event = "";
  auto config = sse_config(front.url());
  config.request_timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  auto client = mcp::Client::connect(config, mcp_test::quick_options());
  REQUIRE(!client);
  CHECK(client.error().message.find("no \"endpoint\" event") != std::string::npos);
  CHECK(client.error().message.find("MCP server 'old'") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE(
    "endpoint references resolve like RFC 3986 and must keep the stream's scheme, host and port") {
  using mcp::detail::resolve_sse_endpoint;
  const std::string base = "http://127.0.0.1:8000/mcp/sse";
  CHECK(resolve_sse_endpoint(base, "/messages?sessionId=a").value() ==
        "http://127.0.0.1:8000/messages?sessionId=a");
  CHECK(resolve_sse_endpoint(base, "messages?s=1").value() ==
        "http://127.0.0.1:8000/mcp/messages?s=1");
  CHECK(resolve_sse_endpoint(base, "?s=1").value() == "http://127.0.0.1:8000/mcp/sse?s=1");
  CHECK(resolve_sse_endpoint(base, "http://127.0.0.1:8000/x").value() == "http://127.0.0.1:8000/x");
  CHECK_FALSE(resolve_sse_endpoint(base, "//evil.example/messages"));
  CHECK_FALSE(resolve_sse_endpoint(base, "http://127.0.0.1:8001/messages"));
  CHECK_FALSE(resolve_sse_endpoint(base, "https://127.0.0.1:8000/messages"));
  CHECK_FALSE(resolve_sse_endpoint(base, "http://evil.example/messages"));
  CHECK_FALSE(resolve_sse_endpoint(base, "javascript:alert(1)"));
}
