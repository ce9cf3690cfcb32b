// The shared request path of every wire (REQ-PROV-04, -13, -18, REQ-AUTH-01, REQ-SEC-13).
#include "agentkit/providers/pipeline.hpp"

#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/openai.hpp"
#include "agentkit/providers/wires.hpp"
#include "google/google_wire.hpp"
#include "ollama/ollama_wire.hpp"
#include "wire_common/builtin_wires.hpp"

#include <array>
#include <atomic>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/strings.hpp"
#include "agentkit/http/url.hpp"
#include "agentkit/wire/decode.hpp"

namespace agentkit::providers {
namespace {

// How much of a non-JSON error body the failure message quotes.
constexpr std::size_t kQuotedErrorBytes = 512;
constexpr int kFirstSuccess = 200;
constexpr int kFirstNonSuccess = 300;

// ---- Decoders ---------------------------------------------------------------------------------------

template <class Source, class Sink>
Result<void> drain_items(Source& source, Sink& sink) {
  for (;;) {
    auto item = source.next();
    if (!item) return item.error();
    if (!*item) return {};
    if (auto ok = sink(**item); !ok) return ok;
  }
}

// ---- Failures ------------------------------------------------------------------------------------------

std::string host_of(const std::string& url) {
  auto parsed = http::parse_url(url);
  return parsed ? parsed->authority() : url;
}

std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, kQuotedErrorBytes)) out += (static_cast<unsigned char>(c) < 0x20 && c != '\n') ? ' ' : c;
  if (text.size() > kQuotedErrorBytes) out += "...";
  return out;
}

std::string string_at(const json::Value& v, std::string_view key) {
  const json::Value* m = v.find(key);
  return m && m->is_string() ? m->as_string() : std::string();
}

// The vendor's own words from an error body: {"error": {"type"|"status", "message"}} (Anthropic,
// OpenAI, Gemini), {"error": "..."} (Ollama), {"message"} or {"detail"} (gateways, vLLM).
std::string vendor_error_text(std::string_view body) {
  auto doc = wire::decode(body);
  if (doc && doc->is_object()) {
    if (const json::Value* err = doc->find("error")) {
      if (err->is_string()) return err->as_string();
      std::string kind = string_at(*err, "type");
      if (kind.empty()) kind = string_at(*err, "status");
      std::string message = string_at(*err, "message");
      if (!message.empty()) return kind.empty() ? message : kind + ": " + message;
    }
    for (auto key : {"message", "detail"}) {
      if (std::string m = string_at(*doc, key); !m.empty()) return m;
    }
  }
  return printable(body);
}

CallFailure error_failure(std::string message, Errc code = Errc::provider_error, std::optional<int> status = {}) {
  return CallFailure{StopReason::error, std::move(message), status, code};
}

CallFailure aborted_failure(std::string message) {
  return CallFailure{StopReason::aborted, std::move(message), std::nullopt, Errc::cancelled};
}

std::string join_url(std::string base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (!path.empty() && path.front() != '/') base += '/';
  return base + std::string(path);
}

// The caller's stop token and the call's own timeout as one token. The watchdog thread exists only
// when a timeout is set, and is joined when the call ends.
class CallDeadline {
 public:
  CallDeadline(agentkit::stop_token caller, std::optional<std::chrono::milliseconds> timeout, const Clock& clock)
      : bridge_(caller, [this] { source_.request_stop(); }) {
    if (timeout) {
      watchdog_ = agentkit::jthread([this, t = *timeout, &clock](agentkit::stop_token done) {
        if (clock.sleep_for(t, done)) {
          timed_out_ = true;
          source_.request_stop();
        }
      });
    }
  }
  agentkit::stop_token token() const { return source_.get_token(); }
  bool timed_out() const { return timed_out_; }

 private:
  agentkit::stop_source source_;
  std::atomic<bool> timed_out_{false};
  agentkit::stop_callback<std::function<void()>> bridge_;
  agentkit::jthread watchdog_;  // declared last: stopped and joined first
};

}  // namespace

