// fetch_url and its SSRF guard against loopback servers and an injected resolver. Loopback is
// itself non-public, so each test permits exactly the test server's address (127.0.0.1); a second
// server on 127.0.0.2 stands for an internal service that must never be reached.
#include "agentkit/tools/fetch.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "agentkit/http/server.hpp"
#include "fetch_guard.hpp"
#include "support/catch.hpp"

using namespace std::chrono_literals;
using agentkit::Errc;
using agentkit::Result;
namespace http = agentkit::http;
namespace tools = agentkit::tools;
namespace json = agentkit::json;

namespace {

constexpr std::size_t kCap = 512 * 1024;

http::IpAddress ip(std::string_view text) { return http::IpAddress::parse(text).value(); }

// Names from a table; IP literals answered as themselves. Counts lookups per name.
class TableResolver final : public http::Resolver {
 public:
  explicit TableResolver(std::map<std::string, std::vector<http::IpAddress>, std::less<>> table)
      : table_(std::move(table)) {}
  Result<std::vector<http::IpAddress>> resolve(std::string_view host, const http::IoDeadline&) override {
    if (auto literal = http::IpAddress::parse(host)) return std::vector<http::IpAddress>{*literal};
    std::lock_guard g(mu_);
    ++lookups_[std::string(host)];
    auto it = table_.find(host);
    if (it == table_.end()) return agentkit::fail(Errc::not_found, "no such test host: " + std::string(host));
    return it->second;
  }
  int lookups(const std::string& host) {
    std::lock_guard g(mu_);
    return lookups_[host];
  }

 private:
  std::map<std::string, std::vector<http::IpAddress>, std::less<>> table_;
  std::mutex mu_;
  std::map<std::string, int> lookups_;
};

// https:// without encryption, so scheme rules can be tested against a plain loopback server.
class PassThroughTls final : public http::TlsProvider {
 public:
  Result<std::unique_ptr<http::Stream>> connect(std::unique_ptr<http::Stream> transport, const http::TlsClientSettings&,
                                                const http::IoDeadline&) override {
    return transport;
  }
};

struct Seen {
  std::string method, target, body;
  std::optional<std::string> authorization, custom;
};

// A loopback server that records what it saw and answers from a routing function.
class TestServer {
 public:
  using Route = std::function<void(const http::ServerRequest&, http::ResponseWriter&)>;
  explicit TestServer(Route route, std::string bind = "127.0.0.1") {
    http::ServerOptions o;
    o.bind_address = std::move(bind);
    server_.emplace(http::HttpServer::start(o, [this, route](const http::ServerRequest& req, http::ResponseWriter& out) {
                      record(req);
                      route(req, out);
                    }).value());
  }
  std::uint16_t port() const { return server_->port(); }
  std::vector<Seen> seen() {
    std::lock_guard g(mu_);
    return seen_;
  }

 private:
  void record(const http::ServerRequest& req) {
    std::lock_guard g(mu_);
    auto opt = [&](std::string_view name) -> std::optional<std::string> {
      auto v = req.headers.get(name);
      return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
    };
    seen_.push_back({req.method, req.target, req.body, opt("authorization"), opt("x-custom")});
  }
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::optional<http::HttpServer> server_;
};

void reply(http::ResponseWriter& out, int status, std::string body, http::Headers headers = {}) {
  (void)out.respond(status, headers, body);
}

void redirect(http::ResponseWriter& out, int status, const std::string& location) {
  (void)out.respond(status, {{"Location", location}}, "");
}

tools::FetchOptions loopback_options(std::shared_ptr<http::Resolver> resolver = nullptr) {
  tools::FetchOptions o;
  o.allow_http = true;
  o.permitted_addresses = {tools::parse_ip_address("127.0.0.1").value()};
  o.resolver = resolver ? resolver
                        : std::make_shared<TableResolver>(std::map<std::string, std::vector<http::IpAddress>, std::less<>>{});
  o.default_timeout = 10s;
  return o;
}

std::string url(std::string_view host, std::uint16_t port, std::string_view path = "/") {
  return "http://" + std::string(host) + ":" + std::to_string(port) + std::string(path);
}

std::string code_of(const agentkit::Error& e) { return std::string(e.find_detail("code").value_or("")); }

}  // namespace

