#include "new_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

// One counter per cache line, each thread adding to its own: a single shared counter made every
// allocation of a thousand concurrent sessions a locked add on a line the two cores passed back
// and forth, and that cost was charged to the client being measured.
constexpr std::size_t kShards = 64;
struct alignas(64) Shard {
  std::atomic<std::size_t> count{0};
};
Shard g_shards[kShards];
std::atomic<std::size_t> g_next_shard{0};

Shard& my_shard() {
  thread_local Shard* mine =
      &g_shards[g_next_shard.fetch_add(1, std::memory_order_relaxed) % kShards];
  return *mine;
}

}  // namespace

std::size_t agentkit::bench_support::allocations() noexcept {
  std::size_t total = 0;
  for (const Shard& s : g_shards) total += s.count.load(std::memory_order_relaxed);
  return total;
}

void* operator new(std::size_t n) {
  my_shard().count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