// ---- Decoders ---------------------------------------------------------------------------------------------

SseBodyDecoder::SseBodyDecoder(OnEvent on_event, std::function<Result<void>()> on_end, wire::SseDecoderOptions options)
    : decoder_(options), on_event_(std::move(on_event)), on_end_(std::move(on_end)) {}

Result<void> SseBodyDecoder::drain() { return drain_items(decoder_, on_event_); }

Result<void> SseBodyDecoder::feed(std::string_view bytes) {
  // Each event is read where the decoder holds it: no queue, no allocation per event.
  return decoder_.feed_each(bytes, on_event_);
}

Result<void> SseBodyDecoder::finish() {
  if (auto ok = drain(); !ok) return ok;
  if (auto end = decoder_.finish(); !end) return end;
  return on_end_ ? on_end_() : Result<void>();
}

NdjsonBodyDecoder::NdjsonBodyDecoder(OnLine on_line, std::function<Result<void>()> on_end, wire::NdjsonReaderOptions options)
    : reader_(options), on_line_(std::move(on_line)), on_end_(std::move(on_end)) {}

Result<void> NdjsonBodyDecoder::drain() {
  auto sink = [this](const std::string& line) { return on_line_(line); };
  return drain_items(reader_, sink);
}

Result<void> NdjsonBodyDecoder::feed(std::string_view bytes) {
  reader_.feed(bytes);
  return drain();
}

Result<void> NdjsonBodyDecoder::finish() {
  if (auto ok = drain(); !ok) return ok;
  if (auto end = reader_.finish(); !end) return end;
  return on_end_ ? on_end_() : Result<void>();
}

// ---- Messages --------------------------------------------------------------------------------------------------

void apply_failure(AssistantMessage& message, const CallFailure& failure) {
  message.stop_reason = failure.stop_reason;
  message.error_message = failure.message;
}

AssistantMessage start_message(const Model& model) {
  AssistantMessage m;
  m.provider = model.vendor;
  m.api = model.api;
  m.model = model.id;
  return m;
}

bool attribution_enabled(std::optional<bool> option, const EnvironmentLookup& environment) {
  if (option) return *option;
  auto telemetry = environment ? environment("AGENTKIT_TELEMETRY") : std::nullopt;
  return !(telemetry && trim_ows(*telemetry) == "0");
}

// ---- The pipeline ------------------------------------------------------------------------------------------------

struct RequestPipeline::State {
  using Failure = std::optional<CallFailure>;
  ProviderOptions options;
  std::shared_ptr<http::HttpTransport> http;
  std::shared_ptr<const Clock> clock;
  std::shared_ptr<const catalog::Catalog> catalog;
  EnvironmentLookup environment;
  CredentialResolver credentials;

  explicit State(ProviderOptions o)
      : options(o),
        http(o.http ? o.http : std::make_shared<http::HttpClient>()),
        clock(o.credentials.clock ? o.credentials.clock : std::make_shared<SystemClock>()),
        catalog(o.credentials.catalog ? o.credentials.catalog
                                      : std::shared_ptr<const catalog::Catalog>(std::shared_ptr<void>(), &catalog::Catalog::builtin())),
        environment(o.credentials.environment ? o.credentials.environment : process_environment()),
        credentials(with_shared(std::move(o.credentials))) {}

  // The resolver shares the pipeline's clock, catalog and environment.
  CredentialOptions with_shared(CredentialOptions c) const {
    c.clock = clock;
    c.catalog = catalog;
    c.environment = environment;
    return c;
  }

  HeaderOverrides attribution_headers(const Model& model) const {
    HeaderOverrides out;
    if (!attribution_enabled(options.attribution, environment)) return out;
    if (const catalog::Vendor* v = catalog->vendor(model.vendor)) {
      for (const auto& [name, value] : v->attribution_headers) out.emplace_back(name, value);
    }
    return out;
  }

