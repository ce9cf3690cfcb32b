// Streamable HTTP: our server's HTTP mode (auth first, Origin, bounds, routing headers) and our
// client over HTTP (routing headers from the body, sessions, re-issue of a cut stream).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <thread>

#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/mcp/client.hpp"
#include "agentkit/mcp/server.hpp"
#include "mcp_test_support.hpp"
#include "meet_tool.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kKey = "test-key-123";

}  // namespace

namespace {

struct Fixture {
  mcp::Server server;
  std::optional<mcp::HttpService> http;
  std::atomic<int> calls{0};

  explicit Fixture(mcp::ServerOptions options = {}, mcp::HttpServeOptions http_options = {}) : server(std::move(options)) {
    (void)server.add_tool({.name = "count",
                           .input_schema = json::parse(R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}})").value(),
                           .handler = [this](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                             ++calls;
                             const json::Value* r = call.arguments.find("region");
                             return mcp::ServerToolResult::text("counted " + (r ? r->as_string() : std::string("-")));
                           }});
    (void)server.add_tool({.name = "résumé", .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
                             return mcp::ServerToolResult::text("cv");
                           }});
    (void)server.add_tool({.name = "slow", .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                             for (int i = 1; i <= 3; ++i) {
                               std::this_thread::sleep_for(30ms);
                               call.progress(i, 3, "");
                             }
                             return mcp::ServerToolResult::text("done");
                           }});
    (void)server.add_tool({.name = "confirm", .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
                             if (call.input_responses.contains("ok")) return mcp::ServerToolResult::text("answered");
                             mcp::InputRequired asked;
                             asked.requests.emplace_back("ok", mcp::elicitation_request("Sure?", json::Value(json::Object{{"type", "object"}})));
                             return asked;
                           }});
    if (http_options.api_key.empty()) http_options.api_key = std::string(kKey);
    auto started = server.serve_http(http_options);
    REQUIRE(started);
    http.emplace(std::move(*started));
  }

  http::Response post(std::string body, http::Headers extra = {}, bool with_key = true) {
    http::HttpClient client;
    http::Request req{.method = "POST", .url = http->url()};
    req.headers.add("Content-Type", "application/json");
    req.headers.add("Accept", "application/json, text/event-stream");
    if (with_key) req.headers.add("Authorization", "Bearer " + std::string(kKey));
    for (const auto& h : extra) req.headers.set(h.name, h.value);
    req.body = std::move(body);
    auto resp = client.send(req);
    REQUIRE(resp);
    return std::move(*resp);
  }

  mcp::ServerConfig config(mcp::Negotiation negotiation = mcp::Negotiation::automatic) {
    return mcp::ServerConfig{.name = "web",
                             .transport = mcp::HttpTarget{.url = http->url(), .headers = {{"X-API-Key", std::string(kKey)}}},
                             .negotiation = negotiation};
  }
};

