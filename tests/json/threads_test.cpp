// json::parse from several threads at once. The parser's scratch stacks move between threads
// through a pool of atomic slots, so this suite runs under ThreadSanitizer (label tsan). It is its
// own executable because the allocation counter linked into test_json replaces operator new, which
// ThreadSanitizer's runtime also defines.
#include <string>
#include <thread>
#include <vector>

#include "agentkit/json/value.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using json::Value;

TEST_CASE("parsing on several threads at once gives each thread its own correct result") {
  // The parser's scratch stacks pass from thread to thread through the pool; this is the test
  // (run under TSan too) that no two parses at once share one, and that a scratch handed over
  // is seen whole by the thread that takes it. More threads than the pool's slots at times.
  constexpr int kThreads = 24;
  constexpr int kRounds = 200;
  std::vector<std::string> documents;
  for (int t = 0; t < kThreads; ++t) {
    std::string doc = "{\"thread\":" + std::to_string(t) + ",\"items\":[";
    for (int i = 0; i < 50 * (t + 1); ++i) doc += (i ? ",\"" : "\"") + std::string(static_cast<std::size_t>(i % 40), 'x') + "\"";
    documents.push_back(doc + "],\"tail\":\"caf\xC3\xA9\\n\"}");
  }
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Value expected = json::parse(documents[static_cast<std::size_t>(t)]).value();
      for (int round = 0; round < kRounds; ++round) {
        const auto r = json::parse(documents[static_cast<std::size_t>(t)]);
        if (!r.has_value() || r.value() != expected) ++failures[static_cast<std::size_t>(t)];
        // Interleave failures and a document large enough to make the scratch shrink.
        if (round % 50 == 0) {
          if (json::parse("[1,2,").has_value()) ++failures[static_cast<std::size_t>(t)];
          std::string big = "[";
          for (int i = 0; i < 40'000; ++i) big += i ? ",0" : "0";
          if (json::parse(big + "]").value().size() != 40'000) ++failures[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) CHECK(failures[static_cast<std::size_t>(t)] == 0);
}
