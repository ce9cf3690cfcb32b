// The session log loader on arbitrary bytes. It must never crash or refuse; what it kept must
// re-serialise stably (a second load of its output changes nothing and repairs only what it
// keeps verbatim); every parent it reports names an earlier entry; folding any leaf works.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

#include "agentkit/session/log.hpp"

using namespace agentkit;

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void check_structure(const session::LoadResult& log, std::size_t size) {
  require(log.intact_bytes <= size);
  std::unordered_set<std::string> seen;
  for (const session::Entry& e : log.entries) {
    require(!e.id.empty());
    require(e.parent_id.empty() || seen.count(e.parent_id) == 1);
    require(seen.insert(e.id).second);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const session::LoadResult first = session::parse_log(bytes);
  check_structure(first, size);

  const std::string once = session::to_jsonl(first);
  const session::LoadResult second = session::parse_log(once);
  require(second.entries.size() == first.entries.size());
  require(!second.header.synthesized);
  for (const session::Repair& r : second.repairs) {
    require(r.kind == session::RepairKind::unknown_type);
  }
  require(session::to_jsonl(second) == once);

  for (const std::string& leaf : session::leaves(first.entries)) {
    const session::Resumed state = session::fold(first.entries, leaf);
    require(state.leaf == leaf);
  }
  return 0;
}