std::string modern_body(std::string_view method, std::string_view members = "") {
  return std::string(R"({"jsonrpc":"2.0","id":1,"method":")") + std::string(method) + R"(","params":{)" +
         std::string(members) + (members.empty() ? "" : ",") + mcp_test::modern_meta() + "}}";
}

http::Headers modern_headers(std::string_view method, std::optional<std::string> name = std::nullopt) {
  http::Headers h{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", std::string(method)}};
  if (name) h.add("Mcp-Name", *name);
  return h;
}

// Sends `request` as is on a fresh loopback connection; everything the server answers until it closes.
std::string raw_exchange(std::uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return answer;
}

std::int64_t rpc_code_of(http::Response& resp) {
  auto body = json::parse(resp.read_all().value()).value();
  return body.find("error")->find("code")->to_int64().value();
}

}  // namespace

TEST_CASE("HTTP mode refuses to start without an API key and binds loopback by default") {
  mcp::Server server;
  auto refused = server.serve_http({});
  REQUIRE(!refused);
  CHECK(refused.error().message.find("API key") != std::string::npos);
  auto started = server.serve_http({.api_key = "k"});
  REQUIRE(started);
  CHECK(started->url().starts_with("http://127.0.0.1:"));
  CHECK(started->url().ends_with("/mcp"));
}

TEST_CASE("every HTTP request needs the key, checked before anything else; the handler never runs without it") {
  Fixture f;
  const std::string call = modern_body("tools/call", R"("name":"count","arguments":{})");
  auto none = f.post(call, modern_headers("tools/call", "count"), false);
  CHECK(none.status() == 401);
  auto wrong = f.post(call, {{"Authorization", "Bearer nope"}, {"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "count"}}, false);
  CHECK(wrong.status() == 401);
  CHECK(f.calls.load() == 0);
  auto right = f.post(call, modern_headers("tools/call", "count"));
  CHECK(right.status() == 200);
  CHECK(f.calls.load() == 1);
  auto again = f.post(call, modern_headers("tools/call", "count"), false);
  CHECK(again.status() == 401);  // every request, not just the first
  // Authentication runs before the method check: an unauthenticated GET is 401, not 405.
  http::HttpClient client;
  auto get = client.send({.method = "GET", .url = f.http->url()});
  REQUIRE(get);
  CHECK(get->status() == 401);
  auto put = client.send({.method = "PUT", .url = f.http->url(), .headers = {{"X-API-Key", std::string(kKey)}}});
  REQUIRE(put);
  CHECK(put->status() == 405);
}

TEST_CASE("a browser Origin that is not allowed is refused with 403") {
  Fixture f({}, {.allowed_origins = {"http://localhost:5173"}});
  auto refused = f.post(modern_body("tools/list"), {{"Origin", "http://evil.example"}, {"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
  CHECK(refused.status() == 403);
  auto allowed = f.post(modern_body("tools/list"), {{"Origin", "http://localhost:5173"}, {"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
  CHECK(allowed.status() == 200);
  // DNS rebinding: a loopback server answers loopback names only. (Written by hand: an HTTP client
  // sets Host itself.)
  const std::string body = modern_body("tools/list");
  const std::string rebound = raw_exchange(f.http->port(),
      "POST /mcp HTTP/1.1\r\nHost: attacker.example\r\nAuthorization: Bearer " + std::string(kKey) +
      "\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n"
      "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  CHECK(rebound.starts_with("HTTP/1.1 403"));
}

TEST_CASE("a loopback-bound server accepts loopback Origins on any port, and refuses look-alikes") {
  Fixture f;  // no allow list
  const auto status_for = [&](std::string origin) {
    return f
        .post(modern_body("tools/list"), {{"Origin", std::move(origin)},
                                          {"MCP-Protocol-Version", "2026-07-28"},
                                          {"Mcp-Method", "tools/list"}})
        .status();
  };
  CHECK(status_for("http://localhost:" + std::to_string(f.http->port())) ==
        200);  // the MCP Inspector's case
  CHECK(status_for("http://127.0.0.1:6274") == 200);
  CHECK(status_for("https://[::1]") == 200);
  CHECK(status_for("http://localhost.evil.example") == 403);
  CHECK(status_for("http://localhost:80@evil.example") == 403);
  CHECK(status_for("http://127.0.0.1.evil.example:80") == 403);
  CHECK(status_for("null") == 403);
  CHECK(status_for("file://localhost") == 403);
}

TEST_CASE(
    "unauthenticated_loopback serves without a key on loopback only, Host and Origin still "
    "checked") {
  mcp::Server server;
  REQUIRE(server.add_tool({.name = "t", .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
                             return mcp::ServerToolResult::text("x");
                           }}));
  auto exposed = server.serve_http({.bind_address = "0.0.0.0", .unauthenticated_loopback = true});
  REQUIRE(!exposed);
  CHECK(exposed.error().message.find("loopback") != std::string::npos);
  auto started = server.serve_http({.unauthenticated_loopback = true});
  REQUIRE(started);
  http::HttpClient client;
  const auto post = [&](http::Headers extra) {
    http::Request req{.method = "POST", .url = started->url()};
    req.headers.add("Content-Type", "application/json");
    req.headers.add("MCP-Protocol-Version", "2026-07-28");
    req.headers.add("Mcp-Method", "tools/list");
    for (const auto& h : extra) req.headers.set(h.name, h.value);
    req.body = modern_body("tools/list");
    auto resp = client.send(req);
    REQUIRE(resp);
    return resp->status();
  };
  CHECK(post({}) == 200);
  CHECK(post({{"Origin", "http://evil.example"}}) == 403);
  const std::string body = modern_body("tools/list");
  const std::string rebound =
      raw_exchange(started->port(),
                   "POST /mcp HTTP/1.1\r\nHost: attacker.example\r\nContent-Type: "
                   "application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                   "Mcp-Method: tools/list\r\nConnection: close\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body);
  CHECK(rebound.starts_with("HTTP/1.1 403"));
}

TEST_CASE("bodies are bounded, strictly parsed, and must be JSON") {
  Fixture f({}, {.max_body_bytes = 1024});
  auto big = f.post(modern_body("tools/list", R"("pad":")" + std::string(2000, 'x') + "\""), modern_headers("tools/list"));
  CHECK(big.status() == 413);
  auto dup = f.post(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})");
  CHECK(dup.status() == 400);
  auto body = json::parse(dup.read_all().value()).value();
  CHECK(body.find("error")->find("code")->number_text() == "-32700");
  CHECK(body.find("id")->is_null());
  auto text = f.post("{}", {{"Content-Type", "text/plain"}});
  CHECK(text.status() == 415);
}

TEST_CASE("routing headers are checked against the body: a mismatch is 400 with -32020") {
  Fixture f;
  const std::string call = modern_body("tools/call", R"("name":"count","arguments":{"region":"eu"})");
  auto ok = f.post(call, [] {
    auto h = modern_headers("tools/call", "count");
    h.add("Mcp-Param-Region", "eu");
    return h;
  }());
  CHECK(ok.status() == 200);
  auto wrong_method = f.post(call, modern_headers("tools/list", "count"));
  CHECK(wrong_method.status() == 400);
  CHECK(rpc_code_of(wrong_method) == -32020);
  auto wrong_name = f.post(call, modern_headers("tools/call", "other"));
  CHECK(wrong_name.status() == 400);
  CHECK(rpc_code_of(wrong_name) == -32020);
  auto missing_param = f.post(call, modern_headers("tools/call", "count"));
  CHECK(rpc_code_of(missing_param) == -32020);
  auto no_version = f.post(call, http::Headers{{"Mcp-Method", "tools/call"}, {"Mcp-Name", "count"}});
  CHECK(rpc_code_of(no_version) == -32020);
  auto encoded = f.post(modern_body("tools/call", R"("name":"résumé","arguments":{})"),
                        modern_headers("tools/call", mcp::encode_header_value("résumé")));
  CHECK(encoded.status() == 200);
  CHECK(f.calls.load() == 1);
}

TEST_CASE("a request without the version envelope on the modern endpoint is 400; an unknown method is 404") {
  Fixture f;
  auto no_envelope = f.post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})", modern_headers("tools/list"));
  CHECK(no_envelope.status() == 400);
  CHECK(rpc_code_of(no_envelope) == -32602);
  auto unknown = f.post(modern_body("nope/nothing"), modern_headers("nope/nothing"));
  CHECK(unknown.status() == 404);
  CHECK(rpc_code_of(unknown) == -32601);
  auto old = f.post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{)" + mcp_test::modern_meta("2025-06-18") + "}}",
                    http::Headers{{"MCP-Protocol-Version", "2025-06-18"}, {"Mcp-Method", "tools/list"}});
  CHECK(old.status() == 400);
  CHECK(rpc_code_of(old) == -32022);
  auto no_session = f.post(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  CHECK(no_session.status() == 400);
}

TEST_CASE("our client speaks the modern era over HTTP, with progress on the event stream") {
  Fixture f;
  auto client = mcp::Client::connect(f.config(), mcp_test::quick_options());
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::modern);
  auto tools = client->list_tools();
  REQUIRE(tools);
  const auto& count = tools->front();
  CHECK(count.header_params == std::vector<std::pair<std::string, std::string>>{{"region", "Region"}});
  auto r = client->call_tool("count", json::parse(R"({"region":"eu"})").value());  // Mcp-Param-Region checked by the server
  REQUIRE(r);
  CHECK(r->content.at(0).find("text")->as_string() == "counted eu");
  CHECK(client->call_tool("résumé", json::Value(json::Object{})));  // Mcp-Name base64-encoded
  int progress = 0;
  auto slow = client->call_tool("slow", json::Value(json::Object{}), {.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; }});
  REQUIRE(slow);
  CHECK(progress == 3);
  mcp::ClientOptions with_answers = mcp_test::quick_options();
  with_answers.allow_elicitation = true;
  with_answers.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> { return json::parse(R"({"action":"accept"})").value(); };
  auto asking = mcp::Client::connect(f.config(), with_answers);
  REQUIRE(asking);
  auto answered = asking->call_tool("confirm", json::Value(json::Object{}));
  REQUIRE(answered);
  CHECK(answered->content.at(0).find("text")->as_string() == "answered");
}

TEST_CASE("our client speaks the legacy era over HTTP: a session, and input asked on the request's stream") {
  Fixture f;
  mcp::ClientOptions options = mcp_test::quick_options();
  options.allow_elicitation = true;
  options.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> { return json::parse(R"({"action":"accept"})").value(); };
  auto client = mcp::Client::connect(f.config(mcp::Negotiation::legacy), options);
  REQUIRE(client);
  CHECK(client->diagnostics().era == mcp::Era::legacy);
  auto r = client->call_tool("count", json::Value(json::Object{}));
  REQUIRE(r);
  auto answered = client->call_tool("confirm", json::Value(json::Object{}));
  REQUIRE(answered);
  CHECK(answered->content.at(0).find("text")->as_string() == "answered");
}

TEST_CASE("over HTTP each of two calls in flight gets only its own log messages, in both eras") {
  for (auto negotiation : {mcp::Negotiation::legacy, mcp::Negotiation::modern}) {
    INFO((negotiation == mcp::Negotiation::legacy ? "legacy" : "modern"));
    mcp::Server server;
    REQUIRE(server.add_tool(mcp_test::meet_tool()));
    auto http = server.serve_http({.api_key = std::string(kKey)});
    REQUIRE(http);
    mcp::ServerConfig config{
        .name = "web",
        .transport =
            mcp::HttpTarget{.url = http->url(), .headers = {{"X-API-Key", std::string(kKey)}}},
        .negotiation = negotiation};
    auto client = mcp::Client::connect(config, mcp_test::quick_options());
    REQUIRE(client);
    // Each message travels on the response stream of the request it belongs to, which ties it
    // to that call alone.
    const auto logs = mcp_test::two_calls_logging(*client);
    CHECK(logs.ok);
    CHECK(logs.a == std::vector<std::string>{"a arrived", "a leaving"});
    CHECK(logs.b == std::vector<std::string>{"b arrived", "b leaving"});
  }
}

TEST_CASE("a modern client over HTTP learns of tool changes through its listen stream") {
  Fixture f;
  auto client = mcp::Client::connect(f.config(), mcp_test::quick_options());
  REQUIRE(client);
  const auto before = client->list_tools()->size();
  REQUIRE(f.server.add_tool({.name = "new", .handler = [](const mcp::ToolCall&) -> mcp::ToolOutcome {
                               return mcp::ServerToolResult::text("new");
                             }}));
  std::size_t after = before;
  for (int i = 0; i < 50 && after == before; ++i) {
    std::this_thread::sleep_for(20ms);
    after = client->list_tools()->size();
  }
  CHECK(after == before + 1);
}

namespace {

// A hand-rolled modern HTTP server that records what it is sent and cuts its first tools/call
// stream before the answer.
struct Recorder {
  std::mutex mu;
  std::vector<http::ServerRequest> requests;
  int calls = 0;
  std::optional<http::HttpServer> server;

  Recorder() {
    auto s = http::HttpServer::start({}, [this](const http::ServerRequest& req, http::ResponseWriter& out) {
      auto msg = json::parse(req.body).value();
      const std::string method = msg.find("method") ? msg.find("method")->as_string() : "";
      int call_number = 0;
      {
        std::lock_guard lock(mu);
        requests.push_back(req);
        if (method == "tools/call") call_number = ++calls;
      }
      const std::string id = msg.find("id") ? json::dump(*msg.find("id")) : "null";
      if (method == "server/discover") {
        (void)out.respond(200, {{"Content-Type", "application/json"}},
                          R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete","ttlMs":0,"cacheScope":"private"}})");
      } else if (method == "tools/call" && call_number == 1) {
        (void)out.start_stream(200, {{"Content-Type", "text/event-stream"}});
        (void)out.write("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n");
        (void)out.finish();  // the stream ends without the answer
      } else if (method == "tools/call") {
        (void)out.respond(200, {{"Content-Type", "application/json"}},
                          R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"content":[{"type":"text","text":"second time"}],"resultType":"complete"}})");
      } else {
        (void)out.respond(202, {}, "");
      }
    });
    REQUIRE(s);
    server.emplace(std::move(*s));
  }
};

}  // namespace

