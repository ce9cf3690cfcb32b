// The exit machine: every (scenario, wire) pair gets a state, every ledger entry gets a state, and
// the run gets one exit code (NFR-TEST-07, with issue 5's codes).
//
//   std::vector<PairOutcome> pairs = ...;                 // one per compared (scenario, wire)
//   Verdict v = judge(pairs, ledger);
//   std::cout << format_report(v);                        // per-pair lines, entries, the tally
//   return v.exit_code;
//
// Exit codes:
//   0  clean: every pair PASS or KNOWN and every live ledger entry still fires
//   1  DARK: the references could not be produced (node or the pinned packages missing); no tally
//      is printed, because a run that never reached the scenarios has nothing to count
//   2  at least one unledgered divergence (a FAIL pair)
//   3  no FAIL, but a ledger entry is stale: it applies to pairs that were compared and matched
//      none of their divergences, so the difference it excused is gone and the entry must go too
//   4  the harness's own inputs are malformed (ledger, scenario file, arguments)
// A FAIL outranks a stale entry (2 before 3). An entry whose pairs were never compared (our wire
// is missing, so nothing about its body can be judged) is dormant, not stale; the `missing`
// divergence that caused it is itself a FAIL unless ledgered.
//
// Thread safety: pure functions over values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compare.hpp"
#include "ledger.hpp"

namespace agentkit::difftest {

inline constexpr int kExitClean = 0;
inline constexpr int kExitDark = 1;
inline constexpr int kExitUnledgered = 2;
inline constexpr int kExitStale = 3;
inline constexpr int kExitBadInput = 4;
// ctest's SKIP_RETURN_CODE for a DARK run when AGENTKIT_REQUIRE_INTEROP is not 1 (the autotools
// "skipped" convention); never used for a run that reached the scenarios.
inline constexpr int kExitDarkSkipped = 77;

struct PairOutcome {
  std::string scenario;
  std::string wire;
  bool compared = false;  // both sides produced something (see records.hpp)
  Comparison comparison;
};

enum class PairState : std::uint8_t { pass, known, fail };
enum class EntryState : std::uint8_t { fired, stale, dormant };

struct JudgedDivergence {
  Divergence divergence;
  std::vector<std::size_t> covered_by;  // ledger entry indexes (1-based, as in the file)
};

struct PairVerdict {
  std::string scenario;
  std::string wire;
  PairState state = PairState::pass;
  std::vector<JudgedDivergence> divergences;
  std::size_t order_notes = 0;
};

struct EntryVerdict {
  LedgerEntry entry;
  EntryState state = EntryState::dormant;
  std::size_t matches = 0;
};

struct Tally {
  std::size_t pass = 0;
  std::size_t known = 0;
  std::size_t fail = 0;
  std::size_t stale = 0;    // FIXED in NFR-TEST-07's words
  std::size_t dormant = 0;
  std::size_t order_notes = 0;
};

struct Verdict {
  std::vector<PairVerdict> pairs;
  std::vector<EntryVerdict> entries;
  Tally tally;
  int exit_code = kExitClean;
};

Verdict judge(const std::vector<PairOutcome>& pairs, const std::vector<LedgerEntry>& ledger);

std::string_view to_string(PairState state) noexcept;
std::string_view to_string(EntryState state) noexcept;

// The full report: one line per pair (divergences under FAIL and KNOWN pairs), the ledger
// entries that are stale or dormant, then the tally line
// "difftest: PASS a, KNOWN b, FAIL c; ledger entries: STALE d, dormant e; member-order notes f".
// KNOWN is never folded into PASS: a pair whose wire is missing and ledgered is not a pass.
std::string format_report(const Verdict& verdict);

// What a DARK run prints instead: why, and no tally at all.
std::string format_dark(const std::string& why);

}  // namespace agentkit::difftest