  // Credentials, URL, on_payload and headers: everything up to the first byte on the wire.
  Result<http::Request> prepare(const Model& model, WireRequest&& request, const StreamOptions& so,
                                agentkit::stop_token stop,
                                std::optional<ModelAuth>& resolved) const {
    auto resolving = credentials.resolve(model, stop);
    if (!resolving) return resolving.error();
    // Kept for the caller to scrub a failure's text with; its secrets are listed only then.
    resolved = std::move(*resolving);
    const ModelAuth* auth = &*resolved;
    std::string base = auth->base_url.empty() ? model.base_url : auth->base_url;
    if (base.empty()) {
      return make_error(Errc::invalid_argument, "model '" + model.vendor + "/" + model.id + "' has no base URL");
    }
    if (so.on_payload) {
      // The hook's error is the call's error, text unchanged (tension #8 of the PRD digest).
      if (auto ok = so.on_payload(request.body); !ok) return ok.error();
    }
    HeaderOverrides attribution = attribution_headers(model);
    HeaderOverrides catalog_headers(model.headers.begin(), model.headers.end());
    std::array layers = {
        HeaderLayer{"attribution", &attribution, true},
        HeaderLayer{"provider default", &request.headers, false},
        HeaderLayer{"credential", &auth->headers, true},
        HeaderLayer{"catalog", &catalog_headers, false},
        HeaderLayer{"configuration", &options.headers, false},
        HeaderLayer{"per request", &so.headers, false},
    };
    auto headers = merge_headers(layers);
    if (!headers) return headers.error();
    http::Request out{.method = request.method, .url = join_url(std::move(base), request.path)};
    out.headers = std::move(*headers);
    out.body = std::move(request.body);
    return out;
  }

  // The failures are built out of line, off the frame that stays on the stack under the model's
  // wait and the answer's decoding (docs/architecture.md, "the caller's stack").
  // Each answers the failure scrubbed of the call's credentials (scrubbed), made in the caller's
  // return slot.
  [[gnu::cold, gnu::noinline]] static Failure send_failure(
      const Error& e, const http::Request& req, const CallDeadline& deadline,
      std::optional<std::chrono::milliseconds> timeout, const std::optional<ModelAuth>& auth) {
    return scrubbed(send_failure_text(e, req, deadline, timeout), auth);
  }
  static CallFailure send_failure_text(const Error& e, const http::Request& req,
                                       const CallDeadline& deadline,
                                       std::optional<std::chrono::milliseconds> timeout) {
    if (deadline.timed_out()) return timed_out_failure(timeout);
    if (e.code == Errc::cancelled) {
      // Cancelled while waiting to retry: aborted, error_message cleared (REQ-LOOP-09a).
      return aborted_failure(e.find_detail("phase") == std::optional<std::string_view>("backoff") ? std::string()
                                                                                                  : "request cancelled");
    }
    if (e.find_detail("retry_delay_ms")) return error_failure(e.message, e.code);
    return error_failure("could not complete the request to " + host_of(req.url) + ": " + e.message, e.code);
  }

  [[gnu::cold, gnu::noinline]] static CallFailure timed_out_failure(
      std::optional<std::chrono::milliseconds> timeout) {
    return error_failure("request timed out after " + std::to_string(timeout ? timeout->count() : 0) +
                             " ms (StreamOptions::timeout)",
                         Errc::timeout);
  }

  [[gnu::cold, gnu::noinline]] Failure status_failure(http::Response& resp,
                                                      const http::Request& req,
                                                      const std::optional<ModelAuth>& auth) const {
    auto body = resp.read_all(options.max_error_body_bytes);
    std::string text = body ? vendor_error_text(*body) : std::string();
    std::string message = "HTTP " + std::to_string(resp.status()) + " from " + host_of(req.url);
    if (!text.empty()) message += ": " + text;
    return scrubbed(error_failure(std::move(message), Errc::provider_error, resp.status()), auth);
  }

