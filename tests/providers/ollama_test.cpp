// The ollama-chat wire's own facts (the rules every wire shares run in conformance/).
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/ollama.hpp"
#include "agentkit/providers/repair.hpp"
#include "agentkit/providers/retry.hpp"
#include "ollama/ollama_request.hpp"
#include "provider_test_support.hpp"
#include "support/alloc/alloc_counter.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

Model ollama_model(const std::string& base_url, const std::string& id = "gpt-oss:20b") {
  Model m = *catalog::Catalog::builtin().find("ollama", id);
  m.base_url = base_url;
  return m;
}

providers::WireOptions wire_options(std::map<std::string, std::string, std::less<>> env = {}) {
  providers::WireOptions o;
  o.transport.credentials.environment = providers::fixed_environment(std::move(env));
  o.meter = std::make_shared<providers::CacheMeter>();
  return o;
}

std::string line(const std::string& message_members, bool done = false, const std::string& tail = "") {
  return R"({"model":"gpt-oss:20b","created_at":"2026-11-30T00:00:00Z","message":{"role":"assistant",)" + message_members +
         R"(},"done":)" + (done ? "true" : "false") + tail + "}\n";
}
std::string done_line(const std::string& reason = "stop", const std::string& counts = R"(,"prompt_eval_count":12,"eval_count":7)") {
  return line(R"("content":"")", true, R"(,"done_reason":")" + reason + "\"" + counts);
}

testing::ScriptedResponse ndjson(std::vector<std::string> lines, const std::string& content_type = "application/x-ndjson") {
  testing::ScriptedResponse r;
  r.headers = http::Headers({{"Content-Type", content_type}});
  r.pieces = std::move(lines);
  return r;
}

testing::ScriptedResponse whole(const std::string& json) {
  testing::ScriptedResponse r;
  r.headers = http::Headers({{"Content-Type", "application/json"}});
  r.body = json;
  return r;
}

struct Conversation {
  std::shared_ptr<Model> model;
  std::vector<Message> messages{user_text("What's the weather in Paris?")};
  std::vector<ToolSpec> tools;
  Request request;
  explicit Conversation(const std::string& base_url) : model(std::make_shared<Model>(ollama_model(base_url))) { bind(); }
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
  json::Value json() const { return json::parse(body).value(); }
};

Outcome call(testing::ScriptedResponse answer, const std::function<void(Conversation&)>& adjust = {},
             std::shared_ptr<providers::WireClient> client = nullptr) {
  testing::ScriptedServer server({std::move(answer)});
  Conversation c(server.base_url());
  if (adjust) adjust(c);
  c.bind();
  if (!client) client = providers::make_ollama_client(wire_options());
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

std::vector<ToolUseBlock> calls_of(const AssistantMessage& m) {
  std::vector<ToolUseBlock> out;
  for (const auto* c : tool_uses(m)) out.push_back(*c);
  return out;
}

const char* kTwoCalls = R"("content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}},)"
                        R"({"function":{"name":"get_weather","arguments":{"city": "London" }}}])";

}  // namespace

TEST_CASE("ollama: an error string inside an HTTP 200 body is an error, not content") {
  Outcome streamed = call(ndjson({line(R"("content":"Partial ")"), line(R"("content":"answer")"),
                                  "{\"error\":\"model runner has unexpectedly stopped\"}\n"}));
  CHECK(streamed.message.stop_reason == StopReason::error);
  CHECK(text_of(streamed.message) == "Partial answer");
  CHECK(streamed.message.error_message.find("model runner has unexpectedly stopped") != std::string::npos);
  bool error_event = false;
  for (const auto& e : streamed.events) error_event = error_event || std::holds_alternative<ErrorEvent>(e);
  CHECK(error_event);

  Outcome whole_error = call(whole(R"({"error":"model \"llama9\" not found, try pulling it first"})"));
  CHECK(whole_error.message.stop_reason == StopReason::error);
  CHECK(whole_error.message.error_message.find("try pulling it first") != std::string::npos);
  CHECK(whole_error.message.content.empty());
}

TEST_CASE("ollama: a stream without its done:true line was cut short, a retryable error") {
  Outcome o = call(ndjson({line(R"("content":"Let me check.")"), line(kTwoCalls)}));
  CHECK(o.message.stop_reason == StopReason::error);
  CHECK(providers::is_retryable_error(o.message));
  CHECK(text_of(o.message) == "Let me check.");
  CHECK(o.message.error_message.find("done:true") != std::string::npos);
}

