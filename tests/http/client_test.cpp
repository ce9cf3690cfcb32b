// The HTTP client against real loopback peers: Python's http.server (an independent
// implementation), a Python CONNECT proxy, our own server, and raw POSIX-socket servers scripted
// to misbehave byte by byte.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "agentkit/base/thread.hpp"

#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"
#include "http/socket.hpp"
#include "http/view_reader.hpp"
#include "http_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace std::chrono_literals;
using agentkit::Errc;
using agentkit::http::HttpClient;
using agentkit::http::HttpOptions;
using agentkit::http::Request;
using agentkit::testing::PeerProcess;
using agentkit::testing::RawServer;

namespace {

// Options for tests: no proxies from the environment of whoever runs the tests.
HttpOptions test_options() {
  HttpOptions o;
  o.proxy = agentkit::http::ProxySettings{};
  return o;
}

PeerProcess start_origin() { return PeerProcess({"python3", agentkit::testing::peer_script("origin_server.py")}); }

std::string get_body(HttpClient& client, const std::string& url) {
  auto resp = client.send({.url = url});
  REQUIRE(resp);
  auto body = resp->read_all();
  REQUIRE(body);
  return *body;
}

// A "TLS" provider that adds no encryption, so CONNECT tunnels can be tested without certificates.
class PlaintextTls final : public agentkit::http::TlsProvider {
 public:
  agentkit::Result<std::unique_ptr<agentkit::http::Stream>> connect(std::unique_ptr<agentkit::http::Stream> transport,
                                                                    const agentkit::http::TlsClientSettings& settings,
                                                                    const agentkit::http::IoDeadline&) override {
    std::lock_guard lock(mutex);
    server_names.push_back(settings.server_name);
    return transport;
  }
  std::mutex mutex;
  std::vector<std::string> server_names;
};

// A "TLS" provider, without encryption, whose connections call `on_check` each time the pool
// checks an idle one's health (Stream::has_unexpected_input) before reusing it.
class ProbingTls final : public agentkit::http::TlsProvider {
 public:
  class Probed final : public agentkit::http::Stream {
   public:
    Probed(std::unique_ptr<Stream> inner, const ProbingTls& owner)
        : inner_(std::move(inner)), owner_(owner) {}
    agentkit::Result<std::size_t> read_some(std::span<char> buffer,
                                            const agentkit::http::IoDeadline& deadline) override {
      return inner_->read_some(buffer, deadline);
    }
    agentkit::Result<void> write_all(std::string_view bytes,
                                     const agentkit::http::IoDeadline& deadline) override {
      return inner_->write_all(bytes, deadline);
    }
    bool has_unexpected_input() override {
      owner_.on_check();
      return inner_->has_unexpected_input();
    }

   private:
    std::unique_ptr<Stream> inner_;
    const ProbingTls& owner_;
  };
  agentkit::Result<std::unique_ptr<agentkit::http::Stream>> connect(
      std::unique_ptr<agentkit::http::Stream> transport, const agentkit::http::TlsClientSettings&,
      const agentkit::http::IoDeadline&) override {
    return std::unique_ptr<agentkit::http::Stream>(
        std::make_unique<Probed>(std::move(transport), *this));
  }
  std::function<void()> on_check;
};

// A resolver answering from a fixed table.
class TableResolver final : public agentkit::http::Resolver {
 public:
  explicit TableResolver(std::vector<agentkit::http::IpAddress> answer) : answer_(std::move(answer)) {}
  agentkit::Result<std::vector<agentkit::http::IpAddress>> resolve(std::string_view,
                                                                   const agentkit::http::IoDeadline&) override {
    return answer_;
  }