TEST_CASE("the client derives routing headers from the body and re-sends a cut stream with a new id") {
  Recorder rec;
  mcp::ServerConfig config{.name = "rec",
                           .transport = mcp::HttpTarget{.url = rec.server->base_url() + "/mcp",
                                                        .headers = {{"Authorization", "Bearer ${MCP_TEST_UNSET_TOKEN}"},
                                                                    {"X-Static", "yes"}}}};
  auto client = mcp::Client::connect(config, mcp_test::quick_options());
  REQUIRE(client);
  auto r = client->call_tool("résumé", json::Value(json::Object{}));
  REQUIRE(r);
  CHECK(r->content.at(0).find("text")->as_string() == "second time");
  std::lock_guard lock(rec.mu);
  std::vector<std::string> call_ids;
  for (const auto& req : rec.requests) {
    CHECK(!req.headers.get("Authorization"));  // resolved to nothing: dropped, never "Bearer "
    CHECK(req.headers.get("X-Static") == std::optional<std::string_view>("yes"));
    CHECK(req.headers.get("Accept") == std::optional<std::string_view>("application/json, text/event-stream"));
    auto msg = json::parse(req.body).value();
    if (msg.find("method")->as_string() != "tools/call") continue;
    CHECK(req.headers.get("Mcp-Method") == std::optional<std::string_view>("tools/call"));
    CHECK(req.headers.get("Mcp-Name") == std::optional<std::string_view>("=?base64?csOpc3Vtw6k=?="));
    CHECK(req.headers.get("MCP-Protocol-Version") == std::optional<std::string_view>("2026-07-28"));
    call_ids.push_back(json::dump(*msg.find("id")));
  }
  REQUIRE(call_ids.size() == 2);
  CHECK(call_ids[0] != call_ids[1]);
}

