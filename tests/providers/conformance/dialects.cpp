// The wires under the conformance fixtures. One line per wire; each <wire>_dialect.cpp defines its
// function (see conformance.hpp for how to plug a wire in).
#include "conformance.hpp"

namespace agentkit::conformance {

std::vector<WireDialect> all_dialects() {
  return {
      // anthropic_dialect(), openai_completions_dialect(), openai_responses_dialect(): next commits.
      // google_dialect(), ollama_dialect(): the other half of issue 5.
  };
}

}  // namespace agentkit::conformance
