// agentdemo scenario: a long conversation compacts once, and the tool pair at the cut stays whole.
#pragma once

#include "approval_scenario.hpp"  // Reporter

namespace agentdemo {

void long_conversation_compacts_once(const Reporter& report);

}  // namespace agentdemo
