// Private: the parser's pool of scratch stacks (parse.cpp), for tests that must parse with cold
// stacks to see an allocation a warm one would hide.
#pragma once

namespace agentkit::json::detail {

// Frees every scratch the pool holds; a parse running meanwhile keeps its own and returns it.
void drop_pooled_scratch() noexcept;

}  // namespace agentkit::json::detail
