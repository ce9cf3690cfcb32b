// The google-generative-ai wire's own facts (the rules every wire shares run in conformance/), and
// Gemini's explicit context cache (NFR-PERF-08).
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "agentkit/agent.hpp"
#include "agentkit/base/condition_variable.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/cost.hpp"
#include "agentkit/providers/google.hpp"
#include "agentkit/providers/repair.hpp"
#include "agentkit/providers/retry.hpp"
#include "google/gemini_request.hpp"
#include "provider_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace std::chrono_literals;

namespace {

constexpr const char* kModel = "gemini-4-hydrogen";

Model gemini(const std::string& base_url) {
  Model m = *catalog::Catalog::builtin().find("google", kModel);
  m.base_url = base_url;
  return m;
}

providers::WireOptions wire_options(std::shared_ptr<const Clock> clock = nullptr) {
  providers::WireOptions o;
  o.transport.credentials.environment = providers::fixed_environment({{"GEMINI_API_KEY", "gemini-test-key"}});
  o.transport.credentials.clock = std::move(clock);
  o.meter = std::make_shared<providers::CacheMeter>();
  return o;
}

std::string sse(const std::string& json) { return "data: " + json + "\n\n"; }

testing::ScriptedResponse streamed(const std::vector<std::string>& chunks) {
  testing::ScriptedResponse r;
  r.headers = http::Headers({{"Content-Type", "text/event-stream"}});
  for (const auto& c : chunks) r.pieces.push_back(sse(c));
  return r;
}

testing::ScriptedResponse whole(const std::string& json) {
  testing::ScriptedResponse r;
  r.headers = http::Headers({{"Content-Type", "application/json"}});
  r.body = json;
  return r;
}

std::string chunk(const std::string& parts, const std::string& tail = "") {
  return R"({"candidates":[{"content":{"role":"model","parts":[)" + parts + R"(]},"index":0)" + tail +
         R"(}],"modelVersion":"gemini-4-hydrogen","responseId":"r-1"})";
}
std::string final_chunk(const std::string& parts, const std::string& usage = R"({"promptTokenCount":10,"candidatesTokenCount":5})",
                        const std::string& reason = "STOP") {
  std::string c = chunk(parts, R"(,"finishReason":")" + reason + "\"");
  c.insert(c.size() - 1, R"(,"usageMetadata":)" + usage);
  return c;
}

// One conversation: storage the request's spans point into.
struct Conversation {
  std::shared_ptr<Model> model;
  std::vector<Message> messages{user_text("What's the weather in Paris?")};
  std::vector<ToolSpec> tools;
  Request request;
  explicit Conversation(const std::string& base_url) : model(std::make_shared<Model>(gemini(base_url))) { bind(); }
  void bind() {
    request.model = model;
    request.messages = messages;
    request.tools = tools;
  }
};

ToolSpec weather_tool() {
  ToolSpec t{"get_weather", "Get the current weather for a city",
             json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})").value(), 0};
  t.fingerprint = fingerprint_of(t);
  return t;
}

ToolResultMessage result_message(std::string id, std::string name, std::vector<ContentBlock> content, bool is_error = false) {
  ToolResultMessage r;
  r.tool_use_id = std::move(id);
  r.tool_name = std::move(name);
  r.content = std::move(content);
  r.is_error = is_error;
  return r;
}

struct Outcome {
  AssistantMessage message;
  std::vector<Event> events;
  std::string body;
  std::string target;
  http::Headers headers;
};

Outcome call(testing::ScriptedResponse answer, const std::function<void(Conversation&)>& adjust = {},
             std::shared_ptr<providers::WireClient> client = nullptr) {
  testing::ScriptedServer server({std::move(answer)});
  Conversation c(server.base_url());
  if (adjust) adjust(c);
  c.bind();
  if (!client) client = providers::make_google_client(wire_options());
  EventStream s = client->stream(c.request, {}, {});
  Outcome out;
  while (auto ev = s.next()) out.events.push_back(std::move(*ev));
  out.message = s.result().value();
  if (server.request_count() > 0) {
    auto r = server.last_request();
    out.body = r.body;
    out.target = r.path;
    out.headers = r.headers;
  }
  return out;
}

