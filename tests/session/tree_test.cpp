#include <algorithm>
// The entry tree (branch, leaves, fork, branch_summary), the resume fold and the wrapper goldens.
#include <filesystem>

#include "agentkit/session/log.hpp"
#include "support/catch.hpp"
#include "session/session_support.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using agentkit::testing::lines_of;

namespace {

session::Log new_log(session::MemoryStore& memory) {
  return session::Log::create(std::make_unique<session::MemoryStore>(memory), {}).value();
}

std::vector<std::string> texts(const std::vector<Message>& messages) {
  std::vector<std::string> out;
  for (const Message& m : messages) {
    if (const auto* u = std::get_if<UserMessage>(&m)) out.push_back(text_of(u->content));
    if (const auto* a = std::get_if<AssistantMessage>(&m)) out.push_back(text_of(*a));
  }
  return out;
}

std::string golden(const char* name) {
  return agentkit::testing::read_file(std::filesystem::path(AGENTKIT_SESSION_GOLDEN_DIR) / name);
}

AssistantMessage reply(std::string provider, std::string api, std::string model) {
  AssistantMessage a;
  a.content.push_back(TextBlock{"ok"});
  a.provider = std::move(provider);
  a.api = std::move(api);
  a.model = std::move(model);
  return a;
}

}  // namespace

TEST_CASE("forking from entry 2 of 4 gives two leaves and keeps every original line") {
  // REQ-SESS-07
  session::MemoryStore memory;
  auto log = new_log(memory);
  std::vector<std::string> ids;
  for (const char* t : {"1", "2", "3", "4"}) {
    ids.push_back(log.append_message(user_text(t)).value());
  }
  std::string before = memory.bytes();
  REQUIRE(log.fork(ids[1]));
  auto tip = log.append_message(user_text("2b")).value();

  CHECK(session::leaves(log.contents().entries) == std::vector<std::string>{ids[3], tip});
  CHECK(memory.bytes().substr(0, before.size()) == before);
  CHECK(lines_of(memory.bytes()).size() == 6);
  auto path = session::branch(log.contents().entries, tip);
  REQUIRE(path.size() == 3);
  CHECK(path[0]->id == ids[0]);
  CHECK(path[1]->id == ids[1]);
  CHECK(texts(session::fold(log.contents().entries, ids[3]).messages) ==
        std::vector<std::string>{"1", "2", "3", "4"});
  CHECK(texts(session::fold(log.contents().entries, tip).messages) ==
        std::vector<std::string>{"1", "2", "2b"});
}

TEST_CASE("the empty leaf is before the first entry and a new root starts there") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  auto first = log.append_message(user_text("one")).value();
  REQUIRE(log.fork(""));
  CHECK(session::branch(log.contents().entries, "").empty());
  auto second_root = log.append_message(user_text("again")).value();
  CHECK(log.find(second_root)->parent_id.empty());
  CHECK(session::leaves(log.contents().entries).size() == 2);
  CHECK(log.fork("nope").error().code == Errc::not_found);
  CHECK(log.leaf() == second_root);
  (void)first;
}

TEST_CASE("leaving a branch records its summary, which the model reads in the pinned wrapper") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  auto start = log.append_message(user_text("start")).value();
  REQUIRE(log.append_message(user_text("a rewrite")));
  auto summary = log.leave_branch(start, "Tried a rewrite; abandoned it.").value();
  const session::Entry* e = log.find(summary);
  REQUIRE(e != nullptr);
  CHECK(e->type == session::EntryType::branch_summary);
  CHECK(e->parent_id == start);
  auto state = session::fold(log.contents().entries, log.leaf());
  CHECK(texts(state.messages) ==
        std::vector<std::string>{"start", golden("branch_summary.txt")});
}

TEST_CASE("the compaction and branch-summary wrappers match their goldens byte for byte") {
  CHECK(session::render_compaction("We listed the files.") == golden("compaction.txt"));
  CHECK(session::render_branch_summary("Tried a rewrite; abandoned it.") ==
        golden("branch_summary.txt"));
}

TEST_CASE("a compaction replaces the entries before its kept point with its summary") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  REQUIRE(log.append_message(user_text("1")));
  auto kept = log.append_message(user_text("2")).value();
  REQUIRE(log.append_message(user_text("3")));
  REQUIRE(log.append_compaction("We listed the files.", kept));
  REQUIRE(log.append_message(user_text("4")));
  REQUIRE(log.append_custom_message("reminder", "run the tests"));
  auto state = session::fold(log.contents().entries, log.leaf());
  CHECK(texts(state.messages) == std::vector<std::string>{golden("compaction.txt"), "2", "3", "4",
                                                          "run the tests"});
}

