// The approval entries of the log (request, decision, started marker): written, loaded, folded.
#include "agentkit/session/log.hpp"
#include "session/session_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

session::Log new_log(session::MemoryStore& memory) {
  return session::Log::create(std::make_unique<session::MemoryStore>(memory), {}).value();
}

AssistantMessage calls(std::vector<std::string> ids) {
  AssistantMessage a;
  for (auto& id : ids) a.content.push_back(ToolUseBlock{id, "remove", json::Raw("{}"), {}});
  a.stop_reason = StopReason::tool_use;
  return a;
}

ToolResultMessage answer(std::string id) {
  ToolResultMessage r;
  r.tool_use_id = std::move(id);
  r.tool_name = "remove";
  r.content.push_back(TextBlock{"ok"});
  return r;
}

PendingApproval pending(std::string id) {
  return PendingApproval{std::move(id), "remove", json::parse(R"({"path":"a.txt"})").value(),
                         PendingApproval::Why::predicate,
                         "the approval predicate of 'remove' asked."};
}

session::ApprovalState folded(const session::MemoryStore& memory) {
  auto loaded = session::parse_log(memory.bytes());
  return session::fold(loaded.entries, loaded.entries.back().id).approvals;
}

}  // namespace

TEST_CASE("approval entries are written as JSONL and read back unchanged, with no repair") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  std::vector<PendingApproval> asks{pending("c1")};
  std::vector<ApprovalDecision> answers{ApprovalDecision::reject("c1", "not that file")};
  REQUIRE(log.append_message(Message(calls({"c1"}))));
  REQUIRE(log.append_approval_request(asks));
  REQUIRE(log.append_approval_decision(answers));
  REQUIRE(log.append_tool_call_started("c1", "remove"));
  auto loaded = session::parse_log(memory.bytes());
  CHECK(loaded.repairs.empty());
  REQUIRE(loaded.entries.size() == 4);
  CHECK(loaded.entries[1].type == session::EntryType::approval_request);
  CHECK(loaded.entries[2].type == session::EntryType::approval_decision);
  CHECK(loaded.entries[3].type == session::EntryType::tool_call_started);
  CHECK(session::approval_request_of(loaded.entries[1]).value() == asks);
  CHECK(session::approval_decisions_of(loaded.entries[2]).value() == answers);
  CHECK(session::started_call_of(loaded.entries[3]).value() == "c1");
  CHECK(session::to_jsonl(loaded) == memory.bytes());
}

TEST_CASE("an approval entry with an unusable payload is skipped as a corrupt line and listed") {
  std::string bytes =
      "{\"type\":\"session\",\"version\":1,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n"
      "{\"id\":\"e1\",\"parent_id\":null,\"type\":\"approval_request\",\"timestamp\":\"t\","
      "\"calls\":\"c1\"}\n"
      "{\"id\":\"e2\",\"parent_id\":null,\"type\":\"approval_decision\",\"timestamp\":\"t\","
      "\"decisions\":[{\"tool_use_id\":\"c1\"}]}\n"
      "{\"id\":\"e3\",\"parent_id\":null,\"type\":\"tool_call_started\",\"timestamp\":\"t\"}\n";
  auto loaded = session::parse_log(bytes);
  CHECK(loaded.entries.empty());
  REQUIRE(loaded.repairs.size() == 3);
  for (const auto& r : loaded.repairs) CHECK(r.kind == session::RepairKind::corrupt_line);
}

TEST_CASE("the fold reports a held batch until every call of it has a result") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  REQUIRE(log.append_message(user_text("tidy")));
  REQUIRE(log.append_message(Message(calls({"c1", "c2"}))));
  std::vector<PendingApproval> asks{pending("c2")};
  REQUIRE(log.append_approval_request(asks));
  CHECK(folded(memory).pending == asks);
  CHECK(folded(memory).decided.empty());

  std::vector<ApprovalDecision> yes{ApprovalDecision::approve("c2")};
  REQUIRE(log.append_approval_decision(yes));
  CHECK(folded(memory).pending.empty());
  CHECK(folded(memory).decided == yes);

  REQUIRE(log.append_tool_call_started("c1", "remove"));
  CHECK(folded(memory).started == std::vector<std::string>{"c1"});
  REQUIRE(log.append_message(Message(answer("c1"))));
  CHECK_FALSE(folded(memory).empty());  // c2 has no result yet
  REQUIRE(log.append_message(Message(answer("c2"))));
  CHECK(folded(memory).empty());
}

TEST_CASE("a later assistant message ends what an earlier batch held") {
  session::MemoryStore memory;
  auto log = new_log(memory);
  REQUIRE(log.append_message(Message(calls({"c1"}))));
  std::vector<PendingApproval> asks{pending("c1")};
  REQUIRE(log.append_approval_request(asks));
  AssistantMessage later;
  later.content.push_back(TextBlock{"moving on"});
  REQUIRE(log.append_message(Message(later)));
  CHECK(folded(memory).empty());
}