TEST_CASE("a header carrying a control byte after interpolation is refused at connect") {
  Recorder rec;
  mcp::ServerConfig config{.name = "rec",
                           .transport = mcp::HttpTarget{.url = rec.server->base_url() + "/mcp",
                                                        .headers = {{"Authorization", "Bearer ${TOKEN}"}}}};
  auto options = mcp_test::quick_options();
  options.getenv = [](std::string_view) -> std::optional<std::string> { return std::string("x\r\nX-Injected: 1"); };
  auto refused = mcp::Client::connect(config, options);
  REQUIRE(!refused);
  CHECK(refused.error().message.find("control byte") != std::string::npos);
  std::lock_guard lock(rec.mu);
  CHECK(rec.requests.empty());
}

TEST_CASE("only http and https URLs are transports") {
  auto refused = mcp::Client::connect({.name = "x", .transport = mcp::HttpTarget{.url = "ftp://127.0.0.1/mcp"}});
  REQUIRE(!refused);
  CHECK(refused.error().code == Errc::invalid_argument);
}

TEST_CASE("each routing header is checked on its own: a wrong Mcp-Method or MCP-Protocol-Version alone is -32020") {
  Fixture f;
  const std::string call = modern_body("tools/call", R"("name":"count","arguments":{"region":"eu"})");
  // Every other header agrees with the body, so only the one under test can be the mismatch.
  auto headers = [](std::string_view method, std::string_view version) {
    http::Headers h{{"MCP-Protocol-Version", std::string(version)}, {"Mcp-Method", std::string(method)}};
    h.add("Mcp-Name", "count");
    h.add("Mcp-Param-Region", "eu");
    return h;
  };
  auto mismatch_header = [](http::Response& resp) {
    auto body = json::parse(resp.read_all().value()).value();
    const json::Value* error = body.find("error");
    REQUIRE(error != nullptr);
    CHECK(error->find("code")->to_int64() == std::optional<std::int64_t>{-32020});
    const json::Value* data = error->find("data");
    REQUIRE(data != nullptr);
    return std::string(data->find("mismatch")->find("header")->as_string());
  };
  auto wrong_method = f.post(call, headers("tools/list", "2026-07-28"));
  CHECK(wrong_method.status() == 400);
  CHECK(mismatch_header(wrong_method) == "Mcp-Method");
  auto wrong_version = f.post(call, headers("tools/call", "2025-06-18"));
  CHECK(wrong_version.status() == 400);
  CHECK(mismatch_header(wrong_version) == "MCP-Protocol-Version");
  CHECK(f.calls.load() == 0);
  auto agreeing = f.post(call, headers("tools/call", "2026-07-28"));
  CHECK(agreeing.status() == 200);
  CHECK(f.calls.load() == 1);
}

