// Locating the pinned npm peers of the interop tests (tests/interop/package-lock.json) and the rule
// for when they are missing: skip with a message, unless AGENTKIT_REQUIRE_INTEROP=1, then fail.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentkit::interop {

// node on PATH, or nullopt.
std::optional<std::string> node_program();
// tests/interop/node_modules/<package>/<relative>, when installed.
std::optional<std::filesystem::path> package_file(const std::string& package, const std::string& relative);
// tests/interop/<name> (our fixture scripts).
std::filesystem::path fixture_script(const std::string& name);
// True when interop peers are required (the CI sets AGENTKIT_REQUIRE_INTEROP=1).
bool interop_required();
// A free loopback TCP port.
int free_port();
// True once something accepts connections on 127.0.0.1:port (polls until `timeout`).
bool wait_for_port(int port, std::chrono::milliseconds timeout = std::chrono::seconds(20));

// A peer program running in the background (its own process group), killed and reaped on
// destruction. Its output goes to a log file in the system temp folder, removed with it.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;
  bool started() const noexcept { return pid_ > 0; }
  int pid() const noexcept { return pid_; }

 private:
  int pid_ = -1;
  std::filesystem::path log_;
};

}  // namespace agentkit::interop

// Use at the top of a test: returns from it (a skip) when a peer is missing, and fails when peers
// are required. `found` is an optional (or bool-convertible) peer lookup.
#define AGENTKIT_REQUIRE_PEER(found, what)                                                              \
  do {                                                                                                 \
    if (!(found)) {                                                                                    \
      if (::agentkit::interop::interop_required()) {                                                   \
        FAIL("interop peer missing: " << (what) << " (run `npm ci` in tests/interop; node >= 20)");     \
      }                                                                                                \
      WARN("SKIPPED: interop peer missing: " << (what) << " (run `npm ci` in tests/interop)");         \
      return;                                                                                          \
    }                                                                                                  \
  } while (false)