json::Value body_json(const Outcome& o) { return json::parse(o.body).value(); }

std::vector<ToolUseBlock> calls_of(const AssistantMessage& m) {
  std::vector<ToolUseBlock> out;
  for (const auto* c : tool_uses(m)) out.push_back(*c);
  return out;
}

std::string weather_call(const std::string& city, const std::string& extra = "") {
  return R"({"functionCall":{"name":"get_weather","args":{"city":")" + city + R"("}})" + extra + "}";
}

}  // namespace

// ---- Decoding ------------------------------------------------------------------------------------

TEST_CASE("gemini: text after a function call starts a new block") {
  const std::vector<std::string> chunks = {chunk(R"({"text":"Checking "})"), chunk(R"({"text":"now."})"),
                                           chunk(weather_call("Paris")), chunk(R"({"text":"Meanwhile, "})"),
                                           final_chunk(R"({"text":"more."})")};
  const std::string whole_reply =
      final_chunk(R"({"text":"Checking now."},)" + weather_call("Paris") + R"(,{"text":"Meanwhile, more."})");
  for (const Outcome& o : {call(streamed(chunks)), call(whole(whole_reply))}) {
    const auto& content = o.message.content;
    REQUIRE(content.size() == 3);
    CHECK(std::get<TextBlock>(content[0]).text == "Checking now.");
    CHECK(std::get<ToolUseBlock>(content[1]).name == "get_weather");
    CHECK(std::get<TextBlock>(content[2]).text == "Meanwhile, more.");
    CHECK(o.message.stop_reason == StopReason::tool_use);  // STOP beside a call
    CHECK(o.message.raw_stop_reason == "STOP");
  }
}

TEST_CASE("gemini: thoughts are counted inside output, not beside it") {
  Outcome o = call(streamed({chunk(R"({"text":"Let me think.","thought":true})"),
                             final_chunk(R"({"text":"42."})", R"({"promptTokenCount":100,"candidatesTokenCount":12,"thoughtsTokenCount":30})")}));
  CHECK(o.message.usage.output_tokens == 42);
  CHECK(o.message.usage.reasoning_tokens == 30);
  CHECK(o.message.usage.input_tokens == 100);
  const Model m = gemini("http://127.0.0.1:9");
  CHECK(o.message.usage.cost.output == Approx(42 * m.pricing.output / 1e6));
  REQUIRE(o.message.content.size() == 2);
  CHECK(std::get<ThinkingBlock>(o.message.content[0]).thinking == "Let me think.");
}

TEST_CASE("gemini: cached tokens are netted out of input exactly once") {
  // promptTokenCount includes cachedContentTokenCount; Google subtracts, exactly once.
  const std::string usage = R"({"promptTokenCount":1000,"candidatesTokenCount":50,"cachedContentTokenCount":800})";
  for (const Outcome& o : {call(streamed({final_chunk(R"({"text":"Hi."})", usage)})), call(whole(final_chunk(R"({"text":"Hi."})", usage)))}) {
    CHECK(o.message.usage.input_tokens == 200);
    CHECK(o.message.usage.cache_read_tokens == 800);
    CHECK(o.message.usage.output_tokens == 50);
    const Model m = gemini("http://127.0.0.1:9");
    CHECK(o.message.usage.cost.total == Approx((200 * m.pricing.input + 800 * m.pricing.cache_read + 50 * m.pricing.output) / 1e6));
  }
}

