// difftest_ours_responses: the response direction of our side. For every response scenario and
// wire, the loopback recorder answers our wire's request with the scenario's canned bytes (cut
// into the scenario's pieces) and our decoder's result becomes the view compared with the vendor
// SDK's view of the same bytes. Our wire picks its decoder from the reply's Content-Type.
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "call_wire.hpp"
#include "driver.hpp"
#include "our_view.hpp"
#include "our_wires.hpp"

namespace {

using namespace agentkit::difftest;

Record record_view(agentkit::ProviderRegistry& registry, LoopbackRecorder& recorder, const DriverArgs& args,
                   const ScenarioSet& set, const Scenario& s, const WireInfo& wire) {
  auto client = our_client(registry, wire.api);
  if (!client) return error_record(s, wire.api, client.error().message);
  const CannedReply& reply = s.canned.at(wire.api);
  auto bytes = read_text_file(args.source / "canned" / reply.file);
  if (!bytes) return error_record(s, wire.api, "our driver cannot read the canned reply: " + bytes.error().message);
  recorder.answer_with(CannedAnswer{reply.status, reply.content_type, std::move(*bytes), s.split});
  auto call = call_wire(**client, recorder, *set.find("request/" + s.request_from), wire);
  if (!call) return error_record(s, wire.api, "our driver could not build the request: " + call.error().message);
  if (call->sent.empty()) {
    return error_record(s, wire.api, "our wire '" + wire.api + "' sent no request: " + call->message.error_message);
  }
  Record r;
  r.scenario = s.id;
  r.wire = wire.api;
  r.side = "ours";
  r.view = view_of(call->message);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse_driver_args(argc, argv);
  if (!args) {
    std::cerr << "difftest_ours_responses: " << args.error().message << "\n";
    return 2;
  }
  auto set = load_scenarios(args->source / "scenarios");
  if (!set) {
    std::cerr << "difftest_ours_responses: " << set.error().message << "\n";
    return 2;
  }
  prepare_credentials(*set);
  agentkit::ProviderRegistry registry;
  register_our_wires(registry);
  auto recorder = LoopbackRecorder::start();
  if (!recorder) {
    std::cerr << "difftest_ours_responses: cannot start the loopback recorder: " << recorder.error().to_string() << "\n";
    return 2;
  }
  return for_each_pair(*args, *set, Direction::response, [&](const Scenario& s, const WireInfo& wire) {
    return record_view(registry, **recorder, *args, *set, s, wire);
  });
}
