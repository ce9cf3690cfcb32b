// Private to agentkit_session: the pieces of the line format shared by the loader and the writer.
#pragma once

#include <string>
#include <string_view>

#include "agentkit/session/log.hpp"

namespace agentkit::session::detail {

// The known type for a name, EntryType::unknown otherwise.
EntryType entry_type_from_name(std::string_view name) noexcept;
// Checks a known entry's payload; the reason it is unusable otherwise.
Result<void> check_payload(const Entry& entry);
// The header as one JSON line, without the newline.
std::string header_line(const Header& header);
// Now, as RFC 3339 UTC with milliseconds ("2026-12-01T19:11:28.123Z").
std::string now_timestamp();

}  // namespace agentkit::session::detail
