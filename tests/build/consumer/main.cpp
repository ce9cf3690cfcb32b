// Uses the library through its installed headers only.
#include <cstdio>

#include "agentkit/base/result.hpp"
#include "agentkit/base/version.hpp"
#include "agentkit/extensions.hpp"

int main() {
  agentkit::Result<int> r = agentkit::fail(agentkit::Errc::not_found, "consumer check");
  if (r.has_value() || r.error().code != agentkit::Errc::not_found) return 1;
  // Calls into the root library, which reaches the providers module and its dependencies, so an
  // incomplete or misordered link line fails here.
  agentkit::AssistantMessage overloaded;
  overloaded.stop_reason = agentkit::StopReason::error;
  overloaded.error_message = "HTTP 529: overloaded";
  if (!agentkit::is_retryable_error(overloaded)) return 1;
  std::printf("agentkit %.*s consumer: ok\n", static_cast<int>(agentkit::kVersion.size()),
              agentkit::kVersion.data());
  return 0;
}
