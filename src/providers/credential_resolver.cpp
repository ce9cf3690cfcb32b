// Per-vendor credential resolution (REQ-AUTH-01..04) and OAuth refresh under the vendor's lock
// (REQ-AUTH-06).
#include <atomic>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/strings.hpp"
#include "agentkit/providers/credentials.hpp"

namespace agentkit::providers {

namespace {

using HeaderList = std::vector<std::pair<std::string, std::optional<std::string>>>;

constexpr std::string_view kDefaultAuthHeader = "Authorization";
constexpr std::string_view kBearerPrefix = "Bearer ";

void add_header(HeaderList& headers, std::string name, std::string value) {
  for (auto& [n, v] : headers) {
    if (iequals(n, name)) {
      v = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

// A base URL from the environment; OLLAMA_HOST is conventionally "host:port" without a scheme.
std::string normalise_base_url(std::string value) {
  value = std::string(trim_ows(value));
  if (!value.empty() && value.find("://") == std::string::npos) value = "http://" + value;
  while (value.size() > 1 && value.back() == '/') value.pop_back();
  return value;
}

std::string base_url_from_environment(const catalog::Vendor* vendor, const EnvironmentLookup& env) {
  if (vendor == nullptr) return {};
  for (const auto& name : vendor->auth.base_url_variables) {
    if (auto v = env(name); v && !trim_ows(*v).empty()) return normalise_base_url(*v);
  }
  return {};
}

// The vendor's OAuth extras for a bearer token that is an OAuth token (Anthropic's "sk-ant-oat").
void add_oauth_headers(HeaderList& headers, const catalog::Vendor* vendor) {
  if (vendor == nullptr) return;
  for (const auto& [name, value] : vendor->auth.oauth_headers) add_header(headers, name, value);
}

bool is_oauth_token(const catalog::Vendor* vendor, std::string_view token) {
  return vendor != nullptr && !vendor->auth.oauth_token_prefix.empty() &&
         token.substr(0, vendor->auth.oauth_token_prefix.size()) == vendor->auth.oauth_token_prefix;
}

ModelAuth auth_from_value(const catalog::Vendor* vendor, std::string header, std::string prefix, std::string value,
                          std::string source) {
  ModelAuth auth;
  auth.state = CredentialState::key;
  auth.source = std::move(source);
  bool bearer = iequals(prefix, kBearerPrefix);
  add_header(auth.headers, std::move(header), prefix + value);
  if (bearer && is_oauth_token(vendor, value)) add_oauth_headers(auth.headers, vendor);
  auth.key = Secret(std::move(value));
  return auth;
}

// REQ-AUTH-03: the vendor's variables in order; the first non-empty one wins.
std::optional<ModelAuth> auth_from_variables(const catalog::Vendor* vendor, const EnvironmentLookup& env) {
  if (vendor == nullptr) return std::nullopt;
  for (const auto& var : vendor->auth.variables) {
    auto value = env(var.name);
    if (!value || trim_ows(*value).empty()) continue;
    ModelAuth auth = auth_from_value(vendor, var.header, var.prefix, std::string(trim_ows(*value)), var.name);
    for (const auto& [name, extra] : var.headers) add_header(auth.headers, name, extra);
    return auth;
  }
  return std::nullopt;
}

ModelAuth auth_from_stored(const catalog::Vendor* vendor, const StoredCredential& c) {
  if (c.kind == StoredCredential::Kind::oauth) {
    ModelAuth auth = auth_from_value(vendor, std::string(kDefaultAuthHeader), std::string(kBearerPrefix),
                                     c.access_token.reveal(), "credential store (oauth)");
    add_oauth_headers(auth.headers, vendor);  // a stored OAuth token is one whatever its prefix
    auth.base_url = c.base_url;
    return auth;
  }
  // An API key is sent the way the vendor's first variable is.
  std::string header(kDefaultAuthHeader);
  std::string prefix(kBearerPrefix);
  if (vendor != nullptr && !vendor->auth.variables.empty()) {
    header = vendor->auth.variables.front().header;
    prefix = vendor->auth.variables.front().prefix;
  }
  ModelAuth auth = auth_from_value(vendor, header, prefix, c.api_key.reveal(), "credential store");
  auth.base_url = c.base_url;
  return auth;
}

std::string variable_names(const catalog::Vendor* vendor) {
  std::string out;
  if (vendor == nullptr) return out;
  const auto& vars = vendor->auth.variables;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (i > 0) out += i + 1 == vars.size() ? " or " : ", ";
    out += vars[i].name;
  }
  return out;
}

}  // namespace

struct CredentialResolver::State {
  CredentialOptions options;
  std::shared_ptr<const catalog::Catalog> catalog;
  std::shared_ptr<const Clock> clock;
  EnvironmentLookup environment;

  const catalog::Vendor* vendor_of(const Model& model) const { return catalog->vendor(model.vendor); }

  bool needs_refresh(const StoredCredential& c) const {
    if (c.kind != StoredCredential::Kind::oauth || !c.expires_at) return false;  // no expiry: never
    return *c.expires_at - clock->wall_now() < options.refresh_margin;
  }

  // Runs the refresher with its own deadline: a watchdog thread fires the stop token when the
  // refresh timeout passes (the refresher holds the vendor's lock, so it must not hang).
  Result<StoredCredential> run_refresher(const OAuthRefresher& refresher, const StoredCredential& current,
                                         std::string_view vendor, agentkit::stop_token caller_stop) const {
    agentkit::stop_source source;
    agentkit::stop_callback bridge(caller_stop, [&source] { source.request_stop(); });
    std::atomic<bool> timed_out{false};
    Result<StoredCredential> fresh = fail(Errc::internal, "the OAuth refresher did not run");
    {
      agentkit::jthread watchdog([&](agentkit::stop_token done) {
        if (clock->sleep_for(options.refresh_timeout, done)) {
          timed_out = true;
          source.request_stop();
        }
      });
      RefreshContext ctx{vendor, source.get_token(), clock->now() + options.refresh_timeout};
      try {
        fresh = refresher(current, ctx);
      } catch (const std::exception& e) {
        fresh = fail(Errc::internal, std::string("the OAuth refresher threw: ") + e.what());
      } catch (...) {
        fresh = fail(Errc::internal, "the OAuth refresher threw");
      }
    }  // the watchdog is stopped and joined here
    std::vector<Secret> secrets = {current.access_token, current.refresh_token};
    if (timed_out) {
      return make_error(Errc::timeout, "the OAuth refresh for vendor '" + std::string(vendor) + "' did not finish within " +
                                           std::to_string(options.refresh_timeout.count()) +
                                           " ms (CredentialOptions::refresh_timeout); the vendor's lock was released")
          .with_detail("vendor", std::string(vendor));
    }
    if (!fresh) {
      Error e = scrub(std::move(fresh).error(), secrets);
      e.message = "the OAuth refresh for vendor '" + std::string(vendor) + "' failed: " + e.message;
      return e;
    }
    return fresh;
  }

  Result<StoredCredential> refreshed(std::string_view vendor, agentkit::stop_token stop) const {
    auto it = options.refreshers.find(vendor);
    if (it == options.refreshers.end()) {
      return make_error(Errc::unauthenticated, "the stored OAuth token for vendor '" + std::string(vendor) +
                                                   "' is (nearly) expired and no refresher is registered for it "
                                                   "(CredentialOptions::refreshers)")
          .with_detail("vendor", std::string(vendor));
    }
    const OAuthRefresher& refresher = it->second;
    // Double-checked inside the vendor's lock: whoever got the lock first refreshed; the others
    // find a fresh token here and spend nothing (REQ-AUTH-06).
    auto stored = options.store->modify(vendor, [&](const std::optional<StoredCredential>& current)
                                                    -> Result<std::optional<StoredCredential>> {
      if (!current || !needs_refresh(*current)) return current;
      auto fresh = run_refresher(refresher, *current, vendor, stop);
      if (!fresh) return fresh.error();
      return std::optional<StoredCredential>(std::move(*fresh));
    });
    if (!stored) return stored.error();
    if (!*stored) return make_error(Errc::unauthenticated, "the stored credential for vendor '" + std::string(vendor) + "' was removed");
    return std::move(**stored);
  }

  Result<std::optional<ModelAuth>> auth_from_store(const Model& model, agentkit::stop_token stop) const {
    if (!options.store) return std::optional<ModelAuth>{};
    auto stored = options.store->load(model.vendor);
    if (!stored) return stored.error();
    if (!*stored) return std::optional<ModelAuth>{};
    StoredCredential c = std::move(**stored);
    if (needs_refresh(c)) {
      auto fresh = refreshed(model.vendor, stop);
      if (!fresh) return fresh.error();
      c = std::move(*fresh);
    }
    return std::optional<ModelAuth>(auth_from_stored(vendor_of(model), c));
  }
};

CredentialResolver::CredentialResolver(CredentialOptions options) : state_(std::make_unique<State>()) {
  state_->catalog = options.catalog ? options.catalog
                                    : std::shared_ptr<const catalog::Catalog>(std::shared_ptr<void>(),
                                                                              &catalog::Catalog::builtin());
  state_->clock = options.clock ? options.clock : std::make_shared<SystemClock>();
  state_->environment = options.environment ? options.environment : process_environment();
  state_->options = std::move(options);
}
CredentialResolver::~CredentialResolver() = default;
CredentialResolver::CredentialResolver(CredentialResolver&&) noexcept = default;
CredentialResolver& CredentialResolver::operator=(CredentialResolver&&) noexcept = default;

CredentialState CredentialResolver::status(const Model& model, const EnvironmentLookup* environment) const {
  const EnvironmentLookup& env = environment ? *environment : state_->environment;
  if (state_->options.resolvers.count(model.vendor)) return CredentialState::key;
  if (auth_from_variables(state_->vendor_of(model), env)) return CredentialState::key;
  if (state_->options.store) {
    auto stored = state_->options.store->load(model.vendor);
    if (stored && *stored) return CredentialState::key;
  }
  if (state_->options.ambient_vendors.count(model.vendor)) return CredentialState::ambient;
  return CredentialState::none;
}

Result<ModelAuth> CredentialResolver::resolve(const Model& model, agentkit::stop_token stop,
                                              const EnvironmentLookup* environment) const {
  const EnvironmentLookup& env = environment ? *environment : state_->environment;
  const catalog::Vendor* vendor = state_->vendor_of(model);
  if (auto custom = state_->options.resolvers.find(model.vendor); custom != state_->options.resolvers.end()) {
    Result<ModelAuth> auth = fail(Errc::internal, "the resolver did not run");
    try {
      auth = custom->second(model, AuthContext{env, stop});
    } catch (...) {
      return fail(Errc::internal, "the credential resolver for vendor '" + model.vendor + "' threw");
    }
    if (auth && auth->source.empty()) auth->source = "resolver";
    return auth;
  }
  ModelAuth auth;
  if (auto from_env = auth_from_variables(vendor, env)) {
    auth = std::move(*from_env);
  } else {
    auto stored = state_->auth_from_store(model, stop);
    if (!stored) return stored.error();
    if (*stored) auth = std::move(**stored);
  }
  if (auth.state == CredentialState::none && state_->options.ambient_vendors.count(model.vendor)) {
    auth.state = CredentialState::ambient;
    auth.source = "ambient";
  }
  if (auth.state == CredentialState::none && vendor != nullptr && vendor->auth.required) {
    std::string how = variable_names(vendor);
    return make_error(Errc::unauthenticated,
                      "no credentials for vendor '" + model.vendor + "' (model '" + model.id + "'): set " +
                          (how.empty() ? std::string("a credential") : how) +
                          ", store one in the credential store, or register a resolver")
        .with_detail("vendor", model.vendor);
  }
  if (std::string base = base_url_from_environment(vendor, env); !base.empty()) auth.base_url = std::move(base);
  return auth;
}

}  // namespace agentkit::providers
