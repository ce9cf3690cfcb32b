// make_agent's validation, the tool registry, per-turn tool policy, read_skill, snapshots and the
// lifecycle of Agent and Session.
#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "harness.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

RuntimeConfig faux_runtime(std::shared_ptr<faux::FauxProvider> provider) {
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::move(provider));
  return rt;
}

std::vector<std::string_view> problems_of(const Error& e) {
  std::vector<std::string_view> out;
  for (const auto& d : e.detail) {
    if (d.key == "problem") out.push_back(d.value);
  }
  return out;
}

McpToolSource fake_mcp(std::string name, std::vector<std::string> tool_names) {
  return McpToolSource{std::move(name), [tool_names](agentkit::stop_token) -> Result<std::vector<ToolDefinition>> {
                         std::vector<ToolDefinition> out;
                         for (const auto& n : tool_names) out.push_back(counting_tool(n).definition);
                         return out;
                       }};
}

json::Value read_skill_result(const RunResult& r) {
  for (const auto& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) return json::parse(text_of(t->content)).value();
  }
  return nullptr;
}

// Passes calls on to the faux provider and records the sessions it is told have closed.
class ClosingRecorder final : public ProviderClient {
 public:
  explicit ClosingRecorder(std::shared_ptr<ProviderClient> inner) : inner_(std::move(inner)) {}
  EventStream stream(const Request& request, const StreamOptions& options,
                     agentkit::stop_token stop) override {
    return inner_->stream(request, options, std::move(stop));
  }
  void session_closed(std::string_view session_id) override {
    std::lock_guard lock(mu_);
    closed_.emplace_back(session_id);
  }
  std::vector<std::string> closed() const {
    std::lock_guard lock(mu_);
    return closed_;
  }

 private:
  std::shared_ptr<ProviderClient> inner_;
  mutable std::mutex mu_;
  std::vector<std::string> closed_;
};

// An agent on a faux provider behind `recorder`, with `rt`'s other settings.
Result<Agent> recorded_agent(std::shared_ptr<ClosingRecorder> recorder, RuntimeConfig rt = {}) {
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::move(recorder));
  return make_agent(AgentDefinition{}, std::move(rt));
}

}  // namespace

TEST_CASE("a duplicate tool name fails make_agent with an error naming both owners") {
  AgentDefinition def;
  ToolDefinition a = counting_tool("search").definition;
  a.origin = "builtin";
  def.tools.direct = {a, counting_tool("search").definition};
  auto agent = make_agent(def, faux_runtime(std::make_shared<faux::FauxProvider>()));
  REQUIRE_FALSE(agent);
  CHECK(agent.error().code == Errc::invalid_argument);
  const std::string& msg = agent.error().message;
  CHECK(msg.find("'search' is defined twice") != std::string::npos);
  CHECK(msg.find("direct tool #1 (origin: builtin)") != std::string::npos);
  CHECK(msg.find("direct tool #2") != std::string::npos);
}

TEST_CASE("an MCP tool that would shadow another MCP server's tool is refused naming both servers") {
  AgentDefinition def;
  def.tools.mcp = {fake_mcp("files", {"x__y"}), fake_mcp("files__x", {"y"})};
  auto agent = make_agent(def, faux_runtime(std::make_shared<faux::FauxProvider>()));
  REQUIRE_FALSE(agent);  // "files__x" has "__" and is refused before it can collide
  CHECK(agent.error().message.find("no \"__\"") != std::string::npos);
}

TEST_CASE("MCP tools join the registry as server__tool and collide with direct tools loudly") {
  AgentDefinition def;
  def.tools.direct = {counting_tool("files__read").definition};
  def.tools.mcp = {fake_mcp("files", {"read", "list"})};
  auto agent = make_agent(def, faux_runtime(std::make_shared<faux::FauxProvider>()));
  REQUIRE_FALSE(agent);
  const std::string& msg = agent.error().message;
  CHECK(msg.find("'files__read' is defined twice") != std::string::npos);
  CHECK(msg.find("MCP server 'files'") != std::string::npos);

  AgentDefinition ok;
  ok.tools.mcp = {fake_mcp("files", {"read", "list"})};
  auto fx_provider = std::make_shared<faux::FauxProvider>(std::vector<faux::FauxResponse>{faux::text_response("hi")});
  auto built = make_agent(ok, faux_runtime(fx_provider));
  REQUIRE(built);
  REQUIRE(built->run("go"));
  CHECK(fx_provider->requests()[0].tool_names == std::vector<std::string>{"files__read", "files__list"});
}