TEST_CASE("the API key must match exactly: longer keys and prefixes and other cases get 401") {
  Fixture f;
  const std::string call = modern_body("tools/call", R"("name":"count","arguments":{})");
  const std::string key(kKey);
  std::string upper = key;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& presented : {key + "x", key + key, key.substr(0, key.size() - 1), upper}) {
    INFO(presented);
    for (const char* header : {"Authorization", "X-API-Key"}) {
      INFO(header);
      auto h = modern_headers("tools/call", "count");
      h.add(header, std::string(header) == "Authorization" ? "Bearer " + presented : presented);
      auto resp = f.post(call, h, false);
      CHECK(resp.status() == 401);
    }
  }
  CHECK(f.calls.load() == 0);
  auto h = modern_headers("tools/call", "count");
  h.add("X-API-Key", key);
  CHECK(f.post(call, h, false).status() == 200);
  CHECK(f.calls.load() == 1);
}

TEST_CASE(
    "an accepted elicitation form gets the schema's defaults for the fields the user left out, "
    "both eras") {
  mcp::Server server;
  REQUIRE(server.add_tool(
      {.name = "form", .handler = [](const mcp::ToolCall& call) -> mcp::ToolOutcome {
         if (const json::Value* answer = call.input_responses.find("f")) {
           return mcp::ServerToolResult::text(json::dump(*answer->find("content")));
         }
         mcp::InputRequired asked;
         asked.requests.emplace_back(
             "f", mcp::elicitation_request("Review", json::parse(R"({"type":"object","properties":{
                                        "name":{"type":"string","default":"John Doe"},
                                        "age":{"type":"integer","default":30},
                                        "status":{"type":"string","enum":["active",
                                          "inactive"],"default":"active"},
                                        "verified":{"type":"boolean","default":true},
                                        "note":{"type":"string"}}})")
                                                         .value()));
         return asked;
       }}));
  auto started = server.serve_http({.api_key = std::string(kKey)});
  REQUIRE(started);
  for (auto negotiation : {mcp::Negotiation::legacy, mcp::Negotiation::modern}) {
    mcp::ClientOptions o;
    o.allow_elicitation = true;
    o.elicitation = [](const mcp::InputRequest&) -> Result<json::Value> {
      // The user changed one field and left the rest as the form showed them.
      return json::parse(R"({"action":"accept","content":{"age":41}})");
    };
    auto client = mcp::Client::connect(
        {.name = "web",
         .transport =
             mcp::HttpTarget{.url = started->url(), .headers = {{"X-API-Key", std::string(kKey)}}},
         .negotiation = negotiation},
        o);
    REQUIRE(client);
    auto result = client->call_tool("form", json::Value(json::Object{}));
    REQUIRE(result);
    REQUIRE(!result->content.empty());
    CHECK(result->content[0].find("text")->as_string() ==
          R"({"age":41,"name":"John Doe","status":"active","verified":true})");
  }
}

