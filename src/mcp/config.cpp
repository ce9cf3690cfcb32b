// The `mcpServers` configuration shape and ${VAR} interpolation.
#include "agentkit/mcp/config.hpp"

#include <cstdlib>

#include "agentkit/wire/binder.hpp"

namespace agentkit::mcp {
namespace {

struct OAuthEntry {
  std::optional<std::string> client_id;
  std::optional<std::string> client_secret;
  std::optional<std::string> grant;
  std::optional<std::string> client_metadata_url;
  std::optional<std::vector<std::string>> scopes;
  std::optional<std::string> redirect_uri;
  std::optional<std::string> client_name;
};

struct ServerEntry {
  std::optional<std::string> command;
  std::optional<std::vector<std::string>> args;
  std::optional<wire::Map<std::string>> env;
  std::optional<std::string> cwd;
  std::optional<std::string> url;
  std::optional<wire::Map<std::string>> headers;
  std::optional<std::string> type;
  std::optional<std::string> negotiation;
  std::optional<bool> allow_sampling;
  std::optional<bool> allow_elicitation;
  std::optional<std::int64_t> call_limit;
  std::optional<std::int64_t> timeout_ms;
  std::optional<OAuthEntry> oauth;
};

struct ConfigDocument {
  wire::Map<ServerEntry> servers;
};

}  // namespace
}  // namespace agentkit::mcp

namespace agentkit::wire {
template <>
struct Fields<mcp::OAuthEntry> {
  using T = mcp::OAuthEntry;
  static constexpr auto list = std::tuple{optional("clientId", &T::client_id),
                                          optional("clientMetadataUrl", &T::client_metadata_url),
                                          optional("scopes", &T::scopes),
                                          optional("redirectUri", &T::redirect_uri),
                                          optional("clientName", &T::client_name),
                                          optional("clientSecret", &T::client_secret),
                                          optional("grant", &T::grant)};
};
template <>
struct Fields<mcp::ServerEntry> {
  using T = mcp::ServerEntry;
  static constexpr auto list = std::tuple{optional("command", &T::command),
                                          optional("args", &T::args),
                                          optional("env", &T::env),
                                          optional("cwd", &T::cwd),
                                          optional("url", &T::url),
                                          optional("headers", &T::headers),
                                          optional("type", &T::type),
                                          optional("negotiation", &T::negotiation),
                                          optional("allowSampling", &T::allow_sampling),
                                          optional("allowElicitation", &T::allow_elicitation),
                                          optional("callLimit", &T::call_limit),
                                          optional("timeoutMs", &T::timeout_ms),
                                          optional("oauth", &T::oauth)};
};
template <>
struct Fields<mcp::ConfigDocument> {
  using T = mcp::ConfigDocument;
  static constexpr auto list = std::tuple{field("mcpServers", &T::servers)};
};
}  // namespace agentkit::wire

