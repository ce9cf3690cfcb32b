// The rules every wire must keep, each stated once and run on every dialect (conformance.hpp).
#include <algorithm>
#include <atomic>
#include <set>

#include "agentkit/agent.hpp"
#include "agentkit/base/utf8.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/extensions.hpp"
#include "agentkit/providers/cost.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "agentkit/providers/repair.hpp"
#include "conformance.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::conformance;
using namespace std::chrono_literals;

namespace {

const std::string kWeatherSchema =
    R"({"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]})";

ToolSpec weather_tool() {
  return tool_spec("get_weather", "Get the current weather for a city", json::parse(kWeatherSchema).value());
}

ScriptedReply text_reply() {
  ScriptedReply r;
  r.text = {"The weather ", "in Paris is ", "sunny."};
  r.usage = {120, 0, 0, 14, 0};
  return r;
}

// Text then two calls, with a STOP-family reason (REQ-LOOP-01's trap) and fragmented arguments.
ScriptedReply two_calls_reply() {
  ScriptedReply r;
  r.text = {"Let me ", "check both."};
  r.calls = {ScriptedCall{"call_a1", "get_weather", {R"({"city": "Pa)", R"(ris"})"}},
             ScriptedCall{"call_b2", "get_weather", {R"({"city":)", R"( "London"})"}}};
  r.stop = LogicalStop::end_turn;
  r.usage = {300, 0, 0, 40, 0};
  return r;
}

ScriptedReply utf8_reply() {
  ScriptedReply r;
  r.text = {"Zürich: 21 °C ☀ — ", "日本語のテキスト 🌍 done."};
  // A delta is a JSON string, so it never splits a character; the byte-level splits come from
  // the network pieces the exchange cuts every event into.
  r.calls = {ScriptedCall{"call_u1", "get_weather", {"{\"city\": \"Zü", "rich\"}"}}};
  r.stop = LogicalStop::tool_use;
  r.usage = {50, 0, 0, 30, 0};
  return r;
}

ExchangeOptions opts(bool streamed, std::size_t piece_bytes = 0) {
  ExchangeOptions o;
  o.streamed = streamed;
  o.piece_bytes = piece_bytes;
  return o;
}

ExchangeOptions stalled_cancel(std::chrono::milliseconds after) {
  ExchangeOptions o;
  o.stall = true;
  o.cancel_after = after;
  return o;
}

ExchangeOptions stalled_timeout(std::chrono::milliseconds after) {
  ExchangeOptions o;
  o.stall = true;
  o.timeout = after;
  return o;
}

std::vector<ToolUseBlock> calls_of(const AssistantMessage& m) {
  std::vector<ToolUseBlock> out;
  for (const auto* c : tool_uses(m)) out.push_back(*c);
  return out;
}

template <class E>
std::size_t count_events(const std::vector<Event>& events) {
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [](const Event& e) { return std::holds_alternative<E>(e); }));
}

bool has_error_event_before_end(const std::vector<Event>& events) {
  bool error_seen = false;
  for (const auto& e : events) {
    if (std::holds_alternative<ErrorEvent>(e)) error_seen = true;
    if (std::holds_alternative<MessageEndEvent>(e)) return error_seen;
  }
  return false;
}

}  // namespace

TEST_CASE("every built-in wire runs through the conformance fixtures") {
  std::set<std::string> dialects;
  for (const auto& d : all_dialects()) dialects.insert(d.api);
  std::set<std::string> builtin;
  for (auto api : providers::builtin_wire_apis()) builtin.insert(std::string(api));
  CHECK(dialects == builtin);
}

