// agentkit/providers/pipeline.hpp — the request path every wire shares: credentials, header
// precedence, the on_payload/on_response hooks, transport retry, and the response body handed to
// the wire's decoder as it arrives; failures mapped to the stop_reason-error convention.
//
//   using namespace agentkit::providers;
//   RequestPipeline pipeline(options);                       // one per wire client; thread-safe
//   AssistantMessage reply = start_message(model);            // provenance filled in
//   SseBodyDecoder sse([&](const wire::SseEvent& ev) { return my_wire_apply(ev, reply); },
//                      [&]() -> Result<void> { return my_wire_saw_final_event(); });
//   auto failure = pipeline.run(model, {.path = "/v1/messages", .body = encoded,
//                                       .headers = {{"content-type", "application/json"}}},
//                               stream_options, sse, stop);
//   if (failure) apply_failure(reply, *failure);            // partial content kept
//
// What run() does, in order: resolve the vendor's credential (before any I/O; a missing required
// key is an error naming the variables to set); build the URL from the credential's or the model's
// base URL; let StreamOptions::on_payload see and replace the encoded bytes (its error ends the call
// with the hook's text, and nothing is sent); merge headers (attribution < wire defaults <
// credential < catalog row < ProviderOptions::headers < StreamOptions::headers, see headers.hpp);
// send with transport retry (retry.hpp), calling StreamOptions::on_response for every response
// received; then, for a 2xx, feed the body to the decoder as it arrives and finish it at the end.
//
// Failures come back as a CallFailure: stop_reason `error` with a message for
// error_message — "HTTP 429 from api.anthropic.com: rate_limit_error: ..." quoting the vendor's
// error body, "request timed out after N ms", "stream ended before the response was complete: ...",
// the decoder's own error — or `aborted` when the caller cancelled (with an empty message when the
// cancellation came during a retry backoff). StreamOptions::timeout bounds the whole
// call and its expiry is an error, not an abort. No message ever contains a secret.
//
// Thread safety: RequestPipeline::run may be called from many threads at once.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include "agentkit/base/stop_token.hpp"
#include <string>
#include <string_view>
#include <vector>

#include "agentkit/base/result.hpp"
#include "agentkit/core/provider.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/credentials.hpp"
#include "agentkit/providers/headers.hpp"
#include "agentkit/providers/retry.hpp"
#include "agentkit/wire/ndjson_reader.hpp"
#include "agentkit/wire/sse_decoder.hpp"

namespace agentkit::providers {

// Everything the built-in wires share. Safe to copy; read when a wire client is built.
struct ProviderOptions {
  // The transport every request goes through. nullptr: an http::HttpClient with default options,
  // which speaks plain http:// only — for https:// pass a client built with a TlsProvider
  // (agentkit_openssl) or your own transport.
  std::shared_ptr<http::HttpTransport> http;
  // Where credentials come from. Its catalog, clock and environment are the pipeline's too.
  CredentialOptions credentials;
  // Transport retry; no retry by default.
  TransportRetryOptions retry;
  // Configuration-level headers: above the catalog row, below StreamOptions::headers; nullopt
  // deletes a lower layer's header.
  HeaderOverrides headers;
  // Attribution headers. nullopt: on, unless the environment has AGENTKIT_TELEMETRY=0.
  std::optional<bool> attribution;
  // The most of an error response's body read to quote the vendor's message.
  std::size_t max_error_body_bytes = 64 * 1024;
};

// What a wire hands to the pipeline.
struct WireRequest {
  // Appended to the base URL: "/v1/messages", "/chat/completions".
  std::string path;
  std::string body;
  // The wire's defaults (content-type, accept, protocol version): lowest but attribution.
  HeaderOverrides headers;
  std::string method = "POST";
  // Optional, for a body part of which its maker can write again (the long strings a wire's
  // kept history shares with the transcript): `shrink_body` takes those bytes out once the body
  // has been written (http::Request::on_body_written), so a call holds less through the model's
  // wait; `restore_body` puts them back before a resend. Restoring a shrunk body gives the same
  // bytes. RequestPipeline::run hands the shrunk body back through `sent_body`.
  std::function<void(std::string& body)> shrink_body{};
  std::function<void(std::string& body)> restore_body{};
};

// The wire's incremental decoder of a successful (2xx) response body.
class BodyDecoder {
 public:
  virtual ~BodyDecoder() = default;
  // The next bytes as they arrive (any chunking). An error ends the call.
  virtual Result<void> feed(std::string_view bytes) = 0;
  // The body ended. An error — typically a stream without its final event — fails the call.
  virtual Result<void> finish() = 0;
};

// A text/event-stream body: every dispatched event goes to `on_event`; at the end of the body
// `on_end` (when set) decides whether the stream was complete.
class SseBodyDecoder final : public BodyDecoder {
 public:
  using OnEvent = std::function<Result<void>(const wire::SseEvent&)>;
  explicit SseBodyDecoder(OnEvent on_event, std::function<Result<void>()> on_end = {},
                          wire::SseDecoderOptions options = {});
  Result<void> feed(std::string_view bytes) override;
  Result<void> finish() override;