 private:
  std::vector<agentkit::http::IpAddress> answer_;
};

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("GET and POST round-trip through Python's http.server") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  auto resp = client.send({.method = "POST",
                           .url = origin.base_url() + "/echo?q=1",
                           .headers = {{"X-Custom", "v1"}, {"Content-Type", "application/json"}},
                           .body = R"({"hello":"world"})"});
  REQUIRE(resp);
  CHECK(resp->status() == 200);
  CHECK(resp->headers().get("content-type") == "application/json");
  auto body = resp->read_all();
  REQUIRE(body);
  CHECK(body->find(R"("method": "POST")") != std::string::npos);
  CHECK(body->find(R"("path": "/echo?q=1")") != std::string::npos);
  CHECK(body->find(R"(["X-Custom", "v1"])") != std::string::npos);
  CHECK(body->find(R"("body": "{\"hello\":\"world\"}")") != std::string::npos);
  const std::string user_agent =
      "[\"User-Agent\", \"agentkit-cpp/" + std::string(agentkit::kVersion) + "\"]";
  CHECK(body->find(user_agent) != std::string::npos);
  CHECK(resp->complete());
  auto missing = client.send({.url = origin.base_url() + "/nope"});
  REQUIRE(missing);
  CHECK(missing->status() == 404);  // a status is an answer, not an error
}

TEST_CASE("sequential requests reuse one keep-alive connection") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  for (int i = 0; i < 5; ++i) CHECK(get_body(client, origin.base_url() + "/big?n=100") == std::string(100, 'x'));
  CHECK(client.stats().connections_opened == 1);
  CHECK(client.stats().connections_reused == 4);
  // A HEAD response has no body even with a Content-Length, and leaves the connection reusable.
  auto head = client.send({.method = "HEAD", .url = origin.base_url() + "/big"});
  REQUIRE(head);
  CHECK(head->headers().get("content-length") == "1234");
  CHECK(head->complete() == false);
  CHECK(head->read_all().value().empty());
  CHECK(get_body(client, origin.base_url() + "/big?n=3") == "xxx");
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("an answer awaited after a request is waited for, never first read for nothing") {
  // The server answers each request 20 ms after reading it: a read made straight after the
  // request would find nothing (EAGAIN) and cost a system call before the wait.
  RawServer server([](int fd, agentkit::stop_token stop) {
    while (!agentkit::testing::read_head(fd, stop).empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    }
  });
  HttpClient client(test_options());
  const std::uint64_t before = agentkit::http::detail::SocketStream::empty_reads();
  for (int i = 0; i < 3; ++i) CHECK(get_body(client, server.base_url() + "/slow") == "ok");
  CHECK(agentkit::http::detail::SocketStream::empty_reads() - before == 0);
  CHECK(client.stats().connections_opened == 1);
}

// A "TLS" provider, without encryption, whose connections count the reads the client makes.
class CountingTls final : public agentkit::http::TlsProvider {
 public:
  class Counted final : public agentkit::http::Stream {
   public:
    Counted(std::unique_ptr<Stream> inner, std::atomic<int>& reads)
        : inner_(std::move(inner)), reads_(reads) {}
    agentkit::Result<std::size_t> read_some(std::span<char> buffer,
                                            const agentkit::http::IoDeadline& deadline) override {
      ++reads_;
      return inner_->read_some(buffer, deadline);
    }
    agentkit::Result<void> wait_readable(const agentkit::http::IoDeadline& deadline) override {
      return inner_->wait_readable(deadline);
    }
    agentkit::Result<void> write_all(std::string_view bytes,
                                     const agentkit::http::IoDeadline& deadline) override {
      return inner_->write_all(bytes, deadline);
    }
    bool has_unexpected_input() override { return inner_->has_unexpected_input(); }

   private:
    std::unique_ptr<Stream> inner_;
    std::atomic<int>& reads_;
  };
  agentkit::Result<std::unique_ptr<agentkit::http::Stream>> connect(
      std::unique_ptr<agentkit::http::Stream> transport, const agentkit::http::TlsClientSettings&,
      const agentkit::http::IoDeadline&) override {
    return std::unique_ptr<agentkit::http::Stream>(
        std::make_unique<Counted>(std::move(transport), reads));
  }
  std::atomic<int> reads{0};
};

TEST_CASE("an answer that arrived whole is read in one read, head and body together") {
  // 12 KB of body, written with its head in one write 20 ms after the request: by the time the
  // client's wait ends, the whole answer is there. Reading the head through a small buffer of its
  // own took two reads (or more) for every answer.
  const std::string body(12 * 1024, 'b');
  RawServer server([&](int fd, agentkit::stop_token stop) {
    while (!agentkit::testing::read_head(fd, stop).empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " +
                                           std::to_string(body.size()) + "\r\n\r\n" + body);
    }
  });
  HttpOptions options = test_options();
  auto tls = std::make_shared<CountingTls>();
  options.tls = tls;
  HttpClient client(options);
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/whole";
  const std::uint64_t empty_before = agentkit::http::detail::SocketStream::empty_reads();
  for (int i = 0; i < 3; ++i) CHECK(get_body(client, url) == body);
  CHECK(tls->reads.load() == 3);
  CHECK(agentkit::http::detail::SocketStream::empty_reads() - empty_before == 0);
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("the pool keeps as many idle connections as requests were in flight at once") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpOptions options = test_options();
  options.max_idle_per_origin = 2;  // the least kept; use asks for more
  HttpClient client(options);
  constexpr int kAtOnce = 6;
  for (int wave = 0; wave < 3; ++wave) {
    // Six requests in flight at once: each body is larger than what the head's read takes, so
    // every connection stays held until its body is read.
    std::vector<agentkit::http::Response> held;
    for (int i = 0; i < kAtOnce; ++i) {
      auto resp = client.send({.url = origin.base_url() + "/big?n=100000"});
      REQUIRE(resp);
      held.push_back(std::move(*resp));
    }
    for (auto& resp : held) CHECK(resp.read_all().value_or("").size() == 100000);
  }
  // Six opened by the first wave, every later request reused one of them.
  CHECK(client.stats().connections_opened == kAtOnce);
  CHECK(client.stats().connections_reused == 2 * kAtOnce);
}

TEST_CASE("a pooled connection's health check runs outside the pool's lock") {
  // The check is a poll(): made under the lock, every other request of the client queued behind
  // that system call (a thousand sessions sharing one client took turns on it).
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  auto tls = std::make_shared<ProbingTls>();
  HttpOptions o = test_options();
  o.tls = tls;
  HttpClient client(o);
  int checks = 0;
  bool pool_free_during_check = true;
  std::vector<std::thread> others;
  tls->on_check = [&] {
    ++checks;
    // Another thread uses the pool meanwhile; it would wait for a lock held across the check.
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> used = done->get_future();
    others.emplace_back([&client, done] {
      client.close_idle_connections();
      done->set_value();
    });
    if (used.wait_for(5s) != std::future_status::ready) pool_free_during_check = false;
  };
  const std::string url = "https://127.0.0.1:" + std::to_string(origin.port()) + "/big?n=4";
  for (int i = 0; i < 3; ++i) CHECK(get_body(client, url) == "xxxx");
  for (auto& t : others) t.join();
  CHECK(checks == 2);  // the second and third requests reused the first one's connection
  CHECK(pool_free_during_check);
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("a body read to its last byte frees the connection even without the final zero read") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  for (int i = 0; i < 3; ++i) {
    auto resp = client.send({.url = origin.base_url() + "/big?n=4"});
    REQUIRE(resp);
    std::array<char, 4> exactly{};
    std::size_t got = 0;
    while (got < exactly.size()) {
      auto n = resp->read_some(std::span<char>(exactly).subspan(got));
      REQUIRE(n);
      REQUIRE(*n > 0);
      got += *n;
    }
  }  // each Response is dropped right after its last byte
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("a connection whose body was not read to the end is never reused") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  {
    auto resp = client.send({.url = origin.base_url() + "/big?n=200000"});
    REQUIRE(resp);
    std::array<char, 10> ten{};
    REQUIRE(resp->read_some(ten).value() > 0);
  }  // dropped with most of the body unread
  CHECK(get_body(client, origin.base_url() + "/big?n=5") == "xxxxx");
  CHECK(client.stats().connections_opened == 2);
  CHECK(client.stats().connections_reused == 0);
}

TEST_CASE("a half-read response's connection is closed even when no unread bytes are pending yet") {
  // The rest of the body has not been sent when the response is dropped, so the pool's idle check
  // (readable bytes on an idle connection) cannot catch a wrong reuse; only the body's own
  // bookkeeping can. A reused connection would get the late rest of the body as its next answer.
  RawServer server([](int fd, agentkit::stop_token stop) {
    const std::string first = agentkit::testing::read_head(fd, stop);
    if (first.rfind("GET /partial", 0) != 0) {
      agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      agentkit::testing::wait_for_close(fd, stop);
      return;
    }
    agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345");
    if (agentkit::testing::read_head(fd, stop).empty()) return;
    agentkit::testing::write_all(fd, "67890HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    agentkit::testing::wait_for_close(fd, stop);
  });
  HttpClient client(test_options());
  {
    auto resp = client.send({.url = server.base_url() + "/partial"});
    REQUIRE(resp);
    std::array<char, 5> five{};
    REQUIRE(resp->read_some(five).value() == 5);
  }
  CHECK(get_body(client, server.base_url() + "/full") == "ok");
  CHECK(client.stats().connections_opened == 2);
  CHECK(server.connections() == 2);
}

TEST_CASE("a chunked body and its trailers arrive through the network, also one byte per write") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  auto resp = client.send({.url = origin.base_url() + "/chunked?parts=alpha,beta,gamma"});
  REQUIRE(resp);
  CHECK(resp->read_all().value() == "alphabetagamma");
  CHECK(resp->trailers().get("x-trailer") == "done");

  const std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6;x=y\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nT: 1\r\n\r\n";
  RawServer slow([&](int fd, agentkit::stop_token stop) {
    agentkit::testing::read_head(fd, stop);
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    for (char c : wire) agentkit::testing::write_all(fd, std::string(1, c));
    agentkit::testing::wait_for_close(fd, stop);
  });
  auto r = client.send({.url = slow.base_url() + "/"});
  REQUIRE(r);
  CHECK(r->read_all().value() == "Wikipedia in \r\n\r\nchunks.");
  CHECK(r->trailers().get("t") == "1");
}

// The body bytes of a Content-Length (or read-until-close) response need no decoding, so they go
// from the socket straight into the reader's buffer: no read buffer, no pending copy.
TEST_CASE("a content length body is read straight into the callers buffer without an allocation") {
  const std::string body(64 * 1024, 'b');
  RawServer server([&](int fd, agentkit::stop_token stop) {
    while (!agentkit::testing::read_head(fd, stop).empty()) {
      agentkit::testing::write_all(
          fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n");
      agentkit::testing::write_all(fd, body);
    }
  });
  HttpClient client(test_options());
  for (int i = 0; i < 2; ++i) {
    auto resp = client.send({.url = server.base_url() + "/"});
    REQUIRE(resp);
    std::string got;
    got.reserve(body.size());
    std::vector<char> buf(16 * 1024);
    std::size_t allocations = 0;
    for (;;) {
      agentkit::Result<std::size_t> n = std::size_t{0};
      {
        agentkit::testing::AllocCounter counter;
        n = resp->read_some(buf);
        allocations += counter.stats().count;
      }
      REQUIRE(n);
      if (*n == 0) break;
      got.append(buf.data(), *n);
    }
    CHECK(got == body);
    // The first body's end grows the pool's idle list once; after that, nothing. Before: a read
    // buffer and the pending copy's growth for every response.
    CHECK(allocations <= (i == 0 ? 1u : 0u));
  }
  CHECK(client.stats().connections_opened == 1);  // the straight reads stopped at the message end
}

namespace {
// A model's streamed reply as a chunked body: 24 KB of SSE in 48 events, a chunk each.
struct StreamedReply {
  std::string wire;  // the chunked body as sent
  std::string body;  // what a reader must get
};

StreamedReply streamed_reply() {
  StreamedReply reply;
  for (int i = 0; i < 48; ++i) {
    const std::string event = "data: " + std::string(500, static_cast<char>('a' + i % 26)) + "\n\n";
    char size[16];
    std::snprintf(size, sizeof size, "%zx", event.size());
    reply.wire += std::string(size) + "\r\n" + event + "\r\n";
    reply.body += event;
  }
  reply.wire += "0\r\n\r\n";
  return reply;
}

// Answers each request on a connection with `wire` as a chunked body, 20 ms after its head, so
// that the whole answer is there when the client reads.
RawServer::OnConnection answer_whole(std::string wire) {
  return [wire = std::move(wire)](int fd, agentkit::stop_token stop) {
    while (!agentkit::testing::read_head(fd, stop).empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      agentkit::testing::write_all(fd,
                                   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + wire);
    }
  };
}
}  // namespace

// A chunked answer that arrived whole (a model's streamed reply, here 24 KB in 48 events) stays in
// the read buffer it arrived in: the parser reads only the framing, and each byte of data is
// copied once, into the reader's buffer. It used to be decoded into a second, growing string first.
TEST_CASE("a chunked body that arrived whole is copied once, with no second buffer") {
  const StreamedReply reply = streamed_reply();
  const std::string& body = reply.body;
  RawServer server(answer_whole(reply.wire));
  HttpClient client(test_options());
  std::vector<char> buf(16 * 1024);
  for (int i = 0; i < 2; ++i) {
    std::string got;
    got.reserve(body.size());
    std::size_t requested = 0;
    {
      agentkit::testing::AllocCounter counter;
      auto resp = client.send({.url = server.base_url() + "/stream"});
      REQUIRE(resp);
      for (;;) {
        auto n = resp->read_some(buf);
        REQUIRE(n);
        if (*n == 0) break;
        got.append(buf.data(), *n);
      }
      requested = counter.stats().bytes;
    }
    CHECK(got == body);
    // The 16 KB read buffer, the head's fields and the request's own strings; a decoded copy of
    // the body would add at least its 24 KB again.
    INFO("bytes requested: " << requested);
    CHECK(requested < 24 * 1024);
  }
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("a response made with_body lends its whole body as one view") {
  const std::string body(40'000, 'w');
  auto resp = agentkit::http::Response::with_body(200, {}, body);
  auto first = resp.read_view();
  REQUIRE(first);
  CHECK(first->size() == body.size());  // one view, not 16 KB pieces through a buffer
  CHECK(*first == body);
  auto end = resp.read_view();
  REQUIRE(end);
  CHECK(end->empty());
  CHECK(resp.complete());
}

namespace {
// A reader with no buffer of its own: the pieces it is given, then an error when told to.
class PieceReader final : public agentkit::http::BodyReader {
 public:
  PieceReader(std::vector<std::string> pieces, bool fail_after)
      : pieces_(std::move(pieces)), fail_after_(fail_after) {}
  agentkit::Result<std::size_t> read_some(std::span<char> buffer) override {
    if (next_ == pieces_.size()) {
      if (fail_after_) return agentkit::fail(Errc::io_error, "the transport broke");
      return std::size_t{0};
    }
    const std::string& piece = pieces_[next_++];
    REQUIRE(buffer.size() >= piece.size());
    std::memcpy(buffer.data(), piece.data(), piece.size());
    return piece.size();
  }

 private:
  std::vector<std::string> pieces_;
  std::size_t next_ = 0;
  bool fail_after_;
};

// A reader that lends views of its own bytes (as the client's connection does), then fails.
class FailingViewReader final : public agentkit::http::detail::ViewReader {
 public:
  agentkit::Result<std::size_t> read_some(std::span<char>) override {
    return agentkit::fail(Errc::io_error, "the transport broke");
  }
  agentkit::Result<std::string_view> read_view() override {
    if (!lent_) {
      lent_ = true;
      return std::string_view("ab");
    }
    return agentkit::fail(Errc::io_error, "the transport broke");
  }

 private:
  bool lent_ = false;
};
}  // namespace

TEST_CASE("a lending reader's error ends the body, as read_some's does") {
  agentkit::http::Response resp(200, "OK", {}, std::make_unique<FailingViewReader>());
  auto first = resp.read_view();
  REQUIRE(first);
  CHECK(*first == "ab");
  auto failed = resp.read_view();
  REQUIRE(!failed);
  CHECK(failed.error().code == Errc::io_error);
  auto after = resp.read_view();
  REQUIRE(!after);
  CHECK(after.error().code == Errc::closed);
}

TEST_CASE("read_view reads any other body reader through read_some, and its error ends the body") {
  agentkit::http::Response ok(
      200, "OK", {}, std::make_unique<PieceReader>(std::vector<std::string>{"ab", "cde"}, false));
  std::vector<std::string> seen;
  for (;;) {
    auto bytes = ok.read_view();
    REQUIRE(bytes);
    if (bytes->empty()) break;
    seen.emplace_back(*bytes);
  }
  CHECK(seen == std::vector<std::string>{"ab", "cde"});
  CHECK(ok.complete());

  agentkit::http::Response broken(
      200, "OK", {}, std::make_unique<PieceReader>(std::vector<std::string>{"ab"}, true));
  auto first = broken.read_view();
  REQUIRE(first);
  CHECK(*first == "ab");
  auto failed = broken.read_view();
  REQUIRE(!failed);
  CHECK(failed.error().message.find("the transport broke") != std::string::npos);
  auto after = broken.read_view();  // the body ended with the error
  REQUIRE(!after);
  CHECK(after.error().code == Errc::closed);
}

TEST_CASE("a body read as views is lent from the connection's read buffer and never copied") {
  const StreamedReply reply = streamed_reply();
  const std::string& body = reply.body;
  RawServer server(answer_whole(reply.wire));
  HttpClient client(test_options());
  for (int i = 0; i < 2; ++i) {
    std::string got;
    got.reserve(body.size());
    std::size_t requested = 0;
    {
      agentkit::testing::AllocCounter counter;
      auto resp = client.send({.url = server.base_url() + "/stream"});
      REQUIRE(resp);
      for (;;) {
        auto bytes = resp->read_view();
        REQUIRE(bytes);
        if (bytes->empty()) break;
        got += *bytes;
      }
      CHECK(resp->complete());
      requested = counter.stats().bytes;
    }
    CHECK(got == body);
    // The 16 KB read buffer, the head's fields and the request's own strings; a buffer the
    // bytes were copied into would add 16 KB more.
    INFO("bytes requested: " << requested);
    CHECK(requested < 20 * 1024);
  }
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("a caller that stops at a view's last byte still gives the connection back") {
  const std::string body(40'000, 'v');
  RawServer server([&](int fd, agentkit::stop_token stop) {
    while (!agentkit::testing::read_head(fd, stop).empty()) {
      agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " +
                                           std::to_string(body.size()) + "\r\n\r\n" + body);
    }
  });
  HttpClient client(test_options());
  for (int i = 0; i < 3; ++i) {
    auto resp = client.send({.url = server.base_url() + "/len"});
    REQUIRE(resp);
    std::string got;
    while (got.size() < body.size()) {  // never asks for the empty view that says "the end"
      auto bytes = resp->read_view();
      REQUIRE(bytes);
      REQUIRE(!bytes->empty());
      got += *bytes;
    }
    CHECK(got == body);
  }
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("straight reads stop at the end of a chunk and of a content length body") {
  const std::string a(100'000, 'a');
  const std::string z(9'000, 'z');
  RawServer server([&](int fd, agentkit::stop_token stop) {
    for (;;) {
      const std::string head = agentkit::testing::read_head(fd, stop);
      if (head.rfind("GET /chunked", 0) == 0) {
        char size_a[16];
        char size_z[16];
        std::snprintf(size_a, sizeof size_a, "%zx", a.size());
        std::snprintf(size_z, sizeof size_z, "%zx", z.size());
        agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                             std::string(size_a) + "\r\n" + a + "\r\n3\r\nxyz\r\n" +
                                             std::string(size_z) + "\r\n" + z +
                                             "\r\n0\r\nT: end\r\n\r\n");
      } else if (head.rfind("GET /extra", 0) == 0) {  // bytes the server should never have sent
        agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " +
                                             std::to_string(a.size()) + "\r\n\r\n" + a + "EXTRA");
      } else {
        break;
      }
    }
    agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + a + z);
  });
  HttpClient client(test_options());
  auto chunked = client.send({.url = server.base_url() + "/chunked"});
  REQUIRE(chunked);
  CHECK(chunked->read_all().value() == a + "xyz" + z);
  CHECK(chunked->trailers().get("t") == "end");
  auto extra = client.send({.url = server.base_url() + "/extra"});
  REQUIRE(extra);
  CHECK(extra->read_all().value() == a);
  auto until_close = client.send({.url = server.base_url() + "/close"});
  REQUIRE(until_close);
  CHECK(until_close->read_all().value() == a + z);
}

// A request's head and its large body leave in one send: one segment on the wire, one wake-up of
// the server. A SEQPACKET pair keeps each send as one record, so the count is exact.
TEST_CASE("a socket stream writes a head and a body in one send") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) == 0);
  agentkit::http::detail::SocketStream stream{agentkit::http::detail::UniqueFd(fds[0])};
  const std::string head = "POST / HTTP/1.1\r\nContent-Length: 20000\r\n\r\n";
  const std::string body(20'000, 'b');
  REQUIRE(stream.write_all_of(head, body, {}));
  std::vector<char> record(64 * 1024);
  const ssize_t n = ::recv(fds[1], record.data(), record.size(), MSG_DONTWAIT);
  CHECK(n == static_cast<ssize_t>(head.size() + body.size()));  // before: the head alone
  CHECK(std::string(record.data(), static_cast<std::size_t>(std::max<ssize_t>(n, 0))) ==
        head + body);
  ::close(fds[1]);
}

TEST_CASE("a head and body written together arrive whole when the socket takes them in pieces") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  const int small = 4096;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);  // partial sends, then a wait
  agentkit::http::detail::SocketStream stream{agentkit::http::detail::UniqueFd(fds[0])};
  std::string head(10'000, 'h');
  head[0] = 'H';
  std::string body(1 << 20, 'b');
  body.back() = 'B';
  std::string got;
  agentkit::jthread reader([&] {
    std::vector<char> buf(3000);
    for (;;) {
      const ssize_t n = ::recv(fds[1], buf.data(), buf.size(), 0);
      if (n <= 0) break;
      got.append(buf.data(), static_cast<std::size_t>(n));
    }
  });
  REQUIRE(stream.write_all_of(head, body, {}));
  stream.shutdown_write();
  reader.join();
  CHECK(got.size() == head.size() + body.size());
  CHECK(got == head + body);
  ::close(fds[1]);
}

TEST_CASE("a streamed body can be pulled piece by piece as it arrives") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  auto resp = client.send({.url = origin.base_url() + "/sse?n=5"});
  REQUIRE(resp);
  CHECK(resp->headers().get("content-type") == "text/event-stream");
  std::string all;
  int reads = 0;
  std::array<char, 4096> buf{};
  while (true) {
    auto n = resp->read_some(buf);
    REQUIRE(n);
    if (*n == 0) break;
    ++reads;
    all.append(buf.data(), *n);
  }
  CHECK(all == "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n");
  CHECK(reads >= 2);  // events came in separate reads, not as one buffered blob
}

TEST_CASE("a server that never answers trips the first-byte timeout") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpOptions o = test_options();
  o.first_byte_timeout = 300ms;
  HttpClient client(o);
  auto resp = client.send({.url = origin.base_url() + "/stall"});
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::timeout);
  CHECK(resp.error().message.find("first_byte_timeout") != std::string::npos);
  // The per-request override wins over the client option.
  HttpClient patient(test_options());
  auto quick = patient.send({.url = origin.base_url() + "/stall", .first_byte_timeout = 200ms});
  REQUIRE_FALSE(quick);
  CHECK(quick.error().code == Errc::timeout);
}