TEST_CASE("streamed and whole replies decode into the same assistant message") {
  for (const auto& d : all_dialects()) {
    for (const ScriptedReply& reply : {text_reply(), two_calls_reply(), utf8_reply()}) {
      DYNAMIC_SECTION(d.api << " with " << reply.calls.size() << " calls") {
        Exchange whole = exchange(d, reply, opts(false));
        Exchange streamed = exchange(d, reply, opts(true, 7));
        INFO(whole.message.error_message << " / " << streamed.message.error_message);
        REQUIRE(whole.message.stop_reason != StopReason::error);
        CHECK(whole.message.content == streamed.message.content);
        CHECK(whole.message.stop_reason == streamed.message.stop_reason);
        CHECK(whole.message.usage == streamed.message.usage);
        CHECK(text_of(whole.message) == [&] {
          std::string t;
          for (const auto& f : reply.text) t += f;
          return t;
        }());
        // Ids: the vendor's own, or synthesised per response identically on both paths.
        auto calls = calls_of(streamed.message);
        REQUIRE(calls.size() == reply.calls.size());
        std::set<std::string> ids;
        for (const auto& c : calls) ids.insert(c.id);
        CHECK(ids.size() == calls.size());
        for (const auto& c : calls) CHECK_FALSE(c.id.empty());
      }
    }
  }
}

TEST_CASE("complete() answers what the stream's result answers") {
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      testing::ScriptedResponse answer;
      answer.headers = http::Headers({{"Content-Type", d.stream_content_type}});
      answer.pieces = d.stream_events(two_calls_reply());
      testing::ScriptedServer server({answer});
      FixtureRequest f = basic_request(d, server.base_url());
      auto client = d.make_client(test_wire_options());
      AssistantMessage completed = complete(*client, f.request);
      EventStream s = client->stream(f.request, {}, {});
      AssistantMessage streamed = s.result().value();
      completed.timestamp = streamed.timestamp = {};
      CHECK(completed == streamed);
    }
  }
}

TEST_CASE("tool-call argument bytes are kept exactly as the model produced them") {
  // REQ-PROV-17: no DOM round trip ("1.0" stays, the escape stays, the double space stays).
  const std::string raw = R"({"b": 1.0,  "a":"\u00e9"})";
  ScriptedReply r;
  r.calls = {ScriptedCall{"call_raw", "get_weather", {R"({"b": 1.)", R"(0,  "a":"\u0)", R"(0e9"})"}}};
  r.stop = LogicalStop::tool_use;
  r.usage = {10, 0, 0, 5, 0};
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      for (bool streamed : {false, true}) {
        Exchange x = exchange(d, r, opts(streamed, 5));
        auto calls = calls_of(x.message);
        REQUIRE(calls.size() == 1);
        CHECK(calls[0].input.str() == raw);
      }
    }
  }
}

TEST_CASE("replayed tool-call arguments reach the wire byte for byte") {
  const std::string raw = R"({"b": 1.0,  "a":"\u00e9"})";
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Captured c = capture(d, [&](FixtureRequest& f) {
        f.tools = {weather_tool()};
        AssistantMessage a = providers::start_message(*f.model);
        a.content.push_back(ToolUseBlock{"call_raw", "get_weather", json::Raw(raw), {}});
        a.stop_reason = StopReason::tool_use;
        f.messages.push_back(a);
        ToolResultMessage result;
        result.tool_use_id = "call_raw";
        result.tool_name = "get_weather";
        result.content = {TextBlock{"ok"}};
        f.messages.push_back(result);
      });
      CHECK(c.body_text.find(d.argument_text_in_body(raw)) != std::string::npos);
    }
  }
}

