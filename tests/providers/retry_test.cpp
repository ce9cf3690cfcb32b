// Transport retry (REQ-PROV-13) against loopback servers, and the semantic classifier (REQ-PROV-14).
#include <chrono>
#include <thread>

#include "agentkit/base/thread.hpp"

#include "agentkit/base/clock.hpp"
#include "agentkit/providers/retry.hpp"
#include "provider_test_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::providers;
using agentkit::testing::ScriptedResponse;
using agentkit::testing::ScriptedServer;
using std::chrono::milliseconds;

namespace {

http::Headers headers(std::initializer_list<http::Header> fields) { return http::Headers(fields); }

ScriptedResponse status(int code, http::Headers h = {}, std::string body = {}) {
  ScriptedResponse r;
  r.status = code;
  r.headers = std::move(h);
  r.body = std::move(body);
  return r;
}

http::Request post(const std::string& url) { return http::Request{.method = "POST", .url = url, .body = "{}"}; }

TransportRetryOptions quick(int retries) {
  TransportRetryOptions o;
  o.max_retries = retries;
  o.initial_backoff = milliseconds(1);
  o.max_backoff = milliseconds(2);
  return o;
}

}  // namespace

// ---- Decisions ------------------------------------------------------------------------------------------

TEST_CASE("408, 409, 429 and every 5xx are retried; other statuses are not") {
  for (int code : {408, 409, 429, 500, 502, 503, 504, 529, 599}) {
    INFO(code);
    CHECK(should_retry_response(code, {}));
  }
  for (int code : {200, 201, 301, 400, 401, 403, 404, 413, 422}) {
    INFO(code);
    CHECK_FALSE(should_retry_response(code, {}));
  }
}

TEST_CASE("x-should-retry overrides the status decision in both directions") {
  CHECK_FALSE(should_retry_response(503, headers({{"X-Should-Retry", "false"}})));
  CHECK(should_retry_response(200, headers({{"x-should-retry", "true"}})));
  CHECK(should_retry_response(400, headers({{"x-should-retry", " TRUE "}})));
  CHECK(should_retry_response(503, headers({{"x-should-retry", "maybe"}})));  // not a verdict: status decides
}

TEST_CASE("the computed backoff is min(500 ms * 2^n, 8 s) shortened by at most a quarter") {
  TransportRetryOptions o;
  const std::pair<long, long> expected[] = {{375, 500}, {750, 1000}, {1500, 2000}, {3000, 4000}, {6000, 8000}, {6000, 8000}};
  for (int attempt = 0; attempt < 6; ++attempt) {
    INFO(attempt);
    CHECK(backoff_delay(attempt, o, 0.0).count() == expected[attempt].second);  // no jitter: the full delay
    auto shortest = backoff_delay(attempt, o, 0.999999).count();
    CHECK(shortest >= expected[attempt].first);
    CHECK(shortest < expected[attempt].second);
  }
  CHECK(backoff_delay(60, o, 0.5).count() <= 8000);  // no overflow on absurd attempts
}

TEST_CASE("Retry-After is read as retry-after-ms, then seconds, then an HTTP date in any of its three forms") {
  auto now = std::chrono::sys_days(std::chrono::year(1994) / 11 / 6) + std::chrono::hours(8) + std::chrono::minutes(49) +
             std::chrono::seconds(30);
  CHECK(server_retry_delay(headers({{"retry-after-ms", "1500"}, {"Retry-After", "9"}}), now) == milliseconds(1500));
  CHECK(server_retry_delay(headers({{"Retry-After", "7"}}), now) == milliseconds(7000));
  CHECK(server_retry_delay(headers({{"Retry-After", "1.5"}}), now) == milliseconds(1500));
  CHECK(server_retry_delay(headers({{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}}), now) == milliseconds(7000));
  CHECK(server_retry_delay(headers({{"Retry-After", "Sunday, 06-Nov-94 08:49:37 GMT"}}), now) == milliseconds(7000));
  CHECK(server_retry_delay(headers({{"Retry-After", "Sun Nov  6 08:49:37 1994"}}), now) == milliseconds(7000));
  CHECK(server_retry_delay(headers({{"Retry-After", "Sun, 06 Nov 1994 08:00:00 GMT"}}), now) == milliseconds(0));  // past
  CHECK_FALSE(server_retry_delay(headers({{"Retry-After", "soon"}}), now));
  CHECK_FALSE(server_retry_delay(headers({{"Retry-After", "-5"}}), now));
  CHECK_FALSE(server_retry_delay({}, now));
  // A number too large for any clock is still a (huge) delay, never a wrapped short one.
  auto huge = server_retry_delay(headers({{"Retry-After", "99999999999999999999999999"}}), now);
  REQUIRE(huge);
  CHECK(*huge > std::chrono::hours(24 * 365));
}

