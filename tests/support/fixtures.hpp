// Small shared fixtures for tests: temporary directories and running an independent peer program
// (sha256sum, python3, git, rg) with input on stdin and its output captured.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentkit::testing {

// A fresh directory under the system temp dir, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }
  // Writes `content` to path()/relative, creating parent folders.
  std::filesystem::path write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

struct ProgramOutput {
  int exit_code = -1;     // -1 when the program could not be started or was killed by a signal
  std::string out;        // stdout
  std::string err;        // stderr
};

// Runs argv[0] (looked up on PATH) with `input` on stdin; waits for it to exit.
ProgramOutput run_program(const std::vector<std::string>& argv, const std::string& input = {});

// The full path of a program on PATH, or nullopt.
std::optional<std::string> find_program(const std::string& name);

// Reads a whole file; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// True in a ThreadSanitizer build. There a process start costs a few hundred milliseconds (the
// runtime's fork), so the differential tests that start a peer per case compare fewer generated
// cases: the other builds run them all, and TSan needs the threads exercised, not the count.
constexpr bool kUnderThreadSanitizer =
#if defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace agentkit::testing
