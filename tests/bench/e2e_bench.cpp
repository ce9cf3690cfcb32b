// End to end, as a new user would run it (issue 18): an agent with one tool on the Responses wire
// over plain HTTP to an instant loopback server (e2e_fake_responses_server.hpp, a child process:
// one thread, epoll, the same bytes to every client) that streams a 15 KB tool call per turn and
// then a text answer. Beside it, the peer: the OpenAI Agents SDK for JavaScript (tests/bench/peers,
// pinned in its lockfile; `npm ci` there), same agent, same server, streaming on, tracing off.
//
// Prints: wall and client CPU per turn over a 50-turn run; per-turn cost (CPU and heap allocations)
// at history depth ~0, ~500 and ~1,000; 200 concurrent sessions x 10 turns with a 50 ms model
// delay, each on a thread of its own made before the start and all started together (wall,
// throughput, peak RSS, threads, connections opened, and the sessions' threads' own CPU beside the
// process's); time from process start to the first request; and what this machine charges for a
// system call, a page's first touch and a thread, with the concurrent run's page faults at that
// price; the heap at the concurrent run's peak (in use, and taken from the system) and still in
// use once its sessions closed; and what one session holds after its turns (heap, the stack its
// thread touched, and how deep its deepest frame went); beside the depths and the concurrent run,
// their floor: the same calls from the same threads over plain sockets with no library (below),
// and what ours costs beyond it. Client CPU is the process's own (getrusage), the server's is
// never in it. The peer is skipped with a message when node or its packages are missing.
//
// The per-turn parts (the 50-turn run and the depths) run with the client, the server and the
// peer on one CPU: each model call wakes the server and then the client, and on a virtual machine
// a wakeup that crosses CPUs costs the woken side several times what one on the same CPU does
// (the machine line prints both). Left to the scheduler, the same code measured about 55 or about
// 100 us a turn from one run to the next, by where the two processes happened to land. The
// concurrent part and the start-up are placed by the scheduler, on every CPU.
//
//   bench_e2e [--sessions N] [--delay MS] [--repeat R] [--parts turns,depth,concurrent,first]
//             [--no-peer] [--no-floor] [--spread]
//     --sessions: the concurrent part's sessions (default 200; the bar is taken at 1000)
//     --delay: the concurrent part's model delay in ms (default 50, the bar's; 0 shows what the
//              sessions cost without the wait between their turns)
//     --repeat: our runs of each per-turn figure (default 5; best and median printed)
//     --depths: the history depths of the per-turn part (default 0,500,1000)
//     --spread: the per-turn parts too are placed by the scheduler
//     --no-floor: the depths and the concurrent part without their floor (runs of its own process)
#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agentkit/agent.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "e2e_fake_responses_server.hpp"
#include "new_counter.hpp"  // heap allocations of this process (the server, a child, has its own)

extern char** environ;

using namespace agentkit;

namespace {

double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

double sys_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_stime.tv_sec * 1e3 + u.ru_stime.tv_usec / 1e3;
}

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// What this machine charges for costs no client can avoid: entering the kernel (every read, write
// and poll), the first touch of a page (every page of the peak RSS is one) and a thread created
// and joined (the concurrent part's runners). Printed beside the figures that carry them, so that
// those can be read on another machine.
struct MachineCosts {
  double syscall_us = 0;
  double page_fault_us = 0;
  double thread_us = 0;
  double wake_same_us = 0;    // a wakeup round trip, both threads on one CPU
  double wake_across_us = 0;  // the same across two CPUs; -1 with one CPU
};

double syscall_us() {
  constexpr int kCalls = 20000;
  pollfd none{-1, 0, 0};  // a negative fd is skipped: the cost of entering the kernel and back
  const double c0 = cpu_ms();
  for (int i = 0; i < kCalls; ++i) poll(&none, 1, 0);
  return (cpu_ms() - c0) * 1e3 / kCalls;
}

double page_fault_us() {
  constexpr std::size_t kPages = 2000;  // 8 MiB: well under the smallest peak RSS it is set beside
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* map =
      mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 0;
  auto* bytes = static_cast<volatile char*>(map);
  const double c0 = cpu_ms();
  for (std::size_t i = 0; i < kPages; ++i) bytes[i * page] = 1;
  const double us = (cpu_ms() - c0) * 1e3 / kPages;
  munmap(map, kPages * page);
  return us;
}

double thread_us() {
  constexpr int kThreads = 200;
  const double c0 = cpu_ms();
  for (int i = 0; i < kThreads; ++i) std::thread([] {}).join();
  return (cpu_ms() - c0) * 1e3 / kThreads;
}

double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

// The CPUs the calling thread may use.
cpu_set_t thread_cpus() {
  cpu_set_t all;
  CPU_ZERO(&all);
  sched_getaffinity(0, sizeof all, &all);
  return all;
}

// The n-th CPU of `set` (from 0), or -1.
int nth_cpu(const cpu_set_t& set, int n) {
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set) && n-- == 0) return c;
  return -1;
}

