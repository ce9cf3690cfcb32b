// The google-generative-ai client: WireClientBase plus Gemini's encoder, decoder and explicit
// context cache.
#include <memory>

#include "../wire_common/encoded_history.hpp"
#include "../wire_common/wire_client_base.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/google.hpp"
#include "cached_content.hpp"
#include "gemini_reply.hpp"
#include "gemini_request.hpp"
#include "google_wire.hpp"

namespace agentkit::providers {
namespace detail::gemini {
namespace {

// The catalog's prompt estimate: UTF-8 bytes / 4, rounded up (catalog.hpp, TokenEstimateOptions).
std::int64_t estimated_tokens(std::string_view text) {
  const auto per_token = catalog::TokenEstimateOptions{}.bytes_per_token;
  return (static_cast<std::int64_t>(text.size()) + per_token - 1) / per_token;
}

class GoogleClient final : public WireClientBase {
 public:
  GoogleClient(const WireOptions& options, const GoogleOptions& google,
               std::shared_ptr<const RequestPipeline> pipeline,
               std::shared_ptr<CacheDirectory> directory)
      : WireClientBase(catalog::kGoogleGenerativeAi, options, pipeline),
        cache_options_(google.cached_content),
        directory_(directory),
        creator_(directory
                     ? std::make_unique<CacheCreator>(directory, pipeline, google.cached_content)
                     : nullptr) {}

 protected:
  Result<PreparedCall> encode(const Request& request, std::span<const Message> view,
                              HistoryPromise promise) const override {
    const auto tools = declared_tools(request);
    Result<ToolBytes> answer = native_answer(request, SchemaDialect::gemini);
    if (!answer) return answer.error();
    EncodedHistory::Wire wire{contents_split, [](std::span<const Message> segment, bool) {
                                EncodedHistory::Segment encoded;
                                encoded.items = contents_items(segment, &encoded.splices);
                                return encoded;
                              }};
    RequestParts parts = encode_request(request, view, tools, *answer, [&](std::string& out) {
      history_.append_array(request.session_id, request.model->vendor + '/' + request.model->id,
                            view, wire, out, *meter(), promise);
    });
    PreparedCall call;
    call.wire.path = stream_path(request.model->id);
    call.wire.headers = {{"content-type", "application/json"}};
    call.wire.body = body_for(request, parts);
    // Either body ends with the contents' part and its closing brace: the kept items lent from
    // that part now sit that much further in.
    if (promise.lend) promise.lend->at += call.wire.body.size() - 1 - parts.rest.size();
    return call;
  }

  // Every offered tool, each rendered once per session (level 3). A tool first offered mid-session
  // goes after the established ones (REQ-CACHE-10): the declarations sent before stay a byte-
  // identical prefix. It is declared, not withheld: on this wire a withheld tool cannot be called.
  std::vector<ToolBytes> declared_tools(const Request& request) const {
    OfferedTools offered = offered_tools(request, [](const ToolSpec& t) { return render_tool(t); });
    offered.established.insert(offered.established.end(), offered.late.begin(), offered.late.end());
    return std::move(offered.established);
  }

  std::unique_ptr<ReplyDecoder> decoder(const PreparedCall& call, MessageAssembler& out) const override {
    return std::make_unique<GeminiReplyDecoder>(out, call.wire.body);
  }

 private:
  // The whole body, or — when the stable prefix is large and its cache is live — the body naming
  // the cache. Never waits: a missing cache is started in the background and this request goes
  // uncached (NFR-PERF-08).
  std::string body_for(const Request& request, const RequestParts& parts) const {
    if (!creator_ || parts.prefix.empty() || estimated_tokens(parts.prefix) <= cache_options_.min_prefix_tokens) {
      return whole_body(parts);
    }
    std::string key = prefix_key(request.model->id, parts.prefix);
    CacheDirectory::Lookup found = directory_->lookup(key, parts.prefix);
    if (found.create) creator_->start(request.model, std::move(key), parts.prefix);
    return found.name ? cached_body(*found.name, parts) : whole_body(parts);
  }

  GeminiCacheOptions cache_options_;
  std::shared_ptr<CacheDirectory> directory_;
  std::unique_ptr<CacheCreator> creator_;  // null when the explicit cache is off
};

bool explicit_cache_on(const WireOptions& options, const GoogleOptions& google) {
  return google.cached_content.enabled && options.caching.retention != CacheRetention::none;
}

std::shared_ptr<WireClient> make_client(const WireOptions& options, const GoogleOptions& google,
                                        std::shared_ptr<const RequestPipeline> shared) {
  if (!explicit_cache_on(options, google)) {
    return std::make_shared<GoogleClient>(options, google, std::move(shared), nullptr);
  }
  std::shared_ptr<const Clock> clock = options.transport.credentials.clock;
  auto directory = std::make_shared<CacheDirectory>(google.cached_content, clock);
  ProviderOptions transport = options.transport;
  std::shared_ptr<http::HttpTransport> inner = transport.http ? transport.http : std::make_shared<http::HttpClient>();
  transport.http = std::make_shared<CacheRejectionTransport>(std::move(inner), directory);
  auto pipeline = std::make_shared<const RequestPipeline>(std::move(transport));
  return std::make_shared<GoogleClient>(options, google, std::move(pipeline), std::move(directory));
}

}  // namespace
}  // namespace detail::gemini

std::shared_ptr<WireClient> detail::make_google_wire(const WireOptions& options, std::shared_ptr<const RequestPipeline> pipeline) {
  return gemini::make_client(options, GoogleOptions{}, std::move(pipeline));
}

std::shared_ptr<WireClient> make_google_client(const WireOptions& options, const GoogleOptions& google,
                                               std::shared_ptr<const RequestPipeline> pipeline) {
  return detail::gemini::make_client(options, google, std::move(pipeline));
}

}  // namespace agentkit::providers