TEST_CASE("an unrepresentably long timeout means no deadline, not an overflow") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpOptions o = test_options();
  o.connect_timeout = std::chrono::milliseconds::max();
  o.first_byte_timeout = std::chrono::milliseconds::max();
  o.idle_timeout = std::chrono::milliseconds::max();
  HttpClient client(o);
  CHECK(get_body(client, origin.base_url() + "/big?n=3") == "xxx");
  CHECK(agentkit::http::IoDeadline::after(std::chrono::milliseconds::max()).unbounded());
  CHECK(agentkit::http::IoDeadline::after(std::chrono::hours::max()).unbounded());
  CHECK_FALSE(agentkit::http::IoDeadline::after(std::chrono::hours(1)).unbounded());
}

TEST_CASE("a body that goes silent trips the idle timeout") {
  RawServer stalls([](int fd, agentkit::stop_token stop) {
    agentkit::testing::read_head(fd, stop);
    agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nfirst part");
    agentkit::testing::wait_for_close(fd, stop);
  });
  HttpOptions o = test_options();
  o.idle_timeout = 300ms;
  HttpClient client(o);
  auto resp = client.send({.url = stalls.base_url() + "/"});
  REQUIRE(resp);
  auto body = resp->read_all();
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::timeout);
  CHECK(body.error().message.find("idle_timeout") != std::string::npos);
}