TEST_CASE("one canonical transcript packs its tool results the way each wire requires") {
  // REQ-LOOP-02: three calls, three results in call order, the second with an extra image.
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Captured c = capture(d, [&](FixtureRequest& f) {
        f.model->image_input = true;
        f.tools = {weather_tool()};
        f.messages = three_results_transcript(*f.model);
      });
      std::vector<PackedItem> items = d.packed_items(c.body);
      std::vector<PackedItem> results;
      std::size_t last_result_at = 0, image_at = 0;
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].kind == PackedItem::Kind::result) {
          results.push_back(items[i]);
          last_result_at = i;
        } else if (items[i].kind == PackedItem::Kind::image) {
          image_at = i;
        }
      }
      REQUIRE(results.size() == 3);
      const char* answers[] = {"21 sunny", "14 rain", "9 clear"};
      for (std::size_t i = 0; i < 3; ++i) {
        CHECK(results[i].text.find(answers[i]) != std::string::npos);  // call order
        bool by_id = d.packing == ToolResultPacking::one_message_n_blocks ||
                     d.packing == ToolResultPacking::n_messages_by_id;
        if (by_id) CHECK(results[i].call_id == "call_" + std::to_string(i + 1));
        else CHECK(results[i].call_id.empty());
      }
      bool one_container = d.packing == ToolResultPacking::one_message_n_blocks ||
                           d.packing == ToolResultPacking::one_content_n_parts;
      if (one_container) {
        CHECK(results[0].container == results[1].container);
        CHECK(results[1].container == results[2].container);
      } else {
        CHECK(results[0].container < results[1].container);
        CHECK(results[1].container < results[2].container);
      }
      // Non-result content travels after every result of the run, never between them.
      CHECK(image_at > last_result_at);
    }
  }
}

TEST_CASE("a stop-family finish reason beside tool calls still yields the calls") {
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      for (bool streamed : {false, true}) {
        Exchange x = exchange(d, two_calls_reply(), opts(streamed));
        CHECK(has_tool_use(x.message));
        CHECK(x.message.stop_reason != StopReason::error);
      }
    }
  }
}

TEST_CASE("cached tokens are netted out of input exactly once") {
  // REQ-PROV-05 rule 1: whatever the vendor's prompt count includes, canonical input excludes
  // the cached reads and writes; pricing then charges each token once.
  ScriptedReply r = text_reply();
  r.usage = {200, 800, 0, 50, 0};
  for (const auto& d : all_dialects()) {
    if (d.cached_places.empty()) continue;  // the wire reports no cached tokens (Ollama)
    DYNAMIC_SECTION(d.api) {
      for (bool streamed : {false, true}) {
        Exchange x = exchange(d, r, opts(streamed));
        CHECK(x.message.usage.input_tokens == 200);
        CHECK(x.message.usage.cache_read_tokens == 800);
        CHECK(x.message.usage.output_tokens == 50);
        Model m = d.model("http://127.0.0.1:9");
        CHECK(x.message.usage.cost.total == Approx(providers::price_usage(x.message.usage, m.pricing).total));
      }
    }
  }
}

TEST_CASE("the cached count is read from all three places") {
  // REQ-PROV-05 rule 2: prompt_tokens_details.cached_tokens, prompt_cache_hit_tokens, cached_tokens.
  for (const auto& d : all_dialects()) {
    for (CachedPlace place : d.cached_places) {
      DYNAMIC_SECTION(d.api << " place " << static_cast<int>(place)) {
        ScriptedReply r = text_reply();
        r.usage = {200, 800, 0, 50, 0};
        r.cached_place = place;
        Exchange x = exchange(d, r, opts(false));
        CHECK(x.message.usage.input_tokens == 200);
        CHECK(x.message.usage.cache_read_tokens == 800);
      }
    }
  }
}

TEST_CASE("usage is priced against the model that served the request") {
  for (const auto& d : all_dialects()) {
    if (d.served_model_alternative.empty()) continue;
    DYNAMIC_SECTION(d.api) {
      ScriptedReply r = text_reply();
      r.usage = {1000, 0, 0, 1000, 0};
      r.served_model = d.served_model_alternative;
      Exchange x = exchange(d, r, opts(true));
      Model requested = d.model("http://127.0.0.1:9");
      const Model* served = catalog::Catalog::builtin().find(requested.vendor, d.served_model_alternative);
      REQUIRE(served != nullptr);
      REQUIRE(served->pricing != requested.pricing);
      CHECK(x.message.usage.billed_model == d.served_model_alternative);
      CHECK(x.message.usage.cost.total == Approx(providers::price_usage(x.message.usage, served->pricing).total));
    }
  }
}