TEST_CASE("an HTTP date with an impossible day or clock is not a date") {
  CHECK_FALSE(parse_http_date("Sun, 31 Feb 2026 08:49:37 GMT"));
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT"));
  CHECK_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 PST"));
  CHECK(parse_http_date("Mon, 30 Nov 2026 12:00:00 GMT"));
}

// ---- Against a loopback server ----------------------------------------------------------------------------------

TEST_CASE("a 429 then a 200 is one retry and the 200 comes back") {
  ScriptedServer server({status(429), status(200, {}, "fine")});
  http::HttpClient client;
  SystemClock clock;
  auto resp = send_with_retry(client, post(server.base_url() + "/v1"), quick(3), clock, {});
  REQUIRE(resp);
  CHECK(resp->status() == 200);
  CHECK(resp->read_all().value() == "fine");
  CHECK(server.request_count() == 2);
}

TEST_CASE("retry is off by default: a 503 comes back after one attempt") {
  ScriptedServer server({status(503), status(200)});
  http::HttpClient client;
  SystemClock clock;
  auto resp = send_with_retry(client, post(server.base_url()), TransportRetryOptions{}, clock, {});
  REQUIRE(resp);
  CHECK(resp->status() == 503);
  CHECK(server.request_count() == 1);
}

TEST_CASE("a 500 with x-should-retry: false is not retried") {
  ScriptedServer server({status(500, headers({{"x-should-retry", "false"}})), status(200)});
  http::HttpClient client;
  SystemClock clock;
  auto resp = send_with_retry(client, post(server.base_url()), quick(3), clock, {});
  REQUIRE(resp);
  CHECK(resp->status() == 500);
  CHECK(server.request_count() == 1);
}

TEST_CASE("a 200 with x-should-retry: true is retried") {
  ScriptedServer server({status(200, headers({{"x-should-retry", "true"}}), "again"), status(200, {}, "done")});
  http::HttpClient client;
  SystemClock clock;
  auto resp = send_with_retry(client, post(server.base_url()), quick(3), clock, {});
  REQUIRE(resp);
  CHECK(resp->read_all().value() == "done");
  CHECK(server.request_count() == 2);
}

TEST_CASE("a retryable status keeps being retried up to max_retries and then comes back") {
  ScriptedServer server({status(502)});
  http::HttpClient client;
  SystemClock clock;
  int seen = 0;
  auto resp = send_with_retry(client, post(server.base_url()), quick(2), clock, {}, [&](const http::Response&) { ++seen; });
  REQUIRE(resp);
  CHECK(resp->status() == 502);
  CHECK(server.request_count() == 3);
  CHECK(seen == 3);  // on_response saw every attempt
}

