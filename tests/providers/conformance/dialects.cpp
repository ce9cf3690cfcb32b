// The wires under the conformance fixtures. One line per wire; each <wire>_dialect.cpp defines its
// function (see conformance.hpp for how to plug a wire in).
#include "conformance.hpp"

namespace agentkit::conformance {

WireDialect anthropic_dialect();
WireDialect openai_completions_dialect();
WireDialect openai_responses_dialect();
WireDialect google_dialect();
WireDialect ollama_dialect();

std::vector<WireDialect> all_dialects() {
  return {
      anthropic_dialect(),
      openai_completions_dialect(),
      openai_responses_dialect(),
      google_dialect(),
      ollama_dialect(),
  };
}

}  // namespace agentkit::conformance
