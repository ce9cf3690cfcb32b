#include "support/alloc/alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace agentkit::testing {
namespace {
thread_local AllocCounter* active = nullptr;
thread_local AllocStats* active_stats = nullptr;

void record(std::size_t n) noexcept {
  if (active_stats == nullptr) return;
  ++active_stats->count;
  active_stats->bytes += n;
  if (n > active_stats->largest) active_stats->largest = n;
}

void* allocate(std::size_t n) {
  record(n);
  if (n == 0) n = 1;
  if (void* p = std::malloc(n)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t n, std::align_val_t al) {
  record(n);
  std::size_t a = static_cast<std::size_t>(al);
  std::size_t rounded = (n + a - 1) / a * a;
  if (rounded == 0) rounded = a;
  if (void* p = std::aligned_alloc(a, rounded)) return p;
  throw std::bad_alloc();
}
}  // namespace

AllocCounter::AllocCounter() : previous_(active) {
  active = this;
  active_stats = &stats_;
}

AllocCounter::~AllocCounter() {
  active = previous_;
  active_stats = previous_ ? const_cast<AllocStats*>(&previous_->stats()) : nullptr;
}

}  // namespace agentkit::testing

void* operator new(std::size_t n) { return agentkit::testing::allocate(n); }
void* operator new[](std::size_t n) { return agentkit::testing::allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) { return agentkit::testing::allocate_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return agentkit::testing::allocate_aligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