TEST_CASE("a server that closes mid-body is a truncation error, not a short success") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  auto resp = client.send({.url = origin.base_url() + "/truncated?n=100&m=40"});
  REQUIRE(resp);
  auto body = resp->read_all();
  REQUIRE_FALSE(body);
  CHECK(body.error().code == Errc::protocol_error);
  CHECK(body.error().find_detail("received") == "40");
  CHECK(get_body(client, origin.base_url() + "/big?n=1") == "x");
  CHECK(client.stats().connections_opened == 2);
}

TEST_CASE("cancellation interrupts a read blocked waiting for the response at once") {
  agentkit::testing::Latch request_arrived;
  RawServer silent([&](int fd, agentkit::stop_token stop) {
    agentkit::testing::read_head(fd, stop);
    request_arrived.open();
    agentkit::testing::wait_for_close(fd, stop);
  });
  HttpOptions o = test_options();
  o.first_byte_timeout = 30s;  // far beyond the test: only cancellation can end the wait
  HttpClient client(o);
  agentkit::stop_source stop;
  std::optional<agentkit::Error> error;
  agentkit::jthread caller([&] {
    auto resp = client.send({.url = silent.base_url() + "/"}, stop.get_token());
    if (!resp) error = resp.error();
  });
  REQUIRE(request_arrived.wait());
  const auto start = std::chrono::steady_clock::now();
  stop.request_stop();
  caller.join();
  REQUIRE(error);
  CHECK(error->code == Errc::cancelled);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
}