 private:
  Result<void> drain();
  wire::SseDecoder decoder_;
  OnEvent on_event_;
  std::function<Result<void>()> on_end_;
};

// A newline-delimited JSON body (Ollama): every line goes to `on_line`.
class NdjsonBodyDecoder final : public BodyDecoder {
 public:
  using OnLine = std::function<Result<void>(std::string_view line)>;
  explicit NdjsonBodyDecoder(OnLine on_line, std::function<Result<void>()> on_end = {},
                             wire::NdjsonReaderOptions options = {});
  Result<void> feed(std::string_view bytes) override;
  Result<void> finish() override;

 private:
  Result<void> drain();
  wire::NdjsonReader reader_;
  OnLine on_line_;
  std::function<Result<void>()> on_end_;
};

// Why a call failed, ready for the assistant message.
struct CallFailure {
  StopReason stop_reason = StopReason::error;  // error or aborted
  // For AssistantMessage::error_message; never contains a secret. Empty for an abort during a
  // retry backoff.
  std::string message;
  // The HTTP status when the server answered with an error.
  std::optional<int> http_status;
  Errc code = Errc::provider_error;
};

// Ends `message` (the content accumulated so far is kept) with the failure's stop reason and text.
void apply_failure(AssistantMessage& message, const CallFailure& failure);

// An assistant message with the model's provenance (provider, api, model) filled in.
AssistantMessage start_message(const Model& model);

class RequestPipeline {
 public:
  explicit RequestPipeline(ProviderOptions options = {});
  ~RequestPipeline();
  RequestPipeline(RequestPipeline&&) noexcept;
  RequestPipeline& operator=(RequestPipeline&&) noexcept;

  // Runs one call; nullopt when the whole body reached `decoder` and finish() accepted it.
  // `sent_body`, when set, receives the body's bytes back once the call is over, whatever its
  // outcome (the exact bytes sent, after on_payload, shrunk by the request's shrink_body when it
  // has one); it is left as it was when the call never got as far as an HTTP request. A caller
  // that keeps what it encoded can keep these bytes instead of a copy.
  std::optional<CallFailure> run(const Model& model, WireRequest request,
                                 const StreamOptions& options, BodyDecoder& decoder,
                                 agentkit::stop_token stop = {},
                                 std::string* sent_body = nullptr) const;

  // The HTTP request run() would send (credentials, URL, on_payload, headers), without sending it.
  // The caching layer fingerprints its body; tests read its headers.
  Result<http::Request> prepare(const Model& model, WireRequest request, const StreamOptions& options,
                                agentkit::stop_token stop = {}) const;

  const ProviderOptions& options() const noexcept;
  const CredentialResolver& credentials() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// True when attribution headers are sent: `option` when set, else unless AGENTKIT_TELEMETRY=0.
bool attribution_enabled(std::optional<bool> option, const EnvironmentLookup& environment);

// The wire APIs register_defaults() adds: anthropic-messages, openai-completions,
// openai-responses, google-generative-ai and ollama-chat.
std::span<const std::string_view> builtin_wire_apis() noexcept;

// Adds a client for every built-in wire to `registry`, each sharing one RequestPipeline built from
// `options`; a client already registered for that API is replaced. Answers the APIs it added.
// Nothing registers itself anywhere else: this call (or registry.add) is the only way in.
std::vector<std::string> register_defaults(ProviderRegistry& registry, const ProviderOptions& options = {});

}  // namespace agentkit::providers
