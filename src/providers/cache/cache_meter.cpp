// Per-session cache accounting (REQ-CACHE-08, -11) and the level-0 prompt-cache key.
#include <map>
#include <mutex>

#include "agentkit/base/utf8.hpp"
#include "agentkit/providers/cache.hpp"
#include "agentkit/providers/cost.hpp"

namespace agentkit::providers {
namespace {
// Catalog prices are USD per million tokens.
constexpr double kTokensPerPricedUnit = 1'000'000.0;
}  // namespace

struct CacheMeter::State {
  mutable std::mutex mu;
  std::map<std::string, CacheStats, std::less<>> sessions;

  CacheStats& at(std::string_view id) {
    auto it = sessions.find(id);
    if (it == sessions.end()) it = sessions.emplace(std::string(id), CacheStats{}).first;
    return it->second;
  }
};

CacheMeter::CacheMeter() : state_(std::make_unique<State>()) {}
CacheMeter::~CacheMeter() = default;

CacheStats CacheMeter::stats(std::string_view session_id) const {
  std::lock_guard lock(state_->mu);
  auto it = state_->sessions.find(session_id);
  return it == state_->sessions.end() ? CacheStats{} : it->second;
}

void CacheMeter::forget(std::string_view session_id) {
  std::lock_guard lock(state_->mu);
  if (auto it = state_->sessions.find(session_id); it != state_->sessions.end()) state_->sessions.erase(it);
}

void CacheMeter::record_hit(std::string_view session_id, double saved_usd) {
  std::lock_guard lock(state_->mu);
  CacheStats& s = state_->at(session_id);
  ++s.hits;
  s.estimated_savings_usd += saved_usd;
}

void CacheMeter::record_miss(std::string_view session_id) {
  std::lock_guard lock(state_->mu);
  ++state_->at(session_id).misses;
}

void CacheMeter::record_response(std::string_view session_id, const Usage& usage, const ModelPricing& pricing) {
  // The saving is read off the response's own usage (REQ-GO-15's anchored accounting): the
  // tokens the provider served from its cache, at the difference between the input and
  // cache-read rates of the tier this request was billed at.
  const std::int64_t prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  const Rates rates = rates_for(pricing, prompt);
  const double saved = static_cast<double>(usage.cache_read_tokens) * (rates.input - rates.cache_read) / kTokensPerPricedUnit;
  std::lock_guard lock(state_->mu);
  CacheStats& s = state_->at(session_id);
  s.provider_cache_read_tokens += usage.cache_read_tokens;
  s.provider_cache_write_tokens += usage.cache_write_tokens;
  s.estimated_savings_usd += saved;
}

void CacheMeter::record_promotion(std::string_view session_id) {
  std::lock_guard lock(state_->mu);
  ++state_->at(session_id).deferred_promotions;
}

void CacheMeter::record_invalidation(std::string_view session_id) {
  std::lock_guard lock(state_->mu);
  ++state_->at(session_id).prefix_invalidations;
}

void CacheMeter::record_serialised(std::string_view session_id, std::int64_t schemas) {
  if (schemas == 0) return;
  std::lock_guard lock(state_->mu);
  state_->at(session_id).schemas_serialised += schemas;
}

void CacheMeter::record_encoded(std::string_view session_id, std::int64_t encoded,
                                std::int64_t reused) {
  std::lock_guard lock(state_->mu);
  CacheStats& s = state_->at(session_id);
  s.messages_encoded += encoded;
  s.messages_reused += reused;
}

std::string prompt_cache_key(std::string_view session_id) {
  // 64 code points, not bytes: a byte cut would split a multibyte character (REQ-CACHE L0 trap).
  return std::string(utf8::truncate_code_points(session_id, kPromptCacheKeyMaxCodePoints));
}

}  // namespace agentkit::providers