TEST_CASE("cancellation interrupts a blocked body read") {
  agentkit::testing::Latch head_sent;
  RawServer partial([&](int fd, agentkit::stop_token stop) {
    agentkit::testing::read_head(fd, stop);
    agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    head_sent.open();
    agentkit::testing::wait_for_close(fd, stop);
  });
  HttpOptions o = test_options();
  o.idle_timeout = 30s;
  HttpClient client(o);
  agentkit::stop_source stop;
  auto resp = client.send({.url = partial.base_url() + "/"}, stop.get_token());
  REQUIRE(resp);
  std::array<char, 64> buf{};
  REQUIRE(resp->read_some(buf).value() == 5);
  agentkit::jthread canceller([&] { stop.request_stop(); });
  auto blocked = resp->read_some(buf);
  REQUIRE_FALSE(blocked);
  CHECK(blocked.error().code == Errc::cancelled);
}

TEST_CASE("cancellation interrupts a connect that the server never completes") {
  // A listener with a full accept queue drops SYNs, so a connect to it stays pending.
  RawServer full(nullptr, /*backlog=*/0);
  std::vector<int> fillers;
  for (int i = 0; i < 8; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(full.port());
    ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fillers.push_back(fd);
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 200) == 0) break;  // this one is pending: the queue is full
  }
  HttpOptions o = test_options();
  o.connect_timeout = 30s;
  HttpClient client(o);
  agentkit::stop_source stop;
  std::optional<agentkit::Error> error;
  agentkit::jthread caller([&] {
    auto resp = client.send({.url = full.base_url() + "/"}, stop.get_token());
    if (!resp) error = resp.error();
  });
  std::this_thread::sleep_for(200ms);  // let the connect start; correctness does not depend on it
  stop.request_stop();
  caller.join();
  REQUIRE(error);
  CHECK(error->code == Errc::cancelled);
  // The wait's text names the address it connects to, made only now that it failed.
  const std::string where = "127.0.0.1:" + std::to_string(full.port());
  INFO(error->message);
  CHECK(error->message.find("connecting to " + where + " was cancelled") != std::string::npos);
  CHECK(error->find_detail("address") == std::optional<std::string_view>(where));

  HttpOptions quick = test_options();
  quick.connect_timeout = 300ms;
  HttpClient impatient(quick);
  auto timed_out = impatient.send({.url = full.base_url() + "/"});
  REQUIRE_FALSE(timed_out);
  CHECK(timed_out.error().code == Errc::timeout);
  CHECK(timed_out.error().message.find("connect_timeout") != std::string::npos);
  CHECK(timed_out.error().message.find("connecting to " + where + " timed out") !=
        std::string::npos);
  for (int fd : fillers) ::close(fd);
}

