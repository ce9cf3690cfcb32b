// Benchmarks of agentkit_skills (printed, not asserted):
//   1. discover_skills over 1,000 generated skill folders, then assemble_prompt over the result
//      (bar: under 20 ms for both together, warm file-system cache, best of 5);
//      and the same catalog built by the reference library, skills-ref's toPrompt (ratio printed);
//   2. front-matter throughput: read_front_matter against Python's PyYAML (yaml.safe_load, the
//      pure-Python loader and, when built, the libyaml CSafeLoader) on the same 1,000 files;
//      the ratio is printed.
// Run: cmake --preset bench && cmake --build --preset bench --target bench_skills &&
//      nice -n 10 ./build/bench/tests/bench/bench_skills [--discovery]
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <stdlib.h>
#include <sys/resource.h>

#include "agentkit/skills/discovery.hpp"
#include "agentkit/skills/front_matter.hpp"
#include "agentkit/skills/prompt.hpp"

namespace fs = std::filesystem;
namespace skills = agentkit::skills;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kSkills = 1000;
constexpr int kRepeats = 5;
constexpr int kParseRounds = 20;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// User + system CPU time of this process: on a shared machine the wall clock swings with the
// load, CPU time does not.
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ms = [](timeval t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

std::string skill_text(int i) {
  std::string n = "skill-" + std::to_string(i);
  return "---\nname: " + n + "\ndescription: >\n  Use this skill when the task mentions topic " +
         std::to_string(i) +
         ", its files,\n  or \"quoted things\"; it explains the steps.\n"
         "license: MIT\nallowed-tools: [Read, Grep, 'Bash(git:*)']\nmetadata:\n  version: \"1." +
         std::to_string(i % 10) + "\"\n  owner: team-" + std::to_string(i % 7) + "\n---\n# " + n +
         "\n\nBody text for the skill.\n";
}

fs::path make_tree() {
  // mkdtemp under the system's temporary directory (TMPDIR is honoured), not a fixed directory.
  std::string tmpl = (fs::temp_directory_path() / "agentkit-skills-bench-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) std::abort();
  fs::path root = tmpl;
  for (int i = 0; i < kSkills; ++i) {
    fs::path dir = root / ("skill-" + std::to_string(i));
    fs::create_directories(dir / "references");
    std::ofstream(dir / "SKILL.md") << skill_text(i);
    std::ofstream(dir / "references" / "notes.md") << "# Notes " << i << "\n";
  }
  return root;
}

// The peer: the reference library's own catalog builder, skills-ref's toPrompt (pinned in
// tests/skills/skills_ref), over the same folders listed with readdir, best of 5 in one node
// process. Skipped with a message when node or the package is missing.
void bench_skills_ref(const fs::path& root, double ours_ms) {
  const fs::path index = fs::path(AGENTKIT_SOURCE_DIR) /
                         "tests/skills/skills_ref/node_modules/skills-ref/dist/index.js";
  if (!fs::exists(index)) {
    std::printf("skills-ref: not installed (tools/install-test-deps); no peer figure\n");
    return;
  }
  const fs::path js = root / "bench.mjs";
  std::ofstream(js) << "import { pathToFileURL } from 'node:url';\n"
                       "import { readdirSync } from 'node:fs';\n"
                       "const { toPrompt } = await import(pathToFileURL(process.argv[2]).href);\n"
                       "const root = process.argv[3];\n"
                       "let best = 1e9;\n"
                       "for (let r = 0; r < 5; r++) {\n"
                       "  const t = performance.now();\n"
                       "  const dirs = readdirSync(root, { withFileTypes: true })\n"
                       "      .filter((e) => e.isDirectory()).map((e) => root + '/' + e.name);\n"
                       "  await toPrompt(dirs);\n"
                       "  best = Math.min(best, performance.now() - t);\n"
                       "}\n"
                       "console.log(best);\n";
  const std::string cmd = "node " + js.string() + " " + index.string() + " " + root.string();
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return;
  double ms = 0;
  if (std::fscanf(pipe, "%lf", &ms) == 1) {
    std::printf("skills-ref 0.1.5 toPrompt over the same folders: %.2f ms; ours is %.1fx faster\n",
                ms, ms / ours_ms);
  } else {
    std::printf("skills-ref: node did not report a figure\n");
  }
  pclose(pipe);
}

void bench_discovery(const fs::path& root) {
  double best_discover = 1e9, best_assemble = 1e9, best_cpu = 1e9;
  std::size_t prompt_bytes = 0, count = 0;
  for (int r = 0; r < kRepeats; ++r) {
    skills::DiscoveryOptions options;
    options.user_tier = false;
    options.folders = {root};
    auto t0 = Clock::now();
    const double c0 = cpu_ms();
    skills::SkillCatalog catalog = skills::discover_skills(options);
    best_discover = std::min(best_discover, ms_since(t0));
    skills::PromptInputs in;
    in.instructions = "You are a benchmark.";
    for (const auto& s : catalog.skills) {
      in.skills.push_back(
          {s.loaded.skill.name, s.loaded.skill.description, s.loaded.skill_file.string()});
    }
    auto t1 = Clock::now();
    skills::AssembledPrompt p = skills::assemble_prompt(in);
    best_assemble = std::min(best_assemble, ms_since(t1));
    best_cpu = std::min(best_cpu, cpu_ms() - c0);
    prompt_bytes = p.text.size();
    count = catalog.skills.size();
  }
  std::printf(
      "discovery: %zu skills in %.2f ms; assemble_prompt: %.2f ms (%zu bytes, budget "
      "applied); total %.2f ms wall, %.2f ms CPU (bar: < 20 ms)\n",
      count, best_discover, best_assemble, prompt_bytes, best_discover + best_assemble, best_cpu);
  bench_skills_ref(root, best_discover + best_assemble);
}

void bench_parse(const fs::path& root) {
  std::vector<std::string> texts;
  std::size_t bytes = 0;
  for (int i = 0; i < kSkills; ++i) {
    texts.push_back(skill_text(i));
    bytes += texts.back().size();
  }
  std::size_t fields = 0;
  auto t0 = Clock::now();
  for (int r = 0; r < kParseRounds; ++r) {
    for (const auto& t : texts) {
      std::vector<skills::Diagnostic> notes;
      auto fm = skills::read_front_matter(t, "bench", notes);
      fields += fm ? fm->fields.entries.size() : 0;
    }
  }
  const double ours_ms = ms_since(t0) / kParseRounds;
  std::printf("read_front_matter: %d files (%zu bytes) in %.3f ms (%.1f MB/s, %zu fields)\n",
              kSkills, bytes, ours_ms, bytes / 1e3 / ours_ms, fields / kParseRounds);
  // The same files, the same front matter, through PyYAML.
  const std::string script =
      "import sys, time, glob, yaml\n"
      "texts = [open(p).read().split('---\\n')[1] for p in sorted(glob.glob(sys.argv[1] + "
      "'/*/SKILL.md'))]\n"
      "for name in ['SafeLoader', 'CSafeLoader']:\n"
      "    loader = getattr(yaml, name, None)\n"
      "    if loader is None: continue\n"
      "    best = 1e9\n"
      "    for _ in range(3):\n"
      "        t = time.perf_counter()\n"
      "        for x in texts: yaml.load(x, Loader=loader)\n"
      "        best = min(best, (time.perf_counter() - t) * 1000)\n"
      "    print(name, best)\n";
  fs::path py = root / "bench.py";
  std::ofstream(py) << script;
  std::string cmd = "python3 " + py.string() + " " + root.string();
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return;
  char name[64];
  double ms = 0;
  while (std::fscanf(pipe, "%63s %lf", name, &ms) == 2) {
    std::printf("PyYAML %s: %.3f ms for the same files; ours is %.1fx faster\n", name, ms,
                ms / ours_ms);
  }
  pclose(pipe);
}

}  // namespace

int main(int argc, char** argv) {
  // --discovery: only the first benchmark, for profilers (callgrind, strace -c) to look at alone.
  const bool discovery_only = argc > 1 && std::string_view(argv[1]) == "--discovery";
  fs::path root = make_tree();
  bench_discovery(root);
  if (!discovery_only) bench_parse(root);
  fs::remove_all(root);
  return 0;
}
