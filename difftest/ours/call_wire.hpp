// One call through our wire against the loopback recorder: what it sent and what it decoded.
//
// Thread safety: one call at a time per recorder.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/provider.hpp"
#include "loopback_recorder.hpp"
#include "scenario.hpp"

namespace agentkit::difftest {

struct WireCall {
  std::vector<CapturedRequest> sent;  // what reached the recorder, in order
  AssistantMessage message;            // what our wire decoded
};

// Builds the scenario's request for `wire`, streams it through `client` at the recorder, and
// waits for the result (bounded by kWireCallTimeout). Fails only when the request cannot be built.
Result<WireCall> call_wire(ProviderClient& client, LoopbackRecorder& recorder, const Scenario& request_scenario,
                           const WireInfo& wire);

}  // namespace agentkit::difftest