TEST_CASE("make_agent reports every problem, not only the first") {
  AgentDefinition def;
  def.skills = {Skill{"", "", "", {}}, Skill{" spaced", "", "", {}}};
  ToolDefinition no_handler;
  no_handler.name = "broken";
  ToolDefinition bad_name = counting_tool("has space").definition;
  ToolDefinition reserved = counting_tool("read_skill").definition;
  def.tools.direct = {no_handler, bad_name, reserved};
  RuntimeConfig rt = faux_runtime(std::make_shared<faux::FauxProvider>());
  rt.loop.max_turns = 0;
  auto agent = make_agent(def, rt);
  REQUIRE_FALSE(agent);
  auto problems = problems_of(agent.error());
  CHECK(problems.size() == 6);
}

TEST_CASE("an unknown vendor or an unregistered wire is a clear construction error") {
  RuntimeConfig rt;
  rt.model.spec = "antrhopic/claude";
  auto a = make_agent({}, rt);
  REQUIRE_FALSE(a);
  CHECK(a.error().message.find("unknown vendor 'antrhopic'") != std::string::npos);

  RuntimeConfig rt2;
  rt2.model.spec = "faux/x";  // the faux wire is not registered
  auto b = make_agent({}, rt2);
  REQUIRE_FALSE(b);
  CHECK(b.error().message.find("no provider registered for wire API 'faux'") != std::string::npos);
}

TEST_CASE("a shell tool without before_tool_call fails make_agent unless explicitly allowed") {
  AgentDefinition def;
  def.tools.direct = {counting_tool("execute").definition};
  auto unguarded = make_agent(def, faux_runtime(std::make_shared<faux::FauxProvider>()));
  REQUIRE_FALSE(unguarded);
  CHECK(unguarded.error().message.find("unguarded_execute") != std::string::npos);

  RuntimeConfig allowed = faux_runtime(std::make_shared<faux::FauxProvider>());
  allowed.extensions.allow_all_tool_calls = true;
  CHECK(make_agent(def, allowed));

  RuntimeConfig guarded = faux_runtime(std::make_shared<faux::FauxProvider>());
  guarded.extensions.before_tool_call = [](const ToolCallRequest&) { return ToolCallDecision::allow(); };
  CHECK(make_agent(def, guarded));
}

TEST_CASE("the agent keeps a deep copy of its definition") {
  AgentDefinition def;
  def.instructions = "original";
  def.skills = {Skill{"s", "d", "body", {}}};
  auto provider = std::make_shared<faux::FauxProvider>();
  auto agent = make_agent(def, faux_runtime(provider));
  REQUIRE(agent);
  def.instructions = "mutated";
  def.skills[0].body = "mutated";
  CHECK(agent->definition().instructions == "original");
  CHECK(agent->definition().skills[0].body == "body");
}

TEST_CASE("the tool manifest follows each turn's policy and is never stored") {
  auto fx = faux_agent({faux::text_response("1"), faux::text_response("2"), faux::text_response("3"),
                        faux::text_response("4")},
                       {counting_tool("a").definition, counting_tool("b").definition},
                       RuntimeConfig{}, {Skill{"style", "house style", "be terse", {}}});
  auto s = fx.agent.start();
  REQUIRE(s);
  REQUIRE(s->run(Turn("one", ToolPolicy::only({"b"}))));
  REQUIRE(s->run(Turn("two", ToolPolicy::none())));
  REQUIRE(s->run(Turn("three")));
  auto unknown = s->run(Turn("four", ToolPolicy::only({"nope"})));
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("'nope'") != std::string::npos);
  auto reqs = fx.faux->requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].tool_names == std::vector<std::string>{"b", "read_skill"});
  CHECK(reqs[1].tool_names == std::vector<std::string>{"read_skill"});  // read_skill stays available
  CHECK(reqs[2].tool_names == std::vector<std::string>{"a", "b", "read_skill"});
}

