// The session log loader on arbitrary bytes. It must never crash or refuse; what it kept must
// re-serialise stably (a second load of its output changes nothing and repairs only the entries
// it keeps verbatim); every parent it reports names an earlier entry; folding any leaf works.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "agentkit/base/utf8.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/session/log.hpp"
#include "session/line_scan.hpp"

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

// The loader's fast path accepts exactly what json::parse reads as one object (duplicate keys
// aside: the loader checks those itself, at the top level).
void check_scan_matches_parser(std::string_view bytes) {
  std::vector<session::detail::ScannedMember> members;
  json::ParseOptions options;
  options.reject_duplicate_keys = false;
  for (std::size_t pos = 0; pos <= bytes.size();) {
    std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) nl = bytes.size();
    const std::string_view line = bytes.substr(pos, nl - pos);
    const bool ours = utf8::is_valid(line) && session::detail::scan_object_line(line, members);
    const auto theirs = json::parse(line, options);
    require(ours == (theirs.has_value() && theirs->is_object()));
    pos = nl + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_scan_matches_parser(bytes);
  const session::LoadResult first = session::parse_log(bytes);
  check_structure(first, size);

  const std::string once = session::to_jsonl(first);
  const session::LoadResult second = session::parse_log(once);
  require(second.entries.size() == first.entries.size());
  require(!second.header.synthesized);
  for (const session::Repair& r : second.repairs) {
    // Only the entries kept byte for byte are repaired again: their unknown type, and the
    // re-parenting of one whose parent is missing (the same as the first load's). Line 1 of
    // `once` is the header, so entry i is on line i + 2.
    require(r.line >= 2 && r.line - 2 < second.entries.size());
    const session::Entry& e = second.entries[r.line - 2];
    require(e.type == session::EntryType::unknown);
    require(r.kind == session::RepairKind::unknown_type ||
            (r.kind == session::RepairKind::dangling_parent &&
             e.parent_id == first.entries[r.line - 2].parent_id));
  }
  require(session::to_jsonl(second) == once);

  for (const std::string& leaf : session::leaves(first.entries)) {
    const session::Resumed state = session::fold(first.entries, leaf);
    require(state.leaf == leaf);
  }
  return 0;
}
