// HTTP round trips per second over one keep-alive connection on loopback (issue 4, Performance).
// Four pairings, so each side can be compared with an independent peer:
//   our client    -> Python http.server (HTTP/1.1, keep-alive)
//   our client    -> our HttpServer
//   Python client -> Python http.server     (http.client; the peers' own baseline)
//   Python client -> our HttpServer
// Usage: bench_http [requests=5000]. Needs python3 on PATH. Prints figures and ratios; asserts
// nothing (wall-clock budgets are benchmarks, not tests: ARCHITECTURE §7.7).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "agentkit/http/client.hpp"
#include "agentkit/http/server.hpp"

namespace {

constexpr int default_requests = 5000;
constexpr std::size_t body_bytes = 128;  // a small JSON-sized answer: the round trip dominates

const char* python_server = R"PY(
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One write per response and no Nagle delay: otherwise every round trip waits ~40 ms for a
    # delayed ACK and the benchmark measures TCP timers, not HTTP.
    disable_nagle_algorithm = True
    wbufsize = 65536
    def log_message(self, *a): pass
    def do_GET(self):
        body = b"x" * int(sys.argv[1])
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = HTTPServer(("127.0.0.1", 0), H)
print("PORT", s.server_address[1], flush=True)
s.serve_forever()
)PY";

const char* python_client = R"PY(
import http.client, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port)
c.connect()
import socket
c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
c.request("GET", "/"); c.getresponse().read()
t = time.perf_counter()
for _ in range(n):
    c.request("GET", "/")
    r = c.getresponse(); r.read()
print(n / (time.perf_counter() - t))
)PY";

struct Child {
  pid_t pid = -1;
  int out = -1;
};

Child spawn(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) std::exit(1);
  Child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(pipe_fds[1], 1);
    ::close(pipe_fds[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  c.out = pipe_fds[0];
  return c;
}

std::string read_line(int fd) {
  std::string line;
  char ch = 0;
  while (::read(fd, &ch, 1) == 1 && ch != '\n') line += ch;
  return line;
}

void finish(Child& c) {
  ::kill(c.pid, SIGKILL);
  ::waitpid(c.pid, nullptr, 0);
  ::close(c.out);
}

double our_client_rps(const std::string& url, int n) {
  agentkit::http::HttpOptions o;
  o.proxy = agentkit::http::ProxySettings{};
  agentkit::http::HttpClient client(o);
  auto warm = client.send({.url = url});
  if (!warm || !warm->read_all()) {
    std::fprintf(stderr, "warm-up request to %s failed\n", url.c_str());
    std::exit(1);
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    auto resp = client.send({.url = url});
    if (!resp || !resp->read_all()) std::exit(1);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (client.stats().connections_opened != 1) std::fprintf(stderr, "warning: keep-alive was not used\n");
  return n / seconds;
}

double python_client_rps(std::uint16_t port, int n) {
  Child c = spawn({"python3", "-c", python_client, std::to_string(port), std::to_string(n)});
  const std::string line = read_line(c.out);
  ::waitpid(c.pid, nullptr, 0);
  ::close(c.out);
  return std::atof(line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : default_requests;
  Child py = spawn({"python3", "-c", python_server, std::to_string(body_bytes)});
  const std::string port_line = read_line(py.out);
  if (port_line.rfind("PORT ", 0) != 0) {
    std::fprintf(stderr, "python3 http.server did not start\n");
    return 1;
  }
  const auto py_port = static_cast<std::uint16_t>(std::stoi(port_line.substr(5)));
  const std::string body(body_bytes, 'x');
  auto ours = agentkit::http::HttpServer::start({}, [&](const agentkit::http::ServerRequest&,
                                                        agentkit::http::ResponseWriter& out) {
    (void)out.respond(200, {}, body);
  });
  if (!ours) {
    std::fprintf(stderr, "%s\n", ours.error().to_string().c_str());
    return 1;
  }
  const double client_py = our_client_rps("http://127.0.0.1:" + std::to_string(py_port) + "/", n);
  const double client_ours = our_client_rps(ours->base_url() + "/", n);
  const double pyclient_py = python_client_rps(py_port, n);
  const double pyclient_ours = python_client_rps(ours->port(), n);
  finish(py);

  std::printf("HTTP/1.1 keep-alive round trips on loopback, %d GETs, %zu-byte bodies\n", n, body_bytes);
  std::printf("  %-40s %10.0f req/s\n", "agentkit client -> Python http.server", client_py);
  std::printf("  %-40s %10.0f req/s\n", "agentkit client -> agentkit server", client_ours);
  std::printf("  %-40s %10.0f req/s\n", "Python http.client -> Python http.server", pyclient_py);
  std::printf("  %-40s %10.0f req/s\n", "Python http.client -> agentkit server", pyclient_ours);
  std::printf("ratios\n");
  std::printf("  agentkit server / Python server (agentkit client): %.2fx\n", client_ours / client_py);
  std::printf("  agentkit server / Python server (Python client):   %.2fx\n", pyclient_ours / pyclient_py);
  std::printf("  agentkit client / Python client (Python server):   %.2fx\n", client_py / pyclient_py);
  std::printf("  agentkit client / Python client (agentkit server): %.2fx\n", client_ours / pyclient_ours);
  return 0;
}