TEST_CASE("ollama: tool-call ids are synthesised per response, the same on the streamed and whole paths") {
  Outcome s = call(ndjson({line(R"("content":"Checking.")"), line(kTwoCalls), done_line()}));
  Outcome w = call(whole(line(std::string(kTwoCalls).replace(11, 0, "Checking."), true, R"(,"done_reason":"stop","prompt_eval_count":12,"eval_count":7)")));
  auto sc = calls_of(s.message), wc = calls_of(w.message);
  REQUIRE(sc.size() == 2);
  REQUIRE(wc.size() == 2);
  CHECK(sc[0].id == wc[0].id);
  CHECK(sc[1].id == wc[1].id);
  CHECK(sc[0].id != sc[1].id);
  CHECK(s.message.content == w.message.content);
  // Argument bytes are the source span (the spaces inside the second object stay).
  CHECK(sc[1].input.str() == R"({"city": "London" })");
  CHECK(s.message.stop_reason == StopReason::tool_use);
  CHECK(s.message.raw_stop_reason == "stop");

  // A later turn (other request bytes) names its calls differently.
  Outcome later = call(whole(line(kTwoCalls, true, R"(,"done_reason":"stop")")), [&](Conversation& c) {
    c.messages.push_back(w.message);
    c.messages.push_back(result_message(wc[0].id, "get_weather", {TextBlock{"21"}}));
    c.messages.push_back(result_message(wc[1].id, "get_weather", {TextBlock{"14"}}));
  });
  CHECK(calls_of(later.message)[0].id != wc[0].id);
}

TEST_CASE("ollama: tool results are N tool messages paired by position, failures marked, images after the run") {
  Outcome o = call(whole(line(R"("content":"ok")", true, R"(,"done_reason":"stop")")), [](Conversation& c) {
    c.model->image_input = true;
    c.tools = {weather_tool()};
    AssistantMessage a = providers::start_message(*c.model);
    a.content = {TextBlock{"Checking."}, ToolUseBlock{"o1", "get_weather", json::Raw(R"({"city": "Paris"})"), {}},
                 ToolUseBlock{"o2", "get_weather", json::Raw(R"({"city":"Nowhere"})"), {}}};
    c.messages.push_back(a);
    c.messages.push_back(result_message("o1", "get_weather", {TextBlock{"21 sunny"}, ImageBlock{"image/png", "aW1n"}}));
    c.messages.push_back(result_message("o2", "get_weather", {TextBlock{"no such city"}}, true));
  });
  const json::Value body = o.json();
  const auto& messages = body.find("messages")->as_array();
  REQUIRE(messages.size() == 5);
  CHECK(messages[1].find("role")->as_string() == "assistant");
  CHECK(messages[1].find("content")->as_string() == "Checking.");
  CHECK(o.body.find(R"("arguments":{"city": "Paris"})") != std::string::npos);  // replayed byte for byte
  CHECK(messages[2].find("role")->as_string() == "tool");
  CHECK(messages[2].find("tool_name")->as_string() == "get_weather");
  CHECK(messages[2].find("content")->as_string() == "21 sunny");
  CHECK(messages[2].find("tool_call_id") == nullptr);  // no id on this wire: order is the pairing
  CHECK(messages[3].find("content")->as_string() == "Error: no such city");
  CHECK(messages[4].find("role")->as_string() == "user");
  CHECK(json::dump(*messages[4].find("images")) == R"(["aW1n"])");
}

TEST_CASE("ollama: thinking is a thinking block, sent back to the same model in the thinking field") {
  Outcome o = call(ndjson({line(R"("content":"","thinking":"Hmm, ")"), line(R"("content":"","thinking":"Paris.")"),
                           line(R"("content":"Sunny.")"), done_line()}));
  REQUIRE(o.message.content.size() == 2);
  CHECK(std::get<ThinkingBlock>(o.message.content[0]).thinking == "Hmm, Paris.");
  CHECK(text_of(o.message) == "Sunny.");
  Outcome next = call(whole(line(R"("content":"ok")", true)), [&](Conversation& c) {
    c.messages.push_back(o.message);
    c.messages.push_back(user_text("And tomorrow?"));
  });
  const json::Value body = next.json();
  const auto& assistant = body.find("messages")->as_array()[1];
  CHECK(assistant.find("thinking")->as_string() == "Hmm, Paris.");
  CHECK(assistant.find("content")->as_string() == "Sunny.");
  // Another model sees it as plain text (send-time repair rule 3).
  Model other = *catalog::Catalog::builtin().find("ollama", "llama3.3");
  std::vector<Message> history = {user_text("q"), o.message};
  auto view = providers::repair_for_send(history, other);
  CHECK(std::holds_alternative<TextBlock>(std::get<AssistantMessage>(view.messages()[1]).content[0]));
}

TEST_CASE("ollama: a forced tool choice is reported unsupported, never dropped silently") {
  Outcome forced = call(whole(line(R"("content":"ok")", true)), [](Conversation& c) {
    c.tools = {weather_tool()};
    c.request.tool_choice = ToolChoice{ToolChoice::Mode::tool, "get_weather"};
  });
  bool reported = false;
  for (const auto& e : forced.events) {
    if (const auto* err = std::get_if<ErrorEvent>(&e)) reported = reported || (err->error.code == Errc::unsupported && !err->terminal);
  }
  CHECK(reported);
  CHECK(forced.json().find("tools") != nullptr);
  CHECK(forced.message.stop_reason == StopReason::stop);
  // Choice none: the tools are simply not offered.
  Outcome none = call(whole(line(R"("content":"ok")", true)), [](Conversation& c) {
    c.tools = {weather_tool()};
    c.request.tool_choice = ToolChoice{ToolChoice::Mode::none, {}};
  });
  CHECK(none.json().find("tools") == nullptr);
}

