#include "builtin_catalog.hpp"

#include <cstdio>
#include <cstdlib>

namespace agentkit::catalog {
namespace detail {

Catalog load_or_abort(std::string_view text) noexcept {
  auto parsed = Catalog::parse(text);
  if (!parsed || parsed->vendors().empty()) {
    std::string reason = parsed ? std::string("it lists no vendor") : parsed.error().message;
    std::fprintf(stderr, "agentkit: the built-in model catalog is corrupt: %s\n", reason.c_str());
    std::abort();
  }
  return std::move(*parsed);
}

}  // namespace detail

const Catalog& Catalog::builtin() {
  // A function-local static: parsed once, thread-safely, on first use — never in a namespace-scope
  // initialiser, where a failure would terminate before main() with nothing to say why.
  static const Catalog catalog = detail::load_or_abort(detail::embedded_catalog_json());
  return catalog;
}

}  // namespace agentkit::catalog
