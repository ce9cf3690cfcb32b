// The embedded catalog and the fail-fast loader behind Catalog::builtin().
#pragma once

#include <string_view>

#include "agentkit/catalog/catalog.hpp"

namespace agentkit::catalog::detail {

// catalog/models.json, compiled in by cmake/AgentkitEmbed.cmake.
std::string_view embedded_catalog_json() noexcept;

// Parses `text` or, when it is corrupt, writes "agentkit: the built-in model catalog is corrupt:
// <reason>" to stderr and aborts: an agent must never run against a silently empty catalog
// (REQ-CAT-01). Exposed so a death test can feed it a corrupt catalog.
Catalog load_or_abort(std::string_view text) noexcept;

}  // namespace agentkit::catalog::detail