TEST_CASE("plain http is refused unless allowed, before any connection") {
  TestServer server([](const auto&, auto& out) { reply(out, 200, "hi"); });
  auto options = loopback_options();
  options.allow_http = false;
  auto r = tools::fetch_url({.url = url("127.0.0.1", server.port())}, options);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::permission_denied);
  CHECK(code_of(r.error()) == "scheme_not_allowed");
  CHECK(server.seen().empty());
  options.allow_http = true;
  auto ok = tools::fetch_url({.url = url("127.0.0.1", server.port())}, options);
  REQUIRE(ok.has_value());
  CHECK(ok->status == 200);
  CHECK(ok->body == "hi");
  auto ftp = tools::fetch_url({.url = "ftp://127.0.0.1/x"}, options);
  CHECK(code_of(ftp.error()) == "scheme_not_allowed");
}

TEST_CASE("a name resolving to one public and one private address is refused whole") {
  TestServer server([](const auto&, auto& out) { reply(out, 200, "reached"); });
  // 127.0.0.1 is permitted (it stands for the public address); 10.0.0.1 is private. Either order.
  auto resolver = std::make_shared<TableResolver>(std::map<std::string, std::vector<http::IpAddress>, std::less<>>{
      {"mixed.test", {ip("127.0.0.1"), ip("10.0.0.1")}},
      {"mixed-reversed.test", {ip("10.0.0.1"), ip("127.0.0.1")}},
      {"clean.test", {ip("127.0.0.1")}}});
  auto options = loopback_options(resolver);
  for (const char* host : {"mixed.test", "mixed-reversed.test"}) {
    INFO(host);
    auto r = tools::fetch_url({.url = url(host, server.port())}, options);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::permission_denied);
    CHECK(code_of(r.error()) == "address_not_allowed");
    CHECK(r.error().find_detail("address") == std::optional<std::string_view>{"10.0.0.1"});
    CHECK(r.error().message.find("SSRF") != std::string::npos);
  }
  CHECK(server.seen().empty());
  CHECK(tools::fetch_url({.url = url("clean.test", server.port())}, options).has_value());
}

TEST_CASE("IPv4-mapped IPv6 literals are unmapped before the check") {
  auto options = loopback_options();
  options.permitted_addresses.clear();
  for (const char* target : {"http://[::ffff:10.0.0.1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/",
                             "http://127.0.0.1/", "http://[::1]/", "http://0.0.0.0/", "http://[fd00::1]/"}) {
    INFO(target);
    auto r = tools::fetch_url({.url = target}, options);
    REQUIRE_FALSE(r.has_value());
    CHECK(code_of(r.error()) == "address_not_allowed");
  }
  auto mapped = tools::fetch_url({.url = "http://[::ffff:10.0.0.1]/"}, options);
  CHECK(mapped.error().find_detail("class") == std::optional<std::string_view>{"private"});
  CHECK(mapped.error().find_detail("address") == std::optional<std::string_view>{"10.0.0.1"});
}

TEST_CASE("a redirect to http://169.254.169.254 is refused") {
  TestServer server([](const auto&, auto& out) { redirect(out, 302, "http://169.254.169.254/latest/meta-data/"); });
  auto r = tools::fetch_url({.url = url("127.0.0.1", server.port())}, loopback_options());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::permission_denied);
  CHECK(code_of(r.error()) == "address_not_allowed");
  CHECK(r.error().find_detail("class") == std::optional<std::string_view>{"link_local"});
}

TEST_CASE("every redirect hop is re-validated: an internal service is never reached") {
  TestServer internal([](const auto&, auto& out) { reply(out, 200, "internal secrets"); }, "127.0.0.2");
  auto resolver = std::make_shared<TableResolver>(std::map<std::string, std::vector<http::IpAddress>, std::less<>>{
      {"internal.test", {ip("127.0.0.2")}}});
  const std::uint16_t internal_port = internal.port();
  TestServer front([&](const http::ServerRequest& req, http::ResponseWriter& out) {
    if (req.path == "/by-address") return redirect(out, 302, url("127.0.0.2", internal_port));
    redirect(out, 307, url("internal.test", internal_port, "/by-name"));
  });
  auto options = loopback_options(resolver);
  for (const char* path : {"/by-address", "/by-name"}) {
    INFO(path);
    auto r = tools::fetch_url({.url = url("127.0.0.1", front.port(), path)}, options);
    REQUIRE_FALSE(r.has_value());
    CHECK(code_of(r.error()) == "address_not_allowed");
    CHECK(r.error().find_detail("address") == std::optional<std::string_view>{"127.0.0.2"});
  }
  CHECK(front.seen().size() == 2);
  CHECK(internal.seen().empty());
}

