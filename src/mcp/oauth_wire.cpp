#include "oauth_wire.hpp"

#include "agentkit/base/strings.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/wire/decode.hpp"

namespace agentkit::mcp::detail {
namespace {

// tchar (RFC 9110 §5.6.2).
bool is_tchar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
// token68 characters besides the trailing '=' padding (RFC 9110 §11.2).
bool is_token68_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')) return true;
  return std::string_view("-._~+/").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

class ChallengeReader {
 public:
  explicit ChallengeReader(std::string_view text) : s_(text) {}

  Result<std::vector<AuthChallenge>> read() {
    std::vector<AuthChallenge> out;
    std::size_t params = 0;
    while (true) {
      skip_list_separators();
      if (at_end()) break;
      AuthChallenge c;
      c.scheme = token();
      if (c.scheme.empty()) return bad("expected an auth-scheme");
      skip_ows();
      if (!at_end() && s_[i_] != ',' && !param_ahead()) {
        c.token68 = token68();
        if (c.token68.empty())
          return bad("expected auth-params or a token68 after '" + c.scheme + "'");
      }
      while (param_ahead()) {
        if (++params > kMaxChallengeParams)
          return bad("more than " + std::to_string(kMaxChallengeParams) + " auth-params");
        std::string name = lower(token());
        skip_ows();
        ++i_;  // '='
        skip_ows();
        auto value = param_value();
        if (!value) return std::move(value).error();
        c.params.emplace_back(std::move(name), std::move(*value));
        skip_ows();
        if (at_end()) break;
        if (s_[i_] != ',') return bad("expected ',' between auth-params");
        skip_list_separators();
      }
      out.push_back(std::move(c));
    }
    return out;
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  void skip_ows() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  void skip_list_separators() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == ',')) ++i_;
  }
  std::string token() {
    const std::size_t start = i_;
    while (!at_end() && is_tchar(s_[i_])) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  std::string token68() {
    const std::size_t start = i_;
    while (!at_end() && is_token68_char(s_[i_])) ++i_;
    if (i_ == start) return {};
    while (!at_end() && s_[i_] == '=') ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  // A token, optional whitespace, then one '=' that is not token68 padding.
  bool param_ahead() const {
    std::size_t j = i_;
    while (j < s_.size() && is_tchar(s_[j])) ++j;
    if (j == i_) return false;
    while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
    if (j >= s_.size() || s_[j] != '=') return false;
    ++j;
    while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
    return j >= s_.size() || (s_[j] != '=' && s_[j] != ',');
  }
  Result<std::string> param_value() {
    if (at_end()) return bad("an auth-param has no value");
    if (s_[i_] != '"') {
      std::string v = token();
      if (v.empty()) return bad("an auth-param value is neither a token nor a quoted string");
      return v;
    }
    ++i_;
    std::string out;
    while (!at_end()) {
      char c = s_[i_++];
      if (c == '"') return out;
      if (c == '\\') {
        if (at_end()) break;
        c = s_[i_++];
      }
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7F)
        return bad("a control byte inside a quoted auth-param");
      out += c;
    }
    return bad("an unterminated quoted string");
  }
  Error bad(std::string what) const {
    return make_error(Errc::parse_error, "malformed WWW-Authenticate header: " + std::move(what) +
                                             " at byte " + std::to_string(i_));
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

Result<json::Value> decode_object(std::string_view body, std::string_view what) {
  if (body.size() > kMaxOAuthDocumentBytes) {
    return make_error(Errc::limit_exceeded, std::string(what) + " is larger than " +
                                                std::to_string(kMaxOAuthDocumentBytes) + " bytes");
  }
  auto doc = wire::decode(body);
  if (!doc)
    return make_error(Errc::protocol_error,
                      std::string(what) + " is not valid JSON: " + doc.error().message);
  if (!doc->is_object())
    return make_error(Errc::protocol_error, std::string(what) + " is not a JSON object");
  return doc;
}

// A string member; absent is empty, another type is an error.
Result<std::string> string_member(const json::Value& doc, std::string_view key,
                                  std::string_view what) {
  const json::Value* v = doc.find(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string())
    return make_error(Errc::protocol_error,
                      std::string(what) + ": \"" + std::string(key) + "\" is not a string");
  return v->as_string();
}

Result<std::vector<std::string>> string_array(const json::Value& doc, std::string_view key,
                                              std::string_view what) {
  std::vector<std::string> out;
  const json::Value* v = doc.find(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array())
    return make_error(Errc::protocol_error,
                      std::string(what) + ": \"" + std::string(key) + "\" is not an array");
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) {
      return make_error(Errc::protocol_error,
                        std::string(what) + ": \"" + std::string(key) + "\" holds a non-string");
    }
    out.push_back(item.as_string());
  }
  return out;
}

#define AGENTKIT_TRY_ASSIGN(lhs, expr)         \
  do {                                         \
    auto tmp_ = (expr);                        \
    if (!tmp_) return std::move(tmp_).error(); \
    lhs = std::move(*tmp_);                    \
  } while (false)

}  // namespace

std::optional<std::string> AuthChallenge::param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (iequals(k, name)) return v;
  }
  return std::nullopt;
}

Result<std::vector<AuthChallenge>> parse_www_authenticate(std::string_view value) {
  if (value.size() > kMaxChallengeBytes) {
    return make_error(Errc::limit_exceeded, "WWW-Authenticate header is longer than " +
                                                std::to_string(kMaxChallengeBytes) + " bytes");
  }
  return ChallengeReader(value).read();
}

