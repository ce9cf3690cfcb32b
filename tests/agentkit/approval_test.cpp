// Tool approvals (human in the loop): the held batch, the decisions of the next run, the log
// entries, resume from the log with at-most-once, and a real two-process approval.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "agentkit/session/log.hpp"
#include "harness.hpp"
#include "session/session_support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

extern char** environ;

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

std::shared_ptr<session::Log> shared(Result<session::Log> log) {
  return std::make_shared<session::Log>(std::move(log).value());
}

// A tool every call of which waits for a person.
CountingTool guarded_tool(std::string name, std::string reply = "done") {
  CountingTool t = counting_tool(std::move(name), std::move(reply));
  t.definition.requires_approval = true;
  return t;
}

std::vector<const ToolResultMessage*> results_of(const std::vector<Message>& messages) {
  std::vector<const ToolResultMessage*> out;
  for (const auto& m : messages) {
    if (const auto* r = std::get_if<ToolResultMessage>(&m)) out.push_back(r);
  }
  return out;
}

std::vector<std::string> ids_of(const std::vector<PendingApproval>& pending) {
  std::vector<std::string> out;
  for (const auto& p : pending) out.push_back(p.tool_use_id);
  return out;
}

std::vector<std::string> entry_types(const std::string& bytes) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(bytes)) {
    out.push_back(json::parse(line).value().find("type")->as_string());
  }
  return out;
}

// A batch of two: `look` (no approval needed) and `remove` (needs one).
faux::FauxResponse look_and_remove() {
  return faux::tool_call_response({faux::tool_call("c1", "look", "{}"),
                                   faux::tool_call("c2", "remove", R"({"path":"a.txt"})")});
}

}  // namespace

TEST_CASE("a call that requires approval holds its whole batch: no handler runs, the run stops") {
  auto look = counting_tool("look");
  auto remove = guarded_tool("remove");
  EventLog events;
  RuntimeConfig rt;
  rt.observability.observers.push_back(events.observer());
  auto fx = faux_agent({look_and_remove(), faux::text_response("never asked")},
                       {look.definition, remove.definition}, std::move(rt));
  auto s = fx.agent.start().value();
  auto r = s.run("tidy up");
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::awaiting_approval);
  CHECK(*look.calls == 0);  // the unaffected sibling waits too: the batch runs as a whole
  CHECK(*remove.calls == 0);
  CHECK(fx.faux->request_count() == 1);
  REQUIRE(r->pending_approvals.size() == 1);
  const PendingApproval& p = r->pending_approvals[0];
  CHECK(p.tool_use_id == "c2");
  CHECK(p.tool_name == "remove");
  CHECK(p.why == PendingApproval::Why::flag);
  CHECK(json::dump(p.arguments) == R"({"path":"a.txt"})");
  CHECK(results_of(r->messages).empty());
  CHECK(events.count("tool_execution_start") == 0);
  CHECK(events.check_balanced().empty());
  CHECK(pending_approvals(s.snapshot()) == r->pending_approvals);
}

TEST_CASE(
    "after the decisions the batch runs whole: approved and unaffected run, rejected get the "
    "reason") {
  auto look = counting_tool("look", "two files");
  auto remove = guarded_tool("remove", "removed");
  auto fx = faux_agent(
      {faux::tool_call_response({faux::tool_call("c1", "look", "{}"),
                                 faux::tool_call("c2", "remove", R"({"path":"a.txt"})"),
                                 faux::tool_call("c3", "remove", R"({"path":"b.txt"})")}),
       faux::text_response("a.txt is gone, b.txt stays")},
      {look.definition, remove.definition});
  auto s = fx.agent.start().value();
  auto held = s.run("tidy up").value();
  REQUIRE(ids_of(held.pending_approvals) == std::vector<std::string>{"c2", "c3"});

  Turn decide;
  decide.approvals = {ApprovalDecision::reject("c3", "b.txt is my thesis"),
                      ApprovalDecision::approve("c2")};
  auto r = s.run(decide);
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  CHECK(r->pending_approvals.empty());
  CHECK(*look.calls == 1);
  CHECK(*remove.calls == 1);
  auto results = results_of(r->messages);
  REQUIRE(results.size() == 3);
  CHECK(results[0]->tool_use_id == "c1");
  CHECK(results[1]->tool_use_id == "c2");
  CHECK(results[2]->tool_use_id == "c3");
  CHECK_FALSE(results[1]->is_error);
  CHECK(results[2]->is_error);
  CHECK(text_of(results[2]->content).find("b.txt is my thesis") != std::string::npos);
  CHECK(results[2]->metadata.find("error_code")->as_string() == "rejected");
  // The model's next request holds the three results after the call, nothing else in between.
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  REQUIRE(requests[1].messages.size() == 5);
  CHECK(std::holds_alternative<AssistantMessage>(requests[1].messages[1]));
  CHECK(pending_approvals(s.snapshot()).empty());
}

