// Image pipeline (issue 14) side by side with Pillow in the same run on the same files: decode a
// 12-megapixel JPEG and a 4-megapixel PNG, downscale the photo to 2000 px, encode it as JPEG and
// PNG; then the normaliser's cost on an image that already fits (it must read headers only).
// Prints best-of-N and median milliseconds of process CPU time (both sides, so a loaded machine's
// scheduling does not enter the ratio; best wall time alongside) and our/Pillow ratios; asserts
// nothing. The fixtures are made by Pillow from the shared pillars-2048x2048.jpg into a scratch
// folder.
//   bench_images [--repeat N]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agentkit/base/base64.hpp"
#include "agentkit/images/encode.hpp"
#include "agentkit/images/image.hpp"
#include "agentkit/images/normalize.hpp"
#include "agentkit/images/transform.hpp"

namespace fs = std::filesystem;
using namespace agentkit::images;
using BenchClock = std::chrono::steady_clock;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

struct Timing {
  double cpu = 1e30;   // process CPU seconds, best of N
  double median = 0;   // process CPU seconds, median of N
  double wall = 1e30;  // wall seconds, best of N
};

template <class F>
Timing best_of(int repeat, F&& f) {
  Timing best;
  std::vector<double> cpu;
  for (int i = 0; i < repeat; ++i) {
    const std::clock_t cpu_start = std::clock();
    const auto start = BenchClock::now();
    f();
    best.wall =
        std::min(best.wall, std::chrono::duration<double>(BenchClock::now() - start).count());
    cpu.push_back(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
  }
  std::sort(cpu.begin(), cpu.end());
  best.cpu = cpu.front();
  best.median = cpu[cpu.size() / 2];
  return best;
}

template <class F>
double best_seconds(int repeat, F&& f) {
  return best_of(repeat, f).cpu;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  const fs::path source = fs::path(AGENTKIT_SOURCE_DIR) / ".." / "shared" / "testdata" / "images";
  const fs::path work = fs::temp_directory_path() / "agentkit_images_bench";
  fs::create_directories(work);
  const std::string script = std::string(AGENTKIT_SOURCE_DIR) + "/tests/images/pillow_ref.py";
  std::string python = "python3";
  if (run(python + " '" + script + "' version 2>/dev/null").empty()) python = "/usr/bin/python3";
  run(python + " '" + script + "' fixtures '" + (source / "jpeg/pillars-2048x2048.jpg").string() +
      "' '" + work.string() + "'");
  const std::vector<std::uint8_t> jpg = read_bytes(work / "12mp.jpg");
  const std::vector<std::uint8_t> png = read_bytes(work / "4mp.png");
  if (jpg.empty() || png.empty()) {
    std::printf("images bench: needs python3-pil and %s\n", source.string().c_str());
    return 1;
  }

  std::map<std::string, Timing> ours;
  Raster photo;
  ours["decode_jpeg"] = best_of(repeat, [&] { photo = decode(jpg).value(); });
  ours["decode_png"] = best_of(repeat, [&] { (void)decode(png).value(); });
  Raster small;
  ours["downscale"] = best_of(repeat, [&] { small = downscale(photo, {2000, 1500}).value(); });
  ours["encode_jpeg"] = best_of(repeat, [&] { (void)encode_jpeg(small, {85}); });
  ours["encode_png"] = best_of(repeat, [&] { (void)encode_png(small); });

  std::map<std::string, Timing> pillow;
  std::istringstream lines(run(python + " '" + script + "' bench '" + (work / "12mp.jpg").string() +
                               "' '" + (work / "4mp.png").string() + "' " +
                               std::to_string(repeat)));
  std::string step;
  Timing t;
  while (lines >> step >> t.cpu >> t.median >> t.wall) pillow[step] = t;

  // CPU milliseconds, best and median of N per side, the two ratios, then the best-wall ratio.
  std::printf("%-12s %9s %9s %9s %9s %7s %7s %9s\n", "step", "ours best", "ours med", "Pil best",
              "Pil med", "best x", "med x", "wall x");
  for (const char* name : {"decode_jpeg", "decode_png", "downscale", "encode_jpeg", "encode_png"}) {
    const Timing p = pillow.count(name) ? pillow[name] : Timing{0, 0, 0};
    const Timing o = ours[name];
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    std::printf("%-12s %9.1f %9.1f %9.1f %9.1f %7.2f %7.2f %9.2f\n", name, o.cpu * 1e3,
                o.median * 1e3, p.cpu * 1e3, p.median * 1e3, ratio(o.cpu, p.cpu),
                ratio(o.median, p.median), ratio(o.wall, p.wall));
  }

  // The normaliser on images that already fit: a small JPEG and the 1.8 MB boundary photo.
  ImageNormalizer normalizer;
  for (const char* name : {"jpeg/hopper.jpg", "jpeg/xmp_test.jpg", "png/basn6a16.png"}) {
    const std::vector<std::uint8_t> bytes = read_bytes(source / name);
    const std::string text =
        agentkit::base64::encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    constexpr int kCalls = 200;
    const double s = best_seconds(repeat, [&] {
      for (int i = 0; i < kCalls; ++i) {
        if (normalizer.normalize("image/jpeg", text).data_base64.size() != text.size())
          std::abort();
      }
    });
    // The per-request replay of the same history string: headers remembered, no alphabet check.
    const double r = best_seconds(repeat, [&] {
      for (int i = 0; i < kCalls; ++i) {
        if (normalizer.renormalize("image/jpeg", text).outcome == Outcome::refused) std::abort();
      }
    });
    std::printf(
        "normalize conforming %-20s %8.1f us per call, replayed %6.2f us (%zu KB of base64)\n",
        name, s / kCalls * 1e6, r / kCalls * 1e6, text.size() / 1024);
  }
  // A large image that fits a roomier budget: what the whole-text alphabet check costs (the
  // headers are a few groups) on megabytes of base64.
  {
    ImageBudget roomy;
    roomy.max_side = 4000;
    roomy.max_base64_bytes = 12'000'000;
    roomy.max_request_base64_bytes = 12'000'000;
    ImageNormalizer big(roomy);
    const std::string text =
        agentkit::base64::encode({reinterpret_cast<const char*>(jpg.data()), jpg.size()});
    constexpr int kCalls = 20;
    const double s = best_seconds(repeat, [&] {
      for (int i = 0; i < kCalls; ++i) {
        if (big.normalize("image/jpeg", text).outcome != Outcome::unchanged) std::abort();
      }
    });
    const double r = best_seconds(repeat, [&] {
      for (int i = 0; i < kCalls; ++i) {
        if (big.renormalize("image/jpeg", text).outcome != Outcome::unchanged) std::abort();
      }
    });
    std::printf(
        "normalize conforming %-20s %8.1f us per call (%zu KB of base64, %.2f GB/s), replayed "
        "%6.2f "
        "us\n",
        "12mp.jpg (roomy)", s / kCalls * 1e6, text.size() / 1024,
        static_cast<double>(text.size()) / (s / kCalls) / 1e9, r / kCalls * 1e6);
  }
  return 0;
}