namespace agentkit::mcp {
namespace {

Error config_error(std::string_view server, std::string message) {
  return make_error(Errc::invalid_argument, "MCP server '" + std::string(server) + "' in the configuration: " + message)
      .with_detail("server", std::string(server));
}

Result<Negotiation> parse_negotiation(std::string_view server, std::string_view text) {
  if (text == "auto") return Negotiation::automatic;
  if (text == "modern") return Negotiation::modern;
  if (text == "legacy") return Negotiation::legacy;
  return config_error(server, "\"negotiation\" must be \"auto\", \"modern\" or \"legacy\", not \"" + std::string(text) + "\"");
}

std::vector<std::pair<std::string, std::string>> pairs_of(const std::optional<wire::Map<std::string>>& map) {
  if (!map) return {};
  return map->entries;
}

Result<ServerConfig> to_server(const std::string& name, const ServerEntry& e) {
  if (name.empty() || name.find("__") != std::string::npos) {
    return config_error(name, "a server name must be non-empty and must not contain \"__\" (the separator in server__tool)");
  }
  if (e.command.has_value() == e.url.has_value()) {
    return config_error(name, "give exactly one of \"command\" (a stdio server) and \"url\" (an HTTP server)");
  }
  ServerConfig out;
  out.name = name;
  if (e.command) {
    if (e.headers) return config_error(name, "\"headers\" belong to HTTP servers; this one has a \"command\"");
    if (e.oauth)
      return config_error(name, "\"oauth\" belongs to HTTP servers; this one has a \"command\"");
    out.transport = StdioLaunch{*e.command, e.args.value_or(std::vector<std::string>{}), pairs_of(e.env), e.cwd.value_or("")};
  } else {
    const bool sse = e.type && *e.type == "sse";
    if (e.type && !sse && *e.type != "http" && *e.type != "streamable-http" &&
        *e.type != "streamableHttp") {
      return config_error(name, "\"type\" \"" + *e.type +
                                    "\" is not supported; use \"http\" (Streamable HTTP) or "
                                    "\"sse\" (the 2024-11-05 HTTP+SSE transport)");
    }
    if (e.args || e.env || e.cwd) return config_error(name, "\"args\", \"env\" and \"cwd\" belong to stdio servers");
    HttpTarget target{*e.url, pairs_of(e.headers), sse ? HttpKind::sse : HttpKind::streamable,
                      std::nullopt};
    if (e.oauth) {
      OAuthSettings oauth;
      oauth.client_id = e.oauth->client_id.value_or("");
      oauth.client_secret = e.oauth->client_secret.value_or("");
      if (e.oauth->grant) {
        if (*e.oauth->grant == "client_credentials") {
          oauth.grant = OAuthGrant::client_credentials;
        } else if (*e.oauth->grant != "authorization_code") {
          return config_error(name, "\"oauth\": \"grant\" \"" + *e.oauth->grant +
                                        "\" is not supported; use \"authorization_code\" or "
                                        "\"client_credentials\"");
        }
      }
      oauth.client_metadata_url = e.oauth->client_metadata_url.value_or("");
      oauth.scopes = e.oauth->scopes.value_or(std::vector<std::string>{});
      oauth.redirect_uri = e.oauth->redirect_uri.value_or("");
      if (e.oauth->client_name) oauth.client_name = *e.oauth->client_name;
      target.oauth = std::move(oauth);
    }
    out.transport = std::move(target);
  }
  if (e.negotiation) {
    auto n = parse_negotiation(name, *e.negotiation);
    if (!n) return std::move(n).error();
    out.negotiation = *n;
  }
  out.allow_sampling = e.allow_sampling;
  out.allow_elicitation = e.allow_elicitation;
  if (e.call_limit) {
    if (*e.call_limit < 0) return config_error(name, "\"callLimit\" must not be negative");
    out.call_limit = static_cast<std::size_t>(*e.call_limit);
  }
  if (e.timeout_ms) {
    if (*e.timeout_ms <= 0) return config_error(name, "\"timeoutMs\" must be positive");
    out.request_timeout = std::chrono::milliseconds(*e.timeout_ms);
  }
  return out;
}

}  // namespace

Result<std::vector<ServerConfig>> parse_servers_config(std::string_view json_text) {
  auto doc = json::parse(json_text);
  if (!doc) return make_error(Errc::parse_error, "MCP configuration is not valid JSON: " + doc.error().message);
  auto bound = wire::bind<ConfigDocument>(*doc, wire::UnknownFields::tolerate);
  if (!bound) return make_error(Errc::invalid_argument, "MCP configuration: " + bound.error().message);
  std::vector<ServerConfig> out;
  for (const auto& [name, entry] : bound->servers.entries) {
    auto server = to_server(name, entry);
    if (!server) return std::move(server).error();
    out.push_back(std::move(*server));
  }
  return out;
}

Result<std::string> interpolate(std::string_view text, const EnvLookup& getenv) {
  const auto lookup = [&](std::string_view name) -> std::optional<std::string> {
    if (getenv) return getenv(name);
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  std::string out;
  std::vector<std::string> missing;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] != '{') {
      out += text[i++];
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      return make_error(Errc::invalid_argument, "unterminated ${...} reference in '" + std::string(text) + "'");
    }
    const std::string name(text.substr(i + 2, close - i - 2));
    if (name.empty()) return make_error(Errc::invalid_argument, "empty ${} reference in '" + std::string(text) + "'");
    if (auto value = lookup(name)) {
      out += *value;
    } else {
      missing.push_back(name);
    }
    i = close + 1;
  }
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "${" : ", ${") + m + "}";
    Error e = make_error(Errc::invalid_argument, names + " not set; set the variable(s) or remove the reference "
                                                         "(the literal text is never passed on)");
    for (const auto& m : missing) e.with_detail("variable", m);
    return e;
  }
  return out;
}

}  // namespace agentkit::mcp
