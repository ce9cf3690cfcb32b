// Private to agentkit_session: the pieces of the line format shared by the loader and the writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/session/log.hpp"

namespace agentkit::session::detail {

// The known type for a name, EntryType::unknown otherwise.
EntryType entry_type_from_name(std::string_view name) noexcept;
// Checks a known entry's payload; the reason it is unusable otherwise.
Result<void> check_payload(const Entry& entry);
// The header as one JSON line, without the newline.
std::string header_line(const Header& header);
// The model and thinking level fold() recovers for a root-to-leaf path, without decoding the
// context (only the last assistant messages, when no model_change names the model).
Resumed fold_settings(const std::vector<const Entry*>& path);
// Appends an entry as its JSON line (no newline): the envelope, then the payload members.
void append_entry_line(std::string& out, const Entry& entry);
// The start of that line: "{" and the envelope members, no payload, no closing brace.
void append_envelope(std::string& out, const Entry& entry);
// load() that also answers how many bytes the store held (the torn tail included).
Result<LoadResult> load_counting(Store& store, std::uint64_t& stored_bytes);
// The payload of a compaction entry (compaction.cpp).
json::Object compaction_payload(const CompactionRecord& record);
// Now, as RFC 3339 UTC with milliseconds ("2026-12-01T19:11:28.123Z").
std::string now_timestamp();

}  // namespace agentkit::session::detail
