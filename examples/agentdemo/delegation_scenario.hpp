// agentdemo scenario: three subagents delegated to in one batch, under one shared budget.
#pragma once

#include "approval_scenario.hpp"  // Reporter

namespace agentdemo {

// The lead delegates three tasks in one batch; the children run side by side, each on a slice
// of the lead's $1.00 run budget; one of them runs out of its slice and says so.
void delegations_under_a_shared_budget(const Reporter& report);

}  // namespace agentdemo