TEST_CASE("a call to a tool withheld by this turn's policy is refused, not run") {
  auto tool = counting_tool("a");
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "a", "{}")}), faux::text_response("done")},
                       {tool.definition, counting_tool("b").definition});
  auto s = fx.agent.start();
  REQUIRE(s);
  auto r = s->run(Turn("go", ToolPolicy::only({"b"})));
  REQUIRE(r);
  CHECK(tool.calls->load() == 0);
  const auto& result = std::get<ToolResultMessage>(r->messages[2]);
  CHECK(result.is_error);
  CHECK(text_of(result.content).find("not available in this turn") != std::string::npos);
}

TEST_CASE("read_skill answers a skill's body and file list, and a bundled file by path") {
  Skill skill{"review", "How we review", "# Checklist", {{"refs/cpp.md", "RAII"}, {"bin/logo.png", std::string("\x89PNG\xff", 5)}}};
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "read_skill", R"({"skills":[{"name":"review"}]})")}),
                        faux::text_response("ok"),
                        faux::tool_call_response({faux::tool_call("c2", "read_skill", R"({"skills":[{"name":"review","path":"refs/cpp.md"}]})")}),
                        faux::text_response("ok"),
                        faux::tool_call_response({faux::tool_call("c3", "read_skill", R"({"skills":[{"name":"review","path":"bin/logo.png"}]})")}),
                        faux::text_response("ok")},
                       {}, RuntimeConfig{}, {skill});
  auto s = fx.agent.start();
  REQUIRE(s);
  auto body = read_skill_result(*s->run("read it"));
  const json::Value& item = body.find("results")->as_array().at(0);
  CHECK(item.find("content")->as_string() == "# Checklist");
  CHECK(item.find("path")->as_string() == "SKILL.md");
  CHECK(json::dump(*item.find("available_files")) == R"(["SKILL.md","bin/logo.png","refs/cpp.md"])");
  auto file = read_skill_result(*s->run("the file"));
  CHECK(file.find("results")->as_array().at(0).find("content")->as_string() == "RAII");
  auto binary = read_skill_result(*s->run("the logo"));
  CHECK(binary.find("results")->as_array().at(0).find("encoding")->as_string() == "base64");
  CHECK(fx.faux->requests()[0].system.find("- name: review\n  description: How we review") !=
        std::string::npos);
}

TEST_CASE("read_skill refuses traversal and absolute paths, per item, as data") {
  Skill skill{"review", "", "body", {{"a.md", "A"}}};
  auto paths = GENERATE(std::string("../secret"), std::string("/etc/passwd"), std::string("refs/../../x"),
                        std::string("..\\\\windows"), std::string("C:/x"));
  std::string args = R"({"skills":[{"name":"review","path":")" + paths + R"("}]})";
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "read_skill", args)}), faux::text_response("ok")},
                       {}, RuntimeConfig{}, {skill});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  auto result = read_skill_result(*r);
  const json::Value& item = result.find("results")->as_array().at(0);
  CHECK(item.find("error") != nullptr);
  CHECK(item.find("content") == nullptr);
}

TEST_CASE("read_skill reads one file per call: two items are a whole-call error") {
  Skill skill{"review", "", "body", {}};
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "read_skill", R"({"skills":[{"name":"review"},{"name":"review"}]})")}),
                        faux::text_response("ok")},
                       {}, RuntimeConfig{}, {skill});
  auto r = fx.agent.run("go");
  REQUIRE(r);
  const auto& result = std::get<ToolResultMessage>(r->messages[2]);
  CHECK(result.is_error);
}

