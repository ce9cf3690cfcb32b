// Counts heap allocations of the whole process for the benchmarks that report them per turn
// (bench_loop, bench_e2e): new_counter.cpp replaces operator new. Link it into those alone.
#pragma once

#include <cstddef>

namespace agentkit::bench_support {

// operator new calls since the process started, on every thread.
std::size_t allocations() noexcept;

}  // namespace agentkit::bench_support
