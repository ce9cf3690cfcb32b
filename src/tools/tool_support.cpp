#include "tool_support.hpp"

#include <utility>

namespace agentkit::tools::detail {

namespace {
// The codes of coding_tools.hpp, from an error that carries no "code" detail of its own.
std::string code_for(Errc errc) {
  switch (errc) {
    case Errc::invalid_argument:
    case Errc::validation_error:
      return "invalid_arguments";
    default:
      return std::string(errc_name(errc));
  }
}
}  // namespace

ToolResult failure_result(std::string code, std::string message) {
  ToolResult r = ToolResult::failure(std::move(code), message);
  r.text = std::move(message);  // the model reads prose; the code stays in error/metadata
  return r;
}

ToolResult failure_result(const Error& error) {
  auto code = error.find_detail("code");
  ToolResult r = failure_result(code ? std::string(*code) : code_for(error.code), error.message);
  for (const auto& d : error.detail) {
    if (d.key != "code") r.metadata.set(d.key, d.value);
  }
  return r;
}

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
    if (!prepared) return failure_result("invalid_arguments", prepared.error().message);
    return body(*prepared, ctx);
  };
}

}  // namespace agentkit::tools::detail