TEST_CASE("gemini: tool-call ids are synthesised per response, the same on the streamed and whole paths") {
  const std::string two_calls = weather_call("Paris") + "," + weather_call("London");
  Outcome s = call(streamed({chunk(two_calls), final_chunk(R"({"text":""})")}));
  Outcome w = call(whole(final_chunk(two_calls)));
  auto sc = calls_of(s.message), wc = calls_of(w.message);
  REQUIRE(sc.size() == 2);
  REQUIRE(wc.size() == 2);
  CHECK(sc[0].id == wc[0].id);
  CHECK(sc[1].id == wc[1].id);
  CHECK(sc[0].id != sc[1].id);
  CHECK(sc[0].id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos);

  // Not a counter: a second client answering the same request names the calls the same way, and
  // a later turn of the conversation (other request bytes) names them differently.
  auto fresh = providers::make_google_client(wire_options());
  (void)call(whole(final_chunk(two_calls)), {}, fresh);
  Outcome again = call(whole(final_chunk(two_calls)), {}, fresh);
  CHECK(calls_of(again.message)[0].id == sc[0].id);
  Outcome later = call(whole(final_chunk(two_calls)), [&](Conversation& c) {
    c.messages.push_back(w.message);
    c.messages.push_back(result_message(wc[0].id, "get_weather", {TextBlock{"21"}}));
    c.messages.push_back(result_message(wc[1].id, "get_weather", {TextBlock{"14"}}));
  });
  auto lc = calls_of(later.message);
  REQUIRE(lc.size() == 2);
  CHECK(lc[0].id != wc[0].id);
  // The replayed transcript still pairs: both results went out, in call order.
  auto contents = body_json(later).find("contents")->as_array();
  REQUIRE(contents.size() == 3);
  const auto& parts = contents[2].find("parts")->as_array();
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].find("functionResponse")->find("response")->find("output")->as_string() == "21");
  CHECK(parts[1].find("functionResponse")->find("response")->find("output")->as_string() == "14");
}

TEST_CASE("gemini: a function call keeps its argument bytes and thought signature, and replays both unchanged") {
  const std::string raw = R"({"b": 1.0,  "a":"\u00e9"})";
  const std::string part = R"({"functionCall":{"name":"get_weather","args":)" + raw + R"(},"thoughtSignature":"c2lnLTE="})";
  Outcome o = call(streamed({chunk(part), final_chunk(R"({"text":""})")}));
  auto calls = calls_of(o.message);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].input.str() == raw);
  CHECK(calls[0].thought_signature == "c2lnLTE=");
  Outcome next = call(whole(final_chunk(R"({"text":"ok"})")), [&](Conversation& c) {
    c.tools = {weather_tool()};
    c.messages.push_back(o.message);
    c.messages.push_back(result_message(calls[0].id, "get_weather", {TextBlock{"sunny"}}));
  });
  CHECK(next.body.find(R"("args":)" + raw) != std::string::npos);
  CHECK(next.body.find(R"("thoughtSignature":"c2lnLTE=")") != std::string::npos);
}

TEST_CASE("gemini: tool results pair by position in one user content, a failure under error") {
  Outcome o = call(whole(final_chunk(R"({"text":"ok"})")), [](Conversation& c) {
    c.tools = {weather_tool()};
    AssistantMessage a = providers::start_message(*c.model);
    a.content = {ToolUseBlock{"g1", "get_weather", json::Raw(R"({"city":"Paris"})"), {}},
                 ToolUseBlock{"g2", "get_weather", json::Raw(R"({"city":"Nowhere"})"), {}}};
    c.messages.push_back(a);
    c.messages.push_back(result_message("g1", "get_weather", {TextBlock{"21 sunny"}}));
    c.messages.push_back(result_message("g2", "get_weather", {TextBlock{"no such city"}}, true));
  });
  auto contents = body_json(o).find("contents")->as_array();
  REQUIRE(contents.size() == 3);
  CHECK(contents[2].find("role")->as_string() == "user");
  const auto& parts = contents[2].find("parts")->as_array();
  REQUIRE(parts.size() == 2);
  const json::Value* first = parts[0].find("functionResponse");
  const json::Value* second = parts[1].find("functionResponse");
  CHECK(first->find("name")->as_string() == "get_weather");
  CHECK(first->find("id") == nullptr);  // the wire has no id: order is the pairing
  REQUIRE(first->find("response")->find("output") != nullptr);
  CHECK(first->find("response")->find("output")->as_string() == "21 sunny");
  REQUIRE(second->find("response")->find("error") != nullptr);
  CHECK(second->find("response")->find("error")->as_string() == "no such city");
  CHECK(second->find("response")->find("output") == nullptr);
}