TEST_CASE("a predicate asks per call over the prepared arguments") {
  auto remove = counting_tool("remove");
  remove.definition.input_schema = schema::object(
      {schema::required("path", schema::string()), schema::optional("depth", schema::integer())});
  std::vector<std::string> seen;
  remove.definition.approval_predicate = [&seen](const json::Value& args) {
    seen.push_back(json::dump(args));
    return args.find("path")->as_string().starts_with("/etc");
  };
  auto fx = faux_agent({faux::tool_call_response(
                            {faux::tool_call("c1", "remove", R"({"path":"/tmp/x","depth":"2"})"),
                             faux::tool_call("c2", "remove", R"({"path":"/etc/passwd"})")}),
                        faux::text_response("ok")},
                       {remove.definition});
  auto s = fx.agent.start().value();
  auto r = s.run("clean").value();
  CHECK(r.stop_reason == RunStopReason::awaiting_approval);
  REQUIRE(ids_of(r.pending_approvals) == std::vector<std::string>{"c2"});
  CHECK(r.pending_approvals[0].why == PendingApproval::Why::predicate);
  // Coerced before the predicate saw it: "2" became 2.
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == R"({"path":"/tmp/x","depth":2})");
  CHECK(*remove.calls == 0);
}

TEST_CASE("a throwing predicate and arguments it cannot see fail closed: the call asks") {
  auto remove = counting_tool("remove");
  remove.definition.input_schema = schema::object({schema::required("path", schema::string())});
  remove.definition.approval_predicate = [](const json::Value& args) -> bool {
    if (args.find("path")->as_string() == "boom") throw std::runtime_error("predicate bug");
    return false;
  };
  auto fx =
      faux_agent({faux::tool_call_response({faux::tool_call("c1", "remove", R"({"path":"boom"})"),
                                            faux::tool_call("c2", "remove", R"({"path":)"),
                                            faux::tool_call("c3", "remove", R"({"file":"x"})"),
                                            faux::tool_call("c4", "remove", R"({"path":"fine"})")}),
                  faux::text_response("ok")},
                 {remove.definition});
  auto s = fx.agent.start().value();
  auto r = s.run("clean").value();
  CHECK(r.stop_reason == RunStopReason::awaiting_approval);
  REQUIRE(ids_of(r.pending_approvals) == std::vector<std::string>{"c1", "c2", "c3"});
  CHECK(r.pending_approvals[0].detail.find("predicate bug") != std::string::npos);
  CHECK(r.pending_approvals[1].detail.find("not valid JSON") != std::string::npos);
  CHECK(r.pending_approvals[2].detail.find("could not be checked") != std::string::npos);
  CHECK(*remove.calls == 0);

  // Approving malformed arguments never hands them to the handler.
  Turn decide;
  decide.approvals = {ApprovalDecision::approve("c1"), ApprovalDecision::approve("c2"),
                      ApprovalDecision::approve("c3")};
  auto done = s.run(decide).value();
  auto results = results_of(done.messages);
  REQUIRE(results.size() == 4);
  CHECK_FALSE(results[0]->is_error);
  CHECK(results[1]->is_error);
  CHECK(results[2]->is_error);
  CHECK_FALSE(results[3]->is_error);
  CHECK(*remove.calls == 2);
}

TEST_CASE("before_tool_call can answer ask, and the call a person approved is not asked again") {
  auto shell = counting_tool("shell_out");
  int asked = 0;
  RuntimeConfig rt;
  rt.extensions.before_tool_call = [&asked](const ToolCallRequest& req) {
    if (req.tool_name != "shell_out") return ToolCallDecision::allow();
    ++asked;
    return ToolCallDecision::ask("runs a command on the host");
  };
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "shell_out", "{}")}),
                        faux::text_response("ran it")},
                       {shell.definition}, std::move(rt));
  auto s = fx.agent.start().value();
  auto r = s.run("go").value();
  REQUIRE(r.pending_approvals.size() == 1);
  CHECK(r.pending_approvals[0].why == PendingApproval::Why::interceptor);
  CHECK(r.pending_approvals[0].detail == "runs a command on the host");
  Turn decide;
  decide.approvals = {ApprovalDecision::approve("c1")};
  auto done = s.run(decide).value();
  CHECK(done.stop_reason == RunStopReason::stop);
  CHECK(*shell.calls == 1);
  CHECK(asked == 2);  // consulted again (a deny would still deny), its ask now means allow
}