TEST_CASE("Retry-After beyond the ceiling abandons the request at once with an error that says so") {
  ScriptedServer server({status(429, headers({{"Retry-After", "3600"}}), R"({"error":{"message":"slow down"}})")});
  http::HttpClient client;
  SystemClock clock;
  auto started = std::chrono::steady_clock::now();
  auto resp = send_with_retry(client, post(server.base_url()), quick(3), clock, {});
  auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(resp);
  CHECK(elapsed < std::chrono::seconds(2));  // abandoned, not clamped to 60 s and slept
  CHECK(server.request_count() == 1);
  CHECK(resp.error().code == Errc::limit_exceeded);
  CHECK(resp.error().message.find("exceeds the ceiling") != std::string::npos);
  CHECK(resp.error().find_detail("retry_delay_ms") == std::optional<std::string_view>("3600000"));
  CHECK(resp.error().find_detail("max_retry_delay_ms") == std::optional<std::string_view>("60000"));
  // The semantic layer must not retry it either, though the text names a 429.
  CHECK_FALSE(is_retryable_error_text(resp.error().message));
}

TEST_CASE("a non-retryable 400 with Retry-After: 3600 comes back as the 400") {
  ScriptedServer server({status(400, headers({{"Retry-After", "3600"}}), "bad")});
  http::HttpClient client;
  SystemClock clock;
  auto resp = send_with_retry(client, post(server.base_url()), quick(3), clock, {});
  REQUIRE(resp);
  CHECK(resp->status() == 400);
}

TEST_CASE("Retry-After in seconds from an independent server is honoured before the retry") {
  agentkit::testing::PythonPeer peer("retry_peer.py");
  REQUIRE(peer.started());  // python3 is a required peer
  http::HttpClient client;
  SystemClock clock;
  auto started = std::chrono::steady_clock::now();
  auto resp = send_with_retry(client, post(peer.base_url() + "/seconds-then-ok?key=s1"), quick(2), clock, {});
  auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE(resp);
  CHECK(resp->status() == 200);
  CHECK(elapsed >= milliseconds(1000));  // the dictated second, not the 1 ms computed backoff
}

TEST_CASE("Retry-After as an HTTP date written by Python's email.utils is honoured, and a far one abandons") {
  agentkit::testing::PythonPeer peer("retry_peer.py");
  REQUIRE(peer.started());
  http::HttpClient client;
  SystemClock clock;
  auto started = std::chrono::steady_clock::now();
  auto resp = send_with_retry(client, post(peer.base_url() + "/date-then-ok?key=d1"), quick(2), clock, {});
  auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE(resp);
  CHECK(resp->status() == 200);
  CHECK(elapsed >= milliseconds(1000));     // two seconds ahead at one-second resolution: at least one
  CHECK(elapsed < std::chrono::seconds(5));
  auto far = send_with_retry(client, post(peer.base_url() + "/far-date?key=f1"), quick(2), clock, {});
  REQUIRE_FALSE(far);
  CHECK(far.error().message.find("exceeds the ceiling") != std::string::npos);
  auto wait = std::stoll(std::string(*far.error().find_detail("retry_delay_ms")));
  CHECK(wait > 3'500'000);  // about an hour, read from the date
  CHECK(wait <= 3'600'000);
}

TEST_CASE("cancellation during the backoff sleep wakes it at once and is never retried") {
  ScriptedServer server({status(503, headers({{"Retry-After", "30"}}))});
  http::HttpClient client;
  ManualClock clock;  // a 30 s wait that only cancellation can end
  agentkit::stop_source stop;
  agentkit::jthread canceller([&] {
    clock.wait_for_sleepers(1);
    stop.request_stop();
  });
  auto resp = send_with_retry(client, post(server.base_url()), quick(3), clock, stop.get_token());
  REQUIRE_FALSE(resp);
  CHECK(resp.error().code == Errc::cancelled);
  CHECK(resp.error().find_detail("phase") == std::optional<std::string_view>("backoff"));
  CHECK(server.request_count() == 1);
}

TEST_CASE("a dictated wait is slept on the injected clock, exactly") {
  ScriptedServer server({status(429, headers({{"retry-after-ms", "2500"}})), status(200)});
  http::HttpClient client;
  ManualClock clock;
  agentkit::jthread advancer([&] {
    clock.wait_for_sleepers(1);
    clock.advance(milliseconds(2499));
    CHECK(clock.sleepers() == 1);  // not yet
    clock.advance(milliseconds(1));
  });
  auto resp = send_with_retry(client, post(server.base_url()), quick(1), clock, {});
  REQUIRE(resp);
  CHECK(resp->status() == 200);
}