TEST_CASE("gemini: unsigned thoughts stay thinking for the same model and are not sent back") {
  Outcome o = call(whole(final_chunk(R"({"text":"Pondering.","thought":true},{"text":"Answer."})")));
  REQUIRE(o.message.content.size() == 2);
  const auto& thought = std::get<ThinkingBlock>(o.message.content[0]);
  CHECK_FALSE(thought.signature.empty());  // the marker: rule 4 would otherwise make it visible text
  Outcome next = call(whole(final_chunk(R"({"text":"ok"})")), [&](Conversation& c) {
    c.messages.push_back(o.message);
    c.messages.push_back(user_text("And then?"));
  });
  CHECK(next.body.find("Pondering.") == std::string::npos);
  CHECK(next.body.find(R"("thought")") == std::string::npos);
  CHECK(next.body.find("Answer.") != std::string::npos);
  // Another model sees the thought as text (rule 3).
  Model other = *catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5");
  std::vector<Message> history = {user_text("q"), o.message};
  auto view = providers::repair_for_send(history, other);
  const auto& a = std::get<AssistantMessage>(view.messages()[1]);
  CHECK(std::get<TextBlock>(a.content[0]).text == "Pondering.");

  // A signed thought goes back as a thought part with its signature.
  Outcome signed_reply = call(whole(final_chunk(R"({"text":"Signed.","thought":true,"thoughtSignature":"dHM="},{"text":"A."})")));
  Outcome replay = call(whole(final_chunk(R"({"text":"ok"})")), [&](Conversation& c) {
    c.messages.push_back(signed_reply.message);
    c.messages.push_back(user_text("More?"));
  });
  CHECK(replay.body.find(R"({"text":"Signed.","thought":true,"thoughtSignature":"dHM="})") != std::string::npos);
}

TEST_CASE("gemini: a stream that never gives a finishReason was cut short and is a retryable error") {
  Outcome o = call(streamed({chunk(R"({"text":"Let me check."})"), chunk(weather_call("Paris"))}));
  CHECK(o.message.stop_reason == StopReason::error);
  CHECK(providers::is_retryable_error(o.message));
  CHECK(text_of(o.message) == "Let me check.");
  CHECK(o.message.error_message.find("finishReason") != std::string::npos);
}

TEST_CASE("gemini: an error chunk inside a 200 stream fails the call and keeps the partial text") {
  Outcome o = call(streamed({chunk(R"({"text":"Partial "})"), chunk(R"({"text":"answer"})"),
                             R"({"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}})"}));
  CHECK(o.message.stop_reason == StopReason::error);
  CHECK(text_of(o.message) == "Partial answer");
  CHECK(o.message.error_message.find("An internal error has occurred.") != std::string::npos);
  CHECK(o.message.error_message.find("INTERNAL") != std::string::npos);
  CHECK(providers::is_retryable_error(o.message));
}

TEST_CASE("gemini: a blocked prompt is a refusal, MAX_TOKENS a length stop, a malformed call an error") {
  Outcome blocked = call(whole(R"({"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":9}})"));
  CHECK(blocked.message.stop_reason == StopReason::refusal);
  CHECK(blocked.message.raw_stop_reason == "SAFETY");
  // A block reason that is not also a finish reason still means the prompt was refused.
  Outcome blocked_stream = call(streamed({R"({"promptFeedback":{"blockReason":"OTHER"}})"}));
  CHECK(blocked_stream.message.stop_reason == StopReason::refusal);
  CHECK(blocked_stream.message.raw_stop_reason == "OTHER");
  Outcome cut = call(streamed({final_chunk(R"({"text":"Long ans"})", R"({"promptTokenCount":5,"candidatesTokenCount":3})", "MAX_TOKENS")}));
  CHECK(cut.message.stop_reason == StopReason::length);
  Outcome safety = call(whole(final_chunk(R"({"text":""})", R"({"promptTokenCount":5})", "SAFETY")));
  CHECK(safety.message.stop_reason == StopReason::refusal);
  Outcome malformed = call(streamed({final_chunk(R"({"text":"Calling"})", R"({"promptTokenCount":5})", "MALFORMED_FUNCTION_CALL")}));
  CHECK(malformed.message.stop_reason == StopReason::error);
  CHECK(malformed.message.error_message.find("MALFORMED_FUNCTION_CALL") != std::string::npos);
}

TEST_CASE("gemini: a whole reply that is a JSON array of chunks decodes like the stream") {
  Outcome o = call(whole("[" + chunk(R"({"text":"Hel"})") + "," + final_chunk(R"({"text":"lo."})") + "]"));
  CHECK(text_of(o.message) == "Hello.");
  CHECK(o.message.stop_reason == StopReason::stop);
}

