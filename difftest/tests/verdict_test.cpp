#include <string>
#include <vector>

#include "catch.hpp"
#include "verdict.hpp"

using namespace agentkit;
using namespace agentkit::difftest;

namespace {

LedgerEntry entry(std::string wire, std::string scenario, std::string path, DivergenceKind kind, std::size_t index) {
  return LedgerEntry{std::move(wire), std::move(scenario), std::move(path), kind, "because", index};
}

PairOutcome compared(std::vector<Divergence> divergences, std::string wire = "w1", std::string scenario = "request/s") {
  PairOutcome p{std::move(scenario), std::move(wire), true, {}};
  p.comparison.divergences = std::move(divergences);
  return p;
}

PairOutcome missing_wire(std::string wire = "w1", std::string scenario = "request/s") {
  PairOutcome p{std::move(scenario), std::move(wire), false, {}};
  p.comparison.divergences.push_back(Divergence{"$", DivergenceKind::missing, "", "our wire 'w1' is not available"});
  return p;
}

const Divergence kHeader{"$.headers.user-agent", DivergenceKind::value, "\"SDK/1\"", "\"agentkit\""};

}  // namespace

TEST_CASE("identical pairs and an empty ledger exit 0") {
  Verdict v = judge({compared({})}, {});
  CHECK(v.exit_code == kExitClean);
  CHECK(v.tally.pass == 1);
}

TEST_CASE("an unledgered divergence fails the run with exit 2") {
  Verdict v = judge({compared({kHeader})}, {});
  CHECK(v.exit_code == kExitUnledgered);
  CHECK(v.pairs[0].state == PairState::fail);
  CHECK(format_report(v).find("UNLEDGERED value $.headers.user-agent") != std::string::npos);
}

TEST_CASE("a ledgered divergence is KNOWN, not PASS, and exits 0") {
  Verdict v = judge({compared({kHeader})}, {entry("*", "*", "$.headers.user-agent", DivergenceKind::value, 1)});
  CHECK(v.exit_code == kExitClean);
  CHECK(v.pairs[0].state == PairState::known);
  CHECK(v.tally.known == 1);
  CHECK(v.tally.pass == 0);
  CHECK(v.entries[0].state == EntryState::fired);
}

TEST_CASE("a stale ledger entry exits 3") {
  Verdict v = judge({compared({})}, {entry("w1", "*", "$.body.x", DivergenceKind::value, 1)});
  CHECK(v.exit_code == kExitStale);
  CHECK(v.entries[0].state == EntryState::stale);
  CHECK(format_report(v).find("STALE  ledger entry 1") != std::string::npos);
}

TEST_CASE("an unledgered divergence outranks a stale entry") {
  Verdict v = judge({compared({kHeader})}, {entry("w1", "*", "$.body.x", DivergenceKind::value, 1)});
  CHECK(v.exit_code == kExitUnledgered);
}

TEST_CASE("an entry of another kind at the same path does not cover and goes stale") {
  Verdict v = judge({compared({kHeader})}, {entry("*", "*", "$.headers.user-agent", DivergenceKind::only_ours, 1)});
  CHECK(v.exit_code == kExitUnledgered);
  CHECK(v.entries[0].state == EntryState::stale);
}

TEST_CASE("a missing wire is a failure unless ledgered") {
  CHECK(judge({missing_wire()}, {}).exit_code == kExitUnledgered);
  Verdict v = judge({missing_wire()}, {entry("w1", "*", "$", DivergenceKind::missing, 1)});
  CHECK(v.exit_code == kExitClean);
  CHECK(v.pairs[0].state == PairState::known);
}

TEST_CASE("a ledgered missing wire goes stale once the wire exists") {
  Verdict v = judge({compared({})}, {entry("w1", "*", "$", DivergenceKind::missing, 1)});
  CHECK(v.exit_code == kExitStale);
}

TEST_CASE("entries for a wire that was never compared are dormant, not stale") {
  Verdict v = judge({missing_wire()}, {entry("w1", "*", "$", DivergenceKind::missing, 1),
                                       entry("w1", "*", "$.headers.user-agent", DivergenceKind::value, 2),
                                       entry("w9", "*", "$", DivergenceKind::missing, 3)});
  CHECK(v.exit_code == kExitClean);
  CHECK(v.entries[1].state == EntryState::dormant);
  CHECK(v.entries[2].state == EntryState::dormant);
  CHECK(v.tally.dormant == 2);
}

TEST_CASE("the tally line counts every state and never calls KNOWN a pass") {
  Verdict v = judge({compared({}), compared({kHeader}, "w2"), missing_wire("w3")},
                    {entry("w2", "*", "$.headers.user-agent", DivergenceKind::value, 1)});
  const std::string report = format_report(v);
  CHECK(report.find("difftest: PASS 1, KNOWN 1, FAIL 1; ledger entries: STALE 0, dormant 0") != std::string::npos);
}

TEST_CASE("a dark report carries no tally") {
  const std::string dark = format_dark("node was not found");
  CHECK(dark.find("DARK") == 0);
  CHECK(dark.find("PASS") == std::string::npos);
  CHECK(dark.find("FAIL") == std::string::npos);
}
