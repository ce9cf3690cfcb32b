// agentkit/providers/credentials.hpp — where a request's credential comes from:
// secrets that redact themselves, an injectable environment, credential stores, OAuth refresh, and
// the per-vendor resolver that turns all of it into key + headers + base URL.
//
//   using namespace agentkit::providers;
//   auto store = std::make_shared<FileCredentialStore>(home / ".agentkit/credentials.json");
//   CredentialResolver resolver({.store = store,
//                                .refreshers = {{"anthropic", my_refresher}}});
//   auto auth = resolver.resolve(model, stop);   // env vars in the vendor's order, then the store
//   if (!auth) log(auth.error().message);        // never contains a secret: "sk-a***wxyz" at most
//   auth->headers;                               // {"x-api-key", "..."} — send these
//
// Environment: every lookup goes through an EnvironmentLookup, so tests never read (or race on)
// the real environment; overlay_environment() layers per-request overrides over it, and an empty
// override falls through to the layer below (an empty value never masks a real key).
//
// Order for a vendor: a registered AuthResolver wins outright; then the vendor's variables in the
// catalog's order (Anthropic: ANTHROPIC_API_KEY as x-api-key, ANTHROPIC_AUTH_TOKEN as a bearer,
// ANTHROPIC_OAUTH_TOKEN as a bearer plus the OAuth beta header); then the credential store (an API
// key, or an OAuth token refreshed when needed); then an ambient chain the transport holds (cloud
// metadata, ADC); otherwise none — a configuration error before any I/O when the vendor requires
// a credential, and a plain unauthenticated request for local servers.
//
// OAuth refresh happens inside CredentialStore::modify, which serialises writers per
// vendor: the expiry is checked again inside the lock, so however many turns arrive on an expired
// token, one refresh runs and the rest read its result; another vendor is never blocked by it. A
// token is refreshed once it is within `refresh_margin` (5 min) of expiring; an unset (zero) expiry
// never expires; the refresh has its own timeout (15 s) because it holds the vendor's lock.
//
// Redaction (NFR-SEC-01): Secret never prints its value; redact() keeps the first 4 and last 4
// characters of a secret of 16 or more (shorter ones are hidden whole, since 8 of fewer than 16
// characters would reveal most of it); scrub() removes known secrets from any text before it
// reaches an error, event or log line.
//
// Thread safety: Secret and the option structs are values. CredentialResolver::resolve and the
// stores may be called from many threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentkit/base/clock.hpp"
#include "agentkit/base/result.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/http/client.hpp"

namespace agentkit::providers {

// ---- Secrets -------------------------------------------------------------------------------------

// Secrets shorter than this are redacted whole.
inline constexpr std::size_t kMinRevealedSecretLength = 16;

// "sk-a***wxyz": the first 4 and last 4 characters around "***"; "***" for short secrets.
std::string redact(std::string_view secret);

// A credential value. It has no stream operator and no implicit conversion: the raw text is reached
// only through reveal(), at the point where a header is written.
class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}
  const std::string& reveal() const noexcept { return value_; }
  std::string redacted() const { return redact(value_); }
  bool empty() const noexcept { return value_.empty(); }
  friend bool operator==(const Secret&, const Secret&) = default;

 private:
  std::string value_;
};

// `text` with every occurrence of each non-empty secret replaced by its redacted form.
std::string scrub(std::string text, std::span<const Secret> secrets);
// The same over an error's message and detail values.
Error scrub(Error error, std::span<const Secret> secrets);

// ---- Environment ------------------------------------------------------------------------------------

// Answers a variable's value, or nullopt when it is unset.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment (getenv). Use in programs, never in tests.
EnvironmentLookup process_environment();
// A fixed environment (tests, sandboxes).
EnvironmentLookup fixed_environment(std::map<std::string, std::string, std::less<>> variables);
// `overrides` first, then `base`; an override set to "" falls through to `base`.
EnvironmentLookup overlay_environment(std::map<std::string, std::string, std::less<>> overrides, EnvironmentLookup base);

// ---- Stored credentials -------------------------------------------------------------------------------

struct StoredCredential {
  enum class Kind : std::uint8_t { api_key, oauth };
  Kind kind = Kind::api_key;
  Secret api_key;        // Kind::api_key
  Secret access_token;   // Kind::oauth
  Secret refresh_token;  // Kind::oauth
  // When the access token stops working; nullopt (a zero in the file) = it never expires.
  std::optional<std::chrono::system_clock::time_point> expires_at;
  // A tenant or gateway URL that replaces the model's base URL; empty = none.
  std::string base_url;
  friend bool operator==(const StoredCredential&, const StoredCredential&) = default;
};

// The application's credential storage. modify() is the only write path.
class CredentialStore {
 public:
  // Answers the new value to store (nullopt removes the entry) given the current one. Returning the
  // current value unchanged writes nothing.
  using Update = std::function<Result<std::optional<StoredCredential>>(const std::optional<StoredCredential>& current)>;

  virtual ~CredentialStore() = default;
  virtual Result<std::optional<StoredCredential>> load(std::string_view vendor) const = 0;
  // Runs `update` and stores its answer, serialised per vendor: two modify() calls on one vendor
  // never overlap; calls on different vendors never wait for each other. Answers the stored value.
  virtual Result<std::optional<StoredCredential>> modify(std::string_view vendor, const Update& update) = 0;
};

// A CredentialStore whose modify() is serialised by a reference-counted per-vendor lock table
//: an entry exists only while someone holds or waits for that vendor.
class SerializedCredentialStore : public CredentialStore {
 public:
  SerializedCredentialStore();
  ~SerializedCredentialStore() override;
  Result<std::optional<StoredCredential>> load(std::string_view vendor) const final;
  Result<std::optional<StoredCredential>> modify(std::string_view vendor, const Update& update) final;
  // Entries in the lock table right now (0 when nobody is inside modify()).
  std::size_t locked_vendors() const;