TEST_CASE("unset sampling fields are omitted and explicit zeros are sent") {
  // REQ-PROV-16.
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Captured unset = capture(d, [](FixtureRequest& f) { f.request.max_tokens.reset(); });
      SamplingView u = d.sampling(unset.body);
      CHECK_FALSE(u.temperature);
      CHECK_FALSE(u.top_p);
      Captured zeros = capture(d, [](FixtureRequest& f) {
        f.request.temperature = 0.0;
        f.request.top_p = 0.0;
        f.request.max_tokens = 100;
      });
      SamplingView z = d.sampling(zeros.body);
      REQUIRE(z.temperature);
      CHECK(*z.temperature == "0");
      REQUIRE(z.top_p);
      CHECK(*z.top_p == "0");
      REQUIRE(z.max_tokens);
      CHECK(*z.max_tokens == "100");
    }
  }
}

TEST_CASE("stop sequences take effect on the wire or are reported unsupported") {
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Captured c = capture(d, [](FixtureRequest& f) { f.request.stop_sequences = {"\n\nHuman:", "END"}; });
      if (d.stop_sequences_on_wire) {
        CHECK(d.stop_sequences(c.body) == std::vector<std::string>{"\n\nHuman:", "END"});
      } else {
        CHECK(d.stop_sequences(c.body).empty());
        bool reported = false;
        for (const auto& e : c.events) {
          if (const auto* err = std::get_if<ErrorEvent>(&e)) {
            reported = reported || (err->error.code == Errc::unsupported && !err->terminal);
          }
        }
        CHECK(reported);
      }
    }
  }
}

TEST_CASE("thinking levels are clamped before they reach the wire") {
  // REQ-PROV-15: upward first; a model without xhigh never receives xhigh.
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Model m = d.model("http://127.0.0.1:9");
      REQUIRE_FALSE(m.thinking_levels.empty());
      for (ThinkingLevel asked : {ThinkingLevel::minimal, ThinkingLevel::medium, ThinkingLevel::xhigh, ThinkingLevel::max}) {
        Captured c = capture(d, [&](FixtureRequest& f) { f.request.thinking = asked; });
        auto clamped = catalog::clamp_thinking_level(m, asked);
        REQUIRE(clamped);
        auto expected = catalog::thinking_wire_value(m, *clamped);
        auto sent = d.thinking_value(c.body);
        INFO("asked " << to_string(asked) << ", body " << c.body_text);
        REQUIRE(sent);
        CHECK(*sent == *expected);
      }
      Captured none = capture(d, [](FixtureRequest&) {});
      CHECK_FALSE(d.thinking_value(none.body));
    }
  }
}

TEST_CASE("every wire sends a placeholder, not the image, to a model without image input") {
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      auto with_image = [](bool capable) {
        return [capable](FixtureRequest& f) {
          f.model->image_input = capable;
          UserMessage u;
          u.content = {TextBlock{"What is this?"},
                       ImageBlock{"image/png", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}};
          f.messages = {u};
        };
      };
      Captured blind = capture(d, with_image(false));
      CHECK(d.image_count(blind.body) == 0);
      CHECK(d.all_text(blind.body).find(providers::kImageOmittedText) != std::string::npos);
      Captured seeing = capture(d, with_image(true));
      CHECK(d.image_count(seeing.body) == 1);
    }
  }
}

