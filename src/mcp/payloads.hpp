// MCP payloads as C++ structs bound with wire::bind under UnknownFields::reject (REQ-SEC-12:
// protocol payloads reject unknown members; a smuggled member never reaches dynamic code).
// Each struct declares every member the 2025-11-25 and 2026-07-28 schemas define for it; members
// whose contents are open by the spec (`_meta`, schemas, `structuredContent`, capability settings
// objects) are kept as json::Value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "agentkit/json/value.hpp"
#include "agentkit/wire/binder.hpp"

namespace agentkit::mcp::detail {

// Methods of the 2026-07-28 subscriptions extension that both the client and the servers name.
inline constexpr std::string_view kListen = "subscriptions/listen";
inline constexpr std::string_view kResourceUpdated = "notifications/resources/updated";

struct ImplementationInfo {
  std::string name;
  std::string version;
  std::optional<std::string> title;
  std::optional<std::string> description;
  std::optional<std::string> website_url;
  std::optional<json::Value> icons;
};

struct ListChangedCapability {
  std::optional<bool> list_changed;
};

struct ResourcesCapability {
  std::optional<bool> subscribe;
  std::optional<bool> list_changed;
};

struct ServerCapabilities {
  std::optional<json::Value> experimental;
  std::optional<json::Value> logging;
  std::optional<json::Value> completions;
  std::optional<ListChangedCapability> prompts;
  std::optional<ResourcesCapability> resources;
  std::optional<ListChangedCapability> tools;
  std::optional<json::Value> tasks;       // 2025-11-25 only
  std::optional<json::Value> extensions;  // 2026-07-28
};

struct InitializeResult {
  std::string protocol_version;
  ServerCapabilities capabilities;
  ImplementationInfo server_info;
  std::optional<std::string> instructions;
  std::optional<json::Value> meta;
};

struct DiscoverResult {
  std::vector<std::string> supported_versions;
  ServerCapabilities capabilities;
  std::optional<std::string> instructions;
  std::optional<std::string> result_type;
  std::optional<std::int64_t> ttl_ms;
  std::optional<std::string> cache_scope;
  std::optional<ImplementationInfo> server_info;  // early drafts put it in the body
  std::optional<json::Value> meta;
};

struct ToolAnnotationsPayload {
  std::optional<std::string> title;
  std::optional<bool> read_only_hint;
  std::optional<bool> destructive_hint;
  std::optional<bool> idempotent_hint;
  std::optional<bool> open_world_hint;
};

struct ToolPayload {
  std::string name;
  std::optional<std::string> title;
  std::optional<std::string> description;
  std::optional<json::Value> icons;
  json::Value input_schema;
  std::optional<json::Value> output_schema;
  std::optional<ToolAnnotationsPayload> annotations;
  std::optional<json::Value> execution;  // 2025-11-25 tasks
  std::optional<json::Value> meta;
};

struct ListToolsResult {
  std::vector<ToolPayload> tools;
  std::optional<std::string> next_cursor;
  std::optional<std::string> result_type;
  std::optional<std::int64_t> ttl_ms;
  std::optional<std::string> cache_scope;
  std::optional<json::Value> meta;
};

struct CallToolResult {
  std::vector<json::Value> content;  // each checked by check_content_block
  std::optional<json::Value> structured_content;
  std::optional<bool> is_error;
  std::optional<std::string> result_type;
  std::optional<json::Value> meta;
};

struct InputRequestPayload {
  std::string method;
  std::optional<json::Value> params;
};

struct InputRequiredResult {
  std::string result_type;
  std::optional<wire::Map<InputRequestPayload>> input_requests;
  std::optional<std::string> request_state;
  std::optional<json::Value> meta;
};

// Checks one content block strictly: a known type with exactly its members.
Result<void> check_content_block(const json::Value& block);

}  // namespace agentkit::mcp::detail