// ---- Encoding ---------------------------------------------------------------------------------------

TEST_CASE("gemini: requests stream from models/<id>:streamGenerateContent with the key in a header") {
  Outcome o = call(whole(final_chunk(R"({"text":"ok"})")), [](Conversation& c) {
    c.request.system = "You are terse.";
    c.tools = {weather_tool()};
  });
  CHECK(o.target == "/models/gemini-4-hydrogen:streamGenerateContent?alt=sse");
  CHECK(o.headers.get("x-goog-api-key") == std::optional<std::string_view>("gemini-test-key"));
  json::Value body = body_json(o);
  CHECK(body.find("systemInstruction")->find("parts")->as_array()[0].find("text")->as_string() == "You are terse.");
  const auto& declarations = body.find("tools")->as_array()[0].find("functionDeclarations")->as_array();
  REQUIRE(declarations.size() == 1);
  CHECK(declarations[0].find("parametersJsonSchema")->find("type")->as_string() == "object");
  CHECK(body.find("toolConfig") == nullptr);  // no choice asked for: none sent
  CHECK(body.find("generationConfig") != nullptr);
}

TEST_CASE("gemini: tool choice becomes functionCallingConfig") {
  auto mode_of = [](std::optional<ToolChoice> choice) {
    Outcome o = call(whole(final_chunk(R"({"text":"ok"})")), [&](Conversation& c) {
      c.tools = {weather_tool()};
      c.request.tool_choice = choice;
    });
    const json::Value body = body_json(o);
    const json::Value* config = body.find("toolConfig");
    return config ? json::dump(*config->find("functionCallingConfig")) : std::string("absent");
  };
  CHECK(mode_of(std::nullopt) == "absent");
  CHECK(mode_of(ToolChoice{ToolChoice::Mode::automatic, {}}) == R"({"mode":"AUTO"})");
  CHECK(mode_of(ToolChoice{ToolChoice::Mode::none, {}}) == R"({"mode":"NONE"})");
  CHECK(mode_of(ToolChoice{ToolChoice::Mode::required, {}}) == R"({"mode":"ANY"})");
  CHECK(mode_of(ToolChoice{ToolChoice::Mode::tool, "get_weather"}) == R"({"mode":"ANY","allowedFunctionNames":["get_weather"]})");
}

TEST_CASE("gemini: thinking is clamped and sent as a level or a budget, as the catalog row says") {
  auto thinking_of = [](const std::function<void(Conversation&)>& adjust) {
    Outcome o = call(whole(final_chunk(R"({"text":"ok"})")), adjust);
    const json::Value body = body_json(o);
    const json::Value* config = body.find("generationConfig")->find("thinkingConfig");
    return config ? json::dump(*config) : std::string("absent");
  };
  CHECK(thinking_of([](Conversation&) {}) == "absent");
  CHECK(thinking_of([](Conversation& c) { c.request.thinking = ThinkingLevel::medium; }) ==
        R"({"thinkingLevel":"MEDIUM","includeThoughts":true})");
  // minimal is explicitly unsupported on this row: clamped upward to low (REQ-PROV-15).
  CHECK(thinking_of([](Conversation& c) { c.request.thinking = ThinkingLevel::minimal; }) ==
        R"({"thinkingLevel":"LOW","includeThoughts":true})");
  // A budget-style row that can switch thinking off.
  auto budget_row = [](Conversation& c) {
    c.model->thinking_levels = {ThinkingLevel::off, ThinkingLevel::low, ThinkingLevel::high};
    c.model->compat =
        json::parse(R"({"thinking_level_map":{"off":0,"low":1024,"high":24576}})").value();
  };
  CHECK(thinking_of([&](Conversation& c) {
          budget_row(c);
          c.request.thinking = ThinkingLevel::medium;
        }) == R"({"thinkingBudget":24576,"includeThoughts":true})");
  CHECK(thinking_of([&](Conversation& c) {
          budget_row(c);
          c.request.thinking = ThinkingLevel::off;
        }) == R"({"thinkingBudget":0})");
}

// ---- Explicit context cache (CachedContent) ------------------------------------------------------

