// Transport retry (REQ-PROV-13) and the semantic error classifier (REQ-PROV-14).
#include "agentkit/providers/retry.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>

#include "agentkit/base/charconv.hpp"
#include "agentkit/base/strings.hpp"
#include "agentkit/http/message.hpp"
#include "agentkit/http/url.hpp"

namespace agentkit::providers {
namespace {

using std::chrono::milliseconds;

// Statuses REQ-PROV-13 retries besides every 5xx.
constexpr int kRequestTimeout = 408;
constexpr int kConflict = 409;
constexpr int kTooManyRequests = 429;
constexpr int kFirstServerError = 500;

// A retried response's body is read (to keep the connection reusable) up to this much; a larger
// one is dropped with its connection.
constexpr std::size_t kMaxDrainBytes = 64 * 1024;
// How much of an abandoned response's body its error quotes.
constexpr std::size_t kQuotedBodyBytes = 512;

// A dictated delay too large to represent is still a delay: it saturates, and then exceeds any
// ceiling instead of wrapping into a short sleep.
constexpr double kMaxRepresentableMs = 1e15;

// Parses "12", "1.5" (seconds or milliseconds as given) into a non-negative count of `unit_ms`.
std::optional<milliseconds> parse_decimal_delay(std::string_view text, double unit_ms) {
  text = trim_ows(text);
  if (text.empty()) return std::nullopt;
  std::size_t digits = 0;
  bool dot = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return std::nullopt;  // signs, exponents, units: not a delta
    }
  }
  if (digits == 0) return std::nullopt;
  double value = 0;
  auto [end, ec] =
      agentkit::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec == std::errc::result_out_of_range) return milliseconds(static_cast<std::int64_t>(kMaxRepresentableMs));
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  double ms = std::min(value * unit_ms, kMaxRepresentableMs);
  return milliseconds(static_cast<std::int64_t>(std::ceil(ms)));
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  return http::parse_http_date(text);
}

bool should_retry_response(int status, const http::Headers& headers) {
  if (auto hint = headers.get("x-should-retry")) {
    std::string_view v = trim_ows(*hint);
    if (iequals(v, "true")) return true;
    if (iequals(v, "false")) return false;
  }
  return status == kRequestTimeout || status == kConflict || status == kTooManyRequests || status >= kFirstServerError;
}

milliseconds backoff_delay(int attempt, const TransportRetryOptions& options, double unit) {
  return agentkit::backoff_delay({options.initial_backoff, options.max_backoff}, attempt, unit);
}

std::optional<milliseconds> server_retry_delay(const http::Headers& headers, std::chrono::system_clock::time_point now) {
  constexpr double kMsPerMs = 1.0;
  constexpr double kMsPerSecond = 1000.0;
  if (auto ms = headers.get("retry-after-ms")) {
    if (auto d = parse_decimal_delay(*ms, kMsPerMs)) return d;
  }
  auto after = headers.get("retry-after");
  if (!after) return std::nullopt;
  if (auto d = parse_decimal_delay(*after, kMsPerSecond)) return d;
  if (auto date = parse_http_date(*after)) {
    auto wait = std::chrono::ceil<milliseconds>(*date - now);
    return std::max(wait, milliseconds(0));
  }
  return std::nullopt;
}

namespace {

std::string quoted_body(http::Response& response) {
  auto body = response.read_all(kMaxDrainBytes);
  if (!body) return {};
  std::string text = std::move(*body);
  if (text.size() > kQuotedBodyBytes) text = text.substr(0, kQuotedBodyBytes) + "...";
  return text;
}

Error ceiling_error(int status, const http::Request& request, milliseconds wait, milliseconds ceiling, std::string body) {
  std::string host = request.url;
  if (auto parsed = http::parse_url(request.url)) host = parsed->authority();
  Error e = make_error(Errc::limit_exceeded,
                       "HTTP " + std::to_string(status) + " from " + host + ": the server asked to wait " +
                           std::to_string(wait.count()) + " ms before retrying, which exceeds the ceiling of " +
                           std::to_string(ceiling.count()) +
                           " ms (TransportRetryOptions::max_retry_delay); the request was abandoned, not delayed");
  e.with_detail("status", std::to_string(status));
  e.with_detail("retry_delay_ms", std::to_string(wait.count()));
  e.with_detail("max_retry_delay_ms", std::to_string(ceiling.count()));
  if (!body.empty()) e.with_detail("body", std::move(body));
  return e;
}

}  // namespace

namespace {

// After a response that is to be retried: waits the server's delay or the backoff, then answers
// nothing; or answers why the request ends here (the delay over its ceiling, or cancelled). Out
// of line: what it builds would otherwise sit in send_with_retry's frame, under every request's
// wait for its answer (docs/architecture.md, "the caller's stack").
[[gnu::noinline]] std::optional<Error> wait_to_retry(
    http::Response& response, const http::Request& request, const TransportRetryOptions& options,
    const Clock& clock, const agentkit::stop_token& stop, int attempt, BackoffJitter& jitter) {
  // The ceiling applies only to a response that would have been retried (post-PRD ruling).
  auto dictated = server_retry_delay(response.headers(), clock.wall_now());
  if (dictated && *dictated > options.max_retry_delay) {
    return ceiling_error(response.status(), request, *dictated, options.max_retry_delay,
                         quoted_body(response));
  }
  const auto draw = [&] { return options.random_unit ? options.random_unit() : jitter.next(); };
  milliseconds wait = dictated ? *dictated : backoff_delay(attempt, options, draw());
  (void)response.read_all(kMaxDrainBytes);  // lets a keep-alive connection be reused
  if (!clock.sleep_for(wait, stop)) {
    return make_error(Errc::cancelled, "cancelled while waiting " + std::to_string(wait.count()) +
                                           " ms to retry HTTP " + std::to_string(response.status()))
        .with_detail("phase", "backoff");
  }
  return std::nullopt;
}

}  // namespace

