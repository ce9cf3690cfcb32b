// A session with an append-only log: written before the first model call, resumed in a new agent,
// write failures surfaced while the run goes on.
#include <filesystem>

#include "agentkit/session/log.hpp"
#include "harness.hpp"
#include "session/session_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

std::shared_ptr<session::Log> shared(Result<session::Log> log) {
  return std::make_shared<session::Log>(std::move(log).value());
}

std::vector<std::string> entry_types(const std::string& bytes) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(bytes)) {
    out.push_back(json::parse(line).value().find("type")->as_string());
  }
  return out;
}

}  // namespace

TEST_CASE("a logged session has its header and the user's message on disk before the model call") {
  // REQ-SESS-09: a crash in turn 1 still leaves the header and the user entry.
  TempDir dir;
  auto path = dir.path() / "s.jsonl";
  std::vector<std::string> seen_by_model;
  auto reply = faux::text_response("hi");
  reply.on_request = [&](const Request&) { seen_by_model = entry_types(read_file(path)); };
  auto fx = faux_agent({reply});
  StartOptions options;
  options.log = shared(session::Log::create(session::file_store(path), {}));
  auto s = fx.agent.start(std::move(options)).value();
  REQUIRE(s.run("hello"));
  CHECK(seen_by_model == std::vector<std::string>{"session", "model_change", "message"});
  CHECK(entry_types(read_file(path)) ==
        std::vector<std::string>{"session", "model_change", "message", "message"});
}

TEST_CASE("a new agent started over the log resumes its branch and the model sees the history") {
  TempDir dir;
  auto path = dir.path() / "s.jsonl";
  auto lookup = counting_tool("lookup", "42");
  {
    auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")}),
                          faux::text_response("the answer is 42")},
                         {lookup.definition});
    StartOptions options;
    options.log = shared(session::Log::create(session::file_store(path), {}));
    auto s = fx.agent.start(std::move(options)).value();
    REQUIRE(s.run("what is it?"));
  }
  auto fx = faux_agent({faux::text_response("yes")});
  StartOptions options;
  options.log = shared(session::Log::open(session::file_store(path), {}));
  auto s = fx.agent.start(std::move(options)).value();
  REQUIRE(s.run("sure?"));
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 1);
  // user, tool call, tool result, answer, then the new question: five messages.
  REQUIRE(requests[0].messages.size() == 5);
  CHECK(std::holds_alternative<ToolResultMessage>(requests[0].messages[2]));
  CHECK(text_of_message(requests[0].messages[4]) == "sure?");
  // The same model resumed: no second model_change.
  auto types = entry_types(read_file(path));
  CHECK(std::count(types.begin(), types.end(), "model_change") == 1);
  CHECK(types.size() == 1 + 1 + 4 + 2);
}

TEST_CASE("a failing log store surfaces as an ErrorEvent and the callback, and the run goes on") {
  // REQ-SESS-08
  auto probe = std::make_unique<ProbeStore>(session::MemoryStore{});
  auto fail = probe->fail_appends;
  auto log = shared(session::Log::create(std::move(probe), {}));
  *fail = true;
  auto lookup = counting_tool("lookup", "42");
  EventLog events;
  RuntimeConfig rt;
  rt.observability.observers.push_back(events.observer());
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")}),
                        faux::text_response("done")},
                       {lookup.definition}, std::move(rt));
  std::vector<Error> reported;
  StartOptions options;
  options.log = log;
  options.on_log_error = [&](const Error& e) {
    reported.push_back(e);
    throw std::runtime_error("a careless callback");  // contained
  };
  auto s = fx.agent.start(std::move(options)).value();
  auto r = s.run("look it up");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  // model_change at start, then user, call, result, answer: five failed writes, none lost.
  CHECK(reported.size() == 5);
  CHECK(events.count("error") >= 4);
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  CHECK(text_of_message(requests[1].messages[0]) == "look it up");
  CHECK(log->contents().entries.size() == 5);
}