TEST_CASE("an already-cancelled token fails before any connection is made") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  agentkit::stop_source stop;
  stop.request_stop();
  auto resp = client.send({.url = origin.base_url() + "/echo"}, stop.get_token());
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::cancelled);
  CHECK(client.stats().connections_opened == 0);
}

TEST_CASE("oversized response heads are refused at the configured bounds") {
  RawServer huge_headers([](int fd, agentkit::stop_token stop) {
    agentkit::testing::read_head(fd, stop);
    std::string head = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 200; ++i) head += "X-Filler-" + std::to_string(i) + ": " + std::string(500, 'f') + "\r\n";
    agentkit::testing::write_all(fd, head + "Content-Length: 0\r\n\r\n");
    agentkit::testing::wait_for_close(fd, stop);
  });
  HttpClient client(test_options());  // default 64 KiB header block; this one is ~100 KiB
  auto resp = client.send({.url = huge_headers.base_url() + "/"});
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::limit_exceeded);
  HttpOptions roomy = test_options();
  roomy.max_header_bytes = 256 * 1024;
  HttpClient big(roomy);
  auto ok = big.send({.url = huge_headers.base_url() + "/"});
  REQUIRE(ok);
  CHECK(ok->headers().size() == 201);

  RawServer long_line([](int fd, agentkit::stop_token stop) {
    agentkit::testing::read_head(fd, stop);
    agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nX-Long: " + std::string(20000, 'l') + "\r\n\r\n");
    agentkit::testing::wait_for_close(fd, stop);
  });
  auto line = client.send({.url = long_line.base_url() + "/"});
  REQUIRE_FALSE(line);
  CHECK(line.error().code == Errc::limit_exceeded);
  CHECK(line.error().find_detail("limit") == "8192");
}

