// The google-generative-ai entry of the built-in wire list (pipeline.cpp, register_defaults).
#pragma once

#include <memory>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers::detail {

// A Gemini client with GoogleOptions{}. With the explicit cache on (the default) it runs its own
// RequestPipeline over `options.transport` (its transport performs the uncached resend), so the
// shared `pipeline` is used only when the cache is off.
std::shared_ptr<WireClient> make_google_wire(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline);

}  // namespace agentkit::providers::detail
