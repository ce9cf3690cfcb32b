// Private: what every built-in tool definition shares: argument readers and the validating
// wrapper around a handler. (Failures are ToolResult::failure, core/tool.hpp: one shape for all.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agentkit/base/result.hpp"
#include "agentkit/core/schema.hpp"
#include "agentkit/core/tool.hpp"
#include "agentkit/json/value.hpp"

namespace agentkit::tools::detail {

// Readers for arguments that passed prepare_arguments (so the types already match the schema).
std::string string_arg(const json::Value& args, std::string_view key, std::string_view fallback = {});
std::optional<std::int64_t> int_arg(const json::Value& args, std::string_view key);
std::optional<bool> bool_arg(const json::Value& args, std::string_view key);

// Runs the argument pipeline again before `body`: the loop has already done it, but a handler
// called directly (an embedder, a test, a subagent) must not see unvalidated input.
ToolHandler validated(const Schema& schema, ToolHandler body);

// A size for metadata (JSON numbers).
inline json::Value count(std::size_t n) { return json::Value(static_cast<unsigned long long>(n)); }

}  // namespace agentkit::tools::detail
