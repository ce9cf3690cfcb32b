// Uses the library through its installed headers only.
#include <cstdio>

#include "agentkit/base/result.hpp"

int main() {
  agentkit::Result<int> r = agentkit::fail(agentkit::Errc::not_found, "consumer check");
  if (r.has_value() || r.error().code != agentkit::Errc::not_found) return 1;
  std::puts("agentkit consumer: ok");
  return 0;
}