TEST_CASE("a snapshot serialises and resumes the session in a new agent") {
  auto first = faux_agent({faux::text_response("the code word is teal")});
  auto s = first.agent.start();
  REQUIRE(s);
  REQUIRE(s->run("remember a code word"));
  std::string saved = s->snapshot().serialize();
  std::string id(s->snapshot().session_id());

  auto handle = SessionHandle::parse(saved);
  REQUIRE(handle);
  CHECK(handle->session_id() == id);
  auto second = faux_agent({faux::text_response("teal")});
  StartOptions opts;
  opts.resume = *handle;
  auto resumed = second.agent.start(opts);
  REQUIRE(resumed);
  auto r = resumed->run("what was it?");
  REQUIRE(r);
  auto req = second.faux->requests().at(0);
  REQUIRE(req.messages.size() == 3);
  CHECK(text_of_message(req.messages[1]) == "the code word is teal");
  CHECK(req.session_id == id);
}

TEST_CASE(
    "a handle keeps the transcript as it was when made, while its session grows and after it "
    "closes") {
  auto fx =
      faux_agent({faux::text_response("a"), faux::text_response("b"), faux::text_response("c")});
  std::optional<Session> s = fx.agent.start().value();
  auto first = s->run("one");
  REQUIRE(first);
  const std::string before = first->handle.serialize();
  const SessionHandle snapshot = s->snapshot();
  REQUIRE(s->run("two"));
  CHECK(first->handle.serialize() == before);  // the session grew; the handle did not
  CHECK(snapshot.serialize() == before);
  s.reset();  // the session closes; the handles still hold their messages
  CHECK(first->handle.serialize() == before);
  StartOptions resume;
  resume.resume = first->handle;
  auto resumed = fx.agent.start(resume).value();
  REQUIRE(resumed.run("three"));
  REQUIRE(fx.faux->requests().size() == 3);
  CHECK(fx.faux->requests()[2].messages.size() == 3);  // "one", "a", "three"
  CHECK(first->handle.serialize() == before);          // the resumed session grows its own copy
}

