// Where the loop and the batch executor write audit records (agentkit/audit.hpp). Each call is a
// no-op without RuntimeConfig::observability.audit; a failing trail is reported as an ErrorEvent
// on the run and never ends it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "agentkit/core/event.hpp"

namespace agentkit::detail {

struct RunContext;

// The facts of one finished tool call (never its arguments or result).
struct AuditedCall {
  std::string_view tool;
  std::string_view server;          // the MCP server for an MCP tool, else empty
  std::string_view argument_bytes;  // the model's bytes, hashed
  bool ok = true;
  std::string_view error_code;
  std::chrono::milliseconds elapsed{0};
  std::string_view
      approval;            // no_policy, allowed, rewritten, denied, approved, rejected, not_reached
  std::string_view skill;  // read_skill: the skill it loaded
};

void audit_run_start(RunContext& rc, const AgentStartEvent& start);
void audit_run_end(RunContext& rc, const AgentEndEvent& end);
void audit_model_call(RunContext& rc, const AssistantMessage& reply);
void audit_tool_call(RunContext& rc, const AuditedCall& call);

}  // namespace agentkit::detail