cpu_set_t just(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return one;
}

// What the calling thread's CPU pays for one round trip to a thread on CPU `there`: it writes a
// byte and sleeps in read until the echo wakes it. The calling thread runs on CPU `here`.
double wake_round_trip_us(int here, int there) {
  constexpr int kTrips = 2000;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return -1;
  const cpu_set_t before = thread_cpus();
  std::thread echo([&] {
    const cpu_set_t mine = just(there);
    pthread_setaffinity_np(pthread_self(), sizeof mine, &mine);
    char c = 0;
    for (int i = 0; i < kTrips && read(pair[1], &c, 1) == 1; ++i)
      if (write(pair[1], &c, 1) != 1) break;
  });
  const cpu_set_t mine = just(here);
  sched_setaffinity(0, sizeof mine, &mine);
  char c = 'x';
  const double c0 = thread_cpu_us();
  int done = 0;
  for (; done < kTrips; ++done)
    if (write(pair[0], &c, 1) != 1 || read(pair[0], &c, 1) != 1) break;
  const double us = (thread_cpu_us() - c0) / std::max(done, 1);
  shutdown(pair[0], SHUT_RDWR);  // an echo left waiting (a failed write above) reads the end
  echo.join();
  close(pair[0]);
  close(pair[1]);
  sched_setaffinity(0, sizeof before, &before);
  return us;
}

MachineCosts probe_machine() {
  MachineCosts m{syscall_us(), page_fault_us(), thread_us()};
  const cpu_set_t all = thread_cpus();
  const int first = nth_cpu(all, 0);
  const int second = nth_cpu(all, 1);
  m.wake_same_us = wake_round_trip_us(first, first);
  m.wake_across_us = second < 0 ? -1 : wake_round_trip_us(first, second);
  return m;
}

// Puts the calling thread (with the threads and processes it makes from now on) and the server
// on `cpus`.
void place(pid_t server, const cpu_set_t& cpus) {
  sched_setaffinity(0, sizeof cpus, &cpus);
  sched_setaffinity(server, sizeof cpus, &cpus);
}

// What `work` does to the stack of a thread it runs on, a stack this maps: the KB of it made
// resident (mincore; the thread's own descriptor and TLS included, as every runner thread has
// them), or, with `deepest`, how far below the top its deepest frame reached, in bytes: the stack
// is filled with a pattern first (which makes it resident, hence a run of its own) and the lowest
// byte changed is found. A page is touched per 4 KB of that depth, so this says how far the next
// page boundary is.
template <class F>
long stack_use(F work, bool deepest) {
  constexpr std::size_t kSize = std::size_t{1} << 20;
  constexpr std::size_t kPainted = 120 * 1024;  // below the top 8 KB, where glibc puts its TLS
  constexpr std::size_t kTop = 8 * 1024;
  constexpr unsigned char kPaint = 0xA5;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* stack = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stack == MAP_FAILED) return -1;
  unsigned char* const painted = static_cast<unsigned char*>(stack) + kSize - kTop - kPainted;
  if (deepest) std::memset(painted, kPaint, kPainted);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack, kSize);
  pthread_t thread;
  auto trampoline = [](void* f) -> void* {
    (*static_cast<F*>(f))();
    return nullptr;
  };
  long out = -1;
  if (pthread_create(&thread, &attr, trampoline, &work) == 0) {
    pthread_join(thread, nullptr);
    if (deepest) {
      std::size_t untouched = 0;
      while (untouched < kPainted && painted[untouched] == kPaint) ++untouched;
      out = static_cast<long>(kPainted + kTop - untouched);
    } else {
      std::vector<unsigned char> resident(kSize / page);
      if (mincore(stack, kSize, resident.data()) == 0)
        out = static_cast<long>(
            std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }) *
            page / 1024);
    }
  }
  pthread_attr_destroy(&attr);
  munmap(stack, kSize);
  return out;
}

// The heap: bytes the allocator has handed out and not had back (every arena), and what it has
// taken from the system (its arenas and mmapped blocks: the heap's share of the RSS, holes
// between live blocks included). -1 each where mallinfo2 is missing. One call reads both:
// mallinfo2 locks every arena in turn and walks its free lists, which the sampler of a run of a
// thousand sessions should do once a sample, not twice.
struct HeapFigures {
  long long in_use = -1;
  long long held = -1;
};

HeapFigures heap_now() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  const struct mallinfo2 m = mallinfo2();
  return {static_cast<long long>(m.uordblks), static_cast<long long>(m.arena + m.hblkhd)};
#else
  return {};
#endif
}

long long heap_in_use() { return heap_now().in_use; }

// CPU time of the calling thread, in nanoseconds.
long long thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

int threads_now() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  }
  return 0;
}

