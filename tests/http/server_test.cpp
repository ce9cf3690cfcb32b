// Our HTTP/1.1 server against independent clients: Python's http.client, raw sockets sending
// exactly the bytes a test needs, and our own client.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/base/thread.hpp"

#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"
#include "http_test_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace std::chrono_literals;
using agentkit::http::HttpServer;
using agentkit::http::ResponseWriter;
using agentkit::http::ServerOptions;
using agentkit::http::ServerRequest;

namespace {

// Connects to the server, sends `bytes`, and returns everything it answers until it closes.
std::string raw_exchange(std::uint16_t port, const std::string& bytes, bool half_close = false) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "connect failed";
  }
  agentkit::testing::write_all(fd, bytes);
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10'000) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string status_line(const std::string& response) { return response.substr(0, response.find("\r\n")); }

void echo_handler(const ServerRequest& req, ResponseWriter& out) {
  if (req.path == "/stream") {
    // (Catch assertions are not thread-safe: handlers run on server threads and only act.)
    (void)out.start_stream(200, {{"Content-Type", "text/event-stream"}});
    for (int i = 0; i < 3; ++i) (void)out.write("data: " + std::to_string(i) + "\n\n");
    (void)out.finish({{"X-Done", "yes"}});
    return;
  }
  if (req.path == "/throw") throw std::runtime_error("handler bug");
  if (req.path == "/silent") return;
  const std::string query = req.query ? "?" + *req.query : "";
  (void)out.respond(200, {{"Content-Type", "text/plain"}, {"X-Seen", req.headers.get("x-n").value_or("-").data()}},
                    req.method + " " + req.path + query + " " + req.body);
}

HttpServer start_server(ServerOptions options = {}, agentkit::http::Handler handler = echo_handler) {
  auto server = HttpServer::start(std::move(options), std::move(handler));
  REQUIRE(server);
  return std::move(*server);
}

}  // namespace

TEST_CASE("the server listens on loopback by default") {
  HttpServer server = start_server();
  CHECK(server.base_url() == "http://127.0.0.1:" + std::to_string(server.port()));
  CHECK(server.port() != 0);
}

TEST_CASE("Python's http.client gets answers and streams over one keep-alive connection") {
  HttpServer server = start_server();
  const std::string script =
      "import http.client, sys\n"
      "c = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]))\n"
      "for i in range(3):\n"
      "    c.request('POST', '/echo?i=%d' % i, body=b'abc', headers={'X-N': str(i)})\n"
      "    r = c.getresponse()\n"
      "    print(r.status, r.getheader('X-Seen'), r.read().decode())\n"
      "c.request('GET', '/stream')\n"
      "r = c.getresponse()\n"
      "print(r.status, r.getheader('Transfer-Encoding'), repr(r.read().decode()))\n";
  auto out = agentkit::testing::run_program({"python3", "-c", script, std::to_string(server.port())});
  INFO(out.err);
  REQUIRE(out.exit_code == 0);
  CHECK(out.out ==
        "200 0 POST /echo?i=0 abc\n"
        "200 1 POST /echo?i=1 abc\n"
        "200 2 POST /echo?i=2 abc\n"
        "200 chunked 'data: 0\\n\\ndata: 1\\n\\ndata: 2\\n\\n'\n");
  CHECK(server.stats().connections_accepted == 1);
  CHECK(server.stats().requests_handled == 4);
}

