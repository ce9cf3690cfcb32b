// Pins the public surface of Agent and Session at compile time: exactly four and five member
// functions with these exact signatures (taking the address of an overloaded name stops
// compiling, so an added overload is caught too), move-only pimpl handles, no fields.
// The declaration inventory (tests/build/api.golden) pins everything else under include/agentkit/.
#include <concepts>
#include <type_traits>

#include "agentkit/agent.hpp"
#include "support/catch.hpp"

using namespace agentkit;

// Agent: start, run, definition, close.
static_assert(std::is_same_v<decltype(&Agent::start), Result<Session> (Agent::*)(StartOptions)>);
static_assert(std::is_same_v<decltype(&Agent::run), Result<RunResult> (Agent::*)(Input, agentkit::stop_token)>);
static_assert(std::is_same_v<decltype(&Agent::definition), const AgentDefinition& (Agent::*)() const>);
static_assert(std::is_same_v<decltype(&Agent::close), Result<void> (Agent::*)()>);

// Session: run, send, snapshot, events, close.
static_assert(std::is_same_v<decltype(&Session::run), Result<RunResult> (Session::*)(Turn, agentkit::stop_token)>);
static_assert(std::is_same_v<decltype(&Session::send), Result<Delivery> (Session::*)(Input)>);
static_assert(std::is_same_v<decltype(&Session::snapshot), SessionHandle (Session::*)() const>);
static_assert(std::is_same_v<decltype(&Session::events), EventStream (Session::*)()>);
static_assert(std::is_same_v<decltype(&Session::close), Result<void> (Session::*)()>);

static_assert(std::is_same_v<decltype(&make_agent), Result<Agent> (*)(AgentDefinition, RuntimeConfig)>);

// Move-only handles holding one pointer: no fields a caller could reach.
static_assert(!std::is_copy_constructible_v<Agent> && !std::is_copy_assignable_v<Agent>);
static_assert(!std::is_copy_constructible_v<Session> && !std::is_copy_assignable_v<Session>);
static_assert(std::is_nothrow_move_constructible_v<Agent> && std::is_nothrow_move_constructible_v<Session>);
static_assert(sizeof(Agent) == sizeof(std::shared_ptr<void>));
static_assert(sizeof(Session) == sizeof(std::shared_ptr<void>));
static_assert(!std::is_default_constructible_v<Agent> && !std::is_default_constructible_v<Session>);

// What the Go original had on Agent and this design moved elsewhere must not come back.
template <class A>
concept HasGoMutators = requires(A& a) { a.register_tool(ToolDefinition{}); } ||
                        requires(A& a) { a.set_model(Model{}); } || requires(A& a) { a.abort(); } ||
                        requires(A& a) { a.steer(Input{}); } || requires(A& a) { a.history(); };
static_assert(!HasGoMutators<Agent>);
static_assert(!HasGoMutators<Session>);

// Definitions, configs, turns and results are plain values.
static_assert(std::is_copy_constructible_v<AgentDefinition> && std::is_copy_constructible_v<RuntimeConfig>);
static_assert(std::is_copy_constructible_v<RunResult> && std::is_copy_constructible_v<SessionHandle>);

TEST_CASE("the public surface of Agent and Session is pinned at compile time") {
  // The static_asserts above are the test; this case makes the file show up in ctest.
  SUCCEED("Agent has exactly start/run/definition/close; Session exactly run/send/snapshot/events/close");
}