TEST_CASE("a pooled connection the server dropped is resent once for GET, never for POST") {
  // Each connection answers its first request with keep-alive, then reads the next request and
  // closes without answering: exactly the race a keep-alive client must survive.
  auto serve_once = [](int fd, agentkit::stop_token stop) {
    if (agentkit::testing::read_head(fd, stop).empty()) return;
    agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    agentkit::testing::read_head(fd, stop);
  };
  RawServer flaky(serve_once);
  HttpClient client(test_options());
  CHECK(get_body(client, flaky.base_url() + "/a") == "ok");
  CHECK(get_body(client, flaky.base_url() + "/b") == "ok");
  CHECK(client.stats().stale_retries == 1);
  CHECK(client.stats().connections_opened == 2);
  auto post = client.send({.method = "POST", .url = flaky.base_url() + "/c", .body = "x"});
  REQUIRE_FALSE(post);
  CHECK(post.error().code == Errc::io_error);
  CHECK(client.stats().stale_retries == 1);
}

TEST_CASE("header injection and reserved headers are refused before anything is sent") {
  HttpClient client(test_options());
  auto injected = client.send({.url = "http://127.0.0.1:9/", .headers = {{"X-A", "v\r\nX-Injected: 1"}}});
  REQUIRE_FALSE(injected);
  CHECK(injected.error().code == Errc::invalid_argument);
  auto bad_name = client.send({.url = "http://127.0.0.1:9/", .headers = {{"Bad Name", "v"}}});
  CHECK(bad_name.error().code == Errc::invalid_argument);
  auto host = client.send({.url = "http://127.0.0.1:9/", .headers = {{"Host", "evil"}}});
  CHECK(host.error().code == Errc::invalid_argument);
  auto method = client.send({.method = "GE T", .url = "http://127.0.0.1:9/"});
  CHECK(method.error().code == Errc::invalid_argument);
  CHECK(client.stats().connections_opened == 0);
}

TEST_CASE("https without a TLS provider fails with an error naming AGENTKIT_WITH_OPENSSL") {
  HttpClient client(test_options());
  auto resp = client.send({.url = "https://127.0.0.1:9/"});
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::unsupported);
  CHECK(resp.error().message.find("AGENTKIT_WITH_OPENSSL") != std::string::npos);
  CHECK(resp.error().find_detail("cmake_option") == "AGENTKIT_WITH_OPENSSL");
  CHECK(client.stats().connections_opened == 0);
}

TEST_CASE("a refused connection is an io_error naming the address") {
  std::uint16_t free_port = 0;
  {
    RawServer bound(nullptr);  // take a free port, then release it: nothing listens there
    free_port = bound.port();
  }
  HttpClient client(test_options());
  auto resp = client.send({.url = "http://127.0.0.1:" + std::to_string(free_port) + "/"});
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::io_error);
  CHECK(resp.error().message.find("127.0.0.1:" + std::to_string(free_port)) != std::string::npos);
}

TEST_CASE("before_connect sees each concrete address and can veto it") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpOptions o = test_options();
  // 127.0.0.2 is loopback too, but nothing listens there: only a veto keeps the client off it.
  o.resolver = std::make_shared<TableResolver>(std::vector{agentkit::http::IpAddress::v4(127, 0, 0, 2),
                                                           agentkit::http::IpAddress::v4(127, 0, 0, 1)});
  std::vector<std::string> seen;
  o.before_connect = [&](const agentkit::http::ConnectTarget& t) -> agentkit::Result<void> {
    seen.push_back(std::string(t.host) + "=" + t.address.to_string() + ":" + std::to_string(t.port));
    if (t.address == agentkit::http::IpAddress::v4(127, 0, 0, 2)) {
      return agentkit::fail(Errc::permission_denied, "127.0.0.2 is not allowed");
    }
    return {};
  };
  HttpClient client(o);
  const std::string port = std::to_string(origin.port());
  CHECK(get_body(client, "http://model.test:" + port + "/big?n=2") == "xx");
  CHECK(seen == std::vector<std::string>{"model.test=127.0.0.2:" + port, "model.test=127.0.0.1:" + port});

  HttpOptions deny = test_options();
  deny.resolver = o.resolver;
  deny.before_connect = [](const agentkit::http::ConnectTarget&) -> agentkit::Result<void> {
    return agentkit::fail(Errc::permission_denied, "blocked by policy");
  };
  HttpClient denied(deny);
  auto resp = denied.send({.url = "http://model.test:" + port + "/"});
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::permission_denied);
  CHECK(denied.stats().connections_opened == 0);
}

TEST_CASE("http requests go through HTTP_PROXY in absolute form, with credentials") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  agentkit::testing::TempDir dir;
  const std::string log = (dir.path() / "proxy.log").string();
  PeerProcess proxy({"python3", agentkit::testing::peer_script("connect_proxy.py"), log, "alice:s3cret"});
  REQUIRE(proxy.started());
  HttpOptions o = test_options();
  o.proxy = agentkit::http::ProxySettings{.http_proxy = "http://alice:s3cret@127.0.0.1:" + std::to_string(proxy.port())};
  o.resolver = std::make_shared<TableResolver>(std::vector{agentkit::http::IpAddress::v4(127, 0, 0, 1)});
  HttpClient client(o);
  // origin.test exists only inside the proxy: the client must not resolve it itself.
  const std::string url = "http://origin.test:" + std::to_string(origin.port()) + "/echo";
  auto body = get_body(client, url);
  CHECK(body.find(R"("path": "/echo")") != std::string::npos);
  CHECK(body.find("Proxy-Authorization") == std::string::npos);  // the proxy strips it
  const auto lines = read_lines(log);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "FORWARD " + url + " auth=Basic YWxpY2U6czNjcmV0");
}