// One plain HTTP exchange with the fake server's control endpoints.
std::string control(const std::string& base, const std::string& method, const std::string& path) {
  http::HttpClient client;
  http::Request r{.method = method, .url = base + path};
  auto resp = client.send(r, {});
  if (!resp) return {};
  auto body = resp->read_all(1 << 20);
  return body ? *body : std::string();
}

long long stat_of(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atoll(json.c_str() + at + key.size() + 3);
}

struct Bench {
  std::string base;
  std::shared_ptr<http::HttpClient> http = std::make_shared<http::HttpClient>();

  Result<Agent> agent() const {
    auto model = catalog::Catalog::builtin().resolve("openai/gpt-6.2-sol");
    if (!model) return model.error();
    model->base_url = base;
    RuntimeConfig rt;
    rt.model.descriptor = *model;
    rt.loop.max_turns = 10'000;
    providers::ProviderOptions wires;
    wires.http = http;
    wires.credentials.environment = providers::fixed_environment({{"OPENAI_API_KEY", "bench-key"}});
    providers::register_defaults(rt.providers, wires);
    ToolDefinition note;
    note.name = "write_note";
    note.description = "Writes a note.";
    note.input_schema = schema::object({schema::required("text", schema::string())});
    note.handler = [](const json::Value&, const ToolContext&) {
      return ToolResult::text_result("ok");
    };
    AgentDefinition def;
    def.instructions = "bench";
    def.tools.direct.push_back(note);
    return make_agent(def, rt);
  }
};

std::string history_of_depth(int depth) {
  std::string messages;
  for (int i = 0; i < depth; ++i) {
    if (!messages.empty()) messages += ',';
    if (i % 2 == 0) {
      messages += R"({"role":"user","content":[{"type":"text","text":"question number )" +
                  std::to_string(i) + R"("}]})";
    } else {
      messages += R"({"role":"assistant","content":[{"type":"text","text":)"
                  R"("an answer of moderate length, number )" +
                  std::to_string(i) +
                  R"("}],"stop_reason":"stop","provider":"openai",)"
                  R"("api":"openai-responses","model":"gpt-6.2-sol"})";
    }
  }
  return R"({"version":1,"session_id":"bench","messages":[)" + messages + "]}";
}

struct PerTurn {
  double wall_us;
  double cpu_us;
  double sys_us;       // the kernel's part of cpu_us
  double allocations;  // operator new calls
  double faults;       // pages touched for the first time (minor faults)
};

// The measured run alone, in a function of its own so that a profiler can be pointed at it
// (valgrind --tool=callgrind --toggle-collect='*measured_run*').
[[gnu::noinline]] Result<RunResult> measured_run(Session& session, int turns) {
  return session.run(Turn{"go turns=" + std::to_string(turns)});
}

PerTurn run_turns(Agent& agent, int turns, int depth) {
  StartOptions start;
  if (depth > 0) start.resume = SessionHandle::parse(history_of_depth(depth)).value();
  auto session = agent.start(start);
  if (!session) std::exit((std::fprintf(stderr, "%s\n", session.error().to_string().c_str()), 1));
  auto w = session->run(Turn{"warm turns=2"});
  if (!w || w->turn_count != 2) {
    std::fprintf(stderr, "the warm-up run failed: %s\n",
                 w ? w->error_message.c_str() : w.error().to_string().c_str());
    std::exit(1);
  }  // connection and schema caches warm, as in a live app
  const double c0 = cpu_ms();
  const double s0 = sys_ms();
  const std::size_t a0 = bench_support::allocations();
  const long f0 = minor_faults();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = measured_run(*session, turns);
  const auto t1 = std::chrono::steady_clock::now();
  const std::size_t a1 = bench_support::allocations();
  const long f1 = minor_faults();
  const double c1 = cpu_ms();
  const double s1 = sys_ms();
  if (std::getenv("E2E_DEBUG") && r)
    std::fprintf(stderr, "depth %d: measured run encoded %lld messages, reused %lld\n", depth,
                 static_cast<long long>(r->cache.messages_encoded - w->cache.messages_encoded),
                 static_cast<long long>(r->cache.messages_reused - w->cache.messages_reused));
  if (!r || r->turn_count != turns) {
    std::fprintf(stderr, "unexpected run result: %s\n",
                 r ? std::to_string(r->turn_count).c_str() : r.error().to_string().c_str());
    std::exit(1);
  }
  return {std::chrono::duration<double, std::micro>(t1 - t0).count() / turns,
          (c1 - c0) * 1e3 / turns, (s1 - s0) * 1e3 / turns, static_cast<double>(a1 - a0) / turns,
          static_cast<double>(f1 - f0) / turns};
}

// ---- the floor ----------------------------------------------------------------------------------
//
// What the concurrent part costs on this machine with no library at all: the same threads, made
// before the start, each making its session's model calls over one plain blocking socket. Every
// request is written whole from bytes made before the start, and every answer is read to its
// Content-Length into a 16 KB buffer made once the answer has begun, then dropped: nothing is
// decoded, kept or encoded. Run in its own process (bench_e2e --floor), so that its heap and
// page faults are its own. What ours costs beyond it is what the library's work costs.

