// difftest: the differential harness's command line.
//
//   difftest run   [--source DIR] [--work DIR] [--node PATH] [--node-scripts DIR] [--ledger FILE]
//                  [--ours-requests EXE] [--ours-responses EXE] [--only-wire GLOB] [--ctest]
//   difftest judge [--source DIR] [--work DIR] [--ledger FILE] [--only-wire GLOB]
//   difftest selfcheck [--source DIR] [--work DIR] [--node PATH] [--ctest]
//
// `run` produces the references with the pinned vendor SDKs, runs our drivers, compares and
// judges; `judge` re-judges the records of an earlier run (after a ledger edit, say); `selfcheck`
// produces the references twice and requires them to agree (they must be reproducible). Exit codes
// are in verdict.hpp: 0 clean, 1 DARK, 2 unledgered divergence, 3 stale ledger entry, 4 bad input;
// with --ctest a DARK run exits 77 (skipped) unless AGENTKIT_REQUIRE_INTEROP=1.
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "harness.hpp"
#include "verdict.hpp"

#ifndef DIFFTEST_SOURCE_DIR
#error "DIFFTEST_SOURCE_DIR must name the difftest/ folder (set by difftest/CMakeLists.txt)"
#endif
#ifndef DIFFTEST_BINARY_DIR
#error "DIFFTEST_BINARY_DIR must be set by difftest/CMakeLists.txt"
#endif
#ifndef DIFFTEST_OURS_REQUESTS
#define DIFFTEST_OURS_REQUESTS ""
#endif
#ifndef DIFFTEST_OURS_RESPONSES
#define DIFFTEST_OURS_RESPONSES ""
#endif

namespace {

using agentkit::difftest::HarnessOptions;

int usage(std::string_view problem) {
  std::cerr << "difftest: " << problem << "\n"
            << "usage: difftest run|judge|selfcheck [--source DIR] [--work DIR] [--node PATH] [--node-scripts DIR]\n"
            << "       [--ledger FILE] [--ours-requests EXE] [--ours-responses EXE] [--only-wire GLOB] [--ctest]\n";
  return agentkit::difftest::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || (args[0] != "run" && args[0] != "judge" && args[0] != "selfcheck")) {
    return usage("say `run`, `judge` or `selfcheck`");
  }
  HarnessOptions o;
  o.source_dir = DIFFTEST_SOURCE_DIR;
  o.work_dir = std::filesystem::path(DIFFTEST_BINARY_DIR) / "run";
  o.our_request_driver = DIFFTEST_OURS_REQUESTS;
  o.our_response_driver = DIFFTEST_OURS_RESPONSES;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "--ctest") {
      o.dark_is_skip_unless_required = true;
      continue;
    }
    if (i + 1 >= args.size()) return usage(std::string(flag) + " needs a value");
    const std::string value(args[++i]);
    if (flag == "--source") o.source_dir = value;
    else if (flag == "--work") o.work_dir = value;
    else if (flag == "--node") o.node = value;
    else if (flag == "--node-scripts") o.node_scripts = std::filesystem::path(value);
    else if (flag == "--ledger") o.ledger = std::filesystem::path(value);
    else if (flag == "--ours-requests") o.our_request_driver = value;
    else if (flag == "--ours-responses") o.our_response_driver = value;
    else if (flag == "--only-wire") o.only_wire = value;
    else return usage("unknown option " + std::string(flag));
  }
  agentkit::difftest::HarnessRun run;
  if (args[0] == "run") {
    run = agentkit::difftest::run_harness(o);
  } else if (args[0] == "selfcheck") {
    run = agentkit::difftest::run_reference_selfcheck(o);
  } else {
    run = agentkit::difftest::judge_records(o.source_dir / "scenarios", o.work_dir / "reference", o.work_dir / "ours",
                                            o.ledger.value_or(o.source_dir / "ledger"), o.work_dir / "order-notes.tsv",
                                            o.only_wire);
  }
  std::cout << run.report << std::flush;
  return run.exit_code;
}