TEST_CASE(
    "the embedder lists and gets the server's prompts and resources, every page, in both eras") {
  mcp::Server server({.page_size = 1});
  for (const char* name : {"first", "second"}) {
    mcp::ServerPrompt prompt{
        .name = name, .description = "a prompt", .arguments = {{"topic", "", true}}};
    prompt.get = [name](const mcp::PromptGet& g) -> Result<mcp::PromptResult> {
      mcp::PromptResult r;
      const std::string text = std::string(name) + ":" + g.arguments.at(0).second;
      r.messages.push_back({"user", json::Value(json::Object{{"type", "text"}, {"text", text}})});
      return r;
    };
    REQUIRE(server.add_prompt(std::move(prompt)));
  }
  for (const char* uri : {"x://a", "x://b", "x://c"}) {
    mcp::ServerResource resource{.uri = uri, .name = uri, .mime_type = "text/plain"};
    resource.read = [](const mcp::ResourceRead& r) -> Result<std::vector<mcp::ResourceContents>> {
      return std::vector<mcp::ResourceContents>{
          {r.uri, "text/plain", "body of " + r.uri, std::nullopt}};
    };
    REQUIRE(server.add_resource(std::move(resource)));
  }
  auto started = server.serve_http({.api_key = std::string(kKey)});
  REQUIRE(started);
  for (auto negotiation : {mcp::Negotiation::legacy, mcp::Negotiation::modern}) {
    mcp::HttpTarget target{.url = started->url(), .headers = {{"X-API-Key", std::string(kKey)}}};
    auto client =
        mcp::Client::connect({.name = "web", .transport = target, .negotiation = negotiation});
    REQUIRE(client);
    auto prompts = mcp::list_prompts(*client);
    REQUIRE(prompts);
    REQUIRE(prompts->size() == 2);  // two pages of one
    CHECK((*prompts)[1].name == "second");
    CHECK((*prompts)[0].arguments.as_array().at(0).find("name")->as_string() == "topic");
    auto got = mcp::get_prompt(*client, "second", {{"topic", "tea"}});
    REQUIRE(got);
    const json::Value& message = got->find("messages")->as_array().at(0);
    CHECK(message.find("content")->find("text")->as_string() == "second:tea");
    auto resources = mcp::list_resources(*client);
    REQUIRE(resources);
    REQUIRE(resources->size() == 3);
    CHECK((*resources)[2].uri == "x://c");
    CHECK((*resources)[2].mime_type == "text/plain");
    auto read = mcp::read_resource(*client, "x://b");
    REQUIRE(read);
    CHECK(read->find("contents")->as_array().at(0).find("text")->as_string() == "body of x://b");
    auto missing = mcp::get_prompt(*client, "nope");
    REQUIRE(!missing);
    CHECK(missing.error().message.find("web") != std::string::npos);
  }
}