// The model calls of one session as a client with nothing to decode or keep would send them: the
// prompt, each earlier call with its output, the tool; head and body in one string each.
std::vector<std::string> floor_requests(std::uint16_t port, int calls, int delay_ms) {
  const std::string quoted = bench::json_string_body(bench::note_arguments());
  std::string items = R"({"role":"user","content":[{"type":"input_text","text":"go turns=)" +
                      std::to_string(calls) + " delay=" + std::to_string(delay_ms) + R"("}]})";
  std::vector<std::string> requests;
  for (int k = 0; k < calls; ++k) {
    const std::string body =
        R"({"model":"gpt-6.2-sol","instructions":"bench","input":[)" + items +
        R"(],"tools":[{"type":"function","name":"write_note","description":"Writes a note.",)"
        R"("parameters":{"type":"object","properties":{"text":{"type":"string"}},)"
        R"("required":["text"],"additionalProperties":false},"strict":true}],"stream":true,)"
        R"("store":false})";
    requests.push_back("POST /v1/responses HTTP/1.1\r\nhost: 127.0.0.1:" + std::to_string(port) +
                       "\r\nauthorization: Bearer bench-key\r\ncontent-type: application/json\r\n"
                       "content-length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body);
    const std::string call = "call_bench_" + std::to_string(k);
    items += R"(,{"type":"function_call","call_id":")" + call +
             R"(","name":"write_note","arguments":")" + quoted +
             R"("},{"type":"function_call_output","call_id":")" + call + R"(","output":"ok"})";
  }
  return requests;
}

bool write_whole(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Reads one answer to its end and drops it.
bool read_answer(int fd) {
  constexpr std::size_t kBytes = 16 * 1024;
  pollfd ready{fd, POLLIN, 0};
  while (poll(&ready, 1, -1) < 0) {
    if (errno != EINTR) return false;
  }
  std::unique_ptr<char[]> buffer(new char[kBytes]);  // once the answer has begun, as ours does
  std::size_t held = 0;                              // the head, and what came with it
  for (;;) {
    const ssize_t n = recv(fd, buffer.get() + held, kBytes - held, 0);
    if (n <= 0) return false;
    held += static_cast<std::size_t>(n);
    const std::string_view seen(buffer.get(), held);
    const std::size_t head_end = seen.find("\r\n\r\n");
    if (head_end == std::string_view::npos) {
      if (held == kBytes) return false;
      continue;
    }
    const std::size_t length = bench::content_length(seen.substr(0, head_end));
    std::size_t got = held - (head_end + 4);
    while (got < length) {
      const ssize_t m = recv(fd, buffer.get(), kBytes, 0);
      if (m <= 0) return false;
      got += static_cast<std::size_t>(m);
    }
    return got == length;
  }
}

bool floor_session(std::uint16_t port, const std::vector<std::string>& requests) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0;
  for (const std::string& r : requests) {
    if (!ok) break;
    ok = write_whole(fd, r) && read_answer(fd);
  }
  close(fd);
  return ok;
}

// What a run of `runners`, each waiting on `go`, took from their release to the last join: wall
// time, the process's CPU and its minor page faults (their spawning not counted).
struct Released {
  double wall_ms;
  double cpu_ms;
  long faults;
};

Released release_and_join(std::atomic<bool>& go, std::vector<std::thread>& runners) {
  const long faults0 = minor_faults();
  const double c0 = cpu_ms();
  const auto t0 = std::chrono::steady_clock::now();
  go = true;
  go.notify_all();
  for (auto& t : runners) t.join();
  return {std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
          cpu_ms() - c0, minor_faults() - faults0};
}

// bench_e2e --floor PORT SESSIONS CALLS DELAY [WARM]: the floor's run; prints one JSON line.
// WARM: sessions each thread runs before its measured one (their CPU, faults and wall time not
// counted), so that a per-turn figure is taken warm, as ours is.
int floor_main(std::uint16_t port, int sessions, int calls, int delay_ms, int warm) {
  const std::vector<std::string> requests = floor_requests(port, calls, delay_ms);
  std::atomic<bool> go{false};
  std::atomic<int> failed{0};
  std::atomic<long long> runners_ns{0};
  std::vector<std::thread> runners;
  for (int s = 0; s < sessions; ++s) {
    runners.emplace_back([&] {
      for (int w = 0; w < warm; ++w) {
        if (!floor_session(port, requests)) ++failed;
      }
      go.wait(false);
      const long long own0 = thread_cpu_ns();
      if (!floor_session(port, requests)) ++failed;
      runners_ns.fetch_add(thread_cpu_ns() - own0);
    });
  }
  const Released run = release_and_join(go, runners);
  std::printf(
      "{\"wall_ms\":%.3f,\"cpu_ms\":%.3f,\"runners_us\":%.1f,\"faults\":%ld,\"peak_rss_kb\":%ld,"
      "\"failed\":%d}\n",
      run.wall_ms, run.cpu_ms, runners_ns.load() / 1e3, run.faults, peak_rss_kb(), failed.load());
  return failed.load() == 0 ? 0 : 1;
}

