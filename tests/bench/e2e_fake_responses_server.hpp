// The end-to-end benchmark's provider: a loopback OpenAI Responses server on one thread with
// epoll, run in a child process so its CPU is never charged to the client being measured.
//
// It answers every POST the same way for every client, from the request body alone:
//   - "turns=N" in the body's last user prompt (the last "turns=" of the body: a session's
//     earlier prompts stay in its history): the run makes N model calls; while fewer than N - 1
//     function_call_output items follow that prompt the reply is a streamed tool call of about
//     15 KB of SSE (write_note with ~3.2 KB of arguments in 50 deltas), then a streamed text
//     answer;
//   - "delay=M": the reply starts M ms after the request arrived (a model's latency), timed by
//     epoll_wait's timeout, never by sleeping;
// GET /stats answers {"connections":..,"requests":..,"request_bytes":..,"first_request_ns":..,
// "cpu_us":..}
// (first_request_ns on CLOCK_MONOTONIC; cpu_us the server's own CPU time so far), and
// POST /reset zeroes them. Responses use Content-Length and keep the connection open.
//
// Thread safety: one thread owns everything; the parent talks to it over HTTP only.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

namespace bench {

inline std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Where `needle` occurs last in `body` (npos when nowhere), scanning backwards from the end with
// memrchr for its last byte: the last prompt sits early in a long body, but the byte ending
// "turns=" is rare in it, so the scan runs at memchr speed where string_view::rfind would compare
// byte by byte and a forward memmem would pass every earlier prompt too.
inline std::size_t last_of(std::string_view body, std::string_view needle) {
  const char last_byte = needle.back();
  for (std::size_t end = body.size(); end >= needle.size();) {
    const void* hit = memrchr(body.data() + needle.size() - 1, last_byte, end - needle.size() + 1);
    if (!hit) break;
    const std::size_t at =
        static_cast<std::size_t>(static_cast<const char*>(hit) - body.data()) + 1 - needle.size();
    if (body.compare(at, needle.size(), needle) == 0) return at;
    end = at + needle.size() - 1;
  }
  return std::string_view::npos;
}

// The number after `key` when `key` occurs in body[from, from + window), else `fallback`.
inline int number_near(std::string_view body, std::size_t from, std::size_t window,
                       std::string_view key, int fallback) {
  if (from >= body.size()) return fallback;
  const std::string_view near = body.substr(from, window);
  const void* hit = memmem(near.data(), near.size(), key.data(), key.size());
  if (!hit) return fallback;
  int n = 0;
  for (std::size_t i =
           static_cast<std::size_t>(static_cast<const char*>(hit) - body.data()) + key.size();
       i < body.size() && body[i] >= '0' && body[i] <= '9'; ++i)
    n = n * 10 + (body[i] - '0');
  return n;
}

inline std::size_t count_of(std::string_view body, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = 0; at + needle.size() <= body.size(); ++n) {
    const void* hit = memmem(body.data() + at, body.size() - at, needle.data(), needle.size());
    if (!hit) return n;
    at = static_cast<std::size_t>(static_cast<const char*>(hit) - body.data()) + needle.size();
  }
  return n;
}

inline void sse(std::string& out, std::string_view type, const std::string& data) {
  out += "event: ";
  out += type;
  out += "\ndata: ";
  out += data;
  out += "\n\n";
}

inline std::string response_object(std::string_view id, std::string_view status,
                                   const std::string& output, bool usage) {
  std::string r = R"({"id":")" + std::string(id) +
                  R"(","object":"response","created_at":1785273853,"status":")" +
                  std::string(status) + R"(","model":"gpt-6.2-sol","output":[)" + output +
                  R"(],"parallel_tool_calls":true,"store":false,)" +
                  R"("tool_choice":"auto","tools":[],"usage":)";
  r += usage ? R"({"input_tokens":512,"input_tokens_details":{"cached_tokens":384},)"
               R"("output_tokens":800,"output_tokens_details":{"reasoning_tokens":0},)"
               R"("total_tokens":1312})"
             : "null";
  return r + "}";
}

// The value of the Content-Length header in the message head `head` (0 when absent).
inline std::size_t content_length(std::string_view head) {
  for (std::size_t at = 0; at < head.size();) {
    auto eol = head.find("\r\n", at);
    if (eol == std::string_view::npos) eol = head.size();
    const std::string_view line = head.substr(at, eol - at);
    if (line.size() > 15 && strncasecmp(line.data(), "content-length:", 15) == 0)
      return std::strtoul(std::string(line.substr(15)).c_str(), nullptr, 10);
    at = eol + 2;
  }
  return 0;
}

// The note's text comes in 50 of these (64 bytes each).
inline constexpr std::string_view kNotePiece =
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eius ";

