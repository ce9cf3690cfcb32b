// difftest_ours_requests: the request direction of our side. For every request scenario and wire,
// our wire encodes the scenario's canonical request and sends it to a loopback recorder; the
// bytes that arrive (method, target, headers, body) are the record compared with the vendor
// SDK's. The recorder answers with the wire's plain canned reply, streamed or whole as asked.
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "call_wire.hpp"
#include "canned.hpp"
#include "driver.hpp"
#include "our_wires.hpp"

namespace {

using namespace agentkit::difftest;

Record record_request(agentkit::ProviderRegistry& registry, LoopbackRecorder& recorder, const DriverArgs& args,
                      const Scenario& s, const WireInfo& wire) {
  auto client = our_client(registry, wire.api);
  if (!client) return error_record(s, wire.api, client.error().message);
  const std::filesystem::path canned = args.source / "canned" / wire.api;
  recorder.answer_with([canned, wire](const CapturedRequest& req) {
    const bool stream = wants_stream(wire.api, req.target, req.body);
    CannedAnswer a;
    a.content_type = stream ? wire.stream_content_type : "application/json";
    a.body = read_text_file(canned / request_reply_file(stream)).value_or("");
    return a;
  });
  auto call = call_wire(**client, recorder, s, wire);
  if (!call) return error_record(s, wire.api, "our driver could not build the request: " + call.error().message);
  if (call->sent.empty()) {
    return error_record(s, wire.api, "our wire '" + wire.api + "' sent no request: " + call->message.error_message);
  }
  Record r;
  r.scenario = s.id;
  r.wire = wire.api;
  r.side = "ours";
  r.request = std::move(call->sent.front());  // a retry would add more; the first is the encoding
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse_driver_args(argc, argv);
  if (!args) {
    std::cerr << "difftest_ours_requests: " << args.error().message << "\n";
    return 2;
  }
  auto set = load_scenarios(args->source / "scenarios");
  if (!set) {
    std::cerr << "difftest_ours_requests: " << set.error().message << "\n";
    return 2;
  }
  prepare_credentials(*set);
  agentkit::ProviderRegistry registry;
  register_our_wires(registry);
  auto recorder = LoopbackRecorder::start();
  if (!recorder) {
    std::cerr << "difftest_ours_requests: cannot start the loopback recorder: " << recorder.error().to_string() << "\n";
    return 2;
  }
  return for_each_pair(*args, *set, Direction::request, [&](const Scenario& s, const WireInfo& wire) {
    return record_request(registry, **recorder, *args, s, wire);
  });
}
