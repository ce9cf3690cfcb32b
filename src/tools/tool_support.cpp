#include "tool_support.hpp"

namespace agentkit::tools::detail {

std::string string_arg(const json::Value& args, std::string_view key, std::string_view fallback) {
  const json::Value* v = args.find(key);
  if (v == nullptr) return std::string(fallback);
  auto s = v->get_string();
  return s ? std::string(*s) : std::string(fallback);
}

std::optional<std::int64_t> int_arg(const json::Value& args, std::string_view key) {
  const json::Value* v = args.find(key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  auto n = v->to_int64();
  return n ? std::optional<std::int64_t>(*n) : std::nullopt;
}

std::optional<bool> bool_arg(const json::Value& args, std::string_view key) {
  const json::Value* v = args.find(key);
  return v == nullptr ? std::nullopt : v->get_bool();
}

ToolHandler validated(const Schema& schema, ToolHandler body) {
  return [schema, body = std::move(body)](const json::Value& args, const ToolContext& ctx) {
    auto prepared = prepare_arguments(schema, args);
    if (!prepared) return ToolResult::failure("invalid_arguments", prepared.error().message);
    return body(*prepared, ctx);
  };
}

}  // namespace agentkit::tools::detail
