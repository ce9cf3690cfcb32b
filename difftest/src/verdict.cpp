#include "verdict.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace agentkit::difftest {

namespace {

// A divergence of these kinds exists only when a pair was NOT compared, so an entry of such a
// kind is judged on every pair it applies to; any other entry only on compared pairs.
bool judged_without_comparison(DivergenceKind kind) noexcept {
  return kind == DivergenceKind::missing || kind == DivergenceKind::reference_failed;
}

PairVerdict judge_pair(const PairOutcome& pair, std::vector<EntryVerdict>& entries) {
  PairVerdict out{pair.scenario, pair.wire, PairState::pass, {}, pair.comparison.order_notes.size()};
  bool any_uncovered = false;
  for (const Divergence& d : pair.comparison.divergences) {
    JudgedDivergence judged{d, {}};
    for (EntryVerdict& e : entries) {
      if (e.entry.covers(pair.scenario, pair.wire, d)) {
        ++e.matches;
        judged.covered_by.push_back(e.entry.index);
      }
    }
    any_uncovered = any_uncovered || judged.covered_by.empty();
    out.divergences.push_back(std::move(judged));
  }
  if (any_uncovered) out.state = PairState::fail;
  else if (!out.divergences.empty()) out.state = PairState::known;
  return out;
}

bool entry_is_live(const LedgerEntry& entry, const std::vector<PairOutcome>& pairs) {
  return std::any_of(pairs.begin(), pairs.end(), [&](const PairOutcome& p) {
    return entry.applies_to(p.scenario, p.wire) && (p.compared || judged_without_comparison(entry.kind));
  });
}

void append_divergence_lines(std::string& out, const PairVerdict& p) {
  for (const JudgedDivergence& j : p.divergences) {
    out += "    ";
    out += j.covered_by.empty() ? "UNLEDGERED " : "ledgered   ";
    out += std::string(to_string(j.divergence.kind)) + " " + j.divergence.path;
    out += "  reference=" + (j.divergence.reference.empty() ? std::string("(absent)") : j.divergence.reference);
    out += "  ours=" + (j.divergence.ours.empty() ? std::string("(absent)") : j.divergence.ours);
    if (!j.covered_by.empty()) {
      out += "  [entry";
      for (std::size_t i : j.covered_by) out += " " + std::to_string(i);
      out += "]";
    }
    out += "\n";
  }
}

}  // namespace

std::string_view to_string(PairState state) noexcept {
  switch (state) {
    case PairState::pass: return "PASS";
    case PairState::known: return "KNOWN";
    case PairState::fail: return "FAIL";
  }
  return "?";
}

std::string_view to_string(EntryState state) noexcept {
  switch (state) {
    case EntryState::fired: return "fired";
    case EntryState::stale: return "STALE";
    case EntryState::dormant: return "dormant";
  }
  return "?";
}

Verdict judge(const std::vector<PairOutcome>& pairs, const std::vector<LedgerEntry>& ledger) {
  Verdict v;
  for (const LedgerEntry& e : ledger) v.entries.push_back(EntryVerdict{e, EntryState::dormant, 0});
  for (const PairOutcome& p : pairs) {
    v.pairs.push_back(judge_pair(p, v.entries));
    const PairVerdict& judged = v.pairs.back();
    v.tally.order_notes += judged.order_notes;
    switch (judged.state) {
      case PairState::pass: ++v.tally.pass; break;
      case PairState::known: ++v.tally.known; break;
      case PairState::fail: ++v.tally.fail; break;
    }
  }
  for (EntryVerdict& e : v.entries) {
    if (e.matches > 0) {
      e.state = EntryState::fired;
    } else if (entry_is_live(e.entry, pairs)) {
      e.state = EntryState::stale;
      ++v.tally.stale;
    } else {
      ++v.tally.dormant;
    }
  }
  if (v.tally.fail > 0) v.exit_code = kExitUnledgered;
  else if (v.tally.stale > 0) v.exit_code = kExitStale;
  else v.exit_code = kExitClean;
  return v;
}

std::string format_report(const Verdict& verdict) {
  std::string out;
  for (const PairVerdict& p : verdict.pairs) {
    out += std::string(to_string(p.state)) + "  " + p.wire + " / " + p.scenario;
    if (p.order_notes > 0) out += "  (member order differs in " + std::to_string(p.order_notes) + " object(s))";
    out += "\n";
    append_divergence_lines(out, p);
  }
  for (const EntryVerdict& e : verdict.entries) {
    if (e.state == EntryState::fired) continue;
    out += std::string(to_string(e.state)) + "  ledger " + e.entry.describe();
    out += e.state == EntryState::stale ? ": matched nothing on the pairs it applies to; remove it\n"
                                        : ": none of its pairs was compared in this run\n";
  }
  const Tally& t = verdict.tally;
  out += "difftest: PASS " + std::to_string(t.pass) + ", KNOWN " + std::to_string(t.known) + ", FAIL " +
         std::to_string(t.fail) + "; ledger entries: STALE " + std::to_string(t.stale) + ", dormant " +
         std::to_string(t.dormant) + "; member-order notes " + std::to_string(t.order_notes) + "\n";
  return out;
}

std::string format_dark(const std::string& why) {
  return "DARK: the vendor references could not be produced, so nothing was compared.\n  " + why +
         "\n  Install the pinned SDKs with `npm ci` in difftest/ (tools/install-test-deps does it).\n";
}

}  // namespace agentkit::difftest
