// Private: what every built-in tool definition shares — the result envelope for failures, argument
// readers, and the validating wrapper around a handler.
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

// ok=false with a stable code (the error's detail "code" when it has one, else a name derived
// from its Errc) and the message as the text the model reads. The error's details (resolved
// path, offsets, ...) go to metadata, never to the model.
ToolResult failure_result(const Error& error);
ToolResult failure_result(std::string code, std::string message);

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