TEST_CASE("a handle is read safely on another thread while its session grows (TSan)") {
  std::vector<providers::FauxResponse> script;
  for (int i = 0; i < 41; ++i) script.push_back(faux::text_response("reply " + std::to_string(i)));
  auto fx = faux_agent(std::move(script));
  auto s = fx.agent.start().value();
  auto first = s.run("first");
  REQUIRE(first);
  const std::string before = first->handle.serialize();
  // Relaxed throughout: the test's own counters must not order the reads TSan is to check.
  std::atomic<bool> done{false};
  std::atomic<int> same{0};
  std::atomic<int> reads{0};
  agentkit::jthread reader([&] {
    while (!done.load(std::memory_order_relaxed)) {
      if (first->handle.serialize() == before) same.fetch_add(1, std::memory_order_relaxed);
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  });
  // The reader may start late on a loaded machine (CI runs two suites at once): each step waits
  // for one more read, so the reads span the growth instead of racing its 13 ms to begin.
  auto await_a_read = [&] {
    const int seen = reads.load(std::memory_order_relaxed);
    while (reads.load(std::memory_order_relaxed) == seen) std::this_thread::yield();
  };
  await_a_read();
  for (int i = 0; i < 40; ++i) {
    REQUIRE(s.run("more " + std::to_string(i)));  // appends, reallocates
    await_a_read();
  }
  done = true;
  reader.join();
  CHECK(first->handle.serialize() == before);
  CHECK(same.load() > 0);
}

TEST_CASE("a snapshot taken while a turn runs holds the completed turns only") {
  // The tool of the second run's first turn takes it: that turn has not completed.
  Session* session = nullptr;
  std::optional<SessionHandle> taken;
  ToolDefinition peek = tool_with("peek", [&](const json::Value&, const ToolContext&) {
    taken = session->snapshot();
    return ToolResult::text_result("ok");
  });
  auto fx = faux_agent(
      {faux::text_response("a"), faux::tool_call_response({faux::tool_call("c1", "peek", "{}")}),
       faux::text_response("done")},
      {peek});
  auto s = fx.agent.start().value();
  session = &s;
  REQUIRE(s.run("one"));
  REQUIRE(s.run("two"));
  REQUIRE(taken);
  CHECK(json::parse(taken->serialize()).value().find("messages")->as_array().size() == 2);
}

namespace {

// An agent whose faux model answers "ok" `answers` times and keeps no copy of the requests, so
// what a test counts is the library's own allocations.
Agent quiet_text_agent(int answers) {
  std::vector<providers::FauxResponse> script;
  for (int i = 0; i < answers; ++i) script.push_back(faux::text_response("ok"));
  providers::FauxOptions quiet;
  quiet.record_requests = false;
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", std::make_shared<providers::FauxProvider>(std::move(script), quiet));
  return make_agent(AgentDefinition{}, rt).value();
}

}  // namespace

TEST_CASE(
    "a run's handle copies no message: at depth 400 a run allocates what it does at depth 10") {
  // One text turn on a session resumed at each depth; the faux provider keeps no request copies.
  auto allocations_at = [](int depth) {
    auto agent = quiet_text_agent(depth / 2 + 1);
    auto s = agent.start().value();
    for (int i = 0; i < depth / 2; ++i) REQUIRE(s.run("turn " + std::to_string(i)));
    AllocCounter counter;
    REQUIRE(s.run("the measured one"));
    return counter.stats().count;
  };
  const std::size_t shallow = allocations_at(10);
  const std::size_t deep = allocations_at(400);
  INFO("allocations at depth 10: " << shallow << ", at depth 400: " << deep);
  CHECK(deep <= shallow + 8);  // with a copy per run: several per message, 1,000+ more
}

TEST_CASE("a resumed session's first run adds its messages without moving the transcript") {
  // The handle's messages used to be copied at their exact size, so the first message the run
  // appended moved all 400 to a block twice as large.
  std::string messages;
  for (int i = 0; i < 400; ++i) {
    if (!messages.empty()) messages += ',';
    messages += i % 2 == 0 ? R"({"role":"user","content":[{"type":"text","text":"q"}]})"
                           : R"({"role":"assistant","content":[{"type":"text","text":"a"}],)"
                             R"("stop_reason":"stop"})";
  }
  auto handle =
      SessionHandle::parse(R"({"version":1,"session_id":"deep","messages":[)" + messages + "]}");
  REQUIRE(handle);
  auto agent = quiet_text_agent(1);
  StartOptions opts;
  opts.resume = *handle;
  auto s = agent.start(opts).value();
  AllocCounter counter;
  REQUIRE(s.run("one more"));
  INFO("largest allocation of the run: " << counter.stats().largest << " bytes");
  CHECK(counter.stats().largest < 400 * sizeof(Message));
}

TEST_CASE("a session's transcript grows by half when full, not double") {
  // The transcript is held for the session's life as one array: after 17 text turns (34
  // messages) a doubling vector holds 64 slots; grown by half, at most 52 (here 38: 6, 10, 16,
  // 25, 38).
  constexpr int kTurns = 17;
  auto agent = quiet_text_agent(kTurns);
  auto s = agent.start().value();
  AllocCounter counter;
  for (int i = 0; i < kTurns; ++i) REQUIRE(s.run("turn " + std::to_string(i)));
  const std::size_t messages = 2 * kTurns;
  INFO("largest allocation of the session: " << counter.stats().largest << " bytes, "
                                             << sizeof(Message) << " a message");
  CHECK(counter.stats().largest <= (messages + messages / 2 + 1) * sizeof(Message));
}

TEST_CASE("a stream read by drain() makes no event queue") {
  // The channel's queue used to be a std::deque, which (in libstdc++) allocates two blocks as
  // soon as it exists: on each model call of the loop, whose streams are drained and never queue.
  std::size_t allocations = 0;
  {
    AllocCounter counter;
    auto made = make_event_stream(EventStreamOptions{});
    allocations = counter.stats().count;
  }
  INFO("allocations making a stream: " << allocations);
  CHECK(allocations <= 2);  // the shared channel and its condition variable's mutex
}

TEST_CASE("a malformed serialised handle is a parse error, not a crash") {
  CHECK_FALSE(SessionHandle::parse("{"));
  CHECK_FALSE(SessionHandle::parse(R"({"version":2,"session_id":"x","messages":[]})"));
  CHECK_FALSE(SessionHandle::parse(R"({"version":1,"session_id":"x","messages":[{"role":"robot"}]})"));
  auto empty = SessionHandle::parse(SessionHandle().serialize());
  REQUIRE(empty);
  CHECK(empty->empty());
}

TEST_CASE("Agent::run is one-shot: nothing persists between calls") {
  auto fx = faux_agent({faux::text_response("a"), faux::text_response("b")});
  REQUIRE(fx.agent.run("first"));
  REQUIRE(fx.agent.run("second"));
  CHECK(fx.faux->requests()[1].messages.size() == 1);
}

TEST_CASE("closing an agent closes its sessions and refuses new ones") {
  auto fx = faux_agent({faux::text_response("a")});
  auto s = fx.agent.start();
  REQUIRE(s);
  REQUIRE(fx.agent.close());
  auto r = s->run("go");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::closed);
  auto again = fx.agent.start();
  REQUIRE_FALSE(again);
  CHECK(again.error().code == Errc::closed);
}

