// Fixtures for the image tests: reading files, and Pillow as the reference decoder.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "agentkit/images/image.hpp"

namespace agentkit::images::testing {

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& b) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline std::optional<std::string> run_python(const std::string& python, const std::string& args) {
  const std::string cmd = python + " '" AGENTKIT_PILLOW_SCRIPT "' " + args + " 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  if (::pclose(pipe) != 0) return std::nullopt;
  return out;
}

// The first python3 that imports Pillow: the one on PATH, else Debian's (python3-pil installs
// there, and a version manager's python3 may shadow it).
inline const std::string& pillow_python() {
  static const std::string chosen = [] {
    for (const char* candidate : {"python3", "/usr/bin/python3"}) {
      if (run_python(candidate, "version")) return std::string(candidate);
    }
    return std::string();
  }();
  return chosen;
}

// Runs the Pillow helper; nullopt when Pillow is missing or the command failed.
inline std::optional<std::string> pillow(const std::string& args) {
  if (pillow_python().empty()) return std::nullopt;
  return run_python(pillow_python(), args);
}

inline bool pillow_available() { return !pillow_python().empty(); }

// Pillow's RGBA for a file (first frame), or nullopt.
inline std::optional<Raster> pillow_raster(const std::string& args) {
  std::optional<std::string> out = pillow(args);
  if (!out) return std::nullopt;
  std::istringstream header(out->substr(0, out->find('\n')));
  Raster r;
  header >> r.width >> r.height;
  const std::size_t start = out->find('\n') + 1;
  r.rgba.assign(out->begin() + static_cast<std::ptrdiff_t>(start), out->end());
  if (r.rgba.size() != std::size_t{r.width} * r.height * 4) return std::nullopt;
  return r;
}

inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace agentkit::images::testing

// Skips (or fails under AGENTKIT_REQUIRE_INTEROP=1) when Pillow is not installed.
#define AGENTKIT_REQUIRE_PILLOW()                                                              \
  if (!::agentkit::images::testing::pillow_available()) {                                      \
    if (::agentkit::testing::shared_testdata_required()) FAIL("python3-pil is not installed"); \
    WARN("SKIPPED: python3-pil is not installed (tools/install-test-deps installs it)");       \
    return;                                                                                    \
  }
