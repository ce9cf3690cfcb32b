// agentdemo scenario 8 (crash_scenario.cpp): kill -9 mid-batch, then load, resume and finish.
#pragma once

namespace agentdemo {

// Runs the scenario, starting `self` (this program) as the child; answers the failed claims.
int kill_and_resume(const char* self);
// The child's side, run by `agentdemo --crash-child <log path> <pipe fd>`; never returns while
// its batch runs (the parent kills it).
int crash_child(const char* log_path, const char* fd_text);

}  // namespace agentdemo