TEST_CASE("a decision for a call that is not pending is an error naming it, and changes nothing") {
  auto look = counting_tool("look");
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({look_and_remove(), faux::text_response("ok")},
                       {look.definition, remove.definition});
  auto s = fx.agent.start().value();

  Turn early;
  early.input = "hi";
  early.approvals = {ApprovalDecision::approve("c9")};
  auto refused = s.run(early);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == Errc::invalid_argument);
  CHECK(refused.error().message.find("'c9'") != std::string::npos);
  CHECK(fx.faux->request_count() == 0);

  REQUIRE(s.run("tidy up").value().stop_reason == RunStopReason::awaiting_approval);
  Turn wrong;
  wrong.approvals = {ApprovalDecision::approve("c2"), ApprovalDecision::approve("c1")};
  auto bad = s.run(wrong);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("'c1'") != std::string::npos);
  CHECK(bad.error().message.find("not awaiting approval") != std::string::npos);
  CHECK(*look.calls == 0);
  CHECK(*remove.calls == 0);
  CHECK(ids_of(pending_approvals(s.snapshot())) == std::vector<std::string>{"c2"});

  Turn right;
  right.approvals = {ApprovalDecision::approve("c2")};
  REQUIRE(s.run(right));
  CHECK(*remove.calls == 1);
}

TEST_CASE("a run over pending calls without their decisions is refused and names them") {
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "remove", "{}")}),
                        faux::text_response("ok")},
                       {remove.definition});
  auto s = fx.agent.start().value();
  REQUIRE(s.run("go").value().stop_reason == RunStopReason::awaiting_approval);
  auto refused = s.run("never mind, do something else");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == Errc::invalid_argument);
  CHECK(refused.error().message.find("'c1' (remove)") != std::string::npos);
  CHECK(fx.faux->request_count() == 1);
  CHECK(pending_approvals(s.snapshot()).size() == 1);
}

TEST_CASE("the deciding run's input follows the held batch's results") {
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "remove", "{}")}),
                        faux::text_response("removed, and here is the summary")},
                       {remove.definition});
  auto s = fx.agent.start().value();
  REQUIRE(s.run("go").value().stop_reason == RunStopReason::awaiting_approval);
  Turn decide("then summarise");
  decide.approvals = {ApprovalDecision::approve("c1")};
  auto r = s.run(decide).value();
  REQUIRE(r.messages.size() == 3);
  CHECK(std::holds_alternative<ToolResultMessage>(r.messages[0]));
  CHECK(text_of_message(r.messages[1]) == "then summarise");
  CHECK(std::holds_alternative<AssistantMessage>(r.messages[2]));
}

TEST_CASE("pending approvals survive a serialised SessionHandle and resume in a new agent") {
  auto remove = guarded_tool("remove");
  SessionHandle saved;
  std::vector<PendingApproval> asked;
  {
    auto fx =
        faux_agent({faux::tool_call_response({faux::tool_call("c1", "remove", R"({"path":"x"})")})},
                   {remove.definition});
    auto s = fx.agent.start().value();
    auto r = s.run("go").value();
    asked = r.pending_approvals;
    saved = SessionHandle::parse(r.handle.serialize()).value();
  }
  CHECK(pending_approvals(saved) == asked);
  auto fx = faux_agent({faux::text_response("done")}, {remove.definition});
  StartOptions options;
  options.resume = saved;
  auto s = fx.agent.start(std::move(options)).value();
  Turn decide;
  decide.approvals = {ApprovalDecision::approve("c1")};
  auto r = s.run(decide).value();
  CHECK(r.stop_reason == RunStopReason::stop);
  CHECK(*remove.calls == 1);
}

TEST_CASE("a cancel before the decision closes every call aborted instead of holding the batch") {
  auto remove = guarded_tool("remove");
  agentkit::stop_source cancel;
  RuntimeConfig rt;
  rt.extensions.before_tool_call = [&cancel](const ToolCallRequest&) {
    cancel.request_stop();
    return ToolCallDecision::allow();
  };
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "remove", "{}")})},
                       {remove.definition}, std::move(rt));
  auto s = fx.agent.start().value();
  auto r = s.run("go", cancel.get_token()).value();
  CHECK(r.stop_reason == RunStopReason::aborted);
  CHECK(r.pending_approvals.empty());
  CHECK(results_of(r.messages).size() == 1);
}