TEST_CASE("the connect-time check refuses the concrete address whatever the name said") {
  tools::detail::FetchGuard guard({tools::parse_ip_address("127.0.0.1").value()});
  auto target = [](std::string_view host, std::string_view address) {
    return http::ConnectTarget{host, ip(address), 80, false};
  };
  // A rebinding name: it looked public when resolved, the socket is about to reach a private one.
  CHECK_FALSE(guard.check_connect(target("rebind.test", "10.0.0.1")).has_value());
  CHECK_FALSE(guard.check_connect(target("rebind.test", "::ffff:10.0.0.1")).has_value());
  CHECK_FALSE(guard.check_connect(target("rebind.test", "169.254.169.254")).has_value());
  CHECK_FALSE(guard.check_connect(target("rebind.test", "127.0.0.2")).has_value());
  CHECK(guard.check_connect(target("ok.test", "127.0.0.1")).has_value());
  CHECK(guard.check_connect(target("ok.test", "::ffff:127.0.0.1")).has_value());  // the mapped form of a permitted one
  CHECK(guard.check_connect(target("ok.test", "93.184.216.34")).has_value());
  CHECK(tools::check_fetch_address(tools::parse_ip_address("8.8.8.8").value(), "dns", {}).has_value());
  CHECK_FALSE(tools::check_fetch_address(tools::parse_ip_address("192.168.1.1").value(), "lan", {}).has_value());
}

TEST_CASE("each name is resolved once per hop and the validated answer is the one connected to") {
  TestServer server([](const auto&, auto& out) { reply(out, 200, "ok"); });
  auto resolver = std::make_shared<TableResolver>(std::map<std::string, std::vector<http::IpAddress>, std::less<>>{
      {"one.test", {ip("127.0.0.1")}}});
  auto r = tools::fetch_url({.url = url("one.test", server.port())}, loopback_options(resolver));
  REQUIRE(r.has_value());
  CHECK(resolver->lookups("one.test") == 1);  // no second lookup a rebind could answer differently
}

TEST_CASE("caller headers are dropped on a cross-host redirect and kept on a same-origin one") {
  auto resolver = std::make_shared<TableResolver>(std::map<std::string, std::vector<http::IpAddress>, std::less<>>{
      {"a.test", {ip("127.0.0.1")}}, {"b.test", {ip("127.0.0.1")}}});
  std::uint16_t port = 0;
  TestServer server([&](const http::ServerRequest& req, http::ResponseWriter& out) {
    if (req.path == "/cross") return redirect(out, 302, url("b.test", port, "/landing"));
    if (req.path == "/same") return redirect(out, 302, "landing?x=1");
    if (req.path == "/back") return redirect(out, 302, url("b.test", port, "/again"));
    if (req.path == "/again") return redirect(out, 302, url("a.test", port, "/landing"));
    reply(out, 200, "landed");
  });
  port = server.port();
  tools::FetchRequest request;
  request.headers.add("Authorization", "Bearer secret");
  request.headers.add("X-Custom", "1");
  auto options = loopback_options(resolver);

  request.url = url("a.test", port, "/same");
  auto same = tools::fetch_url(request, options);
  REQUIRE(same.has_value());
  CHECK(same->final_url == url("a.test", port, "/landing?x=1"));
  request.url = url("a.test", port, "/cross");
  REQUIRE(tools::fetch_url(request, options).has_value());
  request.url = url("a.test", port, "/back");  // leaves the origin and comes back: still dropped
  REQUIRE(tools::fetch_url(request, options).has_value());

  auto seen = server.seen();
  REQUIRE(seen.size() == 7);
  CHECK(seen[0].authorization == std::optional<std::string>{"Bearer secret"});
  CHECK(seen[1].authorization == std::optional<std::string>{"Bearer secret"});  // same origin
  CHECK(seen[1].custom == std::optional<std::string>{"1"});
  CHECK(seen[2].authorization == std::optional<std::string>{"Bearer secret"});
  CHECK_FALSE(seen[3].authorization.has_value());  // b.test
  CHECK_FALSE(seen[3].custom.has_value());
  CHECK(seen[4].authorization.has_value());
  CHECK_FALSE(seen[5].authorization.has_value());
  CHECK_FALSE(seen[6].authorization.has_value());  // back on a.test, but the headers stay dropped
}

