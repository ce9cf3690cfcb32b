#include "harness.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "compare.hpp"
#include "ledger.hpp"
#include "process.hpp"
#include "records.hpp"
#include "scenario.hpp"
#include "verdict.hpp"

namespace agentkit::difftest {

namespace {

HarnessRun bad_input(const std::string& what) {
  return HarnessRun{kExitBadInput, false, "difftest: " + what + "\n"};
}

HarnessRun dark(const HarnessOptions& options, const std::string& why) {
  HarnessRun run{kExitDark, true, format_dark(why)};
  if (options.dark_is_skip_unless_required) {
    const char* required = std::getenv("AGENTKIT_REQUIRE_INTEROP");
    if (required != nullptr && std::string(required) == "1") {
      run.report += "  AGENTKIT_REQUIRE_INTEROP=1: a DARK run fails the build.\n";
    } else {
      run.exit_code = kExitDarkSkipped;
      run.report += "  Reported to ctest as SKIPPED (set AGENTKIT_REQUIRE_INTEROP=1 to make it fail).\n";
    }
  }
  return run;
}

std::string tail_of(const std::string& text) {
  constexpr std::size_t kShownBytes = 2000;  // enough for a node stack trace's top
  return text.size() <= kShownBytes ? text : "..." + text.substr(text.size() - kShownBytes);
}

std::optional<Record> record_at(const std::filesystem::path& dir, const Scenario& s, const std::string& wire,
                                std::string& problem) {
  const std::filesystem::path file = dir / s.id / (wire + ".json");
  if (!std::filesystem::exists(file)) return std::nullopt;
  Result<Record> r = load_record(file);
  if (!r) {
    problem = r.error().message;
    return std::nullopt;
  }
  return std::move(*r);
}

void write_order_notes(const std::filesystem::path& file, const std::vector<PairOutcome>& pairs) {
  std::ofstream out(file, std::ios::trunc);
  out << "# member order differences (not failures): scenario<TAB>wire<TAB>path<TAB>reference keys<TAB>our keys\n";
  for (const PairOutcome& p : pairs) {
    for (const OrderNote& n : p.comparison.order_notes) out << p.scenario << '\t' << p.wire << '\t' << format_order_note(n) << '\n';
  }
}

// The node arm: preflight (node runs, every pinned SDK imports at its locked version), then the
// producers. Any failure here is DARK: no reference exists to compare against.
std::optional<std::string> produce_references(const HarnessOptions& o, const std::filesystem::path& scripts,
                                              const std::string& into = "reference") {
  std::optional<std::string> node = find_executable(o.node);
  if (!node) return "node ('" + o.node + "') was not found on PATH; the references need node >= 20";
  const std::filesystem::path logs = o.work_dir / "logs";
  ChildResult pre = run_child({*node, (scripts / "preflight.mjs").string(), o.source_dir.string()}, logs / "preflight");
  if (!pre.started) return "node could not start: " + pre.start_error;
  if (pre.exit_code != 0) return "the pinned vendor SDKs are not usable:\n" + tail_of(pre.err + pre.out);
  ChildResult produced = run_child({*node, (scripts / "produce.mjs").string(), "--source", o.source_dir.string(),
                                    "--out", (o.work_dir / into).string(), "--only-wire", o.only_wire},
                                   logs / ("produce_" + into));
  if (!produced.started || produced.exit_code != 0) {
    return "the reference producer failed (exit " + std::to_string(produced.exit_code) + "):\n" +
           tail_of(produced.err + produced.out);
  }
  return std::nullopt;
}

// Our arm: each driver writes one record per pair. A driver that cannot start means the run
// never reached the scenarios (DARK); one that crashes part-way leaves pairs without records,
// which then count as `missing`.
std::optional<std::string> run_our_drivers(const HarnessOptions& o, std::string& notes) {
  const std::filesystem::path logs = o.work_dir / "logs";
  for (const auto& [driver, stem] : {std::pair{o.our_request_driver, "ours_requests"},
                                     std::pair{o.our_response_driver, "ours_responses"}}) {
    ChildResult r = run_child({driver.string(), "--source", o.source_dir.string(), "--out",
                               (o.work_dir / "ours").string(), "--only-wire", o.only_wire},
                              logs / stem);
    if (!r.started) return "our driver could not start: " + r.start_error;
    if (r.exit_code != 0) {
      notes += "note: " + driver.filename().string() + " exited " + std::to_string(r.exit_code) + ":\n" +
               tail_of(r.err) + "\n";
    }
  }
  return std::nullopt;
}

}  // namespace

HarnessRun judge_records(const std::filesystem::path& scenarios_dir, const std::filesystem::path& reference_dir,
                         const std::filesystem::path& ours_dir, const std::filesystem::path& ledger_file,
                         const std::filesystem::path& order_notes_file, const std::string& only_wire) {
  Result<ScenarioSet> set = load_scenarios(scenarios_dir);
  if (!set) return bad_input(set.error().message);
  Result<std::string> ledger_text = read_text_file(ledger_file);
  if (!ledger_text) return bad_input(ledger_text.error().message);
  Result<std::vector<LedgerEntry>> ledger = parse_ledger(*ledger_text);
  if (!ledger) return bad_input(ledger.error().message);

  std::vector<PairOutcome> pairs;
  std::string problems;
  for (const Scenario& s : set->scenarios) {
    for (const std::string& wire : s.wires) {
      if (!glob_match(only_wire, wire)) continue;
      std::string problem;
      std::optional<Record> ref = record_at(reference_dir, s, wire, problem);
      std::optional<Record> ours = record_at(ours_dir, s, wire, problem);
      if (!problem.empty()) return bad_input(problem);
      PairComparison c = compare_records(ref, ours, CompareOptions{s.order_sensitive_paths});
      pairs.push_back(PairOutcome{s.id, wire, c.compared, std::move(c.comparison)});
    }
  }
  if (!order_notes_file.empty()) write_order_notes(order_notes_file, pairs);
  Verdict v = judge(pairs, *ledger);
  return HarnessRun{v.exit_code, false, format_report(v)};
}

HarnessRun run_harness(const HarnessOptions& o) {
  // Inputs first: a malformed ledger or scenario is the harness's own fault, not a dark run.
  Result<ScenarioSet> set = load_scenarios(o.source_dir / "scenarios");
  if (!set) return bad_input(set.error().message);
  const std::filesystem::path ledger_file = o.ledger.value_or(o.source_dir / "ledger");
  Result<std::string> ledger_text = read_text_file(ledger_file);
  if (!ledger_text) return bad_input(ledger_text.error().message);
  if (auto parsed = parse_ledger(*ledger_text); !parsed) return bad_input(parsed.error().message);

  std::error_code ec;
  std::filesystem::remove_all(o.work_dir, ec);
  std::filesystem::create_directories(o.work_dir, ec);
  if (ec) return bad_input("cannot create the work folder " + o.work_dir.string() + ": " + ec.message());

  const std::filesystem::path scripts = o.node_scripts.value_or(o.source_dir / "node");
  if (std::optional<std::string> why = produce_references(o, scripts)) return dark(o, *why);
  std::string notes;
  if (std::optional<std::string> why = run_our_drivers(o, notes)) return dark(o, *why);

  HarnessRun run = judge_records(o.source_dir / "scenarios", o.work_dir / "reference", o.work_dir / "ours",
                                 ledger_file, o.work_dir / "order-notes.tsv", o.only_wire);
  run.report = notes + run.report;
  return run;
}

HarnessRun run_reference_selfcheck(const HarnessOptions& o) {
  std::error_code ec;
  std::filesystem::remove_all(o.work_dir, ec);
  std::filesystem::create_directories(o.work_dir, ec);
  if (ec) return bad_input("cannot create the work folder " + o.work_dir.string() + ": " + ec.message());
  const std::filesystem::path scripts = o.node_scripts.value_or(o.source_dir / "node");
  for (const char* side : {"reference", "ours"}) {
    if (std::optional<std::string> why = produce_references(o, scripts, side)) return dark(o, *why);
  }
  const std::filesystem::path empty_ledger = o.work_dir / "empty-ledger";
  std::ofstream(empty_ledger) << R"({"about":"the reference against itself accepts nothing","entries":[]})";
  return judge_records(o.source_dir / "scenarios", o.work_dir / "reference", o.work_dir / "ours", empty_ledger,
                       o.work_dir / "order-notes.tsv", o.only_wire);
}

}  // namespace agentkit::difftest
