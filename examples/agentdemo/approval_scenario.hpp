// agentdemo scenario: an approval asked for in one process and granted in the next.
#pragma once

#include <functional>
#include <string>

namespace agentdemo {

// How a scenario reports: `say` prints a line as is, `claim` states a fact and counts it when it
// does not hold.
struct Reporter {
  std::function<void(const std::string&)> say;
  std::function<void(bool holds, const std::string& what)> claim;
};

// The scenario, run by the parent: it starts this program twice more as child processes.
void approval_across_processes(const Reporter& report);

// When argv asks for one child step of the scenario ("--approval-step ..."), runs it and answers
// its exit code; -1 otherwise.
int approval_child_step(int argc, char** argv);

}  // namespace agentdemo
