#include "agentkit/tools/process.hpp"

#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "agentkit/base/thread.hpp"
#include <vector>

#if AGENTKIT_TEST_COUNTS_ALLOCATIONS
#include "support/alloc/alloc_counter.hpp"
#endif
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using agentkit::Errc;
using agentkit::testing::TempDir;
using agentkit::tools::Outcome;
using agentkit::tools::ProcessOptions;
namespace tools = agentkit::tools;

namespace {
ProcessOptions in(const fs::path& dir) {
  ProcessOptions o;
  o.cwd = dir;
  o.spill_dir = dir;
  return o;
}
}  // namespace

TEST_CASE("stdout and stderr share one pipe and keep their write order") {
  TempDir t;
  auto r = tools::execute("echo a; echo b >&2; echo c", in(t.path()));
  REQUIRE(r.has_value());
  CHECK(r->output == "a\nb\nc\n");
  CHECK(r->outcome == Outcome::exited);
  CHECK(r->exit_code == 0);
}

TEST_CASE("the shell ladder never reads $SHELL") {
  TempDir t;
  auto o = in(t.path());
  o.environment = tools::reduced_environment();
  o.environment->push_back("SHELL=/bin/false");
  auto r = tools::execute("echo ok", o);
  REQUIRE(r.has_value());
  CHECK(r->output == "ok\n");
  CHECK(r->program.find("false") == std::string::npos);
}

TEST_CASE("shell syntax reaches the shell untouched") {
  TempDir t;
  auto r = tools::execute("echo a | tr a b && echo $((1+1))", in(t.path()));
  REQUIRE(r.has_value());
  CHECK(r->output == "b\n2\n");
}

TEST_CASE("stdin is the null device so a prompt gets end of file at once") {
  TempDir t;
  auto o = in(t.path());
  o.timeout = 10s;
  auto r = tools::execute("read x; echo got:$x", o);
  REQUIRE(r.has_value());
  CHECK(r->output == "got:\n");
  CHECK(r->outcome == Outcome::exited);
  CHECK(r->duration < 5s);
}

TEST_CASE("a zero or negative timeout is a validation error") {
  TempDir t;
  auto o = in(t.path());
  o.timeout = 0ms;
  auto r = tools::execute("true", o);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::invalid_argument);
}

TEST_CASE("the exit status is reported, and a signal death as 128 plus the signal") {
  TempDir t;
  CHECK(tools::execute("exit 3", in(t.path()))->exit_code == 3);
  CHECK(tools::execute("kill -TERM $$", in(t.path()))->exit_code == 128 + SIGTERM);
}

TEST_CASE("the outcome classifier ranks abort over timeout over exit status") {
  int killed_status = 0;
  // A status as waitpid reports a SIGKILL death (W_EXITCODE is not portable; build it by hand).
  killed_status = SIGKILL;
  CHECK(tools::classify_outcome(true, true, killed_status).outcome == Outcome::aborted);
  CHECK(tools::classify_outcome(true, true, killed_status).exit_code == 137);
  CHECK(tools::classify_outcome(false, true, killed_status).outcome == Outcome::timed_out);
  CHECK(tools::classify_outcome(false, false, 3 << 8).outcome == Outcome::exited);
  CHECK(tools::classify_outcome(false, false, 3 << 8).exit_code == 3);
  CHECK(tools::classify_outcome(false, false, std::nullopt).exit_code == -1);
}

TEST_CASE("an abort kills the whole process group, grandchildren included") {
  TempDir t;
  agentkit::stop_source stop;
  agentkit::jthread canceller([&stop] {
    std::this_thread::sleep_for(500ms);
    stop.request_stop();
  });
  auto r = tools::execute("sh -c '(sleep 2; touch M) & sleep 100'", in(t.path()), stop.get_token());
  REQUIRE(r.has_value());
  CHECK(r->outcome == Outcome::aborted);
  CHECK(r->duration < 5s);
  std::this_thread::sleep_for(3s);
  CHECK_FALSE(fs::exists(t.path() / "M"));
}

