// The loopback redirect listener (RFC 8252 §7.3) and the in-memory token store.
#include <map>
#include <mutex>

#include "agentkit/base/condition_variable.hpp"
#include "agentkit/http/server.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/mcp/oauth.hpp"

namespace agentkit::mcp {

// ---- MemoryTokenStore --------------------------------------------------------------------------

struct MemoryTokenStore::State {
  std::mutex mu;
  std::map<std::string, OAuthTokens, std::less<>> tokens;
};

MemoryTokenStore::MemoryTokenStore() : state_(std::make_unique<State>()) {}
MemoryTokenStore::~MemoryTokenStore() = default;

Result<std::optional<OAuthTokens>> MemoryTokenStore::load(std::string_view key) {
  std::lock_guard lock(state_->mu);
  auto it = state_->tokens.find(key);
  if (it == state_->tokens.end()) return std::optional<OAuthTokens>();
  return std::optional<OAuthTokens>(it->second);
}

Result<void> MemoryTokenStore::save(std::string_view key,
                                    const std::optional<OAuthTokens>& tokens) {
  std::lock_guard lock(state_->mu);
  if (tokens) {
    state_->tokens.insert_or_assign(std::string(key), *tokens);
  } else if (auto it = state_->tokens.find(key); it != state_->tokens.end()) {
    state_->tokens.erase(it);
  }
  return {};
}

// ---- LoopbackRedirect --------------------------------------------------------------------------

namespace {

constexpr int kHttpOk = 200;
constexpr int kHttpNotFound = 404;

// One query parameter, form-decoded ('+' is a space); empty when absent or malformed.
std::string query_param(std::string_view query, std::string_view name) {
  std::size_t i = 0;
  while (i <= query.size()) {
    std::size_t end = query.find('&', i);
    if (end == std::string_view::npos) end = query.size();
    std::string_view pair = query.substr(i, end - i);
    const std::size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      std::string raw(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
      for (auto& c : raw) {
        if (c == '+') c = ' ';
      }
      auto decoded = http::percent_decode(raw);
      return decoded ? *decoded : std::string();
    }
    i = end + 1;
  }
  return {};
}

}  // namespace

struct LoopbackRedirect::State {
  LoopbackRedirectOptions options;
  std::optional<http::HttpServer> server;
  std::mutex mu;
  agentkit::condition_variable_any arrived;
  std::optional<std::string> query;  // the latest redirect's query, until an authorizer takes it
  std::mutex waiting;                // one authorization at a time

  ~State() {
    if (server) server->stop();
  }
};

Result<LoopbackRedirect> LoopbackRedirect::start(LoopbackRedirectOptions options) {
  auto state = std::make_shared<State>();
  state->options = std::move(options);
  if (state->options.path.empty() || state->options.path.front() != '/')
    state->options.path.insert(0, "/");
  State* raw = state.get();  // the server stops (and joins) in the state's destructor
  auto server = http::HttpServer::start(
      {.port = state->options.port},
      [raw](const http::ServerRequest& req, http::ResponseWriter& out) {
        if (req.method != "GET" || req.path != raw->options.path) {
          (void)out.respond(kHttpNotFound, {{"Content-Type", "text/plain"}}, "not found");
          return;
        }
        {
          std::lock_guard lock(raw->mu);
          raw->query = req.query.value_or("");
        }
        raw->arrived.notify_all();
        (void)out.respond(kHttpOk, {{"Content-Type", "text/plain; charset=utf-8"}},
                          raw->options.success_page);
      });
  if (!server) {
    return make_error(server.error().code,
                      "the OAuth redirect listener could not listen on 127.0.0.1:" +
                          std::to_string(state->options.port) + ": " + server.error().message);
  }
  state->server = std::move(*server);
  return LoopbackRedirect(std::move(state));
}

LoopbackRedirect::LoopbackRedirect(std::shared_ptr<State> state) noexcept
    : state_(std::move(state)) {}
LoopbackRedirect::LoopbackRedirect(LoopbackRedirect&&) noexcept = default;
LoopbackRedirect& LoopbackRedirect::operator=(LoopbackRedirect&&) noexcept = default;
LoopbackRedirect::~LoopbackRedirect() = default;

std::string LoopbackRedirect::redirect_uri() const {
  return "http://127.0.0.1:" + std::to_string(state_->server->port()) + state_->options.path;
}

Authorize LoopbackRedirect::authorizer(std::function<void(std::string_view url)> open) const {
  return [state = state_, open = std::move(open)](
             const AuthorizationRequest& request,
             agentkit::stop_token stop) -> Result<AuthorizationRedirect> {
    std::lock_guard one(state->waiting);
    {
      std::lock_guard lock(state->mu);
      state->query.reset();  // a redirect from an earlier attempt is not this one's
    }
    if (open) open(request.url);
    std::unique_lock lock(state->mu);
    if (!state->arrived.wait(lock, stop, [&] { return state->query.has_value(); })) {
      return make_error(Errc::cancelled, "the wait for the OAuth redirect was stopped");
    }
    const std::string query = std::move(*state->query);
    state->query.reset();
    if (std::string err = query_param(query, "error"); !err.empty()) {
      std::string description = query_param(query, "error_description");
      return make_error(Errc::unauthenticated,
                        "the authorization server refused: " + err.substr(0, 100) +
                            (description.empty() ? "" : " (" + description.substr(0, 200) + ")"));
    }
    return AuthorizationRedirect{query_param(query, "code"), query_param(query, "state"),
                                 query_param(query, "iss")};
  };
}

}  // namespace agentkit::mcp
