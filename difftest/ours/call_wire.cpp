#include "call_wire.hpp"

#include <utility>

#include "driver.hpp"
#include "scenario_request.hpp"

namespace agentkit::difftest {

Result<WireCall> call_wire(ProviderClient& client, LoopbackRecorder& recorder, const Scenario& request_scenario,
                           const WireInfo& wire) {
  const json::Value* logical = request_scenario.document.find("request");
  const json::Value* overrides = request_scenario.document.find("model_overrides");
  static const json::Value kNoOverrides;
  Result<std::unique_ptr<BuiltRequest>> built =
      build_request(*logical, wire, recorder.origin(), overrides != nullptr ? *overrides : kNoOverrides);
  if (!built) return std::move(built).error();
  (void)recorder.take();
  StreamOptions options;
  options.timeout = kWireCallTimeout;
  EventStream stream = client.stream((*built)->request, options, {});
  Result<AssistantMessage> message = stream.result();
  WireCall call;
  call.sent = recorder.take();
  if (message) {
    call.message = std::move(*message);
  } else {
    call.message.stop_reason = StopReason::error;
    call.message.error_message = message.error().to_string();
  }
  return call;
}

}  // namespace agentkit::difftest