namespace {

// A hand-rolled 2025-11-25 server whose standalone GET stream is slow to answer, recording the
// order in which it answered the GET and received each later request. A server sends its own
// requests (elicitation, say) on that stream and drops them while it has none, so a first tool
// call that overtakes the GET would lose them.
struct SlowListenServer {
  std::mutex mu;
  std::vector<std::string> events;  // "GET answered", then each POST's method
  std::atomic<bool> stopping{false};
  std::optional<http::HttpServer> server;

  SlowListenServer() {
    auto s = http::HttpServer::start(
        {}, [this](const http::ServerRequest& req, http::ResponseWriter& out) {
          if (req.method == "GET") return answer_get(out);
          auto msg = json::parse(req.body).value();
          const std::string method = msg.find("method") ? msg.find("method")->as_string() : "";
          record(method);
          const std::string id = msg.find("id") ? json::dump(*msg.find("id")) : "null";
          if (method == "initialize") {
            (void)out.respond(
                200, {{"Content-Type", "application/json"}, {"Mcp-Session-Id", "s1"}},
                R"({"jsonrpc":"2.0","id":)" + id +
                    R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},)"
                    R"("serverInfo":{"name":"slow","version":"1"}}})");
          } else if (msg.find("id")) {
            (void)out.respond(200, {{"Content-Type", "application/json"}},
                              R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"tools":[]}})");
          } else {
            (void)out.respond(202, {}, "");
          }
        });
    REQUIRE(s);
    server.emplace(std::move(*s));
  }
  ~SlowListenServer() { stopping.store(true); }

  void record(std::string what) {
    std::lock_guard lock(mu);
    events.push_back(std::move(what));
  }

  void answer_get(http::ResponseWriter& out) {
    std::this_thread::sleep_for(300ms);
    record("GET answered");  // before the headers go out, so no later request can precede it
    (void)out.start_stream(200, {{"Content-Type", "text/event-stream"}});
    (void)out.write(": open\n\n");
    for (int i = 0; i < 100 && !stopping.load(); ++i) std::this_thread::sleep_for(20ms);
    (void)out.finish();
  }
};

}  // namespace

TEST_CASE("a 2025-11-25 session's first request waits for its standalone stream to be answered") {
  SlowListenServer srv;
  mcp::ServerConfig config{.name = "slow",
                           .transport = mcp::HttpTarget{.url = srv.server->base_url() + "/mcp"},
                           .negotiation = mcp::Negotiation::legacy};
  auto client = mcp::Client::connect(config, mcp_test::quick_options());
  REQUIRE(client);
  REQUIRE(client->list_tools());
  std::vector<std::string> seen;
  {
    std::lock_guard lock(srv.mu);
    seen = srv.events;
  }
  const auto at = [&](std::string_view what) {
    return std::find(seen.begin(), seen.end(), what) - seen.begin();
  };
  REQUIRE(at("GET answered") < static_cast<std::ptrdiff_t>(seen.size()));
  CHECK(at("GET answered") < at("tools/list"));
  srv.stopping.store(true);
  (void)client->close();
}