Result<http::Response> send_with_retry(http::HttpTransport& transport, const http::Request& request,
                                       const TransportRetryOptions& options, const Clock& clock, agentkit::stop_token stop,
                                       const std::function<void(const http::Response&)>& on_response) {
  BackoffJitter jitter;
  for (int attempt = 0;; ++attempt) {
    auto response = transport.send(request, stop);
    if (!response) return response;  // an abort or a transport failure: never retried here
    if (on_response) on_response(*response);
    if (attempt >= options.max_retries || !should_retry_response(response->status(), response->headers())) {
      return response;
    }
    if (auto ended = wait_to_retry(*response, request, options, clock, stop, attempt, jitter)) {
      return std::move(*ended);
    }
  }
}

// ---- Semantic classification ------------------------------------------------------------------------

namespace {

bool is_word_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// True when `token` occurs in `text` with no letter, digit or underscore on either side: "HTTP 429:"
// holds the status 429, "request 14290" and "15002 tokens" do not hold 429 or 500.
bool contains_token(std::string_view text, std::string_view token) {
  for (auto pos = text.find(token); pos != std::string_view::npos; pos = text.find(token, pos + 1)) {
    bool left_ok = pos == 0 || !is_word_char(text[pos - 1]);
    auto end = pos + token.size();
    bool right_ok = end == text.size() || !is_word_char(text[end]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

// Failures another attempt cannot fix, checked first so an out-of-credit 429 never burns the
// retry budget. Phrases match as substrings of the lower-cased text; codes as whole tokens.
constexpr std::array<std::string_view, 22> kDenyPhrases = {
    "insufficient_quota", "quota exceeded", "exceeded your current quota", "billing", "out of budget",
    "available balance", "credit balance", "monthly limit", "monthly usage limit", "usage limit",
    "spending limit", "exceeds the ceiling",  // our own abandoned Retry-After (REQ-PROV-13)
    "invalid api key", "invalid_api_key", "invalid x-api-key", "authentication", "permission",
    "context length", "context_length", "prompt is too long", "too many tokens", "invalid_request"};
constexpr std::array<std::string_view, 4> kDenyCodes = {"400", "401", "403", "404"};

constexpr std::array<std::string_view, 19> kAllowPhrases = {
    "overloaded", "rate limit", "rate_limit", "too many requests", "socket hang up", "getaddrinfo",
    "eai_again", "econnreset", "connection reset", "stream ended before",  // incl. "... message_stop"
    "resourceexhausted", "resource_exhausted", "you can retry your request", "temporarily unavailable",
    "service unavailable", "timed out", "timeout", "internal server error", "bad gateway"};
// REQ-PROV-14's bare codes, plus 408 (request timeout), 504 (gateway timeout) and 529 (Anthropic's
// "overloaded"): transient by definition.
constexpr std::array<std::string_view, 8> kAllowCodes = {"408", "429", "500", "502", "503", "504", "524", "529"};

bool contains_any_phrase(std::string_view text, std::span<const std::string_view> phrases) {
  return std::any_of(phrases.begin(), phrases.end(), [&](auto p) { return text.find(p) != std::string_view::npos; });
}

bool contains_any_code(std::string_view text, std::span<const std::string_view> codes) {
  return std::any_of(codes.begin(), codes.end(), [&](auto c) { return contains_token(text, c); });
}

}  // namespace

// Context-overflow wordings, lower-cased, as the vendors and local servers write them.
constexpr std::array<std::string_view, 14> kOverflowPhrases = {
    "prompt is too long",                    // Anthropic
    "context_length_exceeded",               // OpenAI error code
    "maximum context length",                // OpenAI, OpenRouter, vLLM, Mistral
    "exceeds the context window",            // OpenAI Responses
    "input exceeds the context",             // OpenAI Responses, other wording
    "too large for model with",              // Mistral-style gateways
    "exceeds the maximum number of tokens",  // Google Gemini
    "input token count",                     // Google Gemini (with "exceeds")
    "exceeds the available context size",    // llama.cpp server
    "context size has been exceeded",        // llama.cpp server, older
    "context window exceeded",
    "context length exceeded",
    "request too large",  // Anthropic 413 request_too_large
    "too many tokens"};

bool is_context_overflow_text(std::string_view error_message) {
  std::string text = to_lower_ascii(error_message);
  for (std::string_view phrase : kOverflowPhrases) {
    if (text.find(phrase) == std::string::npos) continue;
    // "input token count" alone names the count, not an overflow.
    if (phrase == "input token count" && text.find("exceed") == std::string::npos) continue;
    return true;
  }
  return false;
}

bool is_context_overflow(const AssistantMessage& message) {
  return message.stop_reason == StopReason::error &&
         is_context_overflow_text(message.error_message);
}

bool is_retryable_error_text(std::string_view error_message) {
  std::string text = to_lower_ascii(error_message);
  if (contains_any_phrase(text, kDenyPhrases) || contains_any_code(text, kDenyCodes)) return false;
  return contains_any_phrase(text, kAllowPhrases) || contains_any_code(text, kAllowCodes);
}

bool is_retryable_error(const AssistantMessage& message) {
  return message.stop_reason == StopReason::error && is_retryable_error_text(message.error_message);
}

}  // namespace agentkit::providers
