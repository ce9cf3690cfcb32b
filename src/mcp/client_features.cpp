// The server's prompts and resources as the embedder reaches them (client.hpp): typed lists over
// Client::request, which already carries the era's envelope and headers.
#include "agentkit/mcp/client.hpp"

namespace agentkit::mcp {
namespace {

constexpr int kMaxPages = 1000;

std::string text_of(const json::Value& item, std::string_view key) {
  const json::Value* v = item.find(key);
  return v && v->is_string() ? v->as_string() : std::string();
}

// Every item of a paginated list method, following nextCursor.
Result<std::vector<json::Value>> list_all(Client& client, std::string_view method,
                                          std::string_view member, agentkit::stop_token stop) {
  std::vector<json::Value> items;
  std::optional<std::string> cursor;
  for (int page = 0; page < kMaxPages; ++page) {
    json::Object params;
    if (cursor) params.append_unique("cursor", *cursor);
    auto result = client.request(method, json::Value(std::move(params)), stop);
    if (!result) return std::move(result).error();
    const json::Value* list = result->find(member);
    if (list == nullptr || !list->is_array()) {
      return fail(Errc::protocol_error, "MCP server '" + client.diagnostics().server +
                                            "' answered " + std::string(method) + " without a '" +
                                            std::string(member) + "' array");
    }
    for (const auto& item : list->as_array()) items.push_back(item);
    const json::Value* next = result->find("nextCursor");
    if (next == nullptr || !next->is_string()) return items;
    cursor = next->as_string();
  }
  return fail(Errc::limit_exceeded, "MCP server '" + client.diagnostics().server +
                                        "' kept paginating " + std::string(method) + " past " +
                                        std::to_string(kMaxPages) + " pages");
}

}  // namespace

Result<std::vector<PromptInfo>> list_prompts(Client& client, agentkit::stop_token stop) {
  auto items = list_all(client, "prompts/list", "prompts", std::move(stop));
  if (!items) return std::move(items).error();
  std::vector<PromptInfo> out;
  for (const auto& p : *items) {
    const json::Value* args = p.find("arguments");
    out.push_back({text_of(p, "name"), text_of(p, "title"), text_of(p, "description"),
                   args ? *args : json::Value()});
  }
  return out;
}

Result<json::Value> get_prompt(Client& client, std::string_view name,
                               const std::vector<std::pair<std::string, std::string>>& arguments,
                               agentkit::stop_token stop) {
  json::Object params;
  params.append_unique("name", std::string(name));
  if (!arguments.empty()) {
    json::Object args;
    for (const auto& [k, v] : arguments) args.set(k, v);
    params.append_unique("arguments", std::move(args));
  }
  return client.request("prompts/get", json::Value(std::move(params)), std::move(stop));
}

Result<std::vector<ResourceInfo>> list_resources(Client& client, agentkit::stop_token stop) {
  auto items = list_all(client, "resources/list", "resources", std::move(stop));
  if (!items) return std::move(items).error();
  std::vector<ResourceInfo> out;
  for (const auto& r : *items) {
    out.push_back({text_of(r, "uri"), text_of(r, "name"), text_of(r, "title"),
                   text_of(r, "description"), text_of(r, "mimeType")});
  }
  return out;
}

Result<json::Value> read_resource(Client& client, std::string_view uri, agentkit::stop_token stop) {
  return client.request("resources/read", json::Value(json::Object{{"uri", std::string(uri)}}),
                        std::move(stop));
}

}  // namespace agentkit::mcp