TEST_CASE("ollama: requests go to /api/chat, streamed, with options only when set") {
  Outcome plain = call(whole(line(R"("content":"ok")", true)), [](Conversation& c) { c.request.system = "You are terse."; });
  CHECK(plain.target == "/api/chat");
  json::Value body = plain.json();
  CHECK(body.find("model")->as_string() == "gpt-oss:20b");
  CHECK(body.find("stream")->as_bool());
  CHECK(body.find("options") == nullptr);
  CHECK(body.find("think") == nullptr);
  CHECK(body.find("keep_alive") == nullptr);
  CHECK(body.find("messages")->as_array()[0].find("role")->as_string() == "system");
  CHECK_FALSE(plain.headers.contains("authorization"));  // a local server needs no key

  providers::OllamaOptions options;
  options.context_tokens = 32768;
  options.keep_alive = "10m";
  auto client = providers::make_ollama_client(wire_options({{"OLLAMA_API_KEY", "proxy-key"}}), options);
  Outcome tuned = call(whole(line(R"("content":"ok")", true)), [](Conversation& c) {
    c.request.max_tokens = 0;
    c.request.temperature = 0.0;
  }, client);
  CHECK(json::dump(*tuned.json().find("options")) == R"({"num_predict":0,"temperature":0,"num_ctx":32768})");
  CHECK(tuned.json().find("keep_alive")->as_string() == "10m");
  CHECK(tuned.headers.get("authorization") == std::optional<std::string_view>("Bearer proxy-key"));

  // A row that knows its window sends it.
  Outcome windowed = call(whole(line(R"("content":"ok")", true)), [](Conversation& c) { c.model->context_window = 131072; });
  CHECK(windowed.json().find("options")->find("num_ctx")->number_text() == "131072");
}

TEST_CASE("ollama: think carries the clamped level in the row's vocabulary") {
  auto think_of = [](const std::string& id, std::optional<ThinkingLevel> level) {
    Outcome o = call(whole(line(R"("content":"ok")", true)), [&](Conversation& c) {
      *c.model = ollama_model(c.model->base_url, id);
      c.request.thinking = level;
    });
    const json::Value body = o.json();
    const json::Value* think = body.find("think");
    return think ? json::dump(*think) : std::string("absent");
  };
  CHECK(think_of("gpt-oss:20b", ThinkingLevel::minimal) == R"("low")");  // upward first
  CHECK(think_of("gpt-oss:20b", ThinkingLevel::max) == R"("high")");
  CHECK(think_of("qwen3", ThinkingLevel::medium) == "true");
  CHECK(think_of("qwen3", ThinkingLevel::off) == "false");
  CHECK(think_of("llama3.3", ThinkingLevel::high) == "absent");  // no thinking control at all
  CHECK(think_of("qwen3", std::nullopt) == "absent");
}

TEST_CASE("ollama: done_reason length is a length stop, and usage comes from the done line") {
  Outcome o = call(ndjson({line(R"("content":"A long")"), done_line("length", R"(,"prompt_eval_count":30,"eval_count":256)")}));
  CHECK(o.message.stop_reason == StopReason::length);
  CHECK(o.message.raw_stop_reason == "length");
  CHECK(o.message.usage.input_tokens == 30);
  CHECK(o.message.usage.output_tokens == 256);
  CHECK(o.message.usage.cache_read_tokens == 0);
}

TEST_CASE("ollama: NDJSON served as application/json still decodes") {
  Outcome o = call(ndjson({line(R"("content":"Hel")"), line(R"("content":"lo.")"), done_line()}, "application/json"));
  CHECK(o.message.stop_reason == StopReason::stop);
  CHECK(text_of(o.message) == "Hello.");
}

TEST_CASE("Ollama writes its new messages into one buffer: no string of each message") {
  // A call with 3 KB of arguments and its result, the segment a steady-state request adds: each
  // message and call was a string of its own, the calls listed and joined, the result's text
  // copied, then each message copied into the segment with its comma (25 allocations, 62,251
  // bytes under libstdc++); now the segment's buffer alone (1 allocation, 4,207 bytes).
  const std::vector<Message> view = testing::call_with_3kb_arguments("call_1");
  (void)providers::detail::ollama::message_items(view);  // the parser's scratch warm
  testing::AllocStats stats;
  {
    agentkit::testing::AllocCounter counter;
    (void)providers::detail::ollama::message_items(view);
    stats = counter.stats();
  }
  INFO(stats.count << " allocations, " << stats.bytes << " bytes");
  CHECK(stats.count <= 1);  // an upper bound: under ThreadSanitizer the counter reads 0
}