TEST_CASE("starting over a log that another model wrote appends one model change") {
  session::MemoryStore memory;
  {
    auto log = session::Log::create(std::make_unique<session::MemoryStore>(memory), {}).value();
    REQUIRE(log.append_model_change({"anthropic", "anthropic-messages", "claude-sonnet-4-5"}));
    REQUIRE(log.append_message(user_text("earlier")));
  }
  auto fx = faux_agent({faux::text_response("ok")});
  StartOptions options;
  options.log = shared(session::Log::open(std::make_unique<session::MemoryStore>(memory), {}));
  auto s = fx.agent.start(std::move(options)).value();
  auto types = entry_types(memory.bytes());
  CHECK(types == std::vector<std::string>{"session", "model_change", "message", "model_change"});
  REQUIRE(s.run("now you"));
  auto folded = session::fold(session::parse_log(memory.bytes()).entries,
                              session::parse_log(memory.bytes()).entries.back().id);
  REQUIRE(folded.model.has_value());
  CHECK(folded.model->provider != "anthropic");
}

TEST_CASE("without a log a session runs as it did before logs existed") {
  auto fx = faux_agent({faux::text_response("hi")});
  auto s = fx.agent.start().value();
  auto r = s.run("hello");
  REQUIRE(r);
  CHECK(r->messages.size() == 2);
}

namespace {

// Starts an agent at `level` over the log in `memory` (created on first use), runs one turn.
void run_at_thinking(session::MemoryStore& memory, std::optional<ThinkingLevel> level) {
  RuntimeConfig rt;
  rt.model.thinking = level;
  auto fx = faux_agent({faux::text_response("ok")}, {}, std::move(rt));
  auto store = std::make_unique<session::MemoryStore>(memory);
  StartOptions options;
  options.log = memory.bytes().empty() ? shared(session::Log::create(std::move(store), {}))
                                       : shared(session::Log::open(std::move(store), {}));
  auto s = fx.agent.start(std::move(options)).value();
  REQUIRE(s.run("go"));
}

std::optional<ThinkingLevel> folded_thinking(const session::MemoryStore& memory) {
  auto loaded = session::parse_log(memory.bytes());
  return session::fold(loaded.entries, loaded.entries.back().id).thinking;
}

}  // namespace

TEST_CASE("an agent at another thinking level over the log appends one thinking_level_change") {
  session::MemoryStore memory;
  auto count = [&] {
    auto types = entry_types(memory.bytes());
    return std::count(types.begin(), types.end(), "thinking_level_change");
  };
  run_at_thinking(memory, std::nullopt);  // a fresh log and no level: nothing to record
  CHECK(count() == 0);
  run_at_thinking(memory, ThinkingLevel::high);
  CHECK(count() == 1);
  CHECK(folded_thinking(memory) == ThinkingLevel::high);
  run_at_thinking(memory, ThinkingLevel::high);  // the same level resumed: not repeated
  CHECK(count() == 1);
  run_at_thinking(memory, ThinkingLevel::low);
  CHECK(count() == 2);
  CHECK(folded_thinking(memory) == ThinkingLevel::low);
  // An agent that sets no level is a change too: recorded as null, folded back to "none".
  run_at_thinking(memory, std::nullopt);
  CHECK(count() == 3);
  CHECK(folded_thinking(memory) == std::nullopt);
  CHECK(lines_of(memory.bytes()).size() == 1 + 1 + 3 + 2 * 5);
}

TEST_CASE("a session started over a log with an unreadable message reports it and runs on") {
  session::MemoryStore memory;
  {
    auto log = session::Log::create(std::make_unique<session::MemoryStore>(memory), {}).value();
    REQUIRE(log.append_message(user_text("earlier")));
  }
  // A line a newer writer might leave: valid JSON, a role this codec does not know.
  const std::string id = session::parse_log(memory.bytes()).entries.back().id;
  REQUIRE(memory.append(R"({"id":"odd","parent_id":")" + id +
                        R"(","type":"message","timestamp":"t","message":{"role":"martian"}})"
                        "\n"));
  auto fx = faux_agent({faux::text_response("ok")});
  std::vector<Error> reported;
  StartOptions options;
  options.log = shared(session::Log::open(std::make_unique<session::MemoryStore>(memory), {}));
  options.on_log_error = [&](const Error& e) { reported.push_back(e); };
  auto s = fx.agent.start(std::move(options)).value();
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].message.find("entry 'odd'") != std::string::npos);
  REQUIRE(s.run("go on"));
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 1);
  REQUIRE(requests[0].messages.size() == 2);  // "earlier", then "go on"
  CHECK(text_of_message(requests[0].messages[0]) == "earlier");
  CHECK(memory.bytes().find(R"("role":"martian")") != std::string::npos);
}