// The arguments of every tool call the server streams, as JSON text: a 3.2 KB note.
inline std::string note_arguments() {
  std::string args = R"({"text":")";
  for (int i = 0; i < 50; ++i) args += kNotePiece;
  return args + R"("})";
}

// `text` as the body of a JSON string (the benchmark's texts hold quotes, no control bytes).
inline std::string json_string_body(std::string_view text) {
  std::string quoted;
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted;
}

// The 15 KB streamed tool call of call number `k`.
inline std::string tool_call_stream(std::size_t k) {
  const std::string id = "resp_bench_" + std::to_string(k);
  const std::string item = "fc_bench_" + std::to_string(k);
  const std::string call = "call_bench_" + std::to_string(k);
  std::string args;  // the arguments as JSON text
  std::string out;
  int seq = 0;
  sse(out, "response.created",
      R"({"type":"response.created","response":)" + response_object(id, "in_progress", "", false) +
          R"(,"sequence_number":)" + std::to_string(seq++) + "}");
  sse(out, "response.output_item.added",
      R"({"type":"response.output_item.added","item":{"id":")" + item +
          R"(","type":"function_call","status":"in_progress","arguments":"","call_id":")" + call +
          R"(","name":"write_note"},"output_index":0,"sequence_number":)" + std::to_string(seq++) +
          "}");
  auto delta = [&](std::string_view d) {
    sse(out, "response.function_call_arguments.delta",
        R"({"type":"response.function_call_arguments.delta","delta":")" + json_string_body(d) +
            R"(","item_id":")" + item + R"(","output_index":0,"sequence_number":)" +
            std::to_string(seq++) + "}");
    args += d;
  };
  delta(R"({"text":")");
  for (int i = 0; i < 50; ++i) delta(kNotePiece);
  delta(R"("})");
  const std::string quoted_args = json_string_body(args);
  const std::string done_item =
      R"({"id":")" + item + R"(","type":"function_call","status":"completed","arguments":")" +
      quoted_args + R"(","call_id":")" + call + R"(","name":"write_note"})";
  sse(out, "response.function_call_arguments.done",
      R"({"type":"response.function_call_arguments.done","arguments":")" + quoted_args +
          R"(","item_id":")" + item + R"(","output_index":0,"sequence_number":)" +
          std::to_string(seq++) + "}");
  sse(out, "response.output_item.done",
      R"({"type":"response.output_item.done","item":)" + done_item +
          R"(,"output_index":0,"sequence_number":)" + std::to_string(seq++) + "}");
  sse(out, "response.completed",
      R"({"type":"response.completed","response":)" +
          response_object(id, "completed", done_item, true) + R"(,"sequence_number":)" +
          std::to_string(seq++) + "}");
  return out;
}

inline std::string text_stream(std::size_t k) {
  const std::string id = "resp_bench_" + std::to_string(k);
  const std::string item = "msg_bench_" + std::to_string(k);
  const char* words[] = {"All ", "notes ", "are ", "written", "."};
  std::string out;
  int seq = 0;
  sse(out, "response.created",
      R"({"type":"response.created","response":)" + response_object(id, "in_progress", "", false) +
          R"(,"sequence_number":)" + std::to_string(seq++) + "}");
  sse(out, "response.output_item.added",
      R"({"type":"response.output_item.added","item":{"id":")" + item +
          R"(","type":"message","status":"in_progress","content":[],"role":"assistant"},)"
          R"("output_index":0,"sequence_number":)" +
          std::to_string(seq++) + "}");
  sse(out, "response.content_part.added",
      R"({"type":"response.content_part.added","content_index":0,"item_id":")" + item +
          R"(","output_index":0,"part":{"type":"output_text","annotations":[],"text":""},)"
          R"("sequence_number":)" +
          std::to_string(seq++) + "}");
  std::string text;
  for (const char* w : words) {
    text += w;
    sse(out, "response.output_text.delta",
        R"({"type":"response.output_text.delta","content_index":0,"delta":")" + std::string(w) +
            R"(","item_id":")" + item + R"(","output_index":0,"sequence_number":)" +
            std::to_string(seq++) + "}");
  }
  sse(out, "response.output_text.done",
      R"({"type":"response.output_text.done","content_index":0,"item_id":")" + item +
          R"(","output_index":0,"sequence_number":)" + std::to_string(seq++) + R"(,"text":")" +
          text + R"("})");
  const std::string part = R"({"type":"output_text","annotations":[],"text":")" + text + R"("})";
  sse(out, "response.content_part.done",
      R"({"type":"response.content_part.done","content_index":0,"item_id":")" + item +
          R"(","output_index":0,"part":)" + part + R"(,"sequence_number":)" +
          std::to_string(seq++) + "}");
  const std::string done_item = R"({"id":")" + item +
                                R"(","type":"message","status":"completed","content":[)" + part +
                                R"(],"role":"assistant"})";
  sse(out, "response.output_item.done",
      R"({"type":"response.output_item.done","item":)" + done_item +
          R"(,"output_index":0,"sequence_number":)" + std::to_string(seq++) + "}");
  sse(out, "response.completed",
      R"({"type":"response.completed","response":)" +
          response_object(id, "completed", done_item, true) + R"(,"sequence_number":)" +
          std::to_string(seq++) + "}");
  return out;
}

