// The harness run, start to finish: load scenarios and ledger, produce the references with node,
// run our drivers, compare every (scenario, wire) pair, judge against the ledger, and answer the
// exit code (verdict.hpp lists them).
//
//   HarnessOptions o;
//   o.source_dir = "difftest"; o.work_dir = "build/difftest-run";
//   o.our_request_driver = ".../difftest_ours_requests"; o.our_response_driver = "...";
//   HarnessRun run = run_harness(o);
//   std::cout << run.report; return run.exit_code;
//
// judge_records() is the second half alone (records already on disk), used by tests and by
// `difftest judge` to re-read a previous run.
//
// Thread safety: one run at a time per work folder.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace agentkit::difftest {

struct HarnessOptions {
  // difftest/ itself: scenarios/, canned/, node/, ledger, package-lock.json.
  std::filesystem::path source_dir;
  // Where records, child output and the member-order side channel go; replaced on each run.
  std::filesystem::path work_dir;
  // The node executable; looked up on PATH by default.
  std::string node = "node";
  // Folder holding the node scripts; defaults to source_dir/node (a test points it elsewhere to
  // simulate missing packages: node resolves the SDKs from the scripts' own folder upwards).
  std::optional<std::filesystem::path> node_scripts;
  std::filesystem::path our_request_driver;
  std::filesystem::path our_response_driver;
  // Ledger file; defaults to source_dir/ledger.
  std::optional<std::filesystem::path> ledger;
  // Only pairs whose wire matches this glob run and count ("*": all).
  std::string only_wire = "*";
  // ctest mode: a DARK run exits kExitDarkSkipped (77, ctest's SKIP_RETURN_CODE) unless the
  // environment says AGENTKIT_REQUIRE_INTEROP=1, where DARK keeps exit 1 and fails the build.
  bool dark_is_skip_unless_required = false;
};

struct HarnessRun {
  int exit_code = 0;
  bool dark = false;
  std::string report;
};

HarnessRun run_harness(const HarnessOptions& options);

// The reference arm against itself: the producers run twice and the two record sets are judged
// with an empty ledger. Anything but exit 0 means the references are not reproducible (a random
// header, a timestamp in a body), so a divergence from ours could not be ledgered stably.
HarnessRun run_reference_selfcheck(const HarnessOptions& options);

// Judges records already written under reference_dir and ours_dir (each <scenario id>/<wire>.json)
// for the scenarios in scenarios_dir, against the ledger file.
HarnessRun judge_records(const std::filesystem::path& scenarios_dir, const std::filesystem::path& reference_dir,
                         const std::filesystem::path& ours_dir, const std::filesystem::path& ledger_file,
                         const std::filesystem::path& order_notes_file, const std::string& only_wire = "*");

}  // namespace agentkit::difftest
