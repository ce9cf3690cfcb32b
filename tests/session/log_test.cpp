// The session log writer: the line format, exclusive creation, the lock, durability, write errors.
#include "agentkit/session/log.hpp"

#include <filesystem>

#include "support/catch.hpp"
#include "session/session_support.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using agentkit::testing::lines_of;
using agentkit::testing::ProbeStore;

namespace {

AssistantMessage reply_from(const session::ModelRef& m, std::string text) {
  AssistantMessage a;
  a.content.push_back(TextBlock{std::move(text)});
  a.provider = m.provider;
  a.api = m.api;
  a.model = m.model;
  return a;
}

session::Log new_memory_log(session::MemoryStore& memory, session::Durability d = {}) {
  session::CreateOptions options;
  options.durability = d;
  return session::Log::create(std::make_unique<session::MemoryStore>(memory), options).value();
}

// Python's json module, an independent reader: each line must be exactly one object.
constexpr const char* kPythonLineCheck = R"(
import json, sys
lines = sys.stdin.buffer.read().split(b"\n")
assert lines[-1] == b"", "the log must end with a newline"
objs = [json.loads(l) for l in lines[:-1]]
assert all(isinstance(o, dict) for o in objs)
print(" ".join(o["type"] for o in objs))
)";

}  // namespace

TEST_CASE("every line of a log holding each entry type is one JSON object, line 1 the header") {
  // REQ-SESS-01
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  auto log = session::Log::create(session::file_store(path), {}).value();
  session::ModelRef a{"anthropic", "anthropic-messages", "claude-sonnet-4-5"};
  REQUIRE(log.append_model_change(a));
  REQUIRE(log.append_thinking_level(ThinkingLevel::high));
  auto first = log.append_message(user_text("hello")).value();
  REQUIRE(log.append_message(reply_from(a, "hi")));
  REQUIRE(log.append_custom_message("note", "remember the tests"));
  REQUIRE(log.append_compaction("greeted", first));
  REQUIRE(log.leave_branch(first, "tried nothing"));
  REQUIRE(log.end_turn());

  auto out = agentkit::testing::run_program({"python3", "-c", kPythonLineCheck},
                                            agentkit::testing::read_file(path));
  INFO(out.err);
  REQUIRE(out.exit_code == 0);
  CHECK(out.out ==
        "session model_change thinking_level_change message message custom_message compaction "
        "branch_summary\n");
  auto header = json::parse(lines_of(agentkit::testing::read_file(path))[0]).value();
  CHECK(header.find("version")->number_text() == "1");
  CHECK(header.find("id")->as_string().size() == 32);
  CHECK(header.find("cwd") != nullptr);
  CHECK(header.find("timestamp")->as_string().back() == 'Z');
}

TEST_CASE("a message line is its envelope and the codec's text of the message, read back equal") {
  session::MemoryStore memory;
  auto log = new_memory_log(memory, session::Durability::none);
  AssistantMessage reply = reply_from({"openai", "openai-responses", "gpt-5"},
                                      "a\xE2\x80\xA8"
                                      "b");
  reply.content.push_back(ThinkingBlock{"why", "opaque+/=", false, "rs_1"});
  reply.content.push_back(ToolUseBlock{"c1", "read", json::Raw(R"({"path": "x"})"), "ts"});
  reply.content.push_back(
      UnknownBlock{"future", json::parse(R"({"type":"future","n":1.0})").value()});
  reply.usage.input_tokens = 3;
  reply.usage.cost.total = 0.25;
  ToolResultMessage result;
  result.tool_use_id = "c1";
  result.tool_name = "read";
  result.content.push_back(TextBlock{"ok"});
  result.metadata.set("exit_code", 0);
  const std::vector<Message> messages = {user_text("hello\n\"there\""), reply, result};
  for (const Message& m : messages) REQUIRE(log.append_message(m));

  const std::vector<std::string> lines = lines_of(memory.bytes());
  REQUIRE(lines.size() == 1 + messages.size());
  const auto& entries = log.contents().entries;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    INFO("line " << i + 2 << ": " << lines[i + 1]);
    const session::Entry& e = entries[i];
    const std::string text = json::dump(to_json(messages[i]));
    // Built from the tree codec, independently of the writer's direct path.
    const std::string expected = R"({"id":")" + e.id + R"(","parent_id":)" +
                                 (i == 0 ? std::string("null") : "\"" + entries[i - 1].id + "\"") +
                                 R"(,"type":"message","timestamp":")" + e.timestamp +
                                 R"(","message":)" + text + "}";
    CHECK(lines[i + 1] == expected);
    CHECK(e.fields.find("message")->get_raw()->bytes() == text);
    CHECK(session::message_of(e).value() == messages[i]);
  }
  const session::LoadResult reloaded = session::parse_log(memory.bytes());
  CHECK(reloaded.repairs.empty());
  REQUIRE(reloaded.entries.size() == messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    CHECK(session::message_of(reloaded.entries[i]).value() == messages[i]);
  }
  CHECK(session::to_jsonl(reloaded) == memory.bytes());
}