// What the shell command `cmd` printed ("" when it could not be started).
std::string output_of(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

// Runs the floor in a process of its own; returns its JSON line ("" on failure).
std::string floor_run(std::uint16_t port, int sessions, int calls, int delay_ms, int warm = 0) {
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  const std::string cmd = "'" + self + "' --floor " + std::to_string(port) + " " +
                          std::to_string(sessions) + " " + std::to_string(calls) + " " +
                          std::to_string(delay_ms) + " " + std::to_string(warm);
  return output_of(cmd);
}

// ---- the peer -----------------------------------------------------------------------------------

std::filesystem::path peer_dir() {
  return std::filesystem::path(AGENTKIT_SOURCE_DIR) / "tests" / "bench" / "peers";
}

bool peer_available() {
  return std::filesystem::exists(peer_dir() / "node_modules" / "@openai" / "agents") &&
         std::system("node --version >/dev/null 2>&1") == 0;
}

// Runs the peer script; returns its JSON line ("" on failure).
std::string peer(const std::vector<std::string>& args) {
  std::string cmd = "cd '" + peer_dir().string() + "' && node e2e_peer.mjs";
  for (const auto& a : args) cmd += " '" + a + "'";
  return output_of(cmd);
}

double num(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::atof(json.c_str() + at + key.size() + 3);
}

// Milliseconds from spawning `argv` to the server seeing its first request.
double first_request_ms(const std::string& base, std::vector<std::string> argv,
                        const std::string& cwd) {
  control(base, "POST", "/reset");
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const auto here = std::filesystem::current_path();
  if (!cwd.empty()) std::filesystem::current_path(cwd);
  const std::int64_t t0 = bench::monotonic_ns();
  pid_t pid = 0;
  posix_spawn_file_actions_t quiet;  // the child's own output is not the benchmark's
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const int rc = posix_spawnp(&pid, args[0], &quiet, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  std::filesystem::current_path(here);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  const long long first = stat_of(control(base, "GET", "/stats"), "first_request_ns");
  return first > 0 ? static_cast<double>(first - t0) / 1e6 : -1;
}

}  // namespace

// The best and the median of `runs` measurements of one figure: on a shared machine the best is
// the cost of the work, the median what a loaded machine made of it.
struct Spread {
  double best = 0;
  double median = 0;
};

template <class F>
Spread spread_of(int runs, F&& measure) {
  std::vector<double> v;
  for (int i = 0; i < runs; ++i) v.push_back(measure());
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2]};
}

bool wanted(const std::string& parts, const char* part) {
  return parts == "all" ||
         ("," + parts + ",").find("," + std::string(part) + ",") != std::string::npos;
}