TEST_CASE("a failure inside the stream keeps the partial content and ends in error") {
  // REQ-PROV-04: the vendor's error event after two text deltas.
  ScriptedReply r;
  r.text = {"Partial ", "answer bef"};
  r.end = ScriptedEnd::error_event;
  r.error_message = "Overloaded";
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Exchange x = exchange(d, r);
      CHECK(x.message.stop_reason == StopReason::error);
      CHECK(text_of(x.message) == "Partial answer bef");
      CHECK(x.message.error_message.find("Overloaded") != std::string::npos);
      CHECK(has_error_event_before_end(x.events));
    }
  }
}

TEST_CASE("an HTTP error status ends the stream in error quoting the vendor") {
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      ExchangeOptions o;
      o.http_status = 529;
      o.error_body = R"({"error":{"type":"overloaded_error","message":"Overloaded"}})";
      Exchange x = exchange(d, text_reply(), o);
      CHECK(x.message.stop_reason == StopReason::error);
      CHECK(x.message.error_message.find("529") != std::string::npos);
      CHECK(is_retryable_error(x.message));
    }
  }
}

TEST_CASE("a stream that ends without its terminal event is an error and its calls never run") {
  ScriptedReply r = two_calls_reply();
  r.end = ScriptedEnd::cut;
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Exchange x = exchange(d, r);
      CHECK(x.message.stop_reason == StopReason::error);
      CHECK(is_retryable_error(x.message));
      CHECK(text_of(x.message) == "Let me check both.");

      // Through the loop: the salvaged calls are not executed.
      testing::ScriptedResponse cut_reply;
      cut_reply.headers = http::Headers({{"Content-Type", d.stream_content_type}});
      cut_reply.pieces = d.stream_events(r);
      testing::ScriptedServer server({cut_reply});
      std::atomic<int> runs{0};
      AgentDefinition def;
      def.instructions = "Be brief.";
      ToolDefinition weather;
      weather.name = "get_weather";
      weather.description = "Get the current weather for a city";
      weather.input_schema = schema::object({schema::required("city", schema::string())});
      weather.handler = [&runs](const json::Value&, const ToolContext&) {
        ++runs;
        return ToolResult::text_result("sunny");
      };
      def.tools.direct.push_back(weather);
      RuntimeConfig rt;
      rt.model.descriptor = d.model(server.base_url());
      rt.model.max_tokens = 256;
      rt.providers.add(d.api, d.make_client(test_wire_options()));
      auto agent = make_agent(def, rt);
      REQUIRE(agent);
      auto result = agent->run(Input{"What's the weather?"});
      REQUIRE(result);
      CHECK(runs.load() == 0);
      CHECK(result->stop_reason == RunStopReason::error);
    }
  }
}

TEST_CASE("a mid-stream cancel is aborted with the partial content kept") {
  ScriptedReply r;
  r.text = {"Partial ", "answer"};
  r.end = ScriptedEnd::cut;
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Exchange x = exchange(d, r, stalled_cancel(300ms));
      CHECK(x.message.stop_reason == StopReason::aborted);
      CHECK(text_of(x.message) == "Partial answer");
    }
  }
}

TEST_CASE("a request timeout is a retryable error") {
  ScriptedReply r;
  r.text = {"Partial"};
  r.end = ScriptedEnd::cut;
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Exchange x = exchange(d, r, stalled_timeout(300ms));
      CHECK(x.message.stop_reason == StopReason::error);
      CHECK(x.message.error_message.find("timed out") != std::string::npos);
      CHECK(is_retryable_error(x.message));
      CHECK(text_of(x.message) == "Partial");
    }
  }
}