TEST_CASE("https requests go through HTTPS_PROXY in a CONNECT tunnel") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  agentkit::testing::TempDir dir;
  const std::string log = (dir.path() / "proxy.log").string();
  PeerProcess proxy({"python3", agentkit::testing::peer_script("connect_proxy.py"), log});
  REQUIRE(proxy.started());
  auto tls = std::make_shared<PlaintextTls>();
  HttpOptions o = test_options();
  o.proxy = agentkit::http::ProxySettings{.https_proxy = "127.0.0.1:" + std::to_string(proxy.port())};
  o.tls = tls;
  HttpClient client(o);
  const std::string authority = "secure.test:" + std::to_string(origin.port());
  for (int i = 0; i < 3; ++i) CHECK(get_body(client, "https://" + authority + "/big?n=4") == "xxxx");
  const auto lines = read_lines(log);
  REQUIRE(lines.size() == 1);  // one tunnel, reused by keep-alive
  CHECK(lines[0] == "CONNECT " + authority + " auth=-");
  CHECK(tls->server_names == std::vector<std::string>{"secure.test"});  // TLS is for the origin, not the proxy
  CHECK(client.stats().connections_opened == 1);
}

TEST_CASE("a proxy that demands credentials is an unauthenticated error") {
  agentkit::testing::TempDir dir;
  PeerProcess proxy({"python3", agentkit::testing::peer_script("connect_proxy.py"),
                     (dir.path() / "proxy.log").string(), "alice:s3cret"});
  REQUIRE(proxy.started());
  HttpOptions o = test_options();
  o.proxy = agentkit::http::ProxySettings{.https_proxy = "http://127.0.0.1:" + std::to_string(proxy.port())};
  o.tls = std::make_shared<PlaintextTls>();
  HttpClient client(o);
  auto resp = client.send({.url = "https://secure.test:1/"});
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::unauthenticated);
  CHECK(resp.error().find_detail("status") == "407");
}

TEST_CASE("NO_PROXY and loopback destinations bypass the proxy") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  agentkit::testing::TempDir dir;
  const std::string log = (dir.path() / "proxy.log").string();
  PeerProcess proxy({"python3", agentkit::testing::peer_script("connect_proxy.py"), log});
  REQUIRE(proxy.started());
  HttpOptions o = test_options();
  o.proxy = agentkit::http::ProxySettings{.http_proxy = "http://127.0.0.1:" + std::to_string(proxy.port()),
                                          .no_proxy = "internal.test"};
  o.resolver = std::make_shared<TableResolver>(std::vector{agentkit::http::IpAddress::v4(127, 0, 0, 1)});
  HttpClient client(o);
  const std::string port = std::to_string(origin.port());
  CHECK(get_body(client, "http://127.0.0.1:" + port + "/big?n=1") == "x");         // loopback: direct
  CHECK(get_body(client, "http://api.internal.test:" + port + "/big?n=1") == "x"); // NO_PROXY: direct
  CHECK(read_lines(log).empty());
  CHECK(get_body(client, "http://evilinternal.test:" + port + "/big?n=1") == "x"); // not a subdomain
  CHECK(read_lines(log).size() == 1);
}

TEST_CASE("many threads share one client and its pool") {
  PeerProcess origin = start_origin();
  REQUIRE(origin.started());
  HttpClient client(test_options());
  constexpr int threads = 4;
  constexpr int per_thread = 10;
  std::atomic<int> ok{0};
  {
    std::vector<agentkit::jthread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (int i = 0; i < per_thread; ++i) {
          auto resp = client.send({.url = origin.base_url() + "/big?n=10"});
          if (resp && resp->read_all().value_or("") == std::string(10, 'x')) ++ok;
        }
      });
    }
  }
  CHECK(ok == threads * per_thread);
  const auto stats = client.stats();
  CHECK(stats.connections_opened <= static_cast<std::uint64_t>(threads));
  CHECK(stats.connections_opened + stats.connections_reused == static_cast<std::uint64_t>(threads * per_thread));
}

TEST_CASE(
    "on_body_written is called once the body is written and before the answer is awaited, and "
    "for a request that may be resent only once its answer has come") {
  // The server waits up to 300 ms for the hook before it answers: a hook called only after the
  // answer has arrived would be seen late.
  std::atomic<bool> written{false};
  std::vector<int> before_answer;  // per request: 1 when the hook had been called
  std::mutex mu;
  RawServer server([&](int fd, agentkit::stop_token stop) {
    while (!agentkit::testing::read_head(fd, stop).empty()) {
      for (int i = 0; i < 30 && !written.load(); ++i) std::this_thread::sleep_for(10ms);
      {
        std::lock_guard lock(mu);
        before_answer.push_back(written.load() ? 1 : 0);
      }
      agentkit::testing::write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    }
  });
  HttpClient client(test_options());
  int calls = 0;
  auto send = [&](std::string method) {
    written = false;
    Request r{.method = std::move(method), .url = server.base_url() + "/"};
    r.on_body_written = [&] {
      ++calls;
      written = true;
    };
    auto resp = client.send(r);
    REQUIRE(resp);
    CHECK(resp->read_all().value() == "ok");
    CHECK(written.load());
  };
  send("POST");  // a new connection: nothing can be resent
  send("POST");  // a reused one, but a POST is not resent
  send("GET");   // a reused connection and a replayable request: resent if it was stale
  CHECK(calls == 3);
  std::lock_guard lock(mu);
  CHECK(before_answer == std::vector<int>{1, 1, 0});
  CHECK(client.stats().connections_opened == 1);
}