TEST_CASE("a new log file is readable and writable by its owner only") {
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "private.jsonl";
  auto log = session::Log::create(session::file_store(path), {}).value();
  REQUIRE(log.append_message(user_text("the secret is 42")));
  const auto perms = std::filesystem::status(path).permissions();
  CHECK((perms & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
}

TEST_CASE("creating a log where one exists fails and leaves the existing bytes untouched") {
  // REQ-SESS-09
  agentkit::testing::TempDir dir;
  auto path = dir.write("s.jsonl", "precious\n");
  auto log = session::Log::create(session::file_store(path), {});
  REQUIRE_FALSE(log);
  CHECK(log.error().code == Errc::already_exists);
  CHECK(agentkit::testing::read_file(path) == "precious\n");

  session::MemoryStore memory;
  (void)new_memory_log(memory);
  std::string before = memory.bytes();
  auto again = session::Log::create(std::make_unique<session::MemoryStore>(memory), {});
  REQUIRE_FALSE(again);
  CHECK(again.error().code == Errc::already_exists);
  CHECK(memory.bytes() == before);
}

TEST_CASE("the header and the user message are in the file as soon as they are appended") {
  // REQ-SESS-09: writes start immediately, not lazily at the first assistant message.
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  auto log = session::Log::create(session::file_store(path), {}).value();
  CHECK(lines_of(agentkit::testing::read_file(path)).size() == 1);
  REQUIRE(log.append_message(user_text("list the files")));
  CHECK(lines_of(agentkit::testing::read_file(path)).size() == 2);
}

TEST_CASE("a second writer of the same log gets a busy error naming the holder") {
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  session::CreateOptions options;
  options.holder = "pid 7 (first writer)";
  auto first = session::Log::create(session::file_store(path), options).value();
  auto second = session::Log::open(session::file_store(path), {});
  REQUIRE_FALSE(second);
  CHECK(second.error().code == Errc::busy);
  CHECK(second.error().message.find("pid 7 (first writer)") != std::string::npos);

  session::MemoryStore memory;
  session::Log held = new_memory_log(memory);
  auto rival = session::Log::open(std::make_unique<session::MemoryStore>(memory), {});
  REQUIRE_FALSE(rival);
  CHECK(rival.error().code == Errc::busy);
}

TEST_CASE("the lock is released when the writer goes away, and a reader never needs it") {
  agentkit::testing::TempDir dir;
  auto path = dir.path() / "s.jsonl";
  {
    auto first = session::Log::create(session::file_store(path), {}).value();
    REQUIRE(first.append_message(user_text("one")));
    auto reader = session::file_store(path);
    CHECK(session::load(*reader).value().entries.size() == 1);
  }
  auto second = session::Log::open(session::file_store(path), {});
  REQUIRE(second);
  CHECK(second->leaf() == second->contents().entries.back().id);
}

TEST_CASE("each durability mode syncs exactly when it says") {
  struct Case {
    session::Durability mode;
    int syncs_after_two_appends;
    int syncs_after_end_turn;
  };
  for (Case c : {Case{session::Durability::every_entry, 3, 3},  // the header counts once
                 Case{session::Durability::every_turn, 0, 1},
                 Case{session::Durability::none, 0, 0}}) {
    auto probe = std::make_unique<ProbeStore>(session::MemoryStore{});
    auto syncs = probe->syncs;
    session::CreateOptions options;
    options.durability = c.mode;
    auto log = session::Log::create(std::move(probe), options).value();
    REQUIRE(log.append_message(user_text("a")));
    REQUIRE(log.append_message(user_text("b")));
    CHECK(*syncs == c.syncs_after_two_appends);
    REQUIRE(log.end_turn());
    CHECK(*syncs == c.syncs_after_end_turn);
  }
}

TEST_CASE("a failed append is returned and the entry is kept in memory as the new leaf") {
  // REQ-SESS-08: a persist failure costs the log an entry, never the conversation a turn.
  session::MemoryStore memory;
  auto probe = std::make_unique<ProbeStore>(memory);
  auto fail = probe->fail_appends;
  auto log = session::Log::create(std::move(probe), {}).value();
  auto kept = log.append_message(user_text("kept on disk")).value();
  *fail = true;
  auto lost = log.append_message(user_text("memory only"));
  REQUIRE_FALSE(lost);
  CHECK(lost.error().code == Errc::io_error);
  REQUIRE(log.contents().entries.size() == 2);
  CHECK(session::fold(log.contents().entries, log.leaf()).messages.size() == 2);
  *fail = false;
  auto later = log.append_message(user_text("after the disk came back")).value();

  // On reload the entry after the gap hangs from the last entry that reached the store.
  auto loaded = session::parse_log(memory.bytes());
  REQUIRE(loaded.entries.size() == 2);
  CHECK(loaded.entries[1].id == later);
  CHECK(loaded.entries[1].parent_id == kept);
  REQUIRE(loaded.repairs.size() == 1);
  CHECK(loaded.repairs[0].kind == session::RepairKind::dangling_parent);
}

TEST_CASE("a different model over an existing log is recorded once, the same one not at all") {
  session::MemoryStore memory;
  session::ModelRef a{"anthropic", "anthropic-messages", "claude-sonnet-4-5"};
  session::ModelRef b{"openai", "openai-responses", "gpt-5"};
  {
    session::Log log = new_memory_log(memory);
    CHECK(log.record_model(a).value());
    CHECK_FALSE(log.record_model(a).value());
  }
  auto log = session::Log::open(std::make_unique<session::MemoryStore>(memory), {}).value();
  CHECK_FALSE(log.record_model(a).value());
  CHECK(log.record_model(b).value());
  CHECK(lines_of(memory.bytes()).size() == 3);
  CHECK(session::fold(log.contents().entries, log.leaf()).model == b);
}

TEST_CASE("a compaction anchored off the branch is refused and writes nothing") {
  // REQ-SESS-04
  session::MemoryStore memory;
  session::Log log = new_memory_log(memory);
  REQUIRE(log.append_message(user_text("a")));
  std::string before = memory.bytes();
  auto refused = log.append_compaction("summary", "no-such-entry");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == Errc::not_found);
  CHECK(memory.bytes() == before);
}

TEST_CASE("a compaction appends one line and leaves every earlier byte as it was") {
  // REQ-SESS-04
  session::MemoryStore memory;
  session::Log log = new_memory_log(memory);
  auto first = log.append_message(user_text("a")).value();
  REQUIRE(log.append_message(user_text("b")));
  std::string before = memory.bytes();
  REQUIRE(log.append_compaction("a and b happened", first));
  std::string after = memory.bytes();
  REQUIRE(after.substr(0, before.size()) == before);
  CHECK(lines_of(after.substr(before.size())).size() == 1);
}