namespace agentkit::wire {

template <>
struct Fields<mcp::detail::ImplementationInfo> {
  using T = mcp::detail::ImplementationInfo;
  static constexpr auto list = std::tuple{
      field("name", &T::name), field("version", &T::version), optional("title", &T::title),
      optional("description", &T::description), optional("websiteUrl", &T::website_url),
      optional("icons", &T::icons)};
};

template <>
struct Fields<mcp::detail::ListChangedCapability> {
  using T = mcp::detail::ListChangedCapability;
  static constexpr auto list = std::tuple{optional("listChanged", &T::list_changed)};
};

template <>
struct Fields<mcp::detail::ResourcesCapability> {
  using T = mcp::detail::ResourcesCapability;
  static constexpr auto list =
      std::tuple{optional("subscribe", &T::subscribe), optional("listChanged", &T::list_changed)};
};

template <>
struct Fields<mcp::detail::ServerCapabilities> {
  using T = mcp::detail::ServerCapabilities;
  static constexpr auto list = std::tuple{
      optional("experimental", &T::experimental), optional("logging", &T::logging),
      optional("completions", &T::completions),   optional("prompts", &T::prompts),
      optional("resources", &T::resources),       optional("tools", &T::tools),
      optional("tasks", &T::tasks),               optional("extensions", &T::extensions)};
};

template <>
struct Fields<mcp::detail::InitializeResult> {
  using T = mcp::detail::InitializeResult;
  static constexpr auto list = std::tuple{
      field("protocolVersion", &T::protocol_version), field("capabilities", &T::capabilities),
      field("serverInfo", &T::server_info), optional("instructions", &T::instructions),
      optional("_meta", &T::meta)};
};

template <>
struct Fields<mcp::detail::DiscoverResult> {
  using T = mcp::detail::DiscoverResult;
  static constexpr auto list = std::tuple{
      field("supportedVersions", &T::supported_versions), field("capabilities", &T::capabilities),
      optional("instructions", &T::instructions),         optional("resultType", &T::result_type),
      optional("ttlMs", &T::ttl_ms),                      optional("cacheScope", &T::cache_scope),
      optional("serverInfo", &T::server_info),            optional("_meta", &T::meta)};
};

template <>
struct Fields<mcp::detail::ToolAnnotationsPayload> {
  using T = mcp::detail::ToolAnnotationsPayload;
  static constexpr auto list = std::tuple{
      optional("title", &T::title), optional("readOnlyHint", &T::read_only_hint),
      optional("destructiveHint", &T::destructive_hint), optional("idempotentHint", &T::idempotent_hint),
      optional("openWorldHint", &T::open_world_hint)};
};

template <>
struct Fields<mcp::detail::ToolPayload> {
  using T = mcp::detail::ToolPayload;
  static constexpr auto list = std::tuple{
      field("name", &T::name),                    optional("title", &T::title),
      optional("description", &T::description),  optional("icons", &T::icons),
      field("inputSchema", &T::input_schema),     optional("outputSchema", &T::output_schema),
      optional("annotations", &T::annotations),   optional("execution", &T::execution),
      optional("_meta", &T::meta)};
  static Result<void> validate(const T& t) {
    if (!t.input_schema.is_object()) return fail(Errc::validation_error, "inputSchema must be an object");
    return {};
  }
};

template <>
struct Fields<mcp::detail::ListToolsResult> {
  using T = mcp::detail::ListToolsResult;
  static constexpr auto list = std::tuple{
      field("tools", &T::tools),                optional("nextCursor", &T::next_cursor),
      optional("resultType", &T::result_type),  optional("ttlMs", &T::ttl_ms),
      optional("cacheScope", &T::cache_scope),  optional("_meta", &T::meta)};
};

template <>
struct Fields<mcp::detail::CallToolResult> {
  using T = mcp::detail::CallToolResult;
  static constexpr auto list = std::tuple{
      optional("content", &T::content),          optional("structuredContent", &T::structured_content),
      optional("isError", &T::is_error),         optional("resultType", &T::result_type),
      optional("_meta", &T::meta)};
  static Result<void> validate(const T& t) {
    for (const auto& block : t.content) {
      if (auto ok = mcp::detail::check_content_block(block); !ok) return ok;
    }
    return {};
  }
};

template <>
struct Fields<mcp::detail::InputRequestPayload> {
  using T = mcp::detail::InputRequestPayload;
  static constexpr auto list = std::tuple{field("method", &T::method), optional("params", &T::params)};
};

template <>
struct Fields<mcp::detail::InputRequiredResult> {
  using T = mcp::detail::InputRequiredResult;
  static constexpr auto list = std::tuple{
      field("resultType", &T::result_type), optional("inputRequests", &T::input_requests),
      optional("requestState", &T::request_state), optional("_meta", &T::meta)};
  static Result<void> validate(const T& t) {
    if (!t.input_requests && !t.request_state) {
      return fail(Errc::validation_error, "an input_required result needs inputRequests or requestState");
    }
    return {};
  }
};

}  // namespace agentkit::wire
