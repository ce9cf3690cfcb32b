#include "tool_schema_cache.hpp"

#include <algorithm>

namespace agentkit::providers::detail {

std::uint64_t fingerprint_for(const ToolSpec& tool) {
  return tool.fingerprint != 0 ? tool.fingerprint : fingerprint_of(tool);
}

bool ToolSchemaCache::changed_beyond_additions(const Prefix& before, const Prefix& now) const {
  for (const auto& tool : before) {
    auto it = std::find_if(now.begin(), now.end(), [&](const auto& p) { return p.first == tool.first; });
    if (it == now.end() || it->second != tool.second) return true;  // removed, or its schema changed
  }
  return false;
}

// Sessions share the cache: the lock guards lookups only. Names, fingerprints and the session's
// key are made before it and the replaced prefix is freed after it, and a request whose tools are
// all known (every steady-state request) takes it once.
std::vector<ToolBytes> ToolSchemaCache::wire_forms(std::string_view session, std::span<const ToolSpec> tools,
                                                   const Render& render, CacheMeter& meter) {
  std::vector<ToolBytes> out(tools.size());
  Prefix prefix;
  prefix.reserve(tools.size());
  for (const ToolSpec& tool : tools) prefix.emplace_back(tool.name, fingerprint_for(tool));
  std::string key(session);
  std::vector<std::size_t> missing;
  bool invalidated = false;
  {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < tools.size(); ++i) {
      auto it = entries_.find(prefix[i].second);
      if (it != entries_.end() && it->second.name == prefix[i].first) out[i] = it->second.bytes;
      else missing.push_back(i);
    }
    if (missing.empty()) invalidated = remember_locked(key, prefix);
  }
  if (!missing.empty()) {
    for (std::size_t i : missing) out[i] = std::make_shared<const std::string>(render(tools[i]));
    std::lock_guard lock(mu_);
    if (entries_.size() + missing.size() > kMaxEntries) entries_.clear();
    for (std::size_t i : missing) entries_[prefix[i].second] = Entry{tools[i].name, out[i]};
    invalidated = remember_locked(key, prefix);
  }
  meter.record_serialised(session, static_cast<std::int64_t>(missing.size()));
  if (invalidated) meter.record_invalidation(session);
  return out;
}

void ToolSchemaCache::forget(std::string_view session) {
  Prefix dropped;  // freed after the lock
  std::lock_guard lock(mu_);
  if (auto it = last_prefix_.find(std::string(session)); it != last_prefix_.end()) {
    dropped.swap(it->second);
    last_prefix_.erase(it);
  }
}

// Under mu_: notes `prefix` as the session's tools and answers whether it changed by more than
// additions. Leaves in `prefix` what is to be freed (after the lock), and `key` moved from when
// the session is new.
bool ToolSchemaCache::remember_locked(std::string& key, Prefix& prefix) {
  auto last = last_prefix_.find(key);
  if (last == last_prefix_.end()) {
    if (last_prefix_.size() >= kMaxSessions) last_prefix_.clear();
    last_prefix_.emplace(std::move(key), std::move(prefix));
    return false;
  }
  if (last->second == prefix) return false;  // the steady state: nothing to write
  const bool invalidated = changed_beyond_additions(last->second, prefix);
  last->second.swap(prefix);
  return invalidated;
}

}  // namespace agentkit::providers::detail
