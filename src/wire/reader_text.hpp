// Private: quoting peer bytes inside error messages without letting them flood or corrupt a log.
#pragma once

#include <string>
#include <string_view>

namespace agentkit::wire::detail {

// The first bytes of `s`, with control and non-ASCII bytes shown as \xNN, for an error message.
std::string printable_prefix(std::string_view s);

}  // namespace agentkit::wire::detail