  [[gnu::cold, gnu::noinline]] static Failure read_failure(
      const Error& e, const CallDeadline& deadline,
      std::optional<std::chrono::milliseconds> timeout, const std::optional<ModelAuth>& auth) {
    if (deadline.timed_out()) return scrubbed(timed_out_failure(timeout), auth);
    if (e.code == Errc::cancelled)
      return scrubbed(aborted_failure("cancelled while receiving the response"), auth);
    if (e.code == Errc::timeout) {
      return scrubbed(
          error_failure("the response stalled and timed out: " + e.message, Errc::timeout), auth);
    }
    return scrubbed(
        error_failure("stream ended before the response was complete: " + e.message, e.code), auth);
  }

  [[gnu::cold, gnu::noinline]] static Failure decode_failure(const Error& e,
                                                             const std::optional<ModelAuth>& auth) {
    return scrubbed(error_failure(e.message, e.code), auth);
  }

  [[gnu::cold, gnu::noinline]] static Failure prepare_failure(
      const Error& e, const CallDeadline& deadline,
      std::optional<std::chrono::milliseconds> timeout, const std::optional<ModelAuth>& auth) {
    if (deadline.timed_out()) return timed_out_failure(timeout);
    if (e.code == Errc::cancelled) return aborted_failure("request cancelled");
    return scrubbed(error_failure(e.message, e.code), auth);
  }

  // A failure's text without the call's credentials in it.
  static Failure scrubbed(CallFailure f, const std::optional<ModelAuth>& auth) {
    if (auth) f.message = scrub(std::move(f.message), auth->secrets());
    return f;
  }

  [[gnu::noinline]] Failure stream_body(http::Response& resp, BodyDecoder& decoder,
                                        const CallDeadline& deadline,
                                        std::optional<std::chrono::milliseconds> timeout,
                                        const std::optional<ModelAuth>& auth) const {
    // The decoder reads the bytes where the connection's read buffer holds them (read_view):
    // no buffer of the pipeline's, no copy.
    for (;;) {
      auto n = resp.read_view();
      if (!n) return read_failure(n.error(), deadline, timeout, auth);
      if (n->empty()) break;
      if (auto ok = decoder.feed(*n); !ok) return decode_failure(ok.error(), auth);
    }
    if (auto ok = decoder.finish(); !ok) return decode_failure(ok.error(), auth);
    return std::nullopt;
  }

  Failure run(const Model& model, WireRequest&& request, const StreamOptions& so,
              BodyDecoder& decoder, agentkit::stop_token stop, std::string* sent_body) const {
    CallDeadline deadline(stop, so.timeout, *clock);
    std::optional<ModelAuth> auth;
    const auto shrink = std::move(request.shrink_body);
    const auto restore = std::move(request.restore_body);
    auto req = prepare(model, std::move(request), so, deadline.token(), auth);
    if (!req) return prepare_failure(req.error(), deadline, so.timeout, auth);
    // The body holds less through the wait once written (WireRequest::shrink_body), and is
    // whole again before a resend.
    bool shrunk = false;
    struct Shrinker {
      const std::function<void(std::string&)>& shrink;
      const std::function<void(std::string&)>& restore;
      std::string& body;
      bool& shrunk;
    } shrinker{shrink, restore, req->body, shrunk};
    if (shrink && restore) {
      // One pointer captured: held in the function's own storage, no allocation.
      req->on_body_written = [s = &shrinker] {
        if (!s->shrunk) s->shrink(s->body);
        s->shrunk = true;
      };
    }
    // Two pointers captured: no allocation for the std::function send_with_retry takes.
    auto on_response = [s = &shrinker, &so](const http::Response& r) {
      if (s->shrunk && should_retry_response(r.status(), r.headers())) {
        s->restore(s->body);
        s->shrunk = false;
      }
      if (!so.on_response) return;
      std::vector<std::pair<std::string, std::string>> fields;
      for (const auto& h : r.headers()) fields.emplace_back(h.name, h.value);
      so.on_response(r.status(), fields);
    };
    // Handed back on every way out below (after the response is done with it).
    struct GiveBack {
      std::string* to;
      http::Request& from;
      const std::function<void(std::string&)>& shrink;
      const bool& shrunk;
      ~GiveBack() {
        if (to == nullptr) return;
        if (shrink && !shrunk) shrink(from.body);  // the caller takes it back shrunk
        *to = std::move(from.body);
      }
    } give_back{sent_body, *req, shrink, shrunk};
    auto resp = send_with_retry(*http, *req, options.retry, *clock, deadline.token(), on_response);
    if (!resp) return send_failure(resp.error(), *req, deadline, so.timeout, auth);
    if (resp->status() < kFirstSuccess || resp->status() >= kFirstNonSuccess)
      return status_failure(*resp, *req, auth);
    return stream_body(*resp, decoder, deadline, so.timeout, auth);
  }
};

