// The divergence ledger (difftest/ledger): the differences we accept, each with its reason.
//
//   auto ledger = parse_ledger(read_file("difftest/ledger"));   // strict: unknown keys fail
//   if (!ledger) { report(ledger.error()); return kExitBadInput; }
//   bool covered = ledger->front().covers("one_tool", "anthropic-messages", d);
//
// Format: a JSON object {"entries":[{"wire","scenario","path","kind","reason"}, ...]}. `wire`,
// `scenario` and `path` are globs ('*' matches any run of characters), so one entry can accept a
// telemetry header on every scenario of a wire; `kind` is exact (an entry never covers another
// kind at its path) and `reason` must say why the difference is accepted.
//
// Thread safety: plain values.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "compare.hpp"

namespace agentkit::difftest {

struct LedgerEntry {
  std::string wire;      // glob over wire API names
  std::string scenario;  // glob over scenario names
  std::string path;      // glob over divergence paths
  DivergenceKind kind = DivergenceKind::value;
  std::string reason;
  std::size_t index = 0;  // position in the file, for reports ("entry 3")

  bool covers(std::string_view scenario_name, std::string_view wire_name, const Divergence& d) const noexcept;
  bool applies_to(std::string_view scenario_name, std::string_view wire_name) const noexcept;
  // "entry 3 (anthropic-messages / * / $.headers.user-agent / only-reference)"
  std::string describe() const;
};

// Parses the ledger text. Errors name the entry and member: a malformed ledger must stop the run
// (an entry silently dropped would turn its divergence into a failure nobody can explain, and a
// misspelt key silently ignored would widen an entry).
Result<std::vector<LedgerEntry>> parse_ledger(std::string_view text);

}  // namespace agentkit::difftest
