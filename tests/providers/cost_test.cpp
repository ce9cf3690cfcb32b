// Cost arithmetic (REQ-PROV-05).
#include <cmath>

#include "agentkit/providers/cost.hpp"
#include "agentkit/wire/decode.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::providers;

namespace {

// Equal up to floating-point rounding (portable across Catch2 v2 and v3).
bool near(double a, double b) { return std::abs(a - b) <= 1e-12 + 1e-9 * std::abs(b); }

ModelPricing pricing(double in, double out, double read, double write) {
  ModelPricing p;
  p.input = in;
  p.output = out;
  p.cache_read = read;
  p.cache_write = write;
  p.as_of = "2026-11-30";
  return p;
}

}  // namespace

TEST_CASE("cached prompt tokens are netted out of the input before pricing") {
  auto usage = wire::decode(R"({"prompt_tokens": 1000, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": 800}})");
  REQUIRE(usage);
  std::int64_t cached = cached_prompt_tokens(*usage);
  CHECK(cached == 800);
  Usage u;
  u.input_tokens = net_prompt_tokens(1000, cached, 0);
  u.cache_read_tokens = cached;
  CHECK(u.input_tokens == 200);
  ModelPricing p = pricing(2, 10, 0.2, 2.5);
  Cost c = price_usage(u, p);
  CHECK(near(c.total, 200 * 2 / 1e6 + 800 * 0.2 / 1e6));
  CHECK(near(c.input, 200 * 2 / 1e6));
  CHECK(near(c.cache_read, 800 * 0.2 / 1e6));
}

TEST_CASE("the cached count is found wherever the vendor puts it") {
  CHECK(cached_prompt_tokens(*wire::decode(R"({"prompt_cache_hit_tokens": 640, "prompt_cache_miss_tokens": 10})")) == 640);  // DeepSeek
  CHECK(cached_prompt_tokens(*wire::decode(R"({"prompt_tokens": 900, "cached_tokens": 512})")) == 512);  // Moonshot
  CHECK(cached_prompt_tokens(*wire::decode(R"({"prompt_tokens": 900})")) == 0);
  CHECK(net_prompt_tokens(100, 200, 0) == 0);  // never negative
}

TEST_CASE("1-hour cache writes cost twice the input rate, 5-minute writes the write rate") {
  Usage u;
  u.cache_write_tokens = 1000;
  u.cache_write_1h_tokens = 400;
  ModelPricing p = pricing(3, 15, 0.3, 3.75);
  Cost c = price_usage(u, p);
  CHECK(near(c.cache_write, 600 * 3.75 / 1e6 + 400 * 3 * 2 / 1e6));
  CHECK(near(c.total, c.cache_write));
}

TEST_CASE("a tier applies only when its threshold is strictly exceeded, and then to the whole request") {
  ModelPricing p = pricing(2, 10, 0.1, 2.5);
  p.tiers.push_back({272000, 4, 15, 0.2, 5});
  Usage at;
  at.input_tokens = 200000;
  at.cache_read_tokens = 72000;  // exactly the threshold: base tier
  at.output_tokens = 1000;
  CHECK(near(price_usage(at, p).output, 1000 * 10 / 1e6));
  Usage over = at;
  over.input_tokens += 1;  // one past: every token at the higher rates, output included
  Cost c = price_usage(over, p);
  CHECK(near(c.input, 200001 * 4 / 1e6));
  CHECK(near(c.cache_read, 72000 * 0.2 / 1e6));
  CHECK(near(c.output, 1000 * 15 / 1e6));
}

TEST_CASE("the highest tier exceeded wins when there are several") {
  ModelPricing p = pricing(1, 1, 1, 1);
  p.tiers = {{100, 2, 2, 2, 2}, {1000, 3, 3, 3, 3}};
  CHECK(rates_for(p, 100).input == 1);
  CHECK(rates_for(p, 101).input == 2);
  CHECK(rates_for(p, 1001).input == 3);
}

TEST_CASE("service tiers multiply the cost: flex halves it, priority doubles it") {
  Usage u;
  u.input_tokens = 1000;
  u.output_tokens = 1000;
  ModelPricing p = pricing(2, 10, 0, 0);
  double base = price_usage(u, p).total;
  CHECK(near(price_usage(u, p, "flex").total, base * 0.5));
  CHECK(near(price_usage(u, p, "priority").total, base * 2));
  CHECK(near(price_usage(u, p, "default").total, base));
}

TEST_CASE("a request served by another model is priced from that model's row, and back") {
  const auto& cat = catalog::Catalog::builtin();
  Model requested = cat.resolve("anthropic/claude-opus-5-5").value();
  Usage u;
  u.input_tokens = 1'000'000;
  price_served(u, requested, "claude-sonnet-5-5", cat);
  CHECK(u.billed_model == "claude-sonnet-5-5");
  CHECK(near(u.cost.input, 2.0));  // Sonnet's rate, not Opus's 4.0
  price_served(u, requested, "claude-opus-5-5", cat);
  CHECK(u.billed_model == "claude-opus-5-5");
  CHECK(near(u.cost.input, 4.0));
  price_served(u, requested, "", cat);
  CHECK(near(u.cost.input, 4.0));
  price_served(u, requested, "claude-sonnet-5-5-20261001", cat);  // a dated id: its closest row
  CHECK(near(u.cost.input, 2.0));
}

TEST_CASE("a failed turn's usage is priced like any other, and zero usage costs zero") {
  Usage none;
  CHECK(price_usage(none, pricing(5, 25, 0.5, 6.25)).total == 0);
  Usage negative;
  negative.input_tokens = -5;  // a broken peer: counts as nothing, never as a credit
  CHECK(price_usage(negative, pricing(5, 25, 0.5, 6.25)).total == 0);
}
