#include "our_wires.hpp"

// DIFFTEST_REGISTER_DEFAULTS_HEADER is defined by difftest/CMakeLists.txt when a public provider
// header declares register_defaults (see our_wires.hpp).
#ifdef DIFFTEST_REGISTER_DEFAULTS_HEADER
#include DIFFTEST_REGISTER_DEFAULTS_HEADER
#endif

namespace agentkit::difftest {

void register_our_wires([[maybe_unused]] ProviderRegistry& registry) {
#ifdef DIFFTEST_REGISTER_DEFAULTS_HEADER
  // Whatever it answers (the APIs it added), the registry is the result that matters here.
  (void)agentkit::providers::register_defaults(registry);
#endif
}

std::string describe_wire_source() {
#ifdef DIFFTEST_REGISTER_DEFAULTS_HEADER
  return std::string("providers::register_defaults from ") + DIFFTEST_REGISTER_DEFAULTS_HEADER;
#else
  return "no header under include/agentkit/providers/ declares register_defaults yet";
#endif
}

}  // namespace agentkit::difftest