// ---- Semantic classification --------------------------------------------------------------------------------------

TEST_CASE("the deny list wins over the allow list") {
  CHECK_FALSE(is_retryable_error_text("429 insufficient_quota: You exceeded your current quota"));
  CHECK_FALSE(is_retryable_error_text("rate limit reached; check your billing details"));
  CHECK_FALSE(is_retryable_error_text("HTTP 400: prompt is too long; rate limit not involved"));
  CHECK_FALSE(is_retryable_error_text("HTTP 401 from api.anthropic.com: authentication_error: invalid x-api-key"));
}

TEST_CASE("each vendor's context-overflow wording is an overflow, and other errors are not") {
  CHECK(is_context_overflow_text(
      "HTTP 400: invalid_request_error: prompt is too long: 213462 tokens > 200000 maximum"));
  CHECK(is_context_overflow_text(
      "This model's maximum context length is 128000 tokens. However, your messages "
      "resulted in 130512 tokens."));
  CHECK(is_context_overflow_text("HTTP 400: context_length_exceeded"));
  CHECK(is_context_overflow_text("Your input exceeds the context window of this model."));
  CHECK(is_context_overflow_text(
      "The input token count (1200000) exceeds the maximum number of tokens allowed "
      "(1048576)."));
  CHECK(is_context_overflow_text(
      "the request exceeds the available context size, try increasing it"));
  CHECK_FALSE(is_context_overflow_text("HTTP 429: rate limit reached"));
  CHECK_FALSE(is_context_overflow_text("the input token count was 1200"));
  CHECK_FALSE(is_context_overflow_text("HTTP 401: invalid x-api-key"));
  AssistantMessage aborted;
  aborted.stop_reason = StopReason::aborted;
  aborted.error_message = "prompt is too long";
  CHECK_FALSE(is_context_overflow(aborted));
}

TEST_CASE("transient failures are retryable") {
  CHECK(is_retryable_error_text("stream ended before message_stop"));
  CHECK(is_retryable_error_text("HTTP 529 from api.anthropic.com: overloaded_error: Overloaded"));
  CHECK(is_retryable_error_text("HTTP 429: Too Many Requests"));
  CHECK(is_retryable_error_text("getaddrinfo EAI_AGAIN api.openai.com"));
  CHECK(is_retryable_error_text("read ECONNRESET"));
  CHECK(is_retryable_error_text("RESOURCE_EXHAUSTED: You can retry your request"));
  CHECK(is_retryable_error_text("request timed out after 50 ms (StreamOptions::timeout)"));
  CHECK(is_retryable_error_text("upstream answered 502"));
}

TEST_CASE("status codes match as whole tokens, not as substrings") {
  CHECK_FALSE(is_retryable_error_text("prompt is 15002 tokens"));
  CHECK_FALSE(is_retryable_error_text("request id 14290 failed validation"));
  CHECK_FALSE(is_retryable_error_text("x5000"));
  CHECK(is_retryable_error_text("status=500,"));
  CHECK(is_retryable_error_text("(503)"));
}

TEST_CASE("classification ignores case") {
  CHECK(is_retryable_error_text("OVERLOADED"));
  CHECK(is_retryable_error_text("Rate Limit exceeded"));
  CHECK_FALSE(is_retryable_error_text("INSUFFICIENT_QUOTA"));
}

TEST_CASE("only failed messages are retryable: never an aborted one, never a success") {
  AssistantMessage m;
  m.error_message = "overloaded";
  m.stop_reason = StopReason::error;
  CHECK(is_retryable_error(m));
  m.stop_reason = StopReason::aborted;
  CHECK_FALSE(is_retryable_error(m));
  m.stop_reason = StopReason::stop;
  CHECK_FALSE(is_retryable_error(m));
}
