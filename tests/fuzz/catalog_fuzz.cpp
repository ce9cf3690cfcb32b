// Catalog loading on arbitrary text, and the clamps on arbitrary numbers: no crash and no UB
// (signed arithmetic only, REQ-CAT-04), every accepted row resolves to itself, unknown ids clone a
// sibling, compat objects satisfy their vocabulary, and a thinking clamp never answers an
// unsupported level nor turns a request for thinking into `off`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "agentkit/catalog/catalog.hpp"

namespace {

using namespace agentkit;

void require(bool ok) {
  if (!ok) std::abort();
}

std::int64_t read_int64(const std::uint8_t* data, std::size_t size, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8 && at + i < size; ++i) v = (v << 8) | data[at + i];
  std::int64_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

void check_clamps(const Model& m, std::int64_t requested, std::int64_t estimate) {
  std::int64_t n = catalog::clamp_max_tokens(m, requested, estimate);
  require(n >= 1);
  if (m.max_output_tokens > 0) require(n <= std::max<std::int64_t>(1, m.max_output_tokens));
  require(n <= std::max<std::int64_t>(1, requested));
  for (int level = 0; level <= static_cast<int>(ThinkingLevel::max); ++level) {
    auto requested_level = static_cast<ThinkingLevel>(level);
    auto got = catalog::clamp_thinking_level(m, requested_level);
    if (!got) continue;
    require(std::find(m.thinking_levels.begin(), m.thinking_levels.end(), *got) != m.thinking_levels.end());
    if (requested_level != ThinkingLevel::off) require(*got != ThinkingLevel::off);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first 16 bytes also drive the clamps on the built-in rows.
  std::int64_t requested = read_int64(data, size, 0);
  std::int64_t estimate = read_int64(data, size, 8);
  const catalog::Catalog& builtin = catalog::Catalog::builtin();
  check_clamps(builtin.vendors().front().models.front(), requested, estimate);
  Model unknown_window;
  check_clamps(unknown_window, requested, estimate);

  auto parsed = catalog::Catalog::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!parsed) return 0;
  for (const auto& vendor : parsed->vendors()) {
    for (const auto& m : vendor.models) {
      auto again = parsed->resolve(vendor.id + "/" + m.id);
      require(again.has_value());
      require(again->id == m.id && again->cloned_from.empty());
      require(catalog::validate_compat(m.api, m.compat, "row").has_value());
      check_clamps(m, requested, estimate);
    }
    auto clone = parsed->resolve(vendor.id + "/" + vendor.default_model + "-unknown-suffix");
    require(clone.has_value());
    require(!clone->cloned_from.empty() || parsed->find(vendor.id, vendor.default_model + "-unknown-suffix"));
  }
  return 0;
}