RequestPipeline::RequestPipeline(ProviderOptions options) : state_(std::make_unique<State>(std::move(options))) {}
RequestPipeline::~RequestPipeline() = default;
RequestPipeline::RequestPipeline(RequestPipeline&&) noexcept = default;
RequestPipeline& RequestPipeline::operator=(RequestPipeline&&) noexcept = default;

std::optional<CallFailure> RequestPipeline::run(const Model& model, WireRequest request,
                                                const StreamOptions& options, BodyDecoder& decoder,
                                                agentkit::stop_token stop,
                                                std::string* sent_body) const {
  try {
    return state_->run(model, std::move(request), options, decoder, stop, sent_body);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // A throwing hook or decoder ends the call; it never unwinds into the loop.
    return CallFailure{StopReason::error, std::string("the request failed: ") + e.what(), std::nullopt, Errc::internal};
  } catch (...) {
    return CallFailure{StopReason::error, "the request failed: a hook or decoder threw", std::nullopt, Errc::internal};
  }
}

Result<http::Request> RequestPipeline::prepare(const Model& model, WireRequest request, const StreamOptions& options,
                                               agentkit::stop_token stop) const {
  std::optional<ModelAuth> auth;
  auto req = state_->prepare(model, std::move(request), options, stop, auth);
  if (!req) return scrub(req.error(), auth ? auth->secrets() : std::vector<Secret>());
  return req;
}

const ProviderOptions& RequestPipeline::options() const noexcept { return state_->options; }
const CredentialResolver& RequestPipeline::credentials() const noexcept { return state_->credentials; }

// ---- The built-in wires (the one list; each wire engineer adds a line) ----------------------------

namespace {
constexpr std::array<std::string_view, 5> kBuiltinApis{"anthropic-messages", "openai-completions", "openai-responses",
                                                        "google-generative-ai", "ollama-chat"};
constexpr std::array kBuiltinWires{
    detail::BuiltinWire{"anthropic-messages", &make_anthropic_messages_client},
    detail::BuiltinWire{"openai-completions", &make_openai_completions_client},
    detail::BuiltinWire{"openai-responses", &make_openai_responses_client},
    detail::BuiltinWire{"google-generative-ai", &detail::make_google_wire},
    detail::BuiltinWire{"ollama-chat", &detail::make_ollama_wire},
};
static_assert(kBuiltinApis.size() == kBuiltinWires.size(), "every built-in wire has an API name and a factory");
}  // namespace

std::span<const detail::BuiltinWire> detail::builtin_wires() noexcept { return kBuiltinWires; }

std::span<const std::string_view> builtin_wire_apis() noexcept { return kBuiltinApis; }

std::vector<std::string> register_defaults(ProviderRegistry& registry, const ProviderOptions& options) {
  WireOptions wires;
  wires.transport = options;
  return register_wires(registry, std::move(wires)).apis;
}

}  // namespace agentkit::providers
