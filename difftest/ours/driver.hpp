// What both of our drivers share: arguments, credentials, finding our wire, writing records.
//
//   difftest_ours_requests  --source difftest --out WORK/ours [--only-wire GLOB]
//   difftest_ours_responses --source difftest --out WORK/ours [--only-wire GLOB]
//
// Each writes WORK/ours/<scenario id>/<wire>.json per pair (records.hpp). A pair whose wire is not
// registered gets a record with "error": "our wire '<api>' is not available".
//
// Thread safety: single-threaded programs (the recorder's server threads aside).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "agentkit/base/result.hpp"
#include "agentkit/core/provider.hpp"
#include "records.hpp"
#include "scenario.hpp"

namespace agentkit::difftest {

struct DriverArgs {
  std::filesystem::path source;  // difftest/
  std::filesystem::path out;     // WORK/ours
  std::string only_wire = "*";
};

// How long one wire call may take before it is cut off (a hung wire must not hang the harness).
inline constexpr std::chrono::milliseconds kWireCallTimeout{10'000};
// The fake key every vendor gets on both sides: no request leaves loopback, so it is never real.
inline constexpr const char* kDifftestKey = "difftest-key";

Result<DriverArgs> parse_driver_args(int argc, char** argv);

// Gives each vendor of `set` the fake key through its first credential variable and clears the
// rest (and the base-URL overrides), so the environment of whoever runs the harness is not used.
void prepare_credentials(const ScenarioSet& set);

// Our client for `api`, or the error text "our wire '<api>' is not available (...)".
Result<std::shared_ptr<ProviderClient>> our_client(const ProviderRegistry& registry, const std::string& api);

void write_record(const DriverArgs& args, const Record& record);
Record error_record(const Scenario& s, const std::string& wire, std::string error);

// Runs the driver body for every (scenario, wire) of `direction` that passes --only-wire.
template <class PerPair>
int for_each_pair(const DriverArgs& args, const ScenarioSet& set, Direction direction, PerPair&& per_pair) {
  for (const Scenario& s : set.scenarios) {
    if (s.direction != direction) continue;
    for (const std::string& wire : s.wires) {
      if (!glob_match(args.only_wire, wire)) continue;
      write_record(args, per_pair(s, *set.find_wire(wire)));
    }
  }
  return 0;
}

}  // namespace agentkit::difftest