TEST_CASE(
    "a closing session tells its provider once, by close(), its destructor or its agent's "
    "close()") {
  // The built-in wires drop the session's kept encoding and figures when told; untold, they kept
  // them until their byte budget pushed them out, 64 MiB by default.
  std::vector<faux::FauxResponse> script(4, faux::text_response("a"));
  auto recorder = std::make_shared<ClosingRecorder>(std::make_shared<faux::FauxProvider>(script));
  auto agent = recorded_agent(recorder);
  REQUIRE(agent);
  std::vector<std::string> ids;
  auto run_one = [&] {  // a session that ran one turn, its id noted
    auto session = agent->start();
    REQUIRE(session);
    REQUIRE(session->run("go"));
    ids.emplace_back(session->snapshot().session_id());
    return std::move(*session);
  };
  {
    Session by_close = run_one();
    REQUIRE(by_close.close());
    CHECK(recorder->closed() == ids);
    REQUIRE(by_close.close());  // a second close tells nobody again
    CHECK(recorder->closed() == ids);
  }
  CHECK(recorder->closed() == ids);  // nor does the destructor of a closed session
  { Session by_destructor = run_one(); }
  CHECK(recorder->closed() == ids);
  Session by_agent = run_one();
  REQUIRE(agent->close());
  CHECK(recorder->closed() == ids);
}

TEST_CASE("a session whose id TransportConfig names, which others may share, tells nobody") {
  auto recorder = std::make_shared<ClosingRecorder>(
      std::make_shared<faux::FauxProvider>(std::vector{faux::text_response("a")}));
  RuntimeConfig rt;
  rt.transport.session_id = "shared-by-the-caller";
  auto agent = recorded_agent(recorder, rt);
  REQUIRE(agent);
  REQUIRE(agent->run("go"));
  CHECK(recorder->closed().empty());
}

TEST_CASE("a session's subscriptions end when it closes") {
  auto fx = faux_agent({});
  auto s = fx.agent.start();
  REQUIRE(s);
  EventStream events = s->events();
  agentkit::jthread closer([&] { (void)s->close(); });
  closer.join();
  CHECK_FALSE(events.next().has_value());
  CHECK(events.done());
}

TEST_CASE(
    "session ids are ses_ and 32 hex digits, distinct across sessions started on many threads") {
  // One random device serves the process (opening one per session was a measurable part of a
  // session's start); its calls are locked, so threads starting sessions at once never share bytes.
  auto agent = make_agent(AgentDefinition{}, faux_runtime(std::make_shared<faux::FauxProvider>()));
  REQUIRE(agent);
  constexpr int kThreads = 4;
  constexpr int kEach = 250;
  std::vector<std::vector<std::string>> ids(kThreads);
  {
    std::vector<agentkit::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          auto session = agent->start();
          if (session) ids[t].emplace_back(session->snapshot().session_id());
        }
      });
    }
  }
  std::set<std::string> distinct;
  for (const auto& list : ids) {
    REQUIRE(list.size() == kEach);
    for (const auto& id : list) {
      CHECK(id.size() == 4 + 32);
      CHECK(id.rfind("ses_", 0) == 0);
      CHECK(id.find_first_not_of("0123456789abcdef", 4) == std::string::npos);
      distinct.insert(id);
    }
  }
  CHECK(distinct.size() == kThreads * kEach);
}