// ---- The log -------------------------------------------------------------------------------

TEST_CASE(
    "a held batch is logged: the request, then the decision and started markers before results") {
  session::MemoryStore memory;
  auto look = counting_tool("look");
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({look_and_remove(), faux::text_response("ok")},
                       {look.definition, remove.definition});
  StartOptions options;
  options.log = shared(session::Log::create(std::make_unique<session::MemoryStore>(memory), {}));
  auto s = fx.agent.start(std::move(options)).value();
  REQUIRE(s.run("tidy").value().stop_reason == RunStopReason::awaiting_approval);
  CHECK(entry_types(memory.bytes()) == std::vector<std::string>{"session", "model_change",
                                                                "message", "message",
                                                                "approval_request"});
  Turn decide;
  decide.approvals = {ApprovalDecision::approve("c2")};
  REQUIRE(s.run(decide));
  CHECK(entry_types(memory.bytes()) ==
        std::vector<std::string>{"session", "model_change", "message", "message",
                                 "approval_request", "approval_decision", "tool_call_started",
                                 "tool_call_started", "message", "message", "message"});
}

TEST_CASE("a session started over the log reports the pending list its writer left") {
  session::MemoryStore memory;
  auto remove = guarded_tool("remove");
  std::vector<PendingApproval> asked;
  {
    auto fx =
        faux_agent({look_and_remove()}, {counting_tool("look").definition, remove.definition});
    StartOptions options;
    options.log = shared(session::Log::create(std::make_unique<session::MemoryStore>(memory), {}));
    auto s = fx.agent.start(std::move(options)).value();
    asked = s.run("tidy").value().pending_approvals;
  }
  REQUIRE(asked.size() == 1);
  auto loaded = session::parse_log(memory.bytes());
  CHECK(session::fold(loaded.entries, loaded.entries.back().id).approvals.pending == asked);

  auto look = counting_tool("look");
  auto fx = faux_agent({faux::text_response("done")}, {look.definition, remove.definition});
  StartOptions options;
  options.log = shared(session::Log::open(std::make_unique<session::MemoryStore>(memory), {}));
  auto s = fx.agent.start(std::move(options)).value();
  CHECK(pending_approvals(s.snapshot()) == asked);
  Turn decide;
  decide.approvals = {ApprovalDecision::approve("c2")};
  REQUIRE(s.run(decide).value().stop_reason == RunStopReason::stop);
  CHECK(*look.calls == 1);
  CHECK(*remove.calls == 1);
}

namespace {

// A log whose writer held look_and_remove(), recorded the approval of c2 and then died; with
// `started` the markers it wrote before dying.
session::MemoryStore log_died_after_decision(std::vector<std::string> started) {
  session::MemoryStore memory;
  {
    auto fx = faux_agent({look_and_remove()},
                         {counting_tool("look").definition, guarded_tool("remove").definition});
    StartOptions options;
    options.log = shared(session::Log::create(std::make_unique<session::MemoryStore>(memory), {}));
    auto s = fx.agent.start(std::move(options)).value();
    (void)s.run("tidy");
  }  // the writer's lock goes with its session
  auto log = session::Log::open(std::make_unique<session::MemoryStore>(memory), {}).value();
  std::vector<ApprovalDecision> yes{ApprovalDecision::approve("c2")};
  (void)log.append_approval_decision(yes);
  for (const auto& id : started)
    (void)log.append_tool_call_started(id, id == "c1" ? "look" : "remove");
  return memory;
}

}  // namespace

TEST_CASE("an approved call that never started runs after a resume, without a new decision") {
  session::MemoryStore memory = log_died_after_decision({});
  auto look = counting_tool("look");
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({faux::text_response("done")}, {look.definition, remove.definition});
  StartOptions options;
  options.log = shared(session::Log::open(std::make_unique<session::MemoryStore>(memory), {}));
  auto s = fx.agent.start(std::move(options)).value();
  CHECK(pending_approvals(s.snapshot()).empty());
  Turn stray;
  stray.approvals = {ApprovalDecision::approve("c2")};
  auto refused = s.run(stray);  // already decided: not pending
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("'c2'") != std::string::npos);
  auto r = s.run(Turn{}).value();
  CHECK(r.stop_reason == RunStopReason::stop);
  CHECK(*look.calls == 1);
  CHECK(*remove.calls == 1);
  CHECK(results_of(r.messages).size() == 2);
}