 protected:
  // Both may be called concurrently for different vendors.
  virtual Result<std::optional<StoredCredential>> read(std::string_view vendor) const = 0;
  virtual Result<void> write(std::string_view vendor, const std::optional<StoredCredential>& value) = 0;

 private:
  struct LockTable;
  std::unique_ptr<LockTable> locks_;
};

// Credentials in memory (tests, short-lived programs).
class MemoryCredentialStore final : public SerializedCredentialStore {
 public:
  MemoryCredentialStore();
  ~MemoryCredentialStore() override;

 protected:
  Result<std::optional<StoredCredential>> read(std::string_view vendor) const override;
  Result<void> write(std::string_view vendor, const std::optional<StoredCredential>& value) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Credentials in one JSON file, {"vendor": {"type": "api_key"|"oauth", ...}}. Written atomically
// (a 0600 temporary file in the same directory, fsync, rename), so a crash leaves the old file or
// the new one, never half of either; a file readable by group or others is refused, as ssh refuses
// such keys. Entries of other vendors, and members this version does not know, are kept as found.
class FileCredentialStore final : public SerializedCredentialStore {
 public:
  explicit FileCredentialStore(std::filesystem::path path);
  ~FileCredentialStore() override;
  const std::filesystem::path& path() const noexcept;

 protected:
  Result<std::optional<StoredCredential>> read(std::string_view vendor) const override;
  Result<void> write(std::string_view vendor, const std::optional<StoredCredential>& value) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- OAuth refresh ---------------------------------------------------------------------------------------

struct RefreshContext {
  std::string_view vendor;
  // Fires at the refresh deadline and when the caller cancels: a refresher must honour it.
  agentkit::stop_token stop;
  std::chrono::steady_clock::time_point deadline;
};

// Exchanges the current OAuth credential for a fresh one (new access token, maybe a rotated refresh
// token, a new expiry).
using OAuthRefresher = std::function<Result<StoredCredential>(const StoredCredential& current, const RefreshContext& ctx)>;

// The refresher for an OAuth 2 token endpoint (RFC 6749 §6): POSTs grant_type=refresh_token with
// `client_id` as a form and reads access_token, refresh_token (kept when absent) and expires_in.
OAuthRefresher token_endpoint_refresher(std::shared_ptr<http::HttpTransport> transport, std::string token_url,
                                        std::string client_id, std::shared_ptr<const Clock> clock = nullptr);

// ---- Resolution -----------------------------------------------------------------------------------------

// Whether a vendor has a usable credential: a key (or token), none, or an ambient chain the
// transport can use but this library cannot read (instance metadata, Google ADC).
enum class CredentialState : std::uint8_t { none, key, ambient };

// What authenticates one request: any of the three may carry the credential.
struct ModelAuth {
  CredentialState state = CredentialState::none;
  Secret key;
  // Headers carrying the credential, e.g. {"x-api-key", key} or {"Authorization", "Bearer " + key},
  // plus vendor extras (Anthropic's OAuth beta). Their values count as secrets.
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  // Replaces the model's base URL when not empty (a gateway, a tenant, OLLAMA_HOST).
  std::string base_url;
  // Where the credential came from, for diagnostics: "ANTHROPIC_API_KEY", "credential store",
  // "resolver", "ambient". Never the secret.
  std::string source;

  // The key and every header value, for scrub().
  std::vector<Secret> secrets() const;
};

struct AuthContext {
  const EnvironmentLookup& environment;
  agentkit::stop_token stop;
};

// A caller's own resolution for a vendor (a gateway with its own header, a secrets manager).
using AuthResolver = std::function<Result<ModelAuth>(const Model& model, const AuthContext& ctx)>;

struct CredentialOptions {
  // Vendors' variable tables. nullptr: Catalog::builtin().
  std::shared_ptr<const catalog::Catalog> catalog;
  // nullptr-equivalent (empty function): process_environment().
  EnvironmentLookup environment;
  // nullptr: no stored credentials.
  std::shared_ptr<CredentialStore> store;
  // Per vendor: how its stored OAuth tokens are refreshed.
  std::map<std::string, OAuthRefresher, std::less<>> refreshers;
  // Per vendor: a resolver that replaces the built-in order entirely.
  std::map<std::string, AuthResolver, std::less<>> resolvers;
  // Vendors whose transport carries an ambient credential chain.
  std::set<std::string, std::less<>> ambient_vendors;
  // nullptr: the system clock.
  std::shared_ptr<const Clock> clock;
  // Refresh a token this close to its expiry (5 minutes).
  std::chrono::milliseconds refresh_margin{5 * 60 * 1000};
  // Give up a refresh after this long; it holds the vendor's lock meanwhile (15 s).
  std::chrono::milliseconds refresh_timeout{15'000};
};

class CredentialResolver {
 public:
  explicit CredentialResolver(CredentialOptions options = {});
  ~CredentialResolver();
  CredentialResolver(CredentialResolver&&) noexcept;
  CredentialResolver& operator=(CredentialResolver&&) noexcept;

  // "Is the vendor configured?" without refreshing anything (a separate question from "give me a
  // usable key"). `environment` overrides the configured lookup when given.
  CredentialState status(const Model& model, const EnvironmentLookup* environment = nullptr) const;
  // The credential for one request, refreshing a stored OAuth token when it is due. Errors never
  // contain a secret; Errc::unauthenticated when a required credential is missing.
  Result<ModelAuth> resolve(const Model& model, agentkit::stop_token stop = {},
                            const EnvironmentLookup* environment = nullptr) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace agentkit::providers