namespace {

// A Gemini double that routes by path: POST /cachedContents (creation, scripted) and
// :streamGenerateContent (records the body, answers a short SSE reply).
class FakeGemini {
 public:
  enum class Creation { answer, hang, delayed };
  explicit FakeGemini(Creation creation, std::chrono::milliseconds delay = 0ms) : creation_(creation), delay_(delay) {
    server_.emplace(http::HttpServer::start({}, [this](const http::ServerRequest& req, http::ResponseWriter& out) { handle(req, out); }).value());
  }
  ~FakeGemini() { server_->stop(); }

  std::string base_url() const { return server_->base_url(); }
  int creations() const {
    std::lock_guard lock(mu_);
    return static_cast<int>(creation_bodies_.size());
  }
  std::vector<std::string> creation_bodies() const {
    std::lock_guard lock(mu_);
    return creation_bodies_;
  }
  std::vector<std::string> generate_bodies() const {
    std::lock_guard lock(mu_);
    return generate_bodies_;
  }
  void reject_cached(bool on) { reject_cached_ = on; }
  void stall_generate(bool on) { stall_generate_ = on; }
  bool wait_for_creations(int n, std::chrono::milliseconds timeout = 10s) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return static_cast<int>(creation_bodies_.size()) >= n; });
  }

 private:
  static void wait_for_stop(http::ResponseWriter& out, std::chrono::milliseconds limit) {
    std::mutex m;
    agentkit::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait_for(lock, out.stop_token(), limit, [] { return false; });
  }

  void handle(const http::ServerRequest& req, http::ResponseWriter& out) {
    if (req.path.ends_with("/cachedContents")) return create(req, out);
    bool cached = req.body.find(R"("cachedContent")") != std::string::npos;
    {
      std::lock_guard lock(mu_);
      generate_bodies_.push_back(req.body);
    }
    if (cached && reject_cached_) {
      (void)out.respond(404, {{"Content-Type", "application/json"}},
                        R"j({"error":{"code":404,"message":"CachedContent not found (or permission denied)","status":"NOT_FOUND"}})j");
      return;
    }
    (void)out.start_stream(200, {{"Content-Type", "text/event-stream"}});
    if (stall_generate_) {
      (void)out.write(sse(chunk(R"({"text":"Thinking"})")));
      wait_for_stop(out, 60s);
      return;
    }
    const std::string usage = cached ? R"({"promptTokenCount":40010,"candidatesTokenCount":2,"cachedContentTokenCount":40000})"
                                     : R"({"promptTokenCount":40010,"candidatesTokenCount":2})";
    (void)out.write(sse(final_chunk(R"({"text":"ok"})", usage)));
    (void)out.finish();
  }

  void create(const http::ServerRequest& req, http::ResponseWriter& out) {
    int n;
    {
      std::lock_guard lock(mu_);
      creation_bodies_.push_back(req.body);
      n = static_cast<int>(creation_bodies_.size());
    }
    cv_.notify_all();
    if (creation_ == Creation::hang) return wait_for_stop(out, 600s);  // never answers while the test runs
    if (creation_ == Creation::delayed) wait_for_stop(out, delay_);
    (void)out.respond(200, {{"Content-Type", "application/json"}},
                      R"({"name":"cachedContents/c)" + std::to_string(n) +
                          R"(","model":"models/gemini-4-hydrogen","expireTime":"2026-11-30T01:00:00Z","usageMetadata":{"totalTokenCount":40000}})");
  }

  Creation creation_;
  std::chrono::milliseconds delay_;
  std::atomic<bool> reject_cached_{false};
  std::atomic<bool> stall_generate_{false};
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<std::string> creation_bodies_;
  std::vector<std::string> generate_bodies_;
  std::optional<http::HttpServer> server_;
};

