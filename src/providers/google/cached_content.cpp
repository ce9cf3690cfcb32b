#include "cached_content.hpp"

#include <algorithm>

#include "agentkit/base/hex.hpp"
#include "agentkit/base/sha256.hpp"
#include "agentkit/json/value.hpp"
#include "agentkit/wire/decode.hpp"
#include "../wire_common/json_span.hpp"

namespace agentkit::providers::detail::gemini {
namespace {

// How a request names a cache: the body's first member (gemini_request.cpp, cached_body).
constexpr std::string_view kCachedLead = R"({"cachedContent":")";
// The create reply is a CachedContent resource without the cached contents: small.
constexpr std::size_t kMaxCreateReplyBytes = 1 << 20;
// Bytes of a rejection body read before the resend, so the connection can be reused.
constexpr std::size_t kMaxRejectionBodyBytes = 64 * 1024;
constexpr int kBadRequest = 400;
constexpr int kNotFound = 404;

using detail::json_string;

// Collects the create reply.
class WholeReply final : public BodyDecoder {
 public:
  Result<void> feed(std::string_view bytes) override {
    if (bytes_.size() + bytes.size() > kMaxCreateReplyBytes) {
      return fail(Errc::limit_exceeded, "the cachedContents reply is larger than " + std::to_string(kMaxCreateReplyBytes) + " bytes");
    }
    bytes_.append(bytes);
    return {};
  }
  Result<void> finish() override { return {}; }
  const std::string& bytes() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace

std::string prefix_key(std::string_view model_id, std::string_view prefix) {
  Sha256 h;
  h.update(model_id);
  h.update(std::string_view("\n", 1));
  h.update(prefix);
  const Sha256::Digest digest = h.finish();
  return hex::encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

// ---- CacheDirectory ----------------------------------------------------------------------------------

CacheDirectory::CacheDirectory(GeminiCacheOptions options, std::shared_ptr<const Clock> clock)
    : options_(options), clock_(clock ? std::move(clock) : std::make_shared<SystemClock>()) {}

CacheDirectory::Lookup CacheDirectory::lookup(const std::string& key, std::string_view prefix) {
  const auto now = clock_->now();
  std::lock_guard lock(mu_);
  if (auto it = entries_.find(key); it != entries_.end()) {
    const Entry& e = it->second;
    if (e.state == State::creating) return {};
    if (e.state == State::ready && now < e.until) return {e.name, false};
    if (e.state == State::failed && now < e.until) return {};
    entries_.erase(it);  // expired locally, or its cool-down is over: make it again
  }
  if (entries_.size() >= options_.max_entries) make_room();
  if (entries_.size() >= options_.max_entries) return {};  // every slot is being created
  entries_.emplace(key, Entry{State::creating, {}, std::string(prefix), {}});
  return {std::nullopt, true};
}

void CacheDirectory::make_room() {
  auto victim = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->second.state == State::creating) continue;  // its thread will report back
    if (victim == entries_.end() || it->second.until < victim->second.until) victim = it;
  }
  if (victim != entries_.end()) entries_.erase(victim);
}

void CacheDirectory::created(const std::string& key, std::string name, std::chrono::steady_clock::time_point asked_at) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;  // forgotten meanwhile; the service lets it expire
  it->second.state = State::ready;
  it->second.name = std::move(name);
  it->second.until = asked_at + options_.ttl - options_.expiry_margin;
}

void CacheDirectory::failed(const std::string& key) {
  const auto now = clock_->now();
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  it->second.state = State::failed;
  it->second.until = now + options_.retry_after_failure;
}

std::optional<std::string> CacheDirectory::uncached_after_rejection(std::string_view body) {
  if (body.substr(0, kCachedLead.size()) != kCachedLead) return std::nullopt;
  const std::size_t name_end = body.find('"', kCachedLead.size());
  if (name_end == std::string_view::npos || name_end + 1 >= body.size() || body[name_end + 1] != ',') return std::nullopt;
  const std::string_view name = body.substr(kCachedLead.size(), name_end - kCachedLead.size());
  std::lock_guard lock(mu_);
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) {
    return e.second.state == State::ready && e.second.name == name;
  });
  if (it == entries_.end()) return std::nullopt;
  std::string uncached = "{" + it->second.prefix + ",";
  uncached += body.substr(name_end + 2);
  entries_.erase(it);
  return uncached;
}

// ---- CacheCreator --------------------------------------------------------------------------------------

CacheCreator::CacheCreator(std::shared_ptr<CacheDirectory> directory, std::shared_ptr<const RequestPipeline> pipeline,
                           GeminiCacheOptions options)
    : directory_(std::move(directory)), pipeline_(std::move(pipeline)), options_(options) {}

CacheCreator::~CacheCreator() = default;

void CacheCreator::start(std::shared_ptr<const Model> model, std::string key, std::string prefix) {
  // The thread's cancellation is the creator's own (fired when the client is destroyed), never
  // the turn's: NFR-PERF-08's "detached context".
  threads_.spawn([this, model = std::move(model), key = std::move(key), prefix = std::move(prefix)](agentkit::stop_token shutdown) {
    create(*model, key, prefix, shutdown);
  });
}

void CacheCreator::create(const Model& model, const std::string& key, const std::string& prefix, agentkit::stop_token shutdown) const {
  WireRequest request;
  request.path = "/cachedContents";
  request.body = R"({"model":)" + json_string("models/" + model.id) + "," + prefix + R"(,"ttl":)" +
                 json_string(std::to_string(options_.ttl.count()) + "s") + "}";
  request.headers = {{"content-type", "application/json"}};
  StreamOptions options;
  options.timeout = options_.creation_timeout;
  WholeReply reply;
  const auto asked_at = directory_->clock().now();
  if (auto failure = pipeline_->run(model, std::move(request), options, reply, shutdown)) {
    directory_->failed(key);
    return;
  }
  auto doc = wire::decode(reply.bytes());
  std::string name = doc ? string_at(&*doc, "name") : std::string();
  if (name.empty() || name.find('"') != std::string::npos) {
    directory_->failed(key);
    return;
  }
  directory_->created(key, std::move(name), asked_at);
}

// ---- CacheRejectionTransport ------------------------------------------------------------------------------

Result<http::Response> CacheRejectionTransport::send(const http::Request& request, agentkit::stop_token stop) {
  auto response = inner_->send(request, stop);
  if (!response || (response->status() != kBadRequest && response->status() != kNotFound)) return response;
  auto uncached = directory_->uncached_after_rejection(request.body);
  if (!uncached) return response;
  (void)response->read_all(kMaxRejectionBodyBytes);  // drained: the connection stays reusable
  http::Request again = request;
  again.body = std::move(*uncached);
  return inner_->send(again, stop);
}

}  // namespace agentkit::providers::detail::gemini