TEST_CASE("a streamed response reaches our client event by event, before the handler finishes") {
  agentkit::testing::Latch first_read;
  HttpServer server = start_server({}, [&](const ServerRequest&, ResponseWriter& out) {
    (void)out.start_stream(200, {{"Content-Type", "text/event-stream"}});
    (void)out.write("data: one\n\n");
    (void)first_read.wait();  // the second event is only written once the first was received
    (void)out.write("data: two\n\n");
    (void)out.finish();
  });
  agentkit::http::HttpOptions o;
  o.proxy = agentkit::http::ProxySettings{};
  agentkit::http::HttpClient client(o);
  auto resp = client.send({.url = server.base_url() + "/events"});
  REQUIRE(resp);
  std::array<char, 256> buf{};
  auto n = resp->read_some(buf);
  REQUIRE(n);
  CHECK(std::string(buf.data(), *n) == "data: one\n\n");
  first_read.open();
  CHECK(resp->read_all().value() == "data: two\n\n");
  // The connection went back to the pool after the stream ended.
  CHECK(client.send({.url = server.base_url() + "/events2"}).has_value());
  first_read.open();
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("request limits are enforced with the right status before the handler runs") {
  std::atomic<int> handled{0};
  ServerOptions o;
  o.max_line_bytes = 256;
  o.max_header_bytes = 1024;
  o.max_header_count = 10;
  o.max_body_bytes = 100;
  HttpServer server = start_server(o, [&](const ServerRequest& req, ResponseWriter& out) {
    ++handled;
    (void)out.respond(200, {}, req.body);
  });
  const auto port = server.port();
  CHECK(status_line(raw_exchange(port, "GET /" + std::string(300, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n")) ==
        "HTTP/1.1 414 URI Too Long");
  CHECK(status_line(raw_exchange(port, "GET / HTTP/1.1\r\nX-Big: " + std::string(300, 'b') + "\r\n\r\n")) ==
        "HTTP/1.1 431 Request Header Fields Too Large");
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 8; ++i) many += "X-Field-" + std::to_string(i) + ": " + std::string(150, 'c') + "\r\n";
  CHECK(status_line(raw_exchange(port, many + "\r\n")) == "HTTP/1.1 431 Request Header Fields Too Large");
  std::string count = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 11; ++i) count += "X: 1\r\n";
  CHECK(status_line(raw_exchange(port, count + "\r\n")) == "HTTP/1.1 431 Request Header Fields Too Large");
  // A declared body over the limit is refused without waiting for it.
  CHECK(status_line(raw_exchange(port, "POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n")) ==
        "HTTP/1.1 413 Content Too Large");
  std::string chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i) chunked += "40\r\n" + std::string(64, 'd') + "\r\n";
  CHECK(status_line(raw_exchange(port, chunked + "0\r\n\r\n")) == "HTTP/1.1 413 Content Too Large");
  CHECK(status_line(raw_exchange(port, "GET / HTTP/2.0\r\n\r\n")) == "HTTP/1.1 505 HTTP Version Not Supported");
  CHECK(status_line(raw_exchange(port, "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n")) ==
        "HTTP/1.1 501 Not Implemented");
  CHECK(status_line(raw_exchange(port, "GET / HTTP/1.1\r\nBad Header: x\r\n\r\n")) == "HTTP/1.1 400 Bad Request");
  CHECK(status_line(raw_exchange(port, "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")) ==
        "HTTP/1.1 400 Bad Request");
  CHECK(handled == 0);
  CHECK(server.stats().requests_rejected == 10);
  // At the limits exactly, requests go through.
  auto ok = raw_exchange(port, "POST / HTTP/1.1\r\nContent-Length: 100\r\nConnection: close\r\n\r\n" + std::string(100, 'e'));
  CHECK(status_line(ok) == "HTTP/1.1 200 OK");
  CHECK(handled == 1);
}

TEST_CASE(
    "a request beyond max_connections in progress is answered 503, an idle connection does not "
    "count") {
  agentkit::testing::Latch handler_started;
  agentkit::testing::Latch release;
  ServerOptions o;
  o.max_connections = 1;
  HttpServer server = start_server(o, [&](const ServerRequest& req, ResponseWriter& out) {
    if (req.path == "/hold") {
      handler_started.open();
      (void)release.wait();
    }
    (void)out.respond(200, {}, "ok");
  });
  agentkit::http::HttpOptions co;
  co.proxy = agentkit::http::ProxySettings{};
  agentkit::http::HttpClient first(co);
  auto resp = first.send({.url = server.base_url() + "/a"});
  REQUIRE(resp);
  REQUIRE(resp->read_all());  // the connection stays open, idle, in the client's pool
  // The first exchange's thread leaves its serving count just after the client has its answer;
  // once it has, the idle connection no longer counts.
  std::string answered;
  for (int i = 0; i < 50 && status_line(answered) != "HTTP/1.1 200 OK"; ++i) {
    if (i > 0) std::this_thread::sleep_for(100ms);
    answered = raw_exchange(server.port(), "GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  }
  CHECK(status_line(answered) == "HTTP/1.1 200 OK");
  agentkit::jthread holder([&] {
    (void)raw_exchange(server.port(), "GET /hold HTTP/1.1\r\nConnection: close\r\n\r\n");
  });
  REQUIRE(handler_started.wait());
  CHECK(status_line(raw_exchange(server.port(), "GET / HTTP/1.1\r\n\r\n")) == "HTTP/1.1 503 Service Unavailable");
  release.open();
}

namespace {
// A loopback connection that has sent `bytes` (part of a request head, or nothing) and holds.
int half_open(std::uint16_t port, std::string_view bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  if (!bytes.empty()) agentkit::testing::write_all(fd, std::string(bytes));
  return fd;
}
}  // namespace

TEST_CASE("with 300 half-open connections held, a legitimate request is still answered") {
  HttpServer server = start_server();  // the defaults: 64 connections may wait in their head phase
  std::vector<int> held;
  for (int i = 0; i < 300; ++i) {
    const int fd = half_open(server.port(), i % 2 == 0 ? "GET /slow HTTP/1.1\r\nHost: x\r\n" : "");
    REQUIRE(fd >= 0);
    held.push_back(fd);
  }
  // Our own client, a fresh connection: answered, not reset or refused.
  agentkit::http::HttpOptions co;
  co.proxy = agentkit::http::ProxySettings{};
  agentkit::http::HttpClient client(co);
  auto resp = client.send({.url = server.base_url() + "/legit"});
  REQUIRE(resp);
  CHECK(resp->status() == 200);
  auto body = resp->read_all();
  REQUIRE(body);
  CHECK(*body == "GET /legit ");
  // The oldest waiting connections were closed to make room; the rest are still held.
  CHECK(server.stats().connections_evicted >= 300 - 64);
  CHECK(server.stats().connections_evicted <= 301 - 64);
  for (int fd : held) ::close(fd);
}

TEST_CASE("a head not finished within header_timeout gets 408, a silent connection is closed") {
  ServerOptions o;
  o.header_timeout = 200ms;
  o.keep_alive_timeout = 30s;  // the head bound applies to a new connection, not the idle bound
  HttpServer server = start_server(o);
  const int slow = half_open(server.port(), "GET /slow HTTP/1.1\r\nHost: x\r\n");
  const int silent = half_open(server.port(), "");
  REQUIRE(slow >= 0);
  REQUIRE(silent >= 0);
  const auto read_until_close = [](int fd) {
    std::string out;
    char buf[1024];
    while (true) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 10'000) <= 0) return out + "<no close within 10 s>";
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return out;
      out.append(buf, static_cast<std::size_t>(n));
    }
  };
  CHECK(status_line(read_until_close(slow)) == "HTTP/1.1 408 Request Timeout");
  CHECK(read_until_close(silent).empty());
  ::close(slow);
  ::close(silent);
}

TEST_CASE("stop() cancels a handler in flight and joins every thread") {
  agentkit::testing::Latch handler_started;
  std::atomic<bool> saw_stop{false};
  std::atomic<bool> late_write_failed{false};
  auto server = start_server({}, [&](const ServerRequest&, ResponseWriter& out) {
    (void)out.start_stream(200, {});
    handler_started.open();
    std::mutex m;
    agentkit::condition_variable_any cv;
    std::unique_lock lock(m);
    agentkit::stop_token stop = out.stop_token();
    cv.wait(lock, stop, [] { return false; });  // a long stream, waiting for the next event
    saw_stop = stop.stop_requested();
    late_write_failed = !out.write("too late");  // writes fail once the server is stopping
  });
  std::atomic<bool> client_done{false};
  agentkit::jthread client([&] {
    auto out = raw_exchange(server.port(), "GET /stream HTTP/1.1\r\n\r\n");
    client_done = true;
  });
  REQUIRE(handler_started.wait());
  server.stop();  // returns only after the handler returned and its thread was joined
  CHECK(saw_stop);
  CHECK(late_write_failed);
  client.join();
  CHECK(client_done);
  server.stop();  // idempotent
}

TEST_CASE("a handler that throws or never answers produces a 500") {
  HttpServer server = start_server();
  CHECK(status_line(raw_exchange(server.port(), "GET /throw HTTP/1.1\r\n\r\n")) == "HTTP/1.1 500 Internal Server Error");
  auto silent = raw_exchange(server.port(), "GET /silent HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(status_line(silent) == "HTTP/1.1 500 Internal Server Error");
  CHECK(silent.find("did not respond") != std::string::npos);
}

TEST_CASE("Expect: 100-continue gets an interim answer before the body is sent") {
  HttpServer server = start_server();
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(server.port());
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  agentkit::testing::write_all(fd, "POST /up HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
  CHECK(agentkit::testing::read_head(fd) == "HTTP/1.1 100 Continue\r\n\r\n");
  agentkit::testing::write_all(fd, "body");
  const std::string rest = agentkit::testing::read_head(fd);
  CHECK(status_line(rest) == "HTTP/1.1 200 OK");
  ::close(fd);
}

TEST_CASE("pipelined requests are answered in order") {
  HttpServer server = start_server();
  auto out = raw_exchange(server.port(),
                          "GET /one HTTP/1.1\r\n\r\nGET /two HTTP/1.1\r\n\r\nGET /three HTTP/1.1\r\nConnection: close\r\n\r\n");
  const auto one = out.find("GET /one");
  const auto two = out.find("GET /two");
  const auto three = out.find("GET /three");
  REQUIRE(one != std::string::npos);
  REQUIRE(two != std::string::npos);
  REQUIRE(three != std::string::npos);
  CHECK(one < two);
  CHECK(two < three);
}

TEST_CASE("an HTTP/1.0 client gets a stream ended by closing the connection") {
  HttpServer server = start_server();
  auto out = raw_exchange(server.port(), "GET /stream HTTP/1.0\r\n\r\n");
  CHECK(status_line(out) == "HTTP/1.1 200 OK");
  CHECK(out.find("Transfer-Encoding") == std::string::npos);
  CHECK(out.find("Connection: close") != std::string::npos);
  CHECK(out.substr(out.find("\r\n\r\n") + 4) == "data: 0\n\ndata: 1\n\ndata: 2\n\n");
}

TEST_CASE("an idle keep-alive connection is closed after keep_alive_timeout") {
  ServerOptions o;
  o.keep_alive_timeout = 200ms;
  HttpServer server = start_server(o);
  const auto out = raw_exchange(server.port(), "GET /a HTTP/1.1\r\n\r\n");  // reads until the server closes
  CHECK(status_line(out) == "HTTP/1.1 200 OK");
}

TEST_CASE("responses from a handler are checked before they are sent") {
  std::optional<agentkit::Error> error;
  HttpServer server = start_server({}, [&](const ServerRequest&, ResponseWriter& out) {
    auto bad = out.respond(200, {{"X-Evil", "a\r\nInjected: 1"}}, "");
    if (!bad) error = bad.error();
    auto cl = out.respond(200, {{"Content-Length", "5"}}, "");
    if (!cl) error = cl.error();
    (void)out.respond(204, {}, "");
  });
  auto out = raw_exchange(server.port(), "GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(status_line(out) == "HTTP/1.1 204 No Content");
  CHECK(out.find("Injected") == std::string::npos);
  REQUIRE(error);
  CHECK(error->code == agentkit::Errc::invalid_argument);
}

TEST_CASE("a bind failure is an error naming the address") {
  HttpServer first = start_server();
  ServerOptions o;
  o.port = first.port();
  auto second = HttpServer::start(o, echo_handler);
  REQUIRE_FALSE(second);
  CHECK(second.error().code == agentkit::Errc::io_error);
  CHECK(second.error().message.find(std::to_string(first.port())) != std::string::npos);
  ServerOptions named;
  named.bind_address = "example.com";
  CHECK(HttpServer::start(named, echo_handler).error().code == agentkit::Errc::invalid_argument);
}

TEST_CASE("server and client speak over IPv6 loopback with a bracketed URL") {
  ServerOptions o;
  o.bind_address = "::1";
  std::string host_seen;
  auto server = HttpServer::start(o, [&](const ServerRequest& req, ResponseWriter& out) {
    host_seen = std::string(req.headers.get("host").value_or(""));
    (void)out.respond(200, {}, "v6");
  });
  if (!server && server.error().message.find("Cannot assign requested address") != std::string::npos) {
    WARN("this machine has no IPv6 loopback; nothing to test");
    return;
  }
  REQUIRE(server);
  CHECK(server->base_url() == "http://[::1]:" + std::to_string(server->port()));
  agentkit::http::HttpOptions co;
  co.proxy = agentkit::http::ProxySettings{};
  agentkit::http::HttpClient client(co);
  auto resp = client.send({.url = server->base_url() + "/x"});
  REQUIRE(resp);
  CHECK(resp->read_all().value() == "v6");
  CHECK(host_seen == "[::1]:" + std::to_string(server->port()));
}
