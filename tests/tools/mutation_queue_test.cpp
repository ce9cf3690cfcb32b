// The file mutation queue (REQ-LOOP-12), directly and through write_file/edit_file.
#include "agentkit/tools/mutation_queue.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <latch>
#include <mutex>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/tools/coding_tools.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

namespace fs = std::filesystem;
using agentkit::Errc;
using agentkit::ToolContext;
using agentkit::ToolDefinition;
using agentkit::ToolResult;
using agentkit::testing::TempDir;
namespace tools = agentkit::tools;
namespace json = agentkit::json;
using Clock = std::chrono::steady_clock;

namespace {

// REQ-LOOP-12's instrumented critical section.
constexpr std::chrono::milliseconds kCriticalSection{50};

struct Interval {
  Clock::time_point start, end;
};

bool overlap(const Interval& a, const Interval& b) { return a.start < b.end && b.start < a.end; }

// Records, per call, when the critical section ran; sleeps inside it so overlap is visible.
struct Recorder {
  std::mutex mu;
  std::vector<Interval> intervals;
  void operator()(const fs::path&) {
    Interval i;
    i.start = Clock::now();
    std::this_thread::sleep_for(kCriticalSection);
    i.end = Clock::now();
    std::lock_guard g(mu);
    intervals.push_back(i);
  }
};

ToolResult call(const ToolDefinition& tool, const std::string& args) {
  ToolContext ctx;
  ctx.tool_name = tool.name;
  return tool.handler(json::parse(args).value(), ctx);
}

// Runs both calls at the same moment on two threads.
std::pair<ToolResult, ToolResult> concurrently(const ToolDefinition& tool, const std::string& a, const std::string& b) {
  std::latch go(2);
  ToolResult ra, rb;
  {
    agentkit::jthread t1([&] { go.arrive_and_wait(); ra = call(tool, a); });
    agentkit::jthread t2([&] { go.arrive_and_wait(); rb = call(tool, b); });
  }
  return {std::move(ra), std::move(rb)};
}

}  // namespace

TEST_CASE("two spellings of one file (a symlink and a relative path) share one key") {
  TempDir t;
  t.write("real.txt", "x");
  t.write("sub/keep", "");
  fs::create_symlink(t.path() / "real.txt", t.path() / "link.txt");
  auto a = tools::FileMutationQueue::key_for(t.path() / "link.txt");
  auto b = tools::FileMutationQueue::key_for(t.path() / "sub" / ".." / "." / "real.txt");
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(*a == *b);
  CHECK(*a == fs::canonical(t.path() / "real.txt"));
}

TEST_CASE("a file that does not exist yet is keyed by its absolute form, through resolved parents") {
  TempDir t;
  fs::create_directories(t.path() / "real_dir");
  fs::create_symlink(t.path() / "real_dir", t.path() / "dir_link");
  auto a = tools::FileMutationQueue::key_for(t.path() / "dir_link" / "new.txt");
  REQUIRE(a.has_value());
  CHECK(*a == fs::canonical(t.path()) / "real_dir" / "new.txt");
}

TEST_CASE("a resolution error other than 'does not exist' propagates instead of locking the raw spelling") {
  TempDir t;
  tools::FileMutationQueue queue;
  const std::string too_long(300, 'n');  // NAME_MAX is 255: lstat fails with ENAMETOOLONG
  auto held = queue.lock(t.path() / too_long / "x.txt");
  REQUIRE_FALSE(held.has_value());
  CHECK(held.error().code == Errc::io_error);
  CHECK(queue.size() == 0);
  if (::geteuid() != 0) {  // root reads through any permission bits
    fs::create_directories(t.path() / "closed" / "inner");
    fs::permissions(t.path() / "closed", fs::perms::none);
    auto denied = queue.lock(t.path() / "closed" / "inner" / "x.txt");
    fs::permissions(t.path() / "closed", fs::perms::owner_all);
    REQUIRE_FALSE(denied.has_value());
    CHECK(denied.error().code == Errc::io_error);
  }
}

TEST_CASE("the lock table is empty once every holder and waiter has left") {
  TempDir t;
  tools::FileMutationQueue queue;
  {
    auto a = queue.lock(t.path() / "a.txt");
    auto b = queue.lock(t.path() / "b.txt");
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(queue.size() == 2);
    CHECK(a->path() == fs::canonical(t.path()) / "a.txt");
  }
  CHECK(queue.size() == 0);
  for (int i = 0; i < 100; ++i) (void)queue.lock(t.path() / ("f" + std::to_string(i)));
  CHECK(queue.size() == 0);
}