TEST_CASE("five redirects are followed and a sixth is an error") {
  TestServer server([](const http::ServerRequest& req, http::ResponseWriter& out) {
    int left = std::stoi(req.path.substr(3));
    if (left == 0) return reply(out, 200, "end");
    redirect(out, 301, "/r/" + std::to_string(left - 1));
  });
  auto five = tools::fetch_url({.url = url("127.0.0.1", server.port(), "/r/5")}, loopback_options());
  REQUIRE(five.has_value());
  CHECK(five->redirects == 5);
  CHECK(five->body == "end");
  auto six = tools::fetch_url({.url = url("127.0.0.1", server.port(), "/r/6")}, loopback_options());
  REQUIRE_FALSE(six.has_value());
  CHECK(six.error().code == Errc::limit_exceeded);
  CHECK(code_of(six.error()) == "too_many_redirects");
}

TEST_CASE("a redirect to another scheme is held to the same rule") {
  auto resolver = std::make_shared<TableResolver>(std::map<std::string, std::vector<http::IpAddress>, std::less<>>{
      {"secure.test", {ip("127.0.0.1")}}});
  std::uint16_t port = 0;
  TestServer server([&](const http::ServerRequest& req, http::ResponseWriter& out) {
    if (req.path == "/downgrade") return redirect(out, 302, url("secure.test", port, "/plain"));
    if (req.path == "/ftp") return redirect(out, 302, "ftp://secure.test/file");
    reply(out, 200, "secure");
  });
  port = server.port();
  auto options = loopback_options(resolver);
  options.allow_http = false;
  options.tls = std::make_shared<PassThroughTls>();
  const std::string https = "https://secure.test:" + std::to_string(port);
  auto ok = tools::fetch_url({.url = https + "/page"}, options);
  REQUIRE(ok.has_value());
  CHECK(ok->body == "secure");
  auto down = tools::fetch_url({.url = https + "/downgrade"}, options);
  REQUIRE_FALSE(down.has_value());
  CHECK(code_of(down.error()) == "scheme_not_allowed");
  auto ftp = tools::fetch_url({.url = https + "/ftp"}, options);
  REQUIRE_FALSE(ftp.has_value());
  CHECK(code_of(ftp.error()) == "scheme_not_allowed");
  CHECK(server.seen().size() == 3);  // the http:// hop was never sent
}

TEST_CASE("header fields the client owns are refused; an unknown method is refused") {
  TestServer server([](const auto&, auto& out) { reply(out, 200, "hi"); });
  for (const char* owned : {"Host", "content-length", "Transfer-Encoding", "Connection"}) {
    INFO(owned);
    tools::FetchRequest request;
    request.url = url("127.0.0.1", server.port());
    request.headers.add(owned, "x");
    auto r = tools::fetch_url(request, loopback_options());
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::invalid_argument);
    CHECK(r.error().message.find("is set by the HTTP client") != std::string::npos);
  }
  auto trace = tools::fetch_url({.url = url("127.0.0.1", server.port()), .method = "TRACE"}, loopback_options());
  REQUIRE_FALSE(trace.has_value());
  CHECK(trace.error().code == Errc::invalid_argument);
  CHECK(server.seen().empty());
}

TEST_CASE("303 continues as GET without a body; 307 keeps the method and body") {
  TestServer server([](const http::ServerRequest& req, http::ResponseWriter& out) {
    if (req.path == "/see-other") return redirect(out, 303, "/done");
    if (req.path == "/temporary") return redirect(out, 307, "/done");
    reply(out, 200, req.method + ":" + req.body);
  });
  auto options = loopback_options();
  auto see = tools::fetch_url({.url = url("127.0.0.1", server.port(), "/see-other"), .method = "post", .body = "data"}, options);
  REQUIRE(see.has_value());
  CHECK(see->body == "GET:");
  auto temp = tools::fetch_url({.url = url("127.0.0.1", server.port(), "/temporary"), .method = "POST", .body = "data"}, options);
  REQUIRE(temp.has_value());
  CHECK(temp->body == "POST:data");
}

