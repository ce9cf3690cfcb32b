// The one seam between the harness and the wires under test.
//
//   agentkit::ProviderRegistry registry;
//   agentkit::difftest::register_our_wires(registry);     // whatever the library ships
//   auto client = registry.find("anthropic-messages");     // not found: "our wire ... is not available"
//
// The wires engineer does nothing here: the header under include/agentkit/providers/ that declares
// `register_defaults(ProviderRegistry&, ...)` (today pipeline.hpp) is found by
// difftest/CMakeLists.txt at configure time and this seam calls
// `agentkit::providers::register_defaults(registry)` with default options, so every wire it adds
// is driven. Until then the registry stays empty and
// every pair reports the divergence `missing` with "our wire '<api>' is not available" — never
// a silent pass.
//
// Thread safety: fills the registry it is given; call before sharing it.
#pragma once

#include <string>

#include "agentkit/core/provider.hpp"

namespace agentkit::difftest {

void register_our_wires(ProviderRegistry& registry);

// "providers::register_defaults (from agentkit/providers/x.hpp)" or why it is absent.
std::string describe_wire_source();

}  // namespace agentkit::difftest
