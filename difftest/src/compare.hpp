// The canonicalising comparator of the differential harness: one reference document (produced by
// a vendor SDK) against ours, reporting every difference with its JSON path and kind.
//
//   using namespace agentkit::difftest;
//   Comparison c = compare_documents(reference, ours);   // json::Value, parsed by agentkit_json
//   for (const Divergence& d : c.divergences) std::cout << d.path << ' ' << to_string(d.kind);
//   for (const OrderNote& n : c.order_notes) ...          // member order: a side channel
//
// What is normalised and what is not (NFR-TEST-06.4): string escapes and whitespace disappear in
// parsing, and member order is reported on a side channel instead of failing. Number literals are
// compared as written ("1.0" is not "1": agentkit_json keeps the text and nothing here converts
// through a double), null is not absent, array order is significant (nothing is sorted), and
// key sets must match.
//
// Thread safety: pure functions over values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/json/value.hpp"

namespace agentkit::difftest {

enum class DivergenceKind : std::uint8_t {
  value,             // same JSON type, different value (numbers: different literal text)
  type,              // different JSON types (null against a string is one of these)
  only_reference,    // the member or element exists only in the reference
  only_ours,         // the member or element exists only in ours
  order,             // member order differs at a path the scenario declared order-sensitive
  missing,           // our side produced nothing for the scenario (the wire is not available)
  reference_failed,  // the vendor SDK produced nothing for the scenario
};

std::string_view to_string(DivergenceKind kind) noexcept;
std::optional<DivergenceKind> parse_divergence_kind(std::string_view text) noexcept;

struct Divergence {
  std::string path;  // "$.body.messages[0].content", "$.headers.user-agent", "$"
  DivergenceKind kind = DivergenceKind::value;
  std::string reference;  // short rendering of the reference side ("" when absent)
  std::string ours;       // short rendering of our side ("" when absent)
  friend bool operator==(const Divergence&, const Divergence&) = default;
};

// One object whose common members appear in a different order on the two sides.
struct OrderNote {
  std::string path;
  std::vector<std::string> reference_keys;  // as written by the reference
  std::vector<std::string> our_keys;        // as written by us
};

struct Comparison {
  std::vector<Divergence> divergences;
  std::vector<OrderNote> order_notes;
  bool identical() const noexcept { return divergences.empty(); }
};

struct CompareOptions {
  // Paths (globs, '*' matches any run of characters) where an order difference is a divergence
  // of kind `order` rather than a side-channel note (a scenario's order_sensitive_paths).
  std::vector<std::string> order_sensitive_paths;
};

// Compares `reference` with `ours` below `root` ("$" for whole documents).
Comparison compare_documents(const json::Value& reference, const json::Value& ours,
                             const CompareOptions& options = {}, std::string_view root = "$");

// Appends `key` to `path` as ".key", or as ["key"] when the key is not a plain name.
std::string member_path(std::string_view path, std::string_view key);
std::string element_path(std::string_view path, std::size_t index);

// '*' matches any run of characters (including none); everything else matches itself.
bool glob_match(std::string_view pattern, std::string_view text) noexcept;

// A one-line rendering of a value for reports, cut to `max_chars`.
std::string render_short(const json::Value& value, std::size_t max_chars = 80);

// "path<TAB>reference keys<TAB>our keys", the side channel's line format.
std::string format_order_note(const OrderNote& note);

}  // namespace agentkit::difftest