TEST_CASE("a command that forks a grandchild and exits takes the grandchild with it") {
  TempDir t;
  auto r = tools::execute("(sleep 1; touch M) & echo started", in(t.path()));
  REQUIRE(r.has_value());
  CHECK(r->outcome == Outcome::exited);
  CHECK(r->output == "started\n");
  CHECK(r->duration < 1s + 500ms);
  std::this_thread::sleep_for(2s);
  CHECK_FALSE(fs::exists(t.path() / "M"));
}

TEST_CASE("a command that prints forever is capped and killed on timeout") {
  TempDir t;
  auto o = in(t.path());
  o.timeout = 700ms;
  auto r = tools::execute("while :; do echo 'line of output'; done", o);
  REQUIRE(r.has_value());
  CHECK(r->outcome == Outcome::timed_out);
  CHECK(r->output.size() <= tools::kOutputCapBytes);
  CHECK(r->truncated);
  REQUIRE(r->spill_file.has_value());
  CHECK(fs::file_size(*r->spill_file) == r->total_bytes);
}

TEST_CASE("output keeps the tail and the full stream spills to an absolute file") {
  TempDir t;
  auto r = tools::execute("head -c 204800 /dev/zero | tr '\\0' x; echo; echo 'ERROR: boom'", in(t.path()));
  REQUIRE(r.has_value());
  CHECK(r->truncated);
  CHECK(r->output.size() == tools::kOutputCapBytes);
  CHECK(r->output.ends_with("ERROR: boom\n"));
  REQUIRE(r->spill_file.has_value());
  CHECK(r->spill_file->is_absolute());
  std::string full = agentkit::testing::read_file(*r->spill_file);
  CHECK(full.size() == 204800 + 1 + 12);
  CHECK(full.ends_with(r->output));
  CHECK(full.starts_with("xxxx"));
  std::string shown = tools::format_output(*r);
  CHECK(shown.find("[Output truncated: showing the last 50.0KB of 200.0KB. Full output: " +
                   r->spill_file->string() + "]") != std::string::npos);
}

TEST_CASE("output within the cap neither truncates nor spills") {
  TempDir t;
  auto r = tools::execute("echo small", in(t.path()));
  REQUIRE(r.has_value());
  CHECK_FALSE(r->truncated);
  CHECK_FALSE(r->spill_file.has_value());
  CHECK(tools::format_output(*r) == "small\n");
}

TEST_CASE("the output window streams: memory stays bounded on a runaway command") {
  TempDir t;
#if AGENTKIT_TEST_COUNTS_ALLOCATIONS
  agentkit::testing::AllocCounter counter;
#endif
  auto r = tools::execute("head -c 67108864 /dev/zero", in(t.path()));
  REQUIRE(r.has_value());
  CHECK(r->total_bytes == 67108864u);
  CHECK(r->output.size() == tools::kOutputCapBytes);
#if AGENTKIT_TEST_COUNTS_ALLOCATIONS
  // Buffering the stream would need a 64 MiB block; the window never asks for more than a few
  // times the cap.
  CHECK(counter.stats().largest < 8 * tools::kOutputCapBytes);
#endif
  REQUIRE(r->spill_file.has_value());
  CHECK(fs::file_size(*r->spill_file) == 67108864u);
}

TEST_CASE("the drain timer re-arms while output keeps arriving after the child exits") {
  TempDir t;
  auto o = in(t.path());
  o.drain_idle = 300ms;
  o.drain_ceiling = 5s;
  auto r = tools::execute("(for i in 1 2 3 4 5 6; do sleep 0.15; echo $i; done) & exit 0", o);
  REQUIRE(r.has_value());
  CHECK(r->output == "1\n2\n3\n4\n5\n6\n");
}

