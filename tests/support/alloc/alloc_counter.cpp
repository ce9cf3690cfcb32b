#include "support/alloc/alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace agentkit::testing {
namespace {
thread_local AllocCounter* active = nullptr;
thread_local AllocStats* active_stats = nullptr;
thread_local std::size_t active_large_from = static_cast<std::size_t>(-1);

#ifndef AGENTKIT_ALLOC_COUNTER_OFF  // the TSan build: no operator new of ours, so nothing records
void record(std::size_t n) noexcept {
  if (active_stats == nullptr) return;
  ++active_stats->count;
  active_stats->bytes += n;
  if (n > active_stats->largest) active_stats->largest = n;
  if (n >= active_large_from) ++active_stats->large;
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
#endif  // AGENTKIT_ALLOC_COUNTER_OFF
}  // namespace

AllocCounter::AllocCounter(std::size_t large_from) : large_from_(large_from), previous_(active) {
  active = this;
  active_stats = &stats_;
  active_large_from = large_from_;
}

AllocCounter::~AllocCounter() {
  active = previous_;
  active_stats = previous_ ? const_cast<AllocStats*>(&previous_->stats()) : nullptr;
  active_large_from = previous_ ? previous_->large_from_ : static_cast<std::size_t>(-1);
}

}  // namespace agentkit::testing

// Under AddressSanitizer, libstdc++.so's own allocations reach ASan's exported operator new while
// the inlined delete in the test lands here and frees with free(): the same heap either way, but
// ASan reports "alloc-dealloc-mismatch (operator new vs free)" and aborts. Turn that check off for
// executables that link the counter (the other ASan checks stay on).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGENTKIT_ALLOC_COUNTER_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(AGENTKIT_ALLOC_COUNTER_UNDER_ASAN)
extern "C" const char* __asan_default_options() { return "alloc_dealloc_mismatch=0"; }
#endif

// ThreadSanitizer's runtime defines operator new itself; a second definition cannot link, so in
// the TSan build the counter is inert (see the header).
#ifndef AGENTKIT_ALLOC_COUNTER_OFF
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
#endif  // AGENTKIT_ALLOC_COUNTER_OFF
