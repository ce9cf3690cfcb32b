// Compaction entries: the record's JSON shape, reading it back, and which entries a compaction
// took out of the context.
#include <algorithm>
#include <unordered_set>

#include "format.hpp"

namespace agentkit::session {
namespace {

std::string string_of(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

std::int64_t int_of(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  if (v == nullptr || !v->is_number()) return 0;
  return v->to_int64().value_or(0);
}

bool is_context_entry(EntryType type) {
  return type == EntryType::message || type == EntryType::custom_message ||
         type == EntryType::branch_summary;
}

}  // namespace

namespace detail {

json::Object compaction_payload(const CompactionRecord& r) {
  json::Object payload;
  payload.append_unique("summary", r.summary);
  payload.append_unique("first_kept_entry_id", r.first_kept_entry_id);
  if (!r.pinned_entry_ids.empty()) {
    json::Array pinned;
    for (const std::string& id : r.pinned_entry_ids) pinned.emplace_back(id);
    payload.append_unique("pinned_entry_ids", json::Value(std::move(pinned)));
  }
  json::Object dropped;
  dropped.append_unique("messages", static_cast<std::int64_t>(r.dropped_messages));
  dropped.append_unique("from_entry_id", r.dropped_from_entry_id);
  dropped.append_unique("to_entry_id", r.dropped_to_entry_id);
  payload.append_unique("dropped", json::Value(std::move(dropped)));
  payload.append_unique("tokens_before", r.tokens_before);
  payload.append_unique("tokens_after", r.tokens_after);
  return payload;
}

}  // namespace detail

Result<CompactionRecord> compaction_of(const Entry& e) {
  if (e.type != EntryType::compaction) {
    return make_error(Errc::invalid_argument, "entry '" + e.id + "' is not a compaction");
  }
  CompactionRecord r;
  r.id = e.id;
  r.summary = string_of(e.fields, "summary");
  r.first_kept_entry_id = string_of(e.fields, "first_kept_entry_id");
  if (const json::Value* pinned = e.fields.find("pinned_entry_ids"); pinned && pinned->is_array()) {
    for (const json::Value& id : pinned->as_array()) {
      if (id.is_string()) r.pinned_entry_ids.push_back(id.as_string());
    }
  }
  if (const json::Value* dropped = e.fields.find("dropped"); dropped && dropped->is_object()) {
    const json::Object& d = dropped->as_object();
    r.dropped_messages = static_cast<std::size_t>(std::max<std::int64_t>(0, int_of(d, "messages")));
    r.dropped_from_entry_id = string_of(d, "from_entry_id");
    r.dropped_to_entry_id = string_of(d, "to_entry_id");
  }
  r.tokens_before = int_of(e.fields, "tokens_before");
  r.tokens_after = int_of(e.fields, "tokens_after");
  return r;
}

std::vector<CompactionRecord> compactions(std::span<const Entry> entries, std::string_view leaf) {
  std::vector<CompactionRecord> out;
  for (const Entry* e : branch(entries, leaf)) {
    if (e->type != EntryType::compaction) continue;
    if (auto r = compaction_of(*e)) out.push_back(std::move(*r));
  }
  return out;
}

std::vector<const Entry*> summarised_entries(std::span<const Entry> entries,
                                             std::string_view compaction_id) {
  std::vector<const Entry*> out;
  std::vector<const Entry*> path = branch(entries, compaction_id);
  if (path.empty() || path.back()->type != EntryType::compaction) return out;
  Result<CompactionRecord> record = compaction_of(*path.back());
  if (!record) return out;
  std::unordered_set<std::string_view> pinned(record->pinned_entry_ids.begin(),
                                              record->pinned_entry_ids.end());
  for (const Entry* e : path) {
    if (e->id == record->first_kept_entry_id) break;
    if (is_context_entry(e->type) && pinned.count(e->id) == 0) out.push_back(e);
  }
  return out;
}

}  // namespace agentkit::session
