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

std::vector<ToolBytes> ToolSchemaCache::wire_forms(std::string_view session, std::span<const ToolSpec> tools,
                                                   const Render& render, CacheMeter& meter) {
  std::vector<ToolBytes> out(tools.size());
  Prefix prefix;
  prefix.reserve(tools.size());
  std::vector<std::size_t> missing;
  {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < tools.size(); ++i) {
      const std::uint64_t fp = fingerprint_for(tools[i]);
      prefix.emplace_back(tools[i].name, fp);
      auto it = entries_.find(fp);
      if (it != entries_.end() && it->second.name == tools[i].name) out[i] = it->second.bytes;
      else missing.push_back(i);
    }
  }
  for (std::size_t i : missing) out[i] = std::make_shared<const std::string>(render(tools[i]));
  bool invalidated = false;
  {
    std::lock_guard lock(mu_);
    if (entries_.size() + missing.size() > kMaxEntries) entries_.clear();
    for (std::size_t i : missing) entries_[prefix[i].second] = Entry{tools[i].name, out[i]};
    auto last = last_prefix_.find(std::string(session));
    if (last != last_prefix_.end()) {
      invalidated = changed_beyond_additions(last->second, prefix);
      last->second = std::move(prefix);
    } else {
      if (last_prefix_.size() >= kMaxSessions) last_prefix_.clear();
      last_prefix_.emplace(std::string(session), std::move(prefix));
    }
  }
  meter.record_serialised(session, static_cast<std::int64_t>(missing.size()));
  if (invalidated) meter.record_invalidation(session);
  return out;
}

}  // namespace agentkit::providers::detail