TEST_CASE(
    "a compaction record pins entries before its kept point, and the fold shows them after the "
    "summary") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  auto first = log.append_message(user_text("1")).value();
  auto pinned = log.append_message(user_text("skill body")).value();
  REQUIRE(log.append_message(user_text("3")));
  auto kept = log.append_message(user_text("4")).value();
  session::CompactionRecord record;
  record.summary = "We listed the files.";
  record.first_kept_entry_id = kept;
  record.pinned_entry_ids = {pinned};
  record.dropped_messages = 2;
  record.dropped_from_entry_id = first;
  record.tokens_before = 900;
  record.tokens_after = 120;
  auto id = log.append_compaction(record).value();
  auto state = session::fold(log.contents().entries, log.leaf());
  CHECK(texts(state.messages) ==
        std::vector<std::string>{golden("compaction.txt"), "skill body", "4"});
  CHECK(state.entry_ids == std::vector<std::string>{id, pinned, kept});
  REQUIRE(state.compaction);
  CHECK(state.compaction->tokens_before == 900);
  // Read back whole, and the summarised entries (not the pinned one) listed.
  auto records = session::compactions(log.contents().entries, log.leaf());
  REQUIRE(records.size() == 1);
  CHECK(records[0].pinned_entry_ids == std::vector<std::string>{pinned});
  CHECK(records[0].dropped_messages == 2);
  CHECK(records[0].tokens_after == 120);
  std::vector<std::string> summarised;
  for (const auto* e : session::summarised_entries(log.contents().entries, id))
    summarised.push_back(e->id);
  CHECK(summarised.size() == 2);
  CHECK(std::find(summarised.begin(), summarised.end(), pinned) == summarised.end());
  CHECK(session::summarised_entries(log.contents().entries, kept).empty());
}

TEST_CASE(
    "a compaction record pinning an entry after its kept point is refused and writes nothing") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  auto kept = log.append_message(user_text("1")).value();
  auto later = log.append_message(user_text("2")).value();
  session::CompactionRecord record;
  record.summary = "s";
  record.first_kept_entry_id = kept;
  record.pinned_entry_ids = {later};
  const std::size_t before = log.contents().entries.size();
  auto refused = log.append_compaction(record);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == Errc::not_found);
  CHECK(log.contents().entries.size() == before);
}

TEST_CASE("resume folds the last model change and thinking level, ignoring the caller") {
  // REQ-SESS-02: model_change(A), a turn, model_change(B): the agent is built for B.
  session::MemoryStore memory;
  session::ModelRef a{"anthropic", "anthropic-messages", "claude-sonnet-4-5"};
  session::ModelRef b{"openai", "openai-responses", "gpt-5"};
  {
    auto log = new_log(memory);
    REQUIRE(log.append_model_change(a));
    REQUIRE(log.append_thinking_level(ThinkingLevel::low));
    REQUIRE(log.append_message(user_text("hi")));
    REQUIRE(log.append_message(reply(a.provider, a.api, a.model)));
    REQUIRE(log.append_model_change(b));
    REQUIRE(log.append_thinking_level(ThinkingLevel::high));
  }
  auto log = session::Log::open(std::make_unique<session::MemoryStore>(memory), {}).value();
  auto state = session::fold(log.contents().entries, log.leaf());
  REQUIRE(state.model.has_value());
  CHECK(*state.model == b);  // all three fields
  CHECK(state.thinking == ThinkingLevel::high);
  CHECK(state.messages.size() == 2);
  CHECK(state.leaf == log.leaf());
}

TEST_CASE("without a model change, resume takes the provenance of the last assistant message") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  REQUIRE(log.append_message(user_text("hi")));
  REQUIRE(log.append_message(reply("google", "google-generative-ai", "gemini-2.5-pro")));
  REQUIRE(log.append_message(user_text("more")));
  auto state = session::fold(log.contents().entries, log.leaf());
  CHECK(state.model == session::ModelRef{"google", "google-generative-ai", "gemini-2.5-pro"});
  CHECK_FALSE(state.thinking.has_value());
}

TEST_CASE("a message the codec cannot read is listed by the fold, never dropped unseen") {
  const std::string header = R"({"type":"session","version":1,"id":"s1",)"
                             R"("timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"})";
  const auto message = [](std::string_view id, std::string_view parent, std::string_view body) {
    std::string p = parent.empty() ? "null" : "\"" + std::string(parent) + "\"";
    return R"({"id":")" + std::string(id) + R"(","parent_id":)" + p +
           R"(,"type":"message","timestamp":"t","message":)" + std::string(body) + "}\n";
  };
  const std::string good = R"({"role":"user","content":[{"type":"text","text":"hi"}]})";
  const std::string bytes = header + "\n" + message("e1", "", good) +
                            message("e2", "e1", R"({"role":"martian","content":[]})") +
                            message("e3", "e2", good);
  session::LoadResult loaded = session::parse_log(bytes);
  CHECK(loaded.repairs.empty());  // valid JSON: the loader keeps the line as it is
  session::Resumed folded = session::fold(loaded.entries, "e3");
  CHECK(folded.entry_ids == std::vector<std::string>{"e1", "e3"});
  REQUIRE(folded.unreadable.size() == 1);
  CHECK(folded.unreadable[0].kind == session::RepairKind::corrupt_line);
  CHECK(folded.unreadable[0].detail.find("entry 'e2'") != std::string::npos);
  CHECK(folded.unreadable[0].detail.find("role") != std::string::npos);
  CHECK(session::to_jsonl(loaded) == bytes);  // the line is still there, byte for byte
}
