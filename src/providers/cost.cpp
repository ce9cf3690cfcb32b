// Cost arithmetic (REQ-PROV-05).
#include "agentkit/providers/cost.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>

namespace agentkit::providers {
namespace {

// Prices are USD per million tokens.
constexpr double kTokensPerPriceUnit = 1'000'000.0;
// REQ-PROV-05.3: a 1-hour cache write costs twice the base input rate.
constexpr double kLongCacheWriteInputMultiple = 2.0;
// REQ-PROV-05.6: Responses service tiers.
constexpr double kFlexMultiplier = 0.5;
constexpr double kPriorityMultiplier = 2.0;

double dollars(std::int64_t tokens, double rate_per_million) {
  return static_cast<double>(std::max<std::int64_t>(0, tokens)) * rate_per_million / kTokensPerPriceUnit;
}

std::int64_t member_count(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  if (v == nullptr) return 0;
  auto n = v->to_int64();
  return n ? std::max<std::int64_t>(0, *n) : 0;
}

// Counts from a peer can be anything: negative ones count as 0 and sums saturate.
std::int64_t saturating_sum(std::initializer_list<std::int64_t> counts) {
  std::int64_t total = 0;
  for (std::int64_t n : counts) {
    n = std::max<std::int64_t>(0, n);
    total = n > std::numeric_limits<std::int64_t>::max() - total ? std::numeric_limits<std::int64_t>::max() : total + n;
  }
  return total;
}

}  // namespace

Rates rates_for(const ModelPricing& pricing, std::int64_t prompt_tokens) noexcept {
  Rates r{pricing.input, pricing.output, pricing.cache_read, pricing.cache_write};
  // Highest threshold strictly exceeded wins; a request of exactly the threshold stays below it.
  for (const auto& tier : pricing.tiers) {
    if (prompt_tokens > tier.above_input_tokens) r = Rates{tier.input, tier.output, tier.cache_read, tier.cache_write};
  }
  return r;
}

double service_tier_multiplier(std::string_view service_tier) noexcept {
  if (service_tier == "flex") return kFlexMultiplier;
  if (service_tier == "priority") return kPriorityMultiplier;
  return 1.0;
}

Cost price_usage(const Usage& usage, const ModelPricing& pricing, std::string_view service_tier) noexcept {
  std::int64_t prompt = saturating_sum({usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens});
  Rates r = rates_for(pricing, prompt);
  std::int64_t long_writes = std::clamp<std::int64_t>(usage.cache_write_1h_tokens, 0, std::max<std::int64_t>(0, usage.cache_write_tokens));
  double m = service_tier_multiplier(service_tier);
  Cost c;
  c.input = dollars(usage.input_tokens, r.input) * m;
  c.output = dollars(usage.output_tokens, r.output) * m;
  c.cache_read = dollars(usage.cache_read_tokens, r.cache_read) * m;
  c.cache_write = (dollars(usage.cache_write_tokens - long_writes, r.cache_write) +
                   dollars(long_writes, r.input * kLongCacheWriteInputMultiple)) * m;
  c.total = c.input + c.output + c.cache_read + c.cache_write;
  return c;
}

void price_served(Usage& usage, const Model& requested, std::string_view served_model_id,
                  const catalog::Catalog& catalog, std::string_view service_tier) {
  if (served_model_id.empty() || served_model_id == requested.id) {
    usage.cost = price_usage(usage, requested.pricing, service_tier);
    usage.billed_model = requested.id;
    return;
  }
  auto served = catalog.resolve(requested.vendor + "/" + std::string(served_model_id));
  // A vendor unknown to the catalog (a hand-built model) can only be priced as requested.
  const ModelPricing& pricing = served ? served->pricing : requested.pricing;
  usage.cost = price_usage(usage, pricing, service_tier);
  usage.billed_model = std::string(served_model_id);
}

std::int64_t cached_prompt_tokens(const json::Value& usage) {
  if (const json::Value* details = usage.find("prompt_tokens_details")) {
    if (std::int64_t n = member_count(*details, "cached_tokens"); n > 0) return n;  // OpenAI, OpenRouter
  }
  if (std::int64_t n = member_count(usage, "prompt_cache_hit_tokens"); n > 0) return n;  // DeepSeek
  return member_count(usage, "cached_tokens");                                          // Moonshot
}

std::int64_t net_prompt_tokens(std::int64_t prompt_tokens, std::int64_t cache_read, std::int64_t cache_write) noexcept {
  std::int64_t cached = saturating_sum({cache_read, cache_write});
  return std::max<std::int64_t>(0, std::max<std::int64_t>(0, prompt_tokens) - cached);
}

}  // namespace agentkit::providers