int main(int argc, char** argv) {
  int sessions = 200;
  int delay = 50;
  int repeat = 5;
  std::string parts = "all";
  bool with_peer = true;
  bool spread = false;
  bool with_floor = true;
  std::vector<int> depths = {0, 500, 1000};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-peer") with_peer = false;
    if (arg == "--spread") spread = true;
    if (arg == "--no-floor") with_floor = false;
    if (i + 1 >= argc) continue;
    if (arg == "--sessions") sessions = std::atoi(argv[i + 1]);
    if (arg == "--delay") delay = std::max(0, std::atoi(argv[i + 1]));
    if (arg == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    if (arg == "--parts") parts = argv[i + 1];
    if (arg == "--depths") {
      depths.clear();
      for (const char* p = argv[i + 1]; *p;) {
        char* end = nullptr;
        depths.push_back(static_cast<int>(std::strtol(p, &end, 10)));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
      }
    }
  }
  if (argc >= 6 && std::string(argv[1]) == "--floor") {
    return floor_main(static_cast<std::uint16_t>(std::atoi(argv[2])), std::atoi(argv[3]),
                      std::atoi(argv[4]), std::atoi(argv[5]), argc >= 7 ? std::atoi(argv[6]) : 0);
  }
  if (argc >= 3 && std::string(argv[1]) == "--first") {
    // The child of the start-up measurement: one model call, then exit.
    Bench b{argv[2]};
    auto agent = b.agent();
    if (!agent) return 1;
    auto r = agent->run("go turns=1");
    return r ? 0 : 1;
  }

  bench::FakeResponsesServer server;
  const std::uint16_t port = server.start();
  if (port == 0) return (std::fprintf(stderr, "the fake server did not start\n"), 1);
  Bench b{"http://127.0.0.1:" + std::to_string(port)};
  auto agent = b.agent();
  if (!agent) return (std::fprintf(stderr, "%s\n", agent.error().to_string().c_str()), 1);
  const bool have_peer = with_peer && peer_available();
  std::printf(
      "end to end: Responses wire over loopback HTTP, one tool, a %zu-byte SSE tool call per turn, "
      "then a text answer\n"
      "ours: best / median of %d runs (client CPU from getrusage); the peer: one run\n",
      bench::tool_call_stream(0).size(), repeat);
  const MachineCosts machine = probe_machine();
  std::printf(
      "this machine: a system call %.2f us, a page's first touch %.1f us, a thread created "
      "and joined %.1f us;\n"
      "  a wakeup round trip costs the thread that waits %.1f us of CPU on one CPU, %.1f us "
      "across two\n",
      machine.syscall_us, machine.page_fault_us, machine.thread_us, machine.wake_same_us,
      machine.wake_across_us);
  const cpu_set_t all_cpus = thread_cpus();
  const int shared_cpu = nth_cpu(all_cpus, 0);
  if (spread || shared_cpu < 0) {
    std::printf(
        "the per-turn parts: the client, the server and the peer placed by the scheduler\n");
  } else {
    place(server.pid(), just(shared_cpu));
    std::printf(
        "the per-turn parts: the client, the server and the peer on CPU %d (--spread: placed by "
        "the scheduler)\n",
        shared_cpu);
  }
  if (with_peer && !have_peer)
    std::printf(
        "  peer skipped: node or tests/bench/peers/node_modules missing (npm ci in "
        "tests/bench/peers)\n");

  // 1. A 50-turn run.
  if (wanted(parts, "turns")) {
    const int turns = 50;
    double wall_best = 1e18;
    double sys = 0;
    double all = 0;
    const Spread cpu = spread_of(repeat, [&] {
      PerTurn t = run_turns(*agent, turns, 0);
      wall_best = std::min(wall_best, t.wall_us);
      sys += t.sys_us;
      all += t.cpu_us;
      return t.cpu_us;
    });
    std::printf(
        "\n50-turn run              ours: %8.1f us wall/turn (best) %6.1f / %6.1f us CPU/turn "
        "(kernel %2.0f%%)\n",
        wall_best, cpu.best, cpu.median, 100 * sys / all);
    if (have_peer) {
      const std::string j = peer({b.base, "turns", std::to_string(turns)});
      const double wall = num(j, "wall_ms") * 1e3 / turns;
      const double peer_cpu = num(j, "cpu_ms") * 1e3 / turns;
      std::printf(
          "                     @openai/agents: %8.1f us wall/turn        %8.1f us CPU/turn   "
          "peer/ours CPU = %.1fx (median)\n",
          wall, peer_cpu, peer_cpu / cpu.median);
    }
  }

  // 2. Per-turn cost at history depth.
  if (wanted(parts, "depth")) {
    std::printf("\nper-turn client CPU by history depth (10-turn runs after a resumed history)\n");
    double depth0 = 0;
    for (int depth : depths) {
      // The kernel's share from the sum of the runs: getrusage splits user and system time by
      // sampling ticks, which says nothing about one 10-turn run.
      double sys = 0;
      double all = 0;
      double allocations = 0;  // the same every run: the last one's
      double faults = 0;       // the mean over the runs
      const Spread d = spread_of(repeat, [&] {
        const PerTurn t = run_turns(*agent, 10, depth);
        sys += t.sys_us;
        all += t.cpu_us;
        allocations = t.allocations;
        faults += t.faults / repeat;
        return t.cpu_us;
      });
      if (depth0 == 0) depth0 = d.best;  // the first depth asked is the reference
      std::printf(
          "  depth %4d        ours: %6.1f / %6.1f us CPU/turn (best %.2fx depth 0; kernel %2.0f%%; "
          "%.1f allocations, %.1f page faults)",
          depth, d.best, d.median, d.best / depth0, 100 * sys / all, allocations, faults);
      if (have_peer) {
        const std::string j = peer({b.base, "depth", std::to_string(depth), "10"});
        const double cpu = num(j, "cpu_ms") * 1e3 / 10;
        std::printf("   @openai/agents: %8.1f us   peer/ours = %.1fx", cpu, cpu / d.median);
      }
      std::printf("\n");
    }
    if (with_floor) {
      // The same ten calls at depth 0 with no library, placed as ours (a child keeps the
      // affinity of the thread that starts it) and warm (three sessions first, on the same
      // thread): what a call costs the socket, the wakeups and the bytes alone. Its thread's own
      // CPU.
      const Spread floor =
          spread_of(repeat, [&] { return num(floor_run(port, 1, 10, 0, 3), "runners_us") / 10; });
      std::printf(
          "  the floor, no library: %6.1f / %6.1f us CPU a call (one session's 10 calls at depth 0 "
          "over a plain socket); ours at depth %d beyond it: %.1f us (best)\n",
          floor.best, floor.median, depths.front(), depth0 - floor.best);
    }
  }

  place(server.pid(), all_cpus);  // from here on, where the scheduler puts it, on every CPU

  // 3. Concurrent sessions with a 50 ms model.
  if (wanted(parts, "concurrent")) {
    const int per_session = 10;
    const int delay_ms = delay;
    control(b.base, "POST", "/reset");
    b.http->close_idle_connections();
    std::atomic<int> peak_threads{threads_now()};
    std::atomic<bool> sampling{true};
    std::atomic<long long> peak_heap_used{heap_now().in_use};
    std::atomic<long long> peak_heap_held{heap_now().held};
    std::atomic<long long> sampler_ns{0};
    std::thread sampler([&] {
      // The threads every 5 ms; the heap every 20 ms: mallinfo2 locks every arena in turn and
      // walks its free lists, 2.5 % of a 1,000-session run's CPU samples when taken every 5 ms.
      for (int tick = 0; sampling.load(); ++tick) {
        peak_threads = std::max(peak_threads.load(), threads_now());
        if (tick % 4 == 0) {
          const HeapFigures heap = heap_now();
          peak_heap_used = std::max(peak_heap_used.load(), heap.in_use);
          peak_heap_held = std::max(peak_heap_held.load(), heap.held);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      sampler_ns = thread_cpu_ns();
    });
    const int threads_before = threads_now();
    const auto opened_before = b.http->stats().connections_opened;
    const long long heap0 = heap_in_use();
    const long long server_us0 = stat_of(control(b.base, "GET", "/stats"), "cpu_us");
    // Every runner thread is made first and waits for the start: the sessions run at the same
    // time. Made as they are started, a thousand threads took 1.3-1.8 s to spawn beside the
    // running sessions, so the first had finished before the last began (658-994 at peak): the
    // wall time was mostly the spawning, and the peak RSS was that of fewer sessions.
    const auto spawn0 = std::chrono::steady_clock::now();
    std::vector<std::thread> runners;
    std::atomic<int> failed{0};
    std::atomic<bool> go{false};
    std::atomic<long long> runners_ns{0};  // the runners' own CPU, summed over their threads
    for (int s = 0; s < sessions; ++s) {
      runners.emplace_back([&] {
        go.wait(false);
        const long long own0 = thread_cpu_ns();
        {
          auto session = agent->start();
          if (!session) return void(++failed);
          auto r = session->run(Turn{"go turns=" + std::to_string(per_session) +
                                     " delay=" + std::to_string(delay_ms)});
          if (!r || r->turn_count != per_session) ++failed;
        }  // closed, as a server's session ends
        runners_ns.fetch_add(thread_cpu_ns() - own0);
      });
    }
    const double spawn_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - spawn0).count();
    const Released run = release_and_join(go, runners);  // the spawn's faults and CPU not counted
    const double wall_s = run.wall_ms / 1e3;
    const double cpu_s = run.cpu_ms / 1e3;
    const long faults = run.faults;
    const long long heap_kept = heap_in_use() - heap0;  // every session closed by now
    sampling = false;
    sampler.join();
    const auto opened = b.http->stats().connections_opened - opened_before;
    // The server shares the machine's cores: its CPU is part of what the wall time had to fit in.
    const std::string server_after = control(b.base, "GET", "/stats");
    const double server_s = (stat_of(server_after, "cpu_us") - server_us0) / 1e6;
    const double sent_kb = stat_of(server_after, "request_bytes") / 1024.0 / sessions;
    const double ideal = per_session * delay_ms / 1e3;
    std::printf(
        "\n%d sessions x %d turns, %d ms model   ours: wall %.2f s (%.2fx ideal %.2f s), %.0f "
        "turns/s, CPU %.2f s, peak RSS %.1f MiB,\n"
        "                                       the sessions' threads' own CPU %.0f us a turn (the "
        "rest is this benchmark's sampler, %.2f s, and the process's other work); %d threads "
        "made before the start in %.2f s, not timed\n"
        "                                       %d threads at peak (%d besides the runners' own), "
        "%lld connections opened, %d failed; the server's CPU %.2f s; requests of %.1f KB a "
        "session\n",
        sessions, per_session, delay_ms, wall_s, ideal > 0 ? wall_s / ideal : 0.0, ideal,
        sessions * per_session / wall_s, cpu_s, peak_rss_kb() / 1024.0,
        runners_ns.load() / 1e3 / (sessions * per_session), sampler_ns.load() / 1e9, sessions,
        spawn_s, peak_threads.load(), peak_threads.load() - threads_before - sessions,
        static_cast<long long>(opened), failed.load(), server_s, sent_kb);
    std::printf(
        "                                       at this machine's prices, its %ld page faults are "
        "about %.2f s of that CPU\n",
        faults, faults * machine.page_fault_us / 1e6);
    if (heap0 >= 0)  // glibc only
      std::printf(
          "                                       heap at its peak (20 ms samples): %.1f MiB in "
          "use, "
          "%.1f MiB taken from the system; still in use once every session closed: %.1f MiB\n",
          static_cast<double>(peak_heap_used.load()) / (1024 * 1024),
          static_cast<double>(peak_heap_held.load()) / (1024 * 1024),
          static_cast<double>(heap_kept) / (1024 * 1024));
    // What one session holds at the end of its turns, alone: the floor under each session's
    // share of the peak. Read as what closing and destroying it frees (its result, a copy of its
    // messages, dropped first), so that nothing else the run frees, such as idle connections the
    // pool lets go, is taken off it.
    long long held = -1;
    auto one_session = [&] {
      // A connection of its own, as every runner opened one: the connect is on its stack too.
      b.http->close_idle_connections();
      long long alive = -1;
      {
        auto session = agent->start();
        if (!session) return;
        (void)session->run(Turn{"go turns=" + std::to_string(per_session)});
        alive = heap_in_use();
      }  // closed and destroyed
      held = alive - heap_in_use();
    };
    const long idle_kb = stack_use([] {}, false);
    const long session_kb = stack_use(one_session, false);
    const long deepest = stack_use(one_session, true);
    std::printf(
        "                                       one session after its %d turns: %.1f KB of heap "
        "held, %ld KB of its thread's stack touched (a thread that does nothing %ld KB; its "
        "deepest frame %ld bytes below the top)\n",
        per_session, heap0 >= 0 ? static_cast<double>(held) / 1024 : -1.0, session_kb, idle_kb,
        deepest);
    if (with_floor) {
      control(b.base, "POST", "/reset");
      const long long before_us = stat_of(control(b.base, "GET", "/stats"), "cpu_us");
      const std::string f = floor_run(port, sessions, per_session, delay_ms);
      const std::string after = control(b.base, "GET", "/stats");
      if (f.find("\"wall_ms\"") == std::string::npos) {
        std::printf("                       the floor did not run (bench_e2e --floor)\n");
      } else {
        const double f_wall = num(f, "wall_ms") / 1e3;
        const double f_cpu = num(f, "cpu_ms") / 1e3;
        const double f_rss = num(f, "peak_rss_kb") / 1024.0;
        const double calls = static_cast<double>(sessions) * per_session;
        std::printf(
            "                       the floor, no library: wall %.2f s (%.2fx ideal), CPU %.2f s "
            "(the threads' own %.0f us a call), peak RSS %.1f MiB, %.0f page faults, %.0f failed; "
            "requests of %.1f KB a session; the server's CPU %.2f s\n"
            "                       ours beyond the floor: wall +%.2f s, CPU +%.2f s (%.0f us a "
            "call), peak RSS +%.1f MiB\n",
            f_wall, ideal > 0 ? f_wall / ideal : 0.0, f_cpu, num(f, "runners_us") / calls, f_rss,
            num(f, "faults"), num(f, "failed"), stat_of(after, "request_bytes") / 1024.0 / sessions,
            (stat_of(after, "cpu_us") - before_us) / 1e6, wall_s - f_wall, cpu_s - f_cpu,
            (cpu_s - f_cpu) * 1e6 / calls, peak_rss_kb() / 1024.0 - f_rss);
      }
    }
    if (have_peer) {
      control(b.base, "POST", "/reset");
      const std::string j = peer({b.base, "concurrent", std::to_string(sessions),
                                  std::to_string(per_session), std::to_string(delay_ms)});
      const long long conns = stat_of(control(b.base, "GET", "/stats"), "connections") - 1;
      const double wall = num(j, "wall_ms") / 1e3;
      std::printf(
          "                       @openai/agents: wall %.2f s (%.2fx ideal), %.0f turns/s, CPU "
          "%.2f "
          "s, peak RSS %.1f MiB, %.0f threads, %lld connections\n",
          wall, wall / ideal, sessions * per_session / wall, num(j, "cpu_ms") / 1e3,
          num(j, "peak_rss_kb") / 1024.0, num(j, "threads"), conns);
      std::printf("                       peer/ours: wall %.2fx, CPU %.1fx\n", wall / wall_s,
                  num(j, "cpu_ms") / 1e3 / cpu_s);
    }
  }

  // 4. Start-up: process start to the first request on the wire.
  if (wanted(parts, "first")) {
    const std::string self = std::filesystem::canonical("/proc/self/exe").string();
    double ours_first = 1e9;
    for (int i = 0; i < 5; ++i)
      ours_first = std::min(ours_first, first_request_ms(b.base, {self, "--first", b.base}, ""));
    std::printf("\nprocess start to first request   ours: %6.1f ms (best of 5)", ours_first);
    if (have_peer) {
      double peer_first = 1e9;
      for (int i = 0; i < 5; ++i) {
        peer_first =
            std::min(peer_first, first_request_ms(b.base, {"node", "e2e_peer.mjs", b.base, "first"},
                                                  peer_dir().string()));
      }
      std::printf("   @openai/agents: %6.1f ms   peer/ours = %.1fx", peer_first,
                  peer_first / ours_first);
    }
    std::printf("\n");
  }
  return 0;
}
