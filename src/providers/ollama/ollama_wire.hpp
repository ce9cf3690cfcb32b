// The ollama-chat entry of the built-in wire list (pipeline.cpp, register_defaults).
#pragma once

#include <memory>

#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/wires.hpp"

namespace agentkit::providers::detail {

// An Ollama client with OllamaOptions{}, sending through `pipeline` (nullptr: its own).
std::shared_ptr<WireClient> make_ollama_wire(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline);

}  // namespace agentkit::providers::detail
