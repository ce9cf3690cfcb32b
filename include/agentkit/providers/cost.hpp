// agentkit/providers/cost.hpp — what a response cost, from the catalog's prices.
//
//   using namespace agentkit::providers;
//   Usage u;                        // filled by the wire from the response
//   u.input_tokens = 200; u.cache_read_tokens = 800; u.output_tokens = 50;
//   u.cost = price_usage(u, model.pricing);                     // USD, by component
//   price_served(u, model, "claude-sonnet-5-5-20261001", catalog, "flex");  // another model served
//
// Rules: (1) `input_tokens` never includes cached tokens — an OpenAI-family wire nets them out with
// net_prompt_tokens() before pricing, or the bill is overstated by up to ~90%; (2) the cached count
// may sit in prompt_tokens_details.cached_tokens (OpenAI, OpenRouter), prompt_cache_hit_tokens
// (DeepSeek) or a top-level cached_tokens (Moonshot): cached_prompt_tokens() reads all three;
// (3) 1-hour cache writes cost 2x the input rate: rate_cache_write * (cw - cw_1h) + rate_input * 2 *
// cw_1h; (4) the tier is chosen on input + cache reads + cache writes, the highest one whose
// threshold is STRICTLY exceeded, and its rates apply to the whole request, output included;
// (5) when another model served the request, it is re-priced from that model's row and
// billed_model names it (and priced back when the requested model is named again); (6) a service
// tier multiplies the total after costing (flex 0.5x, priority 2x). A session only sums these.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "agentkit/catalog/catalog.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::providers {

// The rates one request pays.
struct Rates {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
  friend bool operator==(const Rates&, const Rates&) = default;
};

// The rates for a request whose prompt (input + cache reads + cache writes) is `prompt_tokens`.
Rates rates_for(const ModelPricing& pricing, std::int64_t prompt_tokens) noexcept;

// The multiplier of a service tier: "flex" 0.5, "priority" 2, anything else (default, auto,
// scale, unset) 1.
double service_tier_multiplier(std::string_view service_tier) noexcept;

// The cost of `usage` at `pricing`, then multiplied by the service tier's multiplier.
Cost price_usage(const Usage& usage, const ModelPricing& pricing, std::string_view service_tier = {}) noexcept;

// Prices `usage` against the model that served the request (rule 5): `served_model_id` empty or
// equal to the requested id prices at `requested`; another id is resolved under the requested
// model's vendor in `catalog` (an unknown one takes its closest sibling's prices). Sets cost and
// billed_model.
void price_served(Usage& usage, const Model& requested, std::string_view served_model_id,
                  const catalog::Catalog& catalog, std::string_view service_tier = {});

// The cached prompt tokens of an OpenAI-style usage object, wherever the vendor put them (rule 2);
// 0 when absent.
std::int64_t cached_prompt_tokens(const json::Value& usage);
// prompt_tokens minus the cached reads and writes, never below 0 (rule 1).
std::int64_t net_prompt_tokens(std::int64_t prompt_tokens, std::int64_t cache_read, std::int64_t cache_write) noexcept;

}  // namespace agentkit::providers