TEST_CASE("the drain stops at its ceiling when a descendant never stops writing") {
  TempDir t;
  auto o = in(t.path());
  o.drain_idle = 200ms;
  o.drain_ceiling = 800ms;
  auto r = tools::execute("(while :; do echo tick; sleep 0.05; done) & exit 0", o);
  REQUIRE(r.has_value());
  CHECK(r->outcome == Outcome::exited);
  CHECK(r->duration < 3s);
}

TEST_CASE("children get a reduced environment without the parent's secrets") {
  TempDir t;
  ::setenv("AGENTKIT_TEST_API_KEY", "sk-should-not-leak", 1);
  ::setenv("AGENTKIT_TEST_TOKEN", "tok-should-not-leak", 1);
  auto r = tools::execute("env", in(t.path()));
  ::unsetenv("AGENTKIT_TEST_API_KEY");
  ::unsetenv("AGENTKIT_TEST_TOKEN");
  REQUIRE(r.has_value());
  CHECK(r->output.find("should-not-leak") == std::string::npos);
  CHECK(r->output.find("PATH=") != std::string::npos);
  CHECK(r->output.find("GIT_TERMINAL_PROMPT=0") != std::string::npos);
}

TEST_CASE("run_command passes each argument verbatim with no shell") {
  TempDir t;
  auto r = tools::run_command({"echo", "$HOME;", "a|b", "`id`"}, in(t.path()));
  REQUIRE(r.has_value());
  CHECK(r->output == "$HOME; a|b `id`\n");
}

TEST_CASE("a program that does not exist is exec_failed, not a result") {
  TempDir t;
  auto r = tools::run_command({"agentkit-no-such-program"}, in(t.path()));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().find_detail("code") == std::optional<std::string_view>{"exec_failed"});
}

TEST_CASE("powershell checks for its platform when it runs") {
  TempDir t;
  auto r = tools::powershell("Write-Output hi", in(t.path()));
  if (agentkit::testing::find_program("pwsh")) {
    REQUIRE(r.has_value());
    CHECK(r->output == "hi\n");
  } else {
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::unsupported);
    CHECK(r.error().message.find("not available on this platform") != std::string::npos);
  }
}

TEST_CASE("the working folder is the one the embedder set") {
  TempDir t;
  auto r = tools::execute("pwd", in(t.path()));
  REQUIRE(r.has_value());
  CHECK(fs::path(r->output.substr(0, r->output.size() - 1)) == fs::canonical(t.path()));
}

TEST_CASE("the reduced environment is exactly the listed names plus the forced no-pager and no-prompt values") {
  // Every name answers, so what comes back is the whole allowlist; a secret-looking name never does.
  auto everything = [](std::string_view name) -> std::optional<std::string> {
    return std::string(name) == "PAGER" ? std::optional<std::string>("less") : std::optional<std::string>("v");
  };
  const std::vector<std::string> expected = {
      "PATH=v",        "HOME=v",        "USER=v",        "LOGNAME=v",     "LANG=v",        "LANGUAGE=v",
      "LC_ALL=v",      "LC_CTYPE=v",    "LC_COLLATE=v",  "LC_MESSAGES=v", "LC_NUMERIC=v",  "LC_TIME=v",
      "TZ=v",          "TMPDIR=v",      "TERM=v",        "PAGER=cat",     "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"};
  CHECK(tools::reduced_environment(everything) == expected);
  auto nothing = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
  CHECK(tools::reduced_environment(nothing) ==
        std::vector<std::string>{"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"});
}

TEST_CASE("a child never inherits the parent's pager: PAGER and GIT_PAGER are cat") {
  TempDir t;
  ::setenv("PAGER", "less", 1);
  ::setenv("GIT_PAGER", "less", 1);
  auto r = tools::execute("env", in(t.path()));
  ::unsetenv("PAGER");
  ::unsetenv("GIT_PAGER");
  REQUIRE(r.has_value());
  CHECK(r->output.find("\nPAGER=cat\n") != std::string::npos);
  CHECK(r->output.find("\nGIT_PAGER=cat\n") != std::string::npos);
  CHECK(r->output.find("=less") == std::string::npos);
}
