#include "payloads.hpp"

#include <initializer_list>

namespace agentkit::mcp::detail {
namespace {

Result<void> only_members(const json::Object& o, std::string_view type, std::initializer_list<std::string_view> allowed) {
  for (const auto& m : o) {
    bool known = false;
    for (auto a : allowed) known = known || m.key == a;
    if (!known) return fail(Errc::validation_error, "unknown member \"" + m.key + "\" in a " + std::string(type) + " content block");
  }
  return {};
}

Result<void> require_string(const json::Object& o, std::string_view type, std::string_view key) {
  const json::Value* v = o.find(key);
  if (v == nullptr || !v->is_string()) {
    return fail(Errc::validation_error, "a " + std::string(type) + " content block needs a string \"" + std::string(key) + "\"");
  }
  return {};
}

Result<void> check_embedded(const json::Value& resource) {
  const json::Object* o = resource.get_object();
  if (o == nullptr) return fail(Errc::validation_error, "an embedded resource must be an object");
  if (auto ok = only_members(*o, "embedded resource", {"uri", "mimeType", "text", "blob", "_meta"}); !ok) return ok;
  if (auto ok = require_string(*o, "embedded resource", "uri"); !ok) return ok;
  if (o->contains("text") == o->contains("blob")) {
    return fail(Errc::validation_error, "an embedded resource needs exactly one of \"text\" and \"blob\"");
  }
  return require_string(*o, "embedded resource", o->contains("text") ? "text" : "blob");
}

}  // namespace

Result<void> check_content_block(const json::Value& block) {
  const json::Object* o = block.get_object();
  if (o == nullptr) return fail(Errc::validation_error, "a content block must be an object");
  const json::Value* type = o->find("type");
  if (type == nullptr || !type->is_string()) return fail(Errc::validation_error, "a content block needs a string \"type\"");
  const std::string& t = type->as_string();
  if (t == "text") {
    if (auto ok = only_members(*o, t, {"type", "text", "annotations", "_meta"}); !ok) return ok;
    return require_string(*o, t, "text");
  }
  if (t == "image" || t == "audio") {
    if (auto ok = only_members(*o, t, {"type", "data", "mimeType", "annotations", "_meta"}); !ok) return ok;
    if (auto ok = require_string(*o, t, "data"); !ok) return ok;
    return require_string(*o, t, "mimeType");
  }
  if (t == "resource_link") {
    if (auto ok = only_members(*o, t, {"type", "uri", "name", "title", "description", "mimeType", "size", "icons",
                                       "annotations", "_meta"});
        !ok) {
      return ok;
    }
    if (auto ok = require_string(*o, t, "uri"); !ok) return ok;
    return require_string(*o, t, "name");
  }
  if (t == "resource") {
    if (auto ok = only_members(*o, t, {"type", "resource", "annotations", "_meta"}); !ok) return ok;
    const json::Value* r = o->find("resource");
    if (r == nullptr) return fail(Errc::validation_error, "a resource content block needs \"resource\"");
    return check_embedded(*r);
  }
  return fail(Errc::validation_error, "unknown content block type \"" + t + "\"");
}

}  // namespace agentkit::mcp::detail
