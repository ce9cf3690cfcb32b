// agentkit/agent.hpp — the public entry points: make_agent, Agent and Session.
//
//   #include "agentkit/agent.hpp"
//   using namespace agentkit;
//
//   AgentDefinition def{.instructions = "Be brief.", .skills = {}, .tools = {}};
//   RuntimeConfig rt;
//   rt.model.spec = "faux/demo";
//   rt.providers.add("faux", std::make_shared<providers::FauxProvider>(script));
//   Result<Agent> agent = make_agent(std::move(def), std::move(rt));
//   if (!agent) return fail_with(agent.error());
//
//   Result<RunResult> once = agent->run("hello");           // start + run + close
//
//   Result<Session> s = agent->start();
//   EventStream events = s->events();                        // subscribe before running
//   Result<RunResult> r = s->run("list the files");
//   SessionHandle saved = s->snapshot();
//   s->close();
//
// Agent: an immutable definition plus runtime configuration, with exactly four operations.
// Session: one conversation over an Agent, with exactly five. Both are move-only handles; their
// destructors close them. All member functions may be called from any thread. A session runs one
// run at a time: a second concurrent run() fails at once with Errc::busy. close() cancels the run
// in flight (it returns an aborted result) and joins every thread the session started.
#pragma once

#include <memory>
#include "agentkit/base/stop_token.hpp"

#include "agentkit/base/result.hpp"
#include "agentkit/core/event.hpp"
#include "agentkit/definition.hpp"
#include "agentkit/runtime.hpp"
#include "agentkit/turn.hpp"

namespace agentkit {

namespace detail {
struct AgentCore;
struct AgentAccess;
struct SessionCore;
}  // namespace detail

class Session;

class Agent {
 public:
  Agent(Agent&&) noexcept;
  Agent& operator=(Agent&&) noexcept;
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;
  ~Agent();

  // A new session, or one resumed from options.resume.
  Result<Session> start(StartOptions options = {});
  // One-shot: start, run one turn with `input`, close. Nothing persists between calls.
  Result<RunResult> run(Input input, agentkit::stop_token stop = {});
  // The definition as built (deep copy of what make_agent received).
  const AgentDefinition& definition() const;
  // Closes every session this agent started (their runs end aborted). Idempotent.
  Result<void> close();

 private:
  friend Result<Agent> make_agent(AgentDefinition, RuntimeConfig);
  friend struct detail::AgentAccess;  // the subagent tools read the definition's runtime
  explicit Agent(std::shared_ptr<detail::AgentCore> core) noexcept;
  std::shared_ptr<detail::AgentCore> core_;
};

class Session {
 public:
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  // One run of the loop, to its stop. Errors: busy (a run is in flight), closed, invalid_argument
  // (nothing to continue, bad tool policy). A provider failure or an abort is NOT an error: the
  // result says so in stop_reason and keeps the partial transcript.
  Result<RunResult> run(Turn turn, agentkit::stop_token stop = {});
  // Queues steering or a follow-up for the run in flight. With no run in flight it fails
  // (Errc::invalid_argument): it never starts a turn.
  Result<Delivery> send(Input input);
  // The session as of the last completed turn.
  SessionHandle snapshot() const;
  // A new, independent subscription to this session's events from now on; ends at close().
  EventStream events();
  // Cancels the run in flight, waits for it and every tool thread, ends all subscriptions.
  // Idempotent.
  Result<void> close();

 private:
  friend class Agent;
  explicit Session(std::shared_ptr<detail::SessionCore> core) noexcept;
  std::shared_ptr<detail::SessionCore> core_;
};

// Validates the definition and runtime (every problem is reported, not only the first), deep-copies
// them, connects MCP sources and builds the single name-keyed tool registry.
Result<Agent> make_agent(AgentDefinition definition, RuntimeConfig runtime);

}  // namespace agentkit
