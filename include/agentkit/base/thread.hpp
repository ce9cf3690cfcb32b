// agentkit/base/thread.hpp — a joining thread that carries a stop token (agentkit::jthread's contract).
//
//   agentkit::jthread worker([](agentkit::stop_token stop) {
//     while (!stop.stop_requested()) poll_once();
//   });
//   // leaving the scope requests a stop and joins
//
// Thread safety: as for agentkit::jthread. Where the standard library has agentkit::jthread this is it.
#pragma once

#include <version>

#include "agentkit/base/stop_token.hpp"

#if defined(__cpp_lib_jthread)
#include <thread>

namespace agentkit {
using std::jthread;
}  // namespace agentkit
#else
#error "agentkit needs agentkit::jthread from the standard library"
#endif