TEST_CASE("events bracket every block and the end event carries the whole block") {
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      Exchange x = exchange(d, two_calls_reply(), opts(true, 5));
      REQUIRE_FALSE(x.events.empty());
      CHECK(std::holds_alternative<MessageStartEvent>(x.events.front()));
      CHECK(std::holds_alternative<MessageEndEvent>(x.events.back()));
      CHECK(count_events<BlockStartEvent>(x.events) == x.message.content.size());
      CHECK(count_events<BlockEndEvent>(x.events) == x.message.content.size());
      std::string text_deltas, argument_deltas;
      for (const auto& e : x.events) {
        if (const auto* t = std::get_if<TextDeltaEvent>(&e)) text_deltas += t->delta;
        if (const auto* a = std::get_if<ToolArgumentsDeltaEvent>(&e)) argument_deltas += a->delta;
        if (const auto* end = std::get_if<BlockEndEvent>(&e)) {
          REQUIRE(static_cast<std::size_t>(end->block_index) < x.message.content.size());
          CHECK(end->block == x.message.content[static_cast<std::size_t>(end->block_index)]);
        }
      }
      CHECK(text_deltas == "Let me check both.");
      CHECK(argument_deltas == R"({"city": "Paris"}{"city": "London"})");
    }
  }
}

TEST_CASE("a steady-state request serialises no tool schema") {
  // REQ-CACHE-06 / NFR-PERF-03, asserted as a count on every wire.
  for (const auto& d : all_dialects()) {
    DYNAMIC_SECTION(d.api) {
      ScriptedReply ok = text_reply();
      testing::ScriptedResponse answer;
      answer.headers = http::Headers({{"Content-Type", "application/json"}});
      answer.body = d.whole_body(ok);
      testing::ScriptedServer server({answer});
      providers::WireOptions wo = test_wire_options();
      auto client = d.make_client(wo);
      FixtureRequest f = basic_request(d, server.base_url());
      f.tools = {weather_tool(), tool_spec("read_file", "Read a file", json::parse(R"({"type":"object"})").value())};
      f.bind();
      auto stats = [&] { return wo.meter->stats(f.request.session_id); };
      (void)complete(*client, f.request);
      CHECK(stats().schemas_serialised == 2);
      (void)complete(*client, f.request);  // turn 2, unchanged tools
      CHECK(stats().schemas_serialised == 2);
      // Rebuilding an identical tool (a fresh ToolSpec, same content) does not invalidate.
      f.tools = {weather_tool(), tool_spec("read_file", "Read a file", json::parse(R"({"type":"object"})").value())};
      f.bind();
      (void)complete(*client, f.request);
      CHECK(stats().schemas_serialised == 2);
      CHECK(stats().prefix_invalidations == 0);
      // Adding a tool serialises only that one; the earlier tool bytes stay a prefix.
      std::string before = server.last_request().body;
      f.tools.push_back(tool_spec("list_files", "List files", json::parse(R"({"type":"object"})").value()));
      f.bind();
      (void)complete(*client, f.request);
      CHECK(stats().schemas_serialised == 3);
      CHECK(stats().prefix_invalidations == 0);
      // Changing a schema re-serialises it and counts an invalidation.
      f.tools[1] = tool_spec("read_file", "Read a file", json::parse(R"({"type":"object","properties":{}})").value());
      f.bind();
      (void)complete(*client, f.request);
      CHECK(stats().schemas_serialised == 4);
      CHECK(stats().prefix_invalidations == 1);
      CHECK(d.tool_names(json::parse(server.last_request().body).value()) ==
            std::vector<std::string>{"get_weather", "read_file", "list_files"});
      (void)before;
    }
  }
}

TEST_CASE("the session id becomes a prompt-cache key of at most 64 whole characters") {
  // Level 0: a 100-code-point multibyte id.
  std::string id;
  for (int i = 0; i < 100; ++i) id += "é";
  for (const auto& d : all_dialects()) {
    if (!d.prompt_cache_key) continue;
    DYNAMIC_SECTION(d.api) {
      Captured c = capture(d, [&](FixtureRequest& f) { f.request.session_id = id; });
      auto key = d.prompt_cache_key(c.body);
      REQUIRE(key);
      CHECK(utf8::is_valid(*key));
      CHECK(utf8::count_code_points(*key).value() == 64);
      CHECK(c.headers.get("x-session-affinity") == std::optional<std::string_view>(id));
    }
  }
}