std::optional<AuthChallenge> bearer_challenge(const std::vector<AuthChallenge>& challenges) {
  for (const auto& c : challenges) {
    if (iequals(c.scheme, "bearer")) return c;
  }
  return std::nullopt;
}

Result<ResourceMetadata> parse_resource_metadata(std::string_view body) {
  constexpr std::string_view what = "the protected-resource metadata";
  auto doc = decode_object(body, what);
  if (!doc) return std::move(doc).error();
  ResourceMetadata out;
  AGENTKIT_TRY_ASSIGN(out.resource, string_member(*doc, "resource", what));
  AGENTKIT_TRY_ASSIGN(out.authorization_servers, string_array(*doc, "authorization_servers", what));
  AGENTKIT_TRY_ASSIGN(out.scopes_supported, string_array(*doc, "scopes_supported", what));
  if (out.resource.empty())
    return make_error(Errc::protocol_error, std::string(what) + " has no \"resource\"");
  if (out.authorization_servers.empty()) {
    return make_error(Errc::protocol_error,
                      std::string(what) + " names no \"authorization_servers\"");
  }
  return out;
}

Result<ServerMetadata> parse_server_metadata(std::string_view body) {
  constexpr std::string_view what = "the authorization server metadata";
  auto doc = decode_object(body, what);
  if (!doc) return std::move(doc).error();
  ServerMetadata out;
  AGENTKIT_TRY_ASSIGN(out.issuer, string_member(*doc, "issuer", what));
  AGENTKIT_TRY_ASSIGN(out.authorization_endpoint,
                      string_member(*doc, "authorization_endpoint", what));
  AGENTKIT_TRY_ASSIGN(out.token_endpoint, string_member(*doc, "token_endpoint", what));
  AGENTKIT_TRY_ASSIGN(out.registration_endpoint,
                      string_member(*doc, "registration_endpoint", what));
  AGENTKIT_TRY_ASSIGN(out.code_challenge_methods_supported,
                      string_array(*doc, "code_challenge_methods_supported", what));
  AGENTKIT_TRY_ASSIGN(out.scopes_supported, string_array(*doc, "scopes_supported", what));
  AGENTKIT_TRY_ASSIGN(out.token_endpoint_auth_methods_supported,
                      string_array(*doc, "token_endpoint_auth_methods_supported", what));
  if (const json::Value* v = doc->find("client_id_metadata_document_supported")) {
    out.client_id_metadata_document_supported = v->get_bool() == std::optional<bool>(true);
  }
  if (const json::Value* v = doc->find("authorization_response_iss_parameter_supported")) {
    out.authorization_response_iss_parameter_supported = v->get_bool() == std::optional<bool>(true);
  }
  if (out.issuer.empty())
    return make_error(Errc::protocol_error, std::string(what) + " has no \"issuer\"");
  if (out.authorization_endpoint.empty() || out.token_endpoint.empty()) {
    return make_error(
        Errc::protocol_error,
        std::string(what) + " lacks \"authorization_endpoint\" or \"token_endpoint\"");
  }
  return out;
}

Result<Registration> parse_registration(std::string_view body) {
  constexpr std::string_view what = "the client registration answer";
  auto doc = decode_object(body, what);
  if (!doc) return std::move(doc).error();
  Registration out;
  AGENTKIT_TRY_ASSIGN(out.client_id, string_member(*doc, "client_id", what));
  AGENTKIT_TRY_ASSIGN(out.client_secret, string_member(*doc, "client_secret", what));
  AGENTKIT_TRY_ASSIGN(out.token_endpoint_auth_method,
                      string_member(*doc, "token_endpoint_auth_method", what));
  if (out.client_id.empty())
    return make_error(Errc::protocol_error, std::string(what) + " has no \"client_id\"");
  return out;
}

Result<TokenAnswer> parse_token_answer(std::string_view body) {
  constexpr std::string_view what = "the token endpoint's answer";
  auto doc = decode_object(body, what);
  if (!doc) return std::move(doc).error();
  TokenAnswer out;
  AGENTKIT_TRY_ASSIGN(out.access_token, string_member(*doc, "access_token", what));
  AGENTKIT_TRY_ASSIGN(out.refresh_token, string_member(*doc, "refresh_token", what));
  AGENTKIT_TRY_ASSIGN(out.scope, string_member(*doc, "scope", what));
  std::string type;
  AGENTKIT_TRY_ASSIGN(type, string_member(*doc, "token_type", what));
  if (out.access_token.empty())
    return make_error(Errc::protocol_error, std::string(what) + " has no \"access_token\"");
  if (!iequals(type, "bearer")) {
    return make_error(Errc::protocol_error, std::string(what) + " has token_type \"" +
                                                type.substr(0, 40) +
                                                "\"; only Bearer tokens are used");
  }
  if (const json::Value* v = doc->find("expires_in"); v != nullptr && !v->is_null()) {
    auto n = v->to_int64();
    if (!n || *n < 0)
      return make_error(Errc::protocol_error,
                        std::string(what) + ": \"expires_in\" is not a non-negative integer");
    out.expires_in = *n;
  }
  return out;
}

std::string oauth_error_of(std::string_view body) {
  auto doc = decode_object(body, "an OAuth error answer");
  if (!doc) return {};
  auto code = string_member(*doc, "error", "");
  if (!code || code->empty()) return {};
  std::string out = code->substr(0, 100);
  if (auto d = string_member(*doc, "error_description", ""); d && !d->empty())
    out += " (" + d->substr(0, 200) + ")";
  return out;
}

}  // namespace agentkit::mcp::detail
