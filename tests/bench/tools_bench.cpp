// Benchmarks of the coding-tool engines against their peers (printed, not asserted):
//   1. search_files, native backend vs `rg` on the same generated tree of 20,000 files
//      (bar: native within 3x of ripgrep), plus our ripgrep backend;
//   2. find_files vs `git ls-files` on a generated repository of the same size;
//   3. edit_file on a 10 MB file.
// Run: cmake --preset bench && cmake --build --preset bench --target bench_tools &&
//      nice -n 10 ./build/bench/tests/bench/bench_tools
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "agentkit/tools/edit.hpp"
#include "agentkit/tools/process.hpp"
#include "agentkit/tools/search.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
namespace tools = agentkit::tools;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kFiles = 20000;
constexpr int kLinesPerFile = 40;
constexpr int kRepeats = 3;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

template <class F>
double best_of(F&& f) {
  double best = 1e300;
  for (int i = 0; i < kRepeats; ++i) {
    auto t = Clock::now();
    f();
    best = std::min(best, ms_since(t));
  }
  return best;
}

void generate_tree(const fs::path& root) {
  std::mt19937 rng(99);
  const char* words[] = {"alpha", "beta", "gamma", "return", "value", "struct", "int", "for", "while", "if"};
  fs::create_directories(root / ".git");
  std::ofstream(root / ".gitignore") << "*.tmp\nbuild/\n";
  for (int f = 0; f < kFiles; ++f) {
    fs::path dir = root / ("d" + std::to_string(f % 50)) / ("s" + std::to_string((f / 50) % 20));
    if (f < 1000) fs::create_directories(dir);
    std::ofstream out(dir / ("file" + std::to_string(f) + (f % 7 == 0 ? ".tmp" : ".cpp")));
    for (int l = 0; l < kLinesPerFile; ++l) {
      for (int w = 0; w < 8; ++w) out << words[rng() % 10] << ' ';
      if (rng() % 500 == 0) out << "needle_" << f;
      out << '\n';
    }
  }
}

}  // namespace

int main() {
  agentkit::testing::TempDir tmp;
  const fs::path root = tmp.path() / "tree";
  auto t0 = Clock::now();
  generate_tree(root);
  std::printf("generated %d files in %.0f ms\n", kFiles, ms_since(t0));
  auto ws = tools::Workspace::open(root).value();

  // 1. search
  for (const char* pattern : {"needle_1", "ret(urn|ry) +val"}) {
    tools::SearchRequest q;
    q.pattern = pattern;
    q.max_matches = 1000000;
    tools::SearchOptions native;
    native.backend = tools::SearchBackend::native;
    native.max_result_bytes = std::size_t(1) << 30;
    tools::SearchOptions ripgrep = native;
    ripgrep.backend = tools::SearchBackend::ripgrep;
    std::size_t n_native = 0, n_rg_backend = 0;
    double native_ms = best_of([&] { n_native = tools::search_files(ws, q, native)->matches.size(); });
    double backend_ms = best_of([&] { n_rg_backend = tools::search_files(ws, q, ripgrep)->matches.size(); });
    tools::ProcessOptions po;
    po.cwd = root;
    po.output_cap = std::size_t(1) << 30;
    po.keep_head = true;
    po.spill = false;
    std::size_t n_rg = 0;
    double rg_ms = best_of([&] {
      auto r = tools::run_command({"rg", "--no-require-git", "--hidden", "-g", "!.git", "-c", "-e", pattern}, po);
      n_rg = 0;
      for (std::size_t p = r->output.find(':'); p != std::string::npos; p = r->output.find(':', p + 1)) {
        n_rg += std::stoul(r->output.substr(p + 1, r->output.find('\n', p) - p - 1));
      }
    });
    std::printf("search '%s': native %.1f ms (%zu matches), rg %.1f ms (%zu), ratio native/rg %.2fx; "
                "our ripgrep backend %.1f ms (%zu)\n",
                pattern, native_ms, n_native, rg_ms, n_rg, native_ms / rg_ms, backend_ms, n_rg_backend);
  }

  // 2. find_files vs git ls-files (the files git would list: tracked + untracked, not ignored)
  tools::ProcessOptions po;
  po.cwd = root;
  po.output_cap = std::size_t(1) << 30;
  po.keep_head = true;
  po.spill = false;
  (void)tools::run_command({"git", "init", "-q"}, po);
  std::size_t n_find = 0, n_git = 0;
  double find_ms = best_of([&] {
    n_find = tools::find_files(ws, {"*", ".", tools::FileType::file, 10'000'000})->files.size();
  });
  double git_ms = best_of([&] {
    auto r = tools::run_command({"git", "ls-files", "--cached", "--others", "--exclude-standard"}, po);
    n_git = static_cast<std::size_t>(std::count(r->output.begin(), r->output.end(), '\n'));
  });
  std::printf("find_files: %.1f ms (%zu files), git ls-files -co --exclude-standard %.1f ms (%zu), ratio %.2fx\n",
              find_ms, n_find, git_ms, n_git, find_ms / git_ms);

  // 3. edit_file on a 10 MB file
  const fs::path big = root / "big.txt";
  {
    std::ofstream out(big);
    for (int i = 0; out.tellp() < 10 * 1024 * 1024; ++i) out << "line number " << i << " with some text\n";
    out << "the unique target line\n";
  }
  int flip = 0;
  double exact_ms = best_of([&] {
    std::string from = flip % 2 ? "the unique edited line\n" : "the unique target line\n";
    std::string to = flip % 2 ? "the unique target line\n" : "the unique edited line\n";
    ++flip;
    (void)tools::edit_file(ws, "big.txt", {{from, to}});
  });
  std::printf("edit_file on a %.1f MB file: exact match %.1f ms\n",
              static_cast<double>(fs::file_size(big)) / (1024 * 1024), exact_ms);
  double folded_ms = best_of([&] {
    auto r = tools::edit_file(ws, "big.txt", {{"the unique target line   \n", "the unique target line\n"}});
    (void)r;
  });
  std::printf("edit_file on the same file, tolerant pass (fold every line): %.1f ms\n", folded_ms);
  return 0;
}
