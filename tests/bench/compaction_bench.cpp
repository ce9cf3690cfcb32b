// Compaction planning on a 10,000-message session: the estimate of the next request, where the
// cut goes (with the skill reads pinned), the summary request's text and the compacted view, i.e.
// everything a compaction costs except the summary call itself. Bar: under 5 ms. No peer
// library plans compactions in C++; the figure stands against the bar and against one model
// round trip (hundreds of milliseconds), which is what the summary call costs. Process CPU time
// (the figure to read on a shared machine) beside wall time, best and median.
//   ./build/bench/tests/bench/bench_compaction [messages] [passes]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "agentkit/compaction_plan.hpp"

using namespace agentkit;
using SteadyClock = std::chrono::steady_clock;

namespace {

constexpr int kDefaultMessages = 10'000;
constexpr int kRepeats = 30;
constexpr double kBarMs = 5.0;

double cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// A coding session: a user turn, a reply calling a tool (every 50th reads a skill), its result,
// then a text reply; 300-1,000 bytes a message.
std::vector<Message> session_of(int n) {
  std::vector<Message> h;
  h.reserve(static_cast<std::size_t>(n));
  for (int i = 0; static_cast<int>(h.size()) < n; ++i) {
    h.push_back(user_text("please look at file " + std::to_string(i) + " and fix the bug " +
                          std::string(300, 'u')));
    AssistantMessage call;
    call.content.push_back(TextBlock{"Reading it first."});
    std::string tool = i % 50 == 0 ? "read_skill" : "read_file";
    call.content.push_back(
        ToolUseBlock{"c" + std::to_string(i), tool,
                     json::Raw(R"({"path":"src/f)" + std::to_string(i) + R"(.cpp"})"), ""});
    call.usage.input_tokens = 1'000 + i;
    call.usage.output_tokens = 40;
    h.push_back(call);
    ToolResultMessage r;
    r.tool_use_id = "c" + std::to_string(i);
    r.tool_name = tool;
    r.content.push_back(TextBlock{std::string(1'000, 'r')});
    h.push_back(r);
    AssistantMessage done;
    done.content.push_back(TextBlock{"Fixed: " + std::string(300, 'a')});
    done.usage.input_tokens = 1'200 + i;
    done.usage.output_tokens = 90;
    h.push_back(done);
  }
  h.resize(static_cast<std::size_t>(n));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : kDefaultMessages;
  const int repeats = std::max(1, argc > 2 ? std::atoi(argv[2]) : kRepeats);
  const std::vector<Message> history = session_of(n);
  detail::CompactionCheckpoint cp;  // a first compaction: the whole history is in play
  std::vector<double> ms, cpu;
  std::size_t cut = 0, pinned = 0, text_bytes = 0, view = 0;
  std::int64_t estimate = 0;
  for (int rep = 0; rep < repeats; ++rep) {
    auto t0 = SteadyClock::now();
    const double c0 = cpu_ms();
    estimate = detail::estimate_next_request(history, cp, 2'000);
    auto plan = detail::plan_compaction(history, cp, 20'000, std::nullopt, "read_skill");
    if (!plan) {
      std::fprintf(stderr, "no plan\n");
      return 1;
    }
    std::string text = detail::summary_request_text(history, *plan, {});
    detail::CompactionCheckpoint next = detail::advance(cp, *plan, "a summary", history.size());
    std::vector<Message> sent = detail::compacted_view(history, next);
    cpu.push_back(cpu_ms() - c0);
    ms.push_back(std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count());
    cut = plan->cut;
    pinned = plan->pinned.size();
    text_bytes = text.size();
    view = sent.size();
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  const double median = ms[ms.size() / 2];
  const double cpu_median = cpu[cpu.size() / 2];
  std::printf("compaction planning, %d messages (%d passes)\n", n, repeats);
  std::printf(
      "  estimate %lld tokens; cut at %zu, %zu pinned, summary request %zu bytes, view %zu "
      "messages\n",
      static_cast<long long>(estimate), cut, pinned, text_bytes, view);
  std::printf("  CPU:  median %.3f ms, best %.3f ms, worst %.3f ms  (bar %.1f ms: %.1fx under)\n",
              cpu_median, cpu.front(), cpu.back(), kBarMs, kBarMs / cpu_median);
  std::printf("  wall: median %.3f ms, best %.3f ms, worst %.3f ms\n", median, ms.front(),
              ms.back());
  return cpu_median < kBarMs ? 0 : 1;
}