// A system prompt well above the 32,768-token floor (bytes / 4).
std::string long_instructions() {
  std::string s;
  while (s.size() < 160'000) s += "Rule " + std::to_string(s.size()) + ": answer precisely and cite the file you read. ";
  return s;
}

bool names_a_cache(const std::string& body) { return body.rfind(R"({"cachedContent":"cachedContents/)", 0) == 0; }

// The body the client would send now, polled until it names a cache (creation runs in the
// background; preparing a request is what starts it), at most `tries` times.
std::optional<std::string> wait_until_cached(providers::WireClient& client, Conversation& c, int tries = 500) {
  for (int i = 0; i < tries; ++i) {
    auto prepared = client.prepare(c.request, {});
    if (prepared && names_a_cache(prepared->wire.body)) return prepared->wire.body;
    std::this_thread::sleep_for(10ms);
  }
  return std::nullopt;
}

Conversation cached_conversation(const std::string& base_url) {
  Conversation c(base_url);
  c.request.system = long_instructions();
  c.tools = {weather_tool()};
  c.bind();
  return c;
}

}  // namespace

TEST_CASE("gemini CachedContent: the loop never waits for its creation") {
  // NFR-PERF-08: the creation round trip never returns. A synchronous implementation would
  // deadlock here; ours sends every turn uncached meanwhile and cancels creation on shutdown.
  FakeGemini server(FakeGemini::Creation::hang);
  {
    AgentDefinition def;
    def.instructions = long_instructions();
    RuntimeConfig rt;
    rt.model.descriptor = gemini(server.base_url());
    rt.model.max_tokens = 256;
    rt.providers.add("google-generative-ai", providers::make_google_client(wire_options()));
    auto agent = make_agent(def, rt);
    REQUIRE(agent);
    auto session = agent->start();
    REQUIRE(session);
    for (const char* prompt : {"first question", "second question"}) {
      auto result = session->run(Input{prompt});
      REQUIRE(result);
      CHECK(result->stop_reason == RunStopReason::stop);
    }
    REQUIRE(server.wait_for_creations(1));
    (void)session->close();
  }  // the client is gone: its creation thread was cancelled and joined
  CHECK(server.creations() == 1);  // one prefix, one creation, never repeated while pending
  auto bodies = server.generate_bodies();
  REQUIRE(bodies.size() == 2);
  for (const auto& b : bodies) {
    CHECK_FALSE(names_a_cache(b));
    CHECK(b.find("systemInstruction") != std::string::npos);
  }
}

TEST_CASE("gemini CachedContent: once created, requests name it instead of resending the prefix") {
  FakeGemini server(FakeGemini::Creation::answer);
  auto client = providers::make_google_client(wire_options());
  Conversation c = cached_conversation(server.base_url());
  auto body = wait_until_cached(*client, c);
  REQUIRE(body);
  json::Value doc = json::parse(*body).value();
  CHECK(doc.find("cachedContent")->as_string() == "cachedContents/c1");
  CHECK(doc.find("systemInstruction") == nullptr);  // the service rejects a request repeating them
  CHECK(doc.find("tools") == nullptr);
  CHECK(doc.find("contents") != nullptr);
  // What was cached: the model, the stable prefix, the PRD's 60-minute lifetime.
  auto creations = server.creation_bodies();
  REQUIRE(creations.size() == 1);
  json::Value created = json::parse(creations[0]).value();
  CHECK(created.find("model")->as_string() == "models/gemini-4-hydrogen");
  CHECK(created.find("systemInstruction")->find("parts")->as_array()[0].find("text")->as_string() == c.request.system);
  CHECK(created.find("tools") != nullptr);
  CHECK(created.find("ttl")->as_string() == "3600s");
  // The reply's cached tokens are read and netted out.
  AssistantMessage m = complete(*client, c.request);
  CHECK(m.usage.cache_read_tokens == 40000);
  CHECK(m.usage.input_tokens == 10);
  CHECK(names_a_cache(server.generate_bodies().back()));
}

TEST_CASE("gemini CachedContent: a 404 on the named cache is resent once without it and the cache is dropped") {
  FakeGemini server(FakeGemini::Creation::answer);
  auto client = providers::make_google_client(wire_options());
  Conversation c = cached_conversation(server.base_url());
  REQUIRE(wait_until_cached(*client, c));
  server.reject_cached(true);
  const std::size_t before = server.generate_bodies().size();
  AssistantMessage m = complete(*client, c.request);
  CHECK(m.stop_reason == StopReason::stop);
  CHECK(text_of(m) == "ok");
  auto bodies = server.generate_bodies();
  REQUIRE(bodies.size() == before + 2);  // the cached request, then exactly one resend
  CHECK(names_a_cache(bodies[before]));
  CHECK_FALSE(names_a_cache(bodies[before + 1]));
  json::Value resent = json::parse(bodies[before + 1]).value();
  CHECK(resent.find("systemInstruction")->find("parts")->as_array()[0].find("text")->as_string() == c.request.system);
  CHECK(resent.find("cachedContent") == nullptr);
  // The rejected cache is forgotten: the next request creates a new one instead of naming it.
  server.reject_cached(false);
  (void)complete(*client, c.request);
  CHECK(server.wait_for_creations(2));
}

TEST_CASE("gemini CachedContent: a cache is never named past its local expiry") {
  auto clock = std::make_shared<ManualClock>();
  FakeGemini server(FakeGemini::Creation::answer);
  auto client = providers::make_google_client(wire_options(clock));
  Conversation c = cached_conversation(server.base_url());
  REQUIRE(wait_until_cached(*client, c));
  const providers::GeminiCacheOptions defaults;
  clock->advance(defaults.ttl - defaults.expiry_margin - 1s);
  CHECK(names_a_cache(client->prepare(c.request, {})->wire.body));  // still inside its life
  clock->advance(2s);
  CHECK_FALSE(names_a_cache(client->prepare(c.request, {})->wire.body));  // expired locally
  CHECK(server.wait_for_creations(2));  // and made again
}

TEST_CASE("gemini CachedContent: creation outlives the turn that started it") {
  // Creation runs under the client's cancellation, not the turn's: cancelling the turn that
  // noticed the prefix must not abort the cache about to pay off.
  FakeGemini server(FakeGemini::Creation::delayed, 300ms);
  server.stall_generate(true);
  auto client = providers::make_google_client(wire_options());
  Conversation c = cached_conversation(server.base_url());
  agentkit::stop_source cancel;
  EventStream s = client->stream(c.request, {}, cancel.get_token());
  REQUIRE(server.wait_for_creations(1));
  cancel.request_stop();
  AssistantMessage aborted = s.result().value();
  CHECK(aborted.stop_reason == StopReason::aborted);
  server.stall_generate(false);
  auto body = wait_until_cached(*client, c);
  REQUIRE(body);
  CHECK(server.creations() == 1);
}

TEST_CASE("gemini CachedContent: small prefixes and retention none never create one") {
  FakeGemini server(FakeGemini::Creation::answer);
  {
    auto client = providers::make_google_client(wire_options());
    Conversation c(server.base_url());
    c.request.system = "You are terse.";
    c.bind();
    for (int i = 0; i < 3; ++i) (void)complete(*client, c.request);
  }
  {
    providers::WireOptions off = wire_options();
    off.caching.retention = providers::CacheRetention::none;
    auto client = providers::make_google_client(off);
    Conversation c = cached_conversation(server.base_url());
    for (int i = 0; i < 3; ++i) (void)complete(*client, c.request);
  }
  {
    providers::GoogleOptions google;
    google.cached_content.enabled = false;
    auto client = providers::make_google_client(wire_options(), google);
    Conversation c = cached_conversation(server.base_url());
    for (int i = 0; i < 3; ++i) (void)complete(*client, c.request);
  }
  CHECK(server.creations() == 0);
  CHECK(server.generate_bodies().size() == 9);
}

TEST_CASE("Gemini writes its new contents into one buffer: no string of each part") {
  // A call with 3 KB of arguments and its result, the segment a steady-state request adds: each
  // part was a string of its own (and the result's text a copy), kept in a list per content, then
  // joined into the contents and trimmed into the segment (12 allocations, 18,837 bytes under
  // libstdc++); now the segment's buffer alone (1 allocation, 4,207 bytes).
  const std::vector<Message> view = testing::call_with_3kb_arguments("call_1");
  (void)providers::detail::gemini::contents_items(view);  // the parser's scratch warm
  testing::AllocStats stats;
  {
    agentkit::testing::AllocCounter counter;
    (void)providers::detail::gemini::contents_items(view);
    stats = counter.stats();
  }
  INFO(stats.count << " allocations, " << stats.bytes << " bytes");
  CHECK(stats.count <= 1);  // an upper bound: under ThreadSanitizer the counter reads 0
}
