// SSE decode throughput (issue 4): wire::SseDecoder on a text/event-stream body held in memory,
// fed in 4096-byte pieces as an HTTP body would arrive, every event taken out. Two shapes: many
// small token-delta events (what a streamed model reply looks like) and few large events (a whole
// message per event). Prints MB/s (10^6 bytes); asserts nothing.
//   bench_sse [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agentkit/wire/sse_decoder.hpp"

using namespace agentkit;
using BenchClock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kTargetBytes = 16'000'000;
constexpr std::size_t kPiece = 4096;

std::string small_events() {
  const std::string event =
      "event: content_block_delta\n"
      "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"token \"}}\n\n";
  std::string body;
  while (body.size() < kTargetBytes) body += event;
  return body;
}

std::string large_events() {
  const std::string payload(64 * 1024, 'x');
  const std::string event = "event: message\ndata: {\"text\":\"" + payload + "\"}\n\n";
  std::string body;
  while (body.size() < kTargetBytes) body += event;
  return body;
}

// Seconds to decode `body` once; `events` receives the count.
double decode_once(std::string_view body, std::size_t& events) {
  const auto start = BenchClock::now();
  wire::SseDecoder sse;
  events = 0;
  for (std::size_t at = 0; at < body.size(); at += kPiece) {
    sse.feed(body.substr(at, kPiece));
    while (true) {
      auto next = sse.next();
      if (!next || !*next) break;
      ++events;
    }
  }
  (void)sse.finish();
  return std::chrono::duration<double>(BenchClock::now() - start).count();
}

void run(const char* name, const std::string& body, int repeat) {
  double best = 1e9;
  std::size_t events = 0;
  for (int i = 0; i < repeat; ++i) best = std::min(best, decode_once(body, events));
  std::printf("%-28s %10zu bytes %8zu events   %8.1f MB/s (best of %d)\n", name, body.size(), events,
              static_cast<double>(body.size()) / best / 1e6, repeat);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 10;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  std::printf("SSE decode, %zu-byte pieces, from memory (MB = 10^6 bytes)\n", kPiece);
  run("small token-delta events", small_events(), repeat);
  run("large 64 KiB events", large_events(), repeat);
  return 0;
}