class FakeResponsesServer {
 public:
  // Forks the server; returns its port (0 on failure).
  std::uint16_t start() {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      // The server dies with the benchmark, whatever way it exits, and never holds its output
      // (a pipe the caller reads to the end would otherwise stay open).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      prctl(PR_SET_NAME, "e2e-server");  // told apart from the client in a profile
      if (getppid() != parent) _exit(0);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      close(null);
      close(fds[0]);
      serve(fds[1]);
      _exit(0);
    }
    close(fds[1]);
    std::uint16_t port = 0;
    if (read(fds[0], &port, sizeof port) != sizeof port) port = 0;
    close(fds[0]);
    return port;
  }
  // The server's process (its one thread), for the benchmark to place on a CPU.
  pid_t pid() const { return pid_; }

  ~FakeResponsesServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }

 private:
  // A connection's output: the bytes of one cached answer, sent from the cache in place, or bytes
  // of its own (control answers, and an answer queued behind another: our clients never pipeline,
  // so that stays rare).
  struct Conn {
    std::string in;
    const std::string* sending = nullptr;  // a cached answer, or &own
    std::string own;
    std::size_t sent = 0;
    bool want_out = false;  // EPOLLOUT is registered
  };
  struct Pending {
    int fd;
    const std::string* bytes;  // a cached answer (the caches never drop one)
  };

  static void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

  void serve(int report_fd) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(listener, 4096) != 0)
      _exit(1);
    socklen_t len = sizeof addr;
    getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
    const std::uint16_t port = ntohs(addr.sin_port);
    if (write(report_fd, &port, sizeof port) != sizeof port) _exit(1);
    close(report_fd);
    set_nonblocking(listener);
    ep_ = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = listener;
    epoll_ctl(ep_, EPOLL_CTL_ADD, listener, &ev);
    epoll_event events[256];
    for (;;) {
      int timeout = -1;
      if (!timers_.empty()) {
        const std::int64_t wait = timers_.begin()->first - monotonic_ns();
        timeout = wait <= 0 ? 0 : static_cast<int>(wait / 1'000'000) + 1;
      }
      const int n = epoll_wait(ep_, events, 256, timeout);
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == listener) {
          accept_all(listener);
        } else {
          if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_from(fd);
          if (conns_.count(fd) && (events[i].events & EPOLLOUT)) flush(fd);
        }
      }
      const std::int64_t now = monotonic_ns();
      while (!timers_.empty() && timers_.begin()->first <= now) {
        const Pending p = timers_.begin()->second;
        timers_.erase(timers_.begin());
        if (conns_.count(p.fd)) send_cached(p.fd, *p.bytes);
      }
    }
  }

  void accept_all(int listener) {
    for (;;) {
      int fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
      if (fd < 0) return;
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ++connections_;
      conns_[fd];
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
    }
  }

  void drop(int fd) {
    epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    conns_.erase(fd);
  }

  // Requests are answered from the bytes of the read that completed them: a request that arrives
  // whole (the client sends head and body together) is never copied, and only the start of an
  // unfinished one is kept with its connection, so a thousand idle connections hold no buffers.
  void read_from(int fd) {
    for (;;) {
      const ssize_t n = read(fd, read_buffer_.data(), read_buffer_.size());
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        drop(fd);
        return;
      }
      if (n < 0) return;
      std::string_view data(read_buffer_.data(), static_cast<std::size_t>(n));
      std::string& kept = conns_[fd].in;
      if (!kept.empty()) {
        kept.append(data);
        data = kept;
      }
      const std::size_t used = answer_whole_requests(fd, data);
      if (!conns_.count(fd)) return;
      std::string& rest = conns_[fd].in;
      if (used == data.size()) {
        rest = std::string();
      } else if (rest.empty()) {
        rest.assign(data.substr(used));
      } else {
        rest.erase(0, used);
      }
    }
  }

  // Answers every whole request at the start of `data`; the bytes they took.
  std::size_t answer_whole_requests(int fd, std::string_view data) {
    std::size_t used = 0;
    for (;;) {
      const std::string_view rest = data.substr(used);
      const auto head_end = rest.find("\r\n\r\n");
      if (head_end == std::string_view::npos) return used;
      const std::string_view head = rest.substr(0, head_end);
      const std::size_t length = content_length(head);
      if (rest.size() < head_end + 4 + length) return used;
      answer(fd, head, rest.substr(head_end + 4, length));
      if (!conns_.count(fd)) return used;
      used += head_end + 4 + length;
    }
  }

  void answer(int fd, std::string_view head, std::string_view body) {
    if (head.rfind("GET /stats", 0) == 0) {
      rusage u{};
      getrusage(RUSAGE_SELF, &u);
      const std::int64_t cpu_us = (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1'000'000LL +
                                  u.ru_utime.tv_usec + u.ru_stime.tv_usec;
      const std::string json = R"({"connections":)" + std::to_string(connections_) +
                               R"(,"requests":)" + std::to_string(requests_) +
                               R"(,"request_bytes":)" + std::to_string(request_bytes_) +
                               R"(,"first_request_ns":)" + std::to_string(first_request_ns_) +
                               R"(,"cpu_us":)" + std::to_string(cpu_us) + "}";
      send_own(fd, http_response("application/json", json));
      return;
    }
    if (head.rfind("POST /reset", 0) == 0) {
      connections_ = 1;  // this one
      requests_ = 0;
      request_bytes_ = 0;
      first_request_ns_ = 0;
      send_own(fd, http_response("application/json", "{}"));
      return;
    }
    if (requests_++ == 0) first_request_ns_ = monotonic_ns();
    request_bytes_ += static_cast<std::int64_t>(head.size() + 4 + body.size());
    // One backward scan finds the prompt; its own text holds both numbers ("go turns=10
    // delay=50"); one forward scan counts the outputs after it.
    const auto prompt = last_of(body, "turns=");
    const int turns = number_near(body, prompt, 64, "turns=", 2);
    const int delay = number_near(body, prompt, 64, "delay=", 0);
    const std::size_t done = count_of(body.substr(prompt == std::string_view::npos ? 0 : prompt),
                                      "function_call_output");
    const bool call = static_cast<int>(done) + 1 < turns;
    // Built once per call number, head and all: the server's own work stays small beside the
    // client's, and every client gets the same bytes.
    auto& cache = call ? tool_calls_ : texts_;
    auto it = cache.find(done);
    if (it == cache.end()) {
      it = cache
               .emplace(done, http_response("text/event-stream",
                                            call ? tool_call_stream(done) : text_stream(done)))
               .first;
    }
    if (delay > 0) {
      timers_.emplace(monotonic_ns() + static_cast<std::int64_t>(delay) * 1'000'000,
                      Pending{fd, &it->second});
      return;
    }
    send_cached(fd, it->second);
  }

  static std::string http_response(const char* type, const std::string& body) {
    return "HTTP/1.1 200 OK\r\ncontent-type: " + std::string(type) +
           "\r\ncontent-length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  // Queues a cached answer: sent from the cache in place (a cached answer outlives every
  // connection) unless something is queued already.
  void send_cached(int fd, const std::string& bytes) {
    Conn& c = conns_[fd];
    if (c.sending) {
      own_the_rest(c);
      c.own += bytes;
    } else {
      c.sending = &bytes;
    }
    flush(fd);
  }

  void send_own(int fd, std::string bytes) {
    Conn& c = conns_[fd];
    own_the_rest(c);
    c.own += bytes;
    flush(fd);
  }

  static void own_the_rest(Conn& c) {
    if (c.sending == &c.own) return;
    if (c.sending) c.own.assign(c.sending->data() + c.sent, c.sending->size() - c.sent);
    c.sending = &c.own;
    c.sent = 0;
  }

  void flush(int fd) {
    Conn& c = conns_[fd];
    while (c.sending && c.sent < c.sending->size()) {
      const ssize_t n = write(fd, c.sending->data() + c.sent, c.sending->size() - c.sent);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        drop(fd);
        return;
      }
      c.sent += static_cast<std::size_t>(n);
    }
    const bool done = !c.sending || c.sent == c.sending->size();
    if (done) {
      c.sending = nullptr;
      c.own.clear();
      c.sent = 0;
    }
    if (done == !c.want_out) return;  // the registration is already right
    c.want_out = !done;
    epoll_event ev{};
    ev.data.fd = fd;
    ev.events = done ? EPOLLIN : (EPOLLIN | EPOLLOUT);
    epoll_ctl(ep_, EPOLL_CTL_MOD, fd, &ev);
  }

  pid_t pid_ = -1;
  int ep_ = -1;
  std::unordered_map<int, Conn> conns_;
  std::array<char, 64 * 1024> read_buffer_{};  // every connection's reads; one thread
  std::multimap<std::int64_t, Pending> timers_;
  std::map<std::size_t, std::string> tool_calls_;
  std::map<std::size_t, std::string> texts_;
  std::int64_t connections_ = 0;
  std::int64_t requests_ = 0;
  std::int64_t request_bytes_ = 0;  // of the model requests, heads and bodies
  std::int64_t first_request_ns_ = 0;
};

}  // namespace bench