TEST_CASE(
    "a call that started but recorded no result is not run again: it is answered interrupted") {
  session::MemoryStore memory = log_died_after_decision({"c1", "c2"});
  auto look = counting_tool("look");
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({faux::text_response("I will check whether a.txt is gone")},
                       {look.definition, remove.definition});
  StartOptions options;
  options.log = shared(session::Log::open(std::make_unique<session::MemoryStore>(memory), {}));
  auto s = fx.agent.start(std::move(options)).value();
  auto r = s.run("what happened?").value();
  CHECK(*look.calls == 0);
  CHECK(*remove.calls == 0);
  auto results = results_of(r.messages);
  REQUIRE(results.size() == 2);
  for (const auto* result : results) {
    CHECK(result->is_error);
    CHECK(text_of(result->content).find("interrupted: it may or may not have taken effect") !=
          std::string::npos);
  }
  // The input came after the results: the transcript the model saw is valid.
  CHECK(text_of_message(last_message(fx.faux->requests().at(0))) == "what happened?");
}

TEST_CASE("only the started call is interrupted; its never-started sibling runs") {
  session::MemoryStore memory = log_died_after_decision({"c1"});
  auto look = counting_tool("look");
  auto remove = guarded_tool("remove");
  auto fx = faux_agent({faux::text_response("ok")}, {look.definition, remove.definition});
  StartOptions options;
  options.log = shared(session::Log::open(std::make_unique<session::MemoryStore>(memory), {}));
  auto s = fx.agent.start(std::move(options)).value();
  auto r = s.run(Turn{}).value();
  CHECK(*look.calls == 0);
  CHECK(*remove.calls == 1);
  auto results = results_of(r.messages);
  REQUIRE(results.size() == 2);
  CHECK(results[0]->is_error);
  CHECK_FALSE(results[1]->is_error);
}

// ---- Two processes ---------------------------------------------------------------------------

namespace {

struct Child {
  int status = -1;
  std::string out;
};

// Runs the approval helper with `args`, its stdout captured.
Child run_helper(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text{AGENTKIT_APPROVAL_HELPER};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  Child child;
  if (rc != 0) {
    ::close(fds[0]);
    throw std::runtime_error("could not start the approval helper");
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    child.out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  ::waitpid(pid, &child.status, 0);
  return child;
}

}  // namespace

TEST_CASE("an approval asked for in one process is granted in the next, and every call runs once") {
  TempDir dir;
  std::string log = (dir.path() / "s.jsonl").string();
  std::string effects = (dir.path() / "effects.txt").string();

  Child ask = run_helper({"ask", log, effects});
  INFO(ask.out);
  REQUIRE(WIFEXITED(ask.status));
  REQUIRE(WEXITSTATUS(ask.status) == 0);
  CHECK(ask.out.find("awaiting_approval pending=c2:remove") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(effects));  // nothing ran in the asking process

  Child grant = run_helper({"grant", log, effects});
  INFO(grant.out);
  REQUIRE(WIFEXITED(grant.status));
  REQUIRE(WEXITSTATUS(grant.status) == 0);
  CHECK(grant.out.find("resumed pending=c2:remove") != std::string::npos);
  CHECK(grant.out.find("stop_reason=stop") != std::string::npos);
  CHECK(read_file(effects) == "look c1\nremove c2\n");
}

TEST_CASE("a process killed inside an approved batch: the next one runs nothing twice") {
  TempDir dir;
  std::string log = (dir.path() / "s.jsonl").string();
  std::string effects = (dir.path() / "effects.txt").string();
  REQUIRE(WEXITSTATUS(run_helper({"ask", log, effects}).status) == 0);
  Child crash = run_helper({"grant-and-die", log, effects});
  INFO(crash.out);
  REQUIRE(WIFSIGNALED(crash.status));
  REQUIRE(WTERMSIG(crash.status) == SIGKILL);
  Child finish = run_helper({"finish", log, effects});
  INFO(finish.out);
  REQUIRE(WEXITSTATUS(finish.status) == 0);
  CHECK(finish.out.find("interrupted=2") != std::string::npos);
  CHECK(read_file(effects) == "look c1\nremove c2\n");  // from the killed process only
}
