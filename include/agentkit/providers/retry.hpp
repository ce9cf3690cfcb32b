// agentkit/providers/retry.hpp — the two retry layers: transport retry on HTTP
// answers and the semantic classifier of completed error messages.
//
//   using namespace agentkit::providers;
//   TransportRetryOptions retry{.max_retries = 3};            // default 0: one attempt
//   auto resp = send_with_retry(client, request, retry, clock, stop);
//   if (!resp && resp.error().find_detail("retry_delay_ms")) { /* Retry-After beyond the ceiling */ }
//
//   AssistantMessage failed = ...;                            // stop_reason error
//   if (is_retryable_error(failed)) { /* another attempt may succeed */ }
//
// Transport retry: statuses 408, 409, 429 and >= 500 are retried, and a response header
// `x-should-retry: true|false` overrides that decision either way. The wait before retry n
// (0-based) is min(500 ms * 2^n, 8 s) shortened by up to 25 % (jitter only ever shortens), unless
// the server dictates one (`retry-after-ms`, then `Retry-After` seconds, then `Retry-After` HTTP
// date). A dictated wait above max_retry_delay (60 s) abandons the request with an error that says
// so — it is never clamped and slept. The ceiling is checked only after the status was found
// retryable (a 400 with Retry-After: 3600 comes back as the 400), aborts are never retried, and
// the backoff sleep wakes at once on cancellation.
//
// Semantic classification reads `error_message`, case-insensitively: the deny list (quota,
// billing, permanent request errors, our own "exceeds the ceiling") is checked BEFORE the allow
// list (overload, rate limits, bare 429/500/502/503/524 as whole tokens, connection resets, cut-off
// streams, timeouts). "15002 tokens" does not contain the status 500.
//
// Thread safety: pure functions; send_with_retry uses only its arguments.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include "agentkit/base/stop_token.hpp"
#include <string_view>

#include "agentkit/base/backoff.hpp"
#include "agentkit/base/clock.hpp"
#include "agentkit/base/result.hpp"
#include "agentkit/core/message.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/http/message.hpp"

namespace agentkit::providers {

// Settings of the transport layer. Safe to copy.
struct TransportRetryOptions {
  // Retries after the first attempt. 0 by default — retry policy lives above the
  // transport; raise it for unattended batch work.
  int max_retries = 0;
  // A server-dictated wait longer than this abandons the request instead of sleeping (60 s).
  std::chrono::milliseconds max_retry_delay{60'000};
  // The computed backoff: min(initial_backoff * 2^attempt, max_backoff), minus up to 25 %.
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8'000};
  // A number in [0, 1) per retry, scaling the downward jitter. Empty: a per-call std::mt19937.
  std::function<double()> random_unit;
};

// True when the response asks for another attempt: the header x-should-retry decides when present
// ("true"/"false"), else the status (408, 409, 429, >= 500).
bool should_retry_response(int status, const http::Headers& headers);

// The computed wait before retry `attempt` (0-based) for a jitter draw `unit` in [0, 1): the
// formula of agentkit/base/backoff.hpp over initial_backoff and max_backoff.
std::chrono::milliseconds backoff_delay(int attempt, const TransportRetryOptions& options, double unit);

// The wait the server dictates, if any: retry-after-ms, else Retry-After as delta-seconds, else as
// an HTTP date (IMF-fixdate, RFC 850 or asctime; RFC 9110 §5.6.7). A date in the past is 0.
std::optional<std::chrono::milliseconds> server_retry_delay(const http::Headers& headers,
                                                            std::chrono::system_clock::time_point now);

// Parses an HTTP date into a time point; nullopt when it is none of the three formats.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text);

// Sends `request` through `transport`, retrying as described above. `on_response` (optional) sees
// every response received, the retried ones included, before its body is discarded or returned.
// Errors: the transport's own (timeouts, connection failures: not retried here, see the semantic
// layer); Errc::cancelled when `stop` fires during a backoff (detail "phase" = "backoff");
// Errc::limit_exceeded when a dictated wait exceeds the ceiling (details "status",
// "retry_delay_ms", "max_retry_delay_ms"; the message contains "exceeds the ceiling").
Result<http::Response> send_with_retry(
    http::HttpTransport& transport, const http::Request& request, const TransportRetryOptions& options,
    const Clock& clock, agentkit::stop_token stop,
    const std::function<void(const http::Response&)>& on_response = {});

// ---- Semantic retry ----------------------------------------------------------------

// True when a failed call with this error text is worth another attempt. Deny list first.
bool is_retryable_error_text(std::string_view error_message);
// True for a message with stop_reason error whose text is retryable; never for aborted messages.
bool is_retryable_error(const AssistantMessage& message);

// True when the error text says the prompt did not fit the model's context window, in any of
// the vendors' wordings (Anthropic "prompt is too long", OpenAI "context_length_exceeded" and
// "maximum context length", Google "input token count ... exceeds the maximum", llama.cpp and
// Ollama "exceeds the available context size", ...). Such a call is never retried as it is;
// compaction answers it by shortening the context and sending once more.
bool is_context_overflow_text(std::string_view error_message);
// True for a message with stop_reason error whose text is a context overflow.
bool is_context_overflow(const AssistantMessage& message);

}  // namespace agentkit::providers