TEST_CASE("a waiter whose stop fires leaves without the lock and without leaking its entry") {
  TempDir t;
  tools::FileMutationQueue queue;
  auto held = queue.lock(t.path() / "a.txt");
  REQUIRE(held.has_value());
  agentkit::stop_source stop;
  std::atomic<bool> returned{false};
  agentkit::Result<tools::FileMutationQueue::Lock> waited = agentkit::fail(Errc::internal, "not run");
  agentkit::jthread waiter([&] {
    waited = queue.lock(t.path() / "a.txt", stop.get_token());
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK_FALSE(returned.load());  // it waits while the file is held
  stop.request_stop();
  waiter.join();
  REQUIRE_FALSE(waited.has_value());
  CHECK(waited.error().code == Errc::cancelled);
  CHECK(queue.size() == 1);
  held->release();
  CHECK(queue.size() == 0);
}

TEST_CASE("edits of one file through a symlink and a relative spelling serialise; both land") {
  TempDir t;
  t.write("real.txt", "one\ntwo\n");
  fs::create_symlink(t.path() / "real.txt", t.path() / "link.txt");
  auto ws = tools::Workspace::open(t.path()).value();
  auto recorder = std::make_shared<Recorder>();
  tools::CodingToolsOptions options;
  options.mutation_queue = std::make_shared<tools::FileMutationQueue>();
  options.before_mutation = [recorder](const fs::path& p) { (*recorder)(p); };
  ToolDefinition edit = tools::edit_file_tool(ws, options);
  auto [a, b] = concurrently(edit, R"({"path":"link.txt","edits":[{"old_string":"one","new_string":"ONE"}]})",
                             R"({"path":"./real.txt","edits":[{"old_string":"two","new_string":"TWO"}]})");
  CHECK(a.ok);
  CHECK(b.ok);
  REQUIRE(recorder->intervals.size() == 2);
  CHECK_FALSE(overlap(recorder->intervals[0], recorder->intervals[1]));
  CHECK(agentkit::testing::read_file(t.path() / "real.txt") == "ONE\nTWO\n");  // no lost update
  CHECK(fs::is_symlink(t.path() / "link.txt"));  // the link was written through, not replaced
  CHECK(options.mutation_queue->size() == 0);
}

TEST_CASE("edits of distinct files run concurrently") {
  TempDir t;
  t.write("a.txt", "alpha\n");
  t.write("b.txt", "beta\n");
  auto ws = tools::Workspace::open(t.path()).value();
  auto recorder = std::make_shared<Recorder>();
  tools::CodingToolsOptions options;
  options.mutation_queue = std::make_shared<tools::FileMutationQueue>();
  options.before_mutation = [recorder](const fs::path& p) { (*recorder)(p); };
  ToolDefinition edit = tools::edit_file_tool(ws, options);
  auto [a, b] = concurrently(edit, R"({"path":"a.txt","edits":[{"old_string":"alpha","new_string":"A"}]})",
                             R"({"path":"b.txt","edits":[{"old_string":"beta","new_string":"B"}]})");
  CHECK(a.ok);
  CHECK(b.ok);
  REQUIRE(recorder->intervals.size() == 2);
  CHECK(overlap(recorder->intervals[0], recorder->intervals[1]));
  CHECK(options.mutation_queue->size() == 0);
}

TEST_CASE("coding_tools gives write_file and edit_file one shared queue") {
  TempDir t;
  t.write("real.txt", "one\n");
  fs::create_symlink(t.path() / "real.txt", t.path() / "link.txt");
  auto ws = tools::Workspace::open(t.path()).value();
  auto recorder = std::make_shared<Recorder>();
  tools::CodingToolsOptions options;
  options.before_mutation = [recorder](const fs::path& p) { (*recorder)(p); };
  auto set = tools::coding_tools(ws, options);
  const ToolDefinition& write = set[1];
  const ToolDefinition& edit = set[2];
  REQUIRE(write.name == "write_file");
  REQUIRE(edit.name == "edit_file");
  std::latch go(2);
  ToolResult rw, re;
  {
    agentkit::jthread t1([&] { go.arrive_and_wait(); rw = call(write, R"({"path":"link.txt","content":"one\nmore\n"})"); });
    agentkit::jthread t2([&] {
      go.arrive_and_wait();
      re = call(edit, R"({"path":"real.txt","edits":[{"old_string":"one","new_string":"1"}]})");
    });
  }
  REQUIRE(recorder->intervals.size() == 2);
  CHECK_FALSE(overlap(recorder->intervals[0], recorder->intervals[1]));
  CHECK(rw.ok);
  CHECK(re.ok);
}
