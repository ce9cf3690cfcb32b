// Real processes and a real filesystem: a writer killed with SIGKILL at seeded random points, and
// a write that tears when the file-size limit is hit.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <random>
#include <thread>

#include "agentkit/session/log.hpp"
#include "session/session_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;

namespace {

constexpr int kKillsPerMode = 120;         // two modes: 240 kills, over the 200 required
constexpr int kMaxChildEntries = 100'000;  // bounds a child that somehow outlives its kill
constexpr int kMaxDelayMicros = 4'000;
constexpr std::size_t kMaxPadding = 48 * 1024;  // large lines make a kill inside a write likely
constexpr int kEntriesPerTurn = 3;

std::string entry_text(int k, std::size_t padding) {
  return "entry " + std::to_string(k) + " " + std::string(padding, 'x');
}

// The child: appends entries forever, reporting each index on `report` once append returned.
[[noreturn]] void write_until_killed(const std::filesystem::path& path, session::Durability d,
                                     int report, std::uint32_t seed) {
  session::CreateOptions options;
  options.durability = d;
  auto log = session::Log::create(session::file_store(path), options);
  if (!log) ::_exit(3);
  int ready = -1;
  if (::write(report, &ready, sizeof ready) != sizeof ready) ::_exit(4);
  std::mt19937 rng(seed);
  for (int k = 0; k < kMaxChildEntries; ++k) {
    if (!log->append_message(user_text(entry_text(k, rng() % kMaxPadding)))) ::_exit(5);
    if (::write(report, &k, sizeof k) != sizeof k) ::_exit(6);
    if (k % kEntriesPerTurn == kEntriesPerTurn - 1 && !log->end_turn()) ::_exit(7);
  }
  ::_exit(0);
}

struct KillOutcome {
  int observed = -1;  // highest entry index whose append had returned
  bool torn = false;
  bool ok = false;
};

KillOutcome kill_once(const std::filesystem::path& path, session::Durability d,
                      std::uint32_t seed) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    write_until_killed(path, d, fds[1], seed);
  }
  ::close(fds[1]);
  int value = 0;
  REQUIRE(::read(fds[0], &value, sizeof value) == sizeof value);  // the log exists now
  std::mt19937 rng(seed);
  std::this_thread::sleep_for(std::chrono::microseconds(rng() % kMaxDelayMicros));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  KillOutcome out;
  while (::read(fds[0], &value, sizeof value) == sizeof value) out.observed = value;
  ::close(fds[0]);

  auto loaded = session::load(*session::file_store(path));
  REQUIRE(loaded);
  for (const auto& r : loaded->repairs) {
    if (r.kind == session::RepairKind::torn_last_line) out.torn = true;
    else return out;  // any other repair is damage we wrote
  }
  if (static_cast<int>(loaded->entries.size()) < out.observed + 1) return out;
  for (int k = 0; k <= out.observed; ++k) {
    auto m = session::message_of(loaded->entries[static_cast<std::size_t>(k)]);
    if (!m) return out;
    const std::string text = text_of(std::get<UserMessage>(*m).content);
    if (text.rfind("entry " + std::to_string(k) + " ", 0) != 0) return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

TEST_CASE("a writer killed at 240 seeded random points leaves a log that loads, nothing lost") {
  // Every append that returned is in the file, in order, under every_entry and every_turn. A
  // kill is not a power failure, so what fsync adds is not observable here (docs/testing.md).
  agentkit::testing::TempDir dir;
  int torn = 0;
  int max_observed = 0;
  for (auto mode : {session::Durability::every_entry, session::Durability::every_turn}) {
    for (int i = 0; i < kKillsPerMode; ++i) {
      auto path = dir.path() / ("kill-" + std::to_string(static_cast<int>(mode)) + "-" +
                                std::to_string(i) + ".jsonl");
      std::uint32_t seed = 0x5e55'0000u + static_cast<std::uint32_t>(i);
      KillOutcome o = kill_once(path, mode, seed);
      INFO("mode " << static_cast<int>(mode) << " kill " << i << " observed " << o.observed);
      REQUIRE(o.ok);
      torn += o.torn ? 1 : 0;
      max_observed = std::max(max_observed, o.observed);
      std::filesystem::remove(path);
    }
  }
  WARN("torn last lines: " << torn << " of " << 2 * kKillsPerMode << "; most entries seen: "
                           << max_observed + 1);
  CHECK(max_observed > 0);  // the kills landed among appends, not all before the first
}

TEST_CASE("a write torn by a full file is cut off, and the next append starts a clean line") {
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  {
    auto log = session::Log::create(session::file_store(path), {}).value();
    REQUIRE(log.append_message(user_text("before the disk filled")));
  }
  const auto size = std::filesystem::file_size(path);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The file-size limit makes write(2) store part of the line, then fail with EFBIG: a full
    // disk as a test can produce it.
    ::signal(SIGXFSZ, SIG_IGN);
    auto log = session::Log::open(session::file_store(path), {});
    if (!log) ::_exit(10);
    struct rlimit limit {};
    limit.rlim_cur = size + 16;
    limit.rlim_max = RLIM_INFINITY;
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(11);
    auto failed = log->append_message(user_text(std::string(512, 'y')));
    if (failed || failed.error().code != Errc::io_error) ::_exit(12);
    if (std::filesystem::file_size(path) != size) ::_exit(13);
    limit.rlim_cur = RLIM_INFINITY;
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(14);
    if (!log->append_message(user_text("after"))) ::_exit(15);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  auto loaded = session::load(*session::file_store(path)).value();
  CHECK(loaded.entries.size() == 2);
  // The entry after the gap named the lost one as parent: re-parented, and nothing else.
  REQUIRE(loaded.repairs.size() == 1);
  CHECK(loaded.repairs[0].kind == session::RepairKind::dangling_parent);
}
