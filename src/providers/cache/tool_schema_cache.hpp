// Level 3 (REQ-CACHE-06): each wire serialises a tool's wire form once and reuses the bytes, keyed
// by ToolSpec::fingerprint, so a steady-state request serialises no schema. Per session it also
// notices a tool prefix that changed by more than additions (a removal or a schema change): that
// request loses the provider's prompt cache and counts as a prefix invalidation (REQ-CACHE-11).
//
//   ToolSchemaCache cache;                                   // one per wire client
//   auto bytes = cache.wire_forms(session, tools, render, meter);   // bytes[i] for tools[i]
//
// Thread safety: safe for concurrent use (one mutex around lookups; rendering, fingerprints and
// allocation happen outside it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agentkit/core/provider.hpp"
#include "agentkit/providers/cache.hpp"

namespace agentkit::providers::detail {

using ToolBytes = std::shared_ptr<const std::string>;

class ToolSchemaCache {
 public:
  // Renders one tool in the wire's form (a complete JSON object).
  using Render = std::function<std::string(const ToolSpec&)>;

  // Bounds: entries kept (a larger tool set renders again past it, it never grows without limit)
  // and sessions remembered for invalidation counting.
  static constexpr std::size_t kMaxEntries = 4096;
  static constexpr std::size_t kMaxSessions = 1024;

  // The wire form of every tool, in order; only tools not seen before are rendered, and those
  // renders are counted on `meter` for `session` (with any prefix invalidation).
  std::vector<ToolBytes> wire_forms(std::string_view session, std::span<const ToolSpec> tools,
                                    const Render& render, CacheMeter& meter);
  // Forgets the tools `session` was last offered (it has closed).
  void forget(std::string_view session);

 private:
  struct Entry {
    std::string name;
    ToolBytes bytes;
  };
  using Prefix = std::vector<std::pair<std::string, std::uint64_t>>;  // name, fingerprint
  bool changed_beyond_additions(const Prefix& before, const Prefix& now) const;
  bool remember_locked(std::string& key, Prefix& prefix);

  std::mutex mu_;
  std::unordered_map<std::uint64_t, Entry> entries_;
  std::unordered_map<std::string, Prefix> last_prefix_;
};

// The fingerprint a wire keys on: the one the registry computed, or computed now when unset.
std::uint64_t fingerprint_for(const ToolSpec& tool);

}  // namespace agentkit::providers::detail
