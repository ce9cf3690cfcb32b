// Counts heap allocations made through operator new on the current thread, so a test can prove
// that a bound is checked *before* the allocation it protects ("a 16 MiB+1 message fails without
// a 16 MiB allocation"). Link agentkit_test_alloc into the test executable to enable it; the
// replacement operator new/delete live in alloc_counter.cpp. Under ThreadSanitizer (which owns
// operator new) the counter is inert and its stats stay zero, so tests must only assert upper
// bounds with it; the default and ASan builds measure for real.
#pragma once

#include <cstddef>

namespace agentkit::testing {

struct AllocStats {
  std::size_t count = 0;          // allocations observed
  std::size_t bytes = 0;          // bytes requested in total
  std::size_t largest = 0;        // the largest single request
  std::size_t large = 0;          // requests of at least the counter's `large_from` bytes
};

// The bytes std::string requests for `capacity` characters: capacity + 1 (the NUL) on libstdc++;
// libc++ rounds that up to a multiple of 16. Bounds on a string's allocation are stated with it.
constexpr std::size_t string_allocation(std::size_t capacity) noexcept {
#if defined(_LIBCPP_VERSION)
  constexpr std::size_t kGranule = 16;
  return (capacity + 1 + kGranule - 1) / kGranule * kGranule;
#else
  return capacity + 1;
#endif
}

// Records allocations on this thread for its lifetime; nests (the innermost is filled).
class AllocCounter {
 public:
  // `large_from`: the size from which a request also counts in AllocStats::large.
  explicit AllocCounter(std::size_t large_from = static_cast<std::size_t>(-1));
  ~AllocCounter();
  AllocCounter(const AllocCounter&) = delete;
  AllocCounter& operator=(const AllocCounter&) = delete;

  const AllocStats& stats() const noexcept { return stats_; }

 private:
  AllocStats stats_;
  std::size_t large_from_;
  AllocCounter* previous_;
};

}  // namespace agentkit::testing