TEST_CASE("a 600 KB body is cut at 512 KB; exactly 512 KB is not marked cut") {
  TestServer server([](const http::ServerRequest& req, http::ResponseWriter& out) {
    reply(out, 200, std::string(req.path == "/big" ? 600 * 1024 : kCap, 'b'));
  });
  auto big = tools::fetch_url({.url = url("127.0.0.1", server.port(), "/big")}, loopback_options());
  REQUIRE(big.has_value());
  CHECK(big->body.size() == kCap);
  CHECK(big->truncated);
  auto exact = tools::fetch_url({.url = url("127.0.0.1", server.port(), "/exact")}, loopback_options());
  REQUIRE(exact.has_value());
  CHECK(exact->body.size() == kCap);
  CHECK_FALSE(exact->truncated);
}

TEST_CASE("an endless body is cut at the cap without being read whole") {
  std::atomic<std::size_t> sent{0};
  TestServer server([&](const http::ServerRequest&, http::ResponseWriter& out) {
    (void)out.start_stream(200, {{"Content-Type", "text/plain"}});
    const std::string chunk(64 * 1024, 'e');
    while (!out.stop_token().stop_requested() && out.write(chunk)) sent += chunk.size();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = tools::fetch_url({.url = url("127.0.0.1", server.port())}, loopback_options());
  REQUIRE(r.has_value());
  CHECK(r->body.size() == kCap);
  CHECK(r->truncated);
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  CHECK(sent.load() < 64u * 1024 * 1024);  // far less than a read-everything-then-cut would pull
}

TEST_CASE("the time limit covers a server that never answers") {
  TestServer server([](const http::ServerRequest&, http::ResponseWriter& out) {
    agentkit::stop_token stop = out.stop_token();
    for (int i = 0; i < 100 && !stop.stop_requested(); ++i) std::this_thread::sleep_for(50ms);
    reply(out, 200, "late");
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = tools::fetch_url({.url = url("127.0.0.1", server.port()), .timeout = 1s}, loopback_options());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::timeout);
  CHECK(std::chrono::steady_clock::now() - t0 < 4s);
}

TEST_CASE("fetch_url as a tool shows status, type and body; metadata stays out of the text") {
  TestServer server([](const http::ServerRequest& req, http::ResponseWriter& out) {
    if (req.path == "/bin") return reply(out, 200, std::string("\x89PNG\0\0", 6), {{"Content-Type", "image/png"}});
    if (req.path == "/go") return redirect(out, 302, "/text");
    reply(out, 404, "not here", {{"Content-Type", "text/plain"}});
  });
  agentkit::ToolDefinition tool = tools::fetch_url_tool(loopback_options());
  CHECK(tool.name == "fetch_url");
  CHECK(tool.origin == "builtin");
  agentkit::ToolContext ctx;
  auto run = [&](const std::string& u) {
    return tool.handler(json::Value(json::Object{{"url", u}, {"timeout_s", 5}}), ctx);
  };
  auto page = run(url("127.0.0.1", server.port(), "/go"));
  REQUIRE(page.ok);
  CHECK(page.text.value() == "HTTP 404 Not Found\nURL: " + url("127.0.0.1", server.port(), "/text") +
                                 "\nContent-Type: text/plain\n\nnot here");
  CHECK(page.metadata.find("status")->number_text() == "404");
  CHECK(page.metadata.find("redirects")->number_text() == "1");
  auto bin = run(url("127.0.0.1", server.port(), "/bin"));
  CHECK(bin.text.value().find("[Binary body: 6B of image/png, not shown.]") != std::string::npos);
  auto blocked = run("http://169.254.169.254/");
  CHECK_FALSE(blocked.ok);
  CHECK(blocked.error == "address_not_allowed");
  auto bad = tool.handler(json::Value(json::Object{{"url", "x"}, {"method", "TRACE"}}), ctx);
  CHECK(bad.error == "invalid_arguments");
}
