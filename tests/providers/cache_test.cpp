// Caching levels 0-3 and the per-session statistics (REQ-CACHE-01..11).
#include "agentkit/base/sha256.hpp"
#include "agentkit/base/utf8.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/providers/anthropic.hpp"
#include "agentkit/providers/cache.hpp"
#include "agentkit/providers/cost.hpp"
#include "conformance/conversation.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::conformance;
using providers::CacheStats;

namespace {

const std::string kReply =
    R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"Paris."},{"type":"tool_use","id":"toolu_1","name":"t","input":{"b": 1.0}}],"stop_reason":"tool_use","usage":{"input_tokens":1000,"cache_read_input_tokens":800,"output_tokens":100}})";

Model sonnet() { return *catalog::Catalog::builtin().find("anthropic", "claude-sonnet-5-5"); }

std::shared_ptr<providers::WireClient> deduplicated(const providers::WireOptions& o, providers::DedupOptions d = {}) {
  return providers::with_dedup(providers::make_anthropic_messages_client(o), std::move(d));
}

std::vector<CacheEvent> cache_events(EventStream& s) {
  std::vector<CacheEvent> out;
  while (auto ev = s.next()) {
    if (auto* c = std::get_if<CacheEvent>(&*ev)) out.push_back(*c);
  }
  return out;
}

struct DedupFixture {
  explicit DedupFixture(providers::DedupOptions d = {})
      : server({Conversation::whole(kReply)}), options(test_wire_options()), client(deduplicated(options, std::move(d))) {
    model = std::make_shared<Model>(sonnet());
    model->base_url = server.base_url();
    history.push_back(user_text("Capital of France?"));
  }
  Request request(std::string session = "s-1", std::optional<double> temperature = 0.0) {
    Request r;
    r.model = model;
    r.messages = history;
    r.max_tokens = 100;
    r.temperature = temperature;
    r.session_id = std::move(session);
    return r;
  }
  testing::ScriptedServer server;
  providers::WireOptions options;
  std::shared_ptr<providers::WireClient> client;
  std::shared_ptr<Model> model;
  std::vector<Message> history;
};

}  // namespace

TEST_CASE("identical requests are answered once and the second is a hit with the same fingerprint") {
  // REQ-CACHE-01, -05.
  DedupFixture f;
  EventStream first = f.client->stream(f.request(), {}, {});
  auto first_events = cache_events(first);
  AssistantMessage a = first.result().value();
  EventStream second = f.client->stream(f.request(), {}, {});
  auto second_events = cache_events(second);
  AssistantMessage b = second.result().value();
  CHECK(f.server.request_count() == 1);
  REQUIRE(first_events.size() == 1);
  REQUIRE(second_events.size() == 1);
  CHECK_FALSE(first_events[0].hit);
  CHECK(second_events[0].hit);
  CHECK(first_events[0].key == second_events[0].key);
  CHECK(a.content == b.content);  // argument bytes included
  CHECK(b.usage == Usage{});      // nothing was billed for the replay...
  CacheStats s = f.options.meter->stats("s-1");
  CHECK(s.hits == 1);
  CHECK(s.misses == 1);
  REQUIRE(a.usage.cost.total > 0);
  // ...and the saving is what the replayed answer actually cost, plus the provider-cache saving.
  providers::Rates r = providers::rates_for(sonnet().pricing, 1800);
  CHECK(s.estimated_savings_usd == Approx(a.usage.cost.total + 800 * (r.input - r.cache_read) / 1e6));
}

TEST_CASE("the fingerprint is the SHA-256 of the exact wire bytes, as sha256sum computes it") {
  DedupFixture f;
  EventStream s = f.client->stream(f.request(), {}, {});
  auto events = cache_events(s);
  (void)s.result();
  REQUIRE(events.size() == 1);
  auto call = f.client->prepare(f.request(), {});
  REQUIRE(call);
  // What the fingerprint covers: the API, the endpoint and the body bytes — hashed by a peer.
  const std::string material = std::string("anthropic-messages\n") + f.model->base_url + call->wire.path + "\n" + call->wire.body;
  REQUIRE(testing::find_program("sha256sum"));  // a missing peer fails the test, never skips it
  auto peer = testing::run_program({"sha256sum"}, material);
  REQUIRE(peer.exit_code == 0);
  CHECK(peer.out.substr(0, 64) == events[0].key);
}

TEST_CASE("two requests that differ only in argument key order have different fingerprints") {
  DedupFixture f;
  AssistantMessage a = providers::start_message(*f.model);
  a.content.push_back(ToolUseBlock{"toolu_1", "t", json::Raw(R"({"a":1,"b":2})"), {}});
  f.history.push_back(a);
  ToolResultMessage r;
  r.tool_use_id = "toolu_1";
  r.tool_name = "t";
  r.content = {TextBlock{"ok"}};
  f.history.push_back(r);
  EventStream one = f.client->stream(f.request(), {}, {});
  auto k1 = cache_events(one);
  (void)one.result();
  std::get<ToolUseBlock>(std::get<AssistantMessage>(f.history[1]).content[0]).input = json::Raw(R"({"b":2,"a":1})");
  EventStream two = f.client->stream(f.request(), {}, {});
  auto k2 = cache_events(two);
  (void)two.result();
  REQUIRE(k1.size() == 1);
  REQUIRE(k2.size() == 1);
  CHECK_FALSE(k2[0].hit);
  CHECK(k1[0].key != k2[0].key);
}

TEST_CASE("a sampled request is never answered from the cache unless told") {
  // REQ-CACHE-04: temperature 0.7, and unset (most providers default to 1).
  for (std::optional<double> t : {std::optional<double>(0.7), std::optional<double>()}) {
    DedupFixture f;
    (void)complete(*f.client, f.request("s-1", t));
    EventStream again = f.client->stream(f.request("s-1", t), {}, {});
    CHECK(cache_events(again).empty());
    (void)again.result();
    CHECK(f.server.request_count() == 2);
  }
  providers::DedupOptions told;
  told.ignore_temperature = true;
  DedupFixture f(told);
  (void)complete(*f.client, f.request("s-1", 0.7));
  (void)complete(*f.client, f.request("s-1", 0.7));
  CHECK(f.server.request_count() == 1);
}

TEST_CASE("the cache is per session unless a shared store is given") {
  // REQ-CACHE-02.
  DedupFixture own;
  (void)complete(*own.client, own.request("s-1"));
  (void)complete(*own.client, own.request("s-2"));
  CHECK(own.server.request_count() == 2);
  providers::DedupOptions shared;
  shared.shared_store = std::make_shared<providers::ResponseCache>();
  DedupFixture f(shared);
  (void)complete(*f.client, f.request("s-1"));
  (void)complete(*f.client, f.request("s-2"));
  CHECK(f.server.request_count() == 1);
  CHECK(f.options.meter->stats("s-2").hits == 1);
}

TEST_CASE("a closed session's stored answers go with it, and only its own") {
  // Without this, a closed session's store stayed until max_sessions others pushed it out.
  DedupFixture f;
  (void)complete(*f.client, f.request("s-1"));
  (void)complete(*f.client, f.request("s-2"));
  REQUIRE(f.server.request_count() == 2);
  f.client->session_closed("s-1");
  (void)complete(*f.client, f.request("s-1"));  // asked again: its store went with it
  (void)complete(*f.client, f.request("s-2"));  // the other session's answer is still kept
  CHECK(f.server.request_count() == 3);
  CHECK(f.options.meter->stats("s-1").hits == 0);
  CHECK(f.options.meter->stats("s-2").hits == 1);
}

TEST_CASE("a failed answer is not cached") {
  testing::ScriptedResponse overloaded;
  overloaded.status = 529;
  overloaded.body = R"({"error":{"type":"overloaded_error","message":"Overloaded"}})";
  testing::ScriptedServer server({overloaded, Conversation::whole(kReply)});
  providers::WireOptions o = test_wire_options();
  auto client = deduplicated(o);
  auto model = std::make_shared<Model>(sonnet());
  model->base_url = server.base_url();
  std::vector<Message> history{user_text("hi")};
  Request r;
  r.model = model;
  r.messages = history;
  r.temperature = 0.0;
  CHECK(complete(*client, r).stop_reason == StopReason::error);
  CHECK(complete(*client, r).stop_reason == StopReason::tool_use);
  CHECK(server.request_count() == 2);
}

TEST_CASE("the store evicts the least recently used entry past its capacity") {
  // REQ-CACHE-03.
  AssistantMessage m;
  {
    providers::ResponseCache cache;
    CHECK(cache.capacity() == 128);
    for (int i = 1; i <= 129; ++i) cache.insert("k" + std::to_string(i), m);
    CHECK(cache.size() == 128);
    CHECK_FALSE(cache.find("k1"));
    CHECK(cache.find("k2"));
  }
  providers::ResponseCache cache;
  for (int i = 1; i <= 128; ++i) cache.insert("k" + std::to_string(i), m);
  CHECK(cache.find("k1"));  // touched: now the most recent
  cache.insert("k129", m);
  CHECK(cache.find("k1"));
  CHECK_FALSE(cache.find("k2"));
}

TEST_CASE("a prompt-cache key is at most 64 whole characters") {
  std::string id;
  for (int i = 0; i < 100; ++i) id += "日";
  std::string key = providers::prompt_cache_key(id);
  CHECK(utf8::is_valid(key));
  CHECK(utf8::count_code_points(key).value() == 64);
  CHECK(providers::prompt_cache_key("short") == "short");
}

TEST_CASE("a tool is deferred only when a result announced it before any call to it") {
  // REQ-CACHE-10's split, one forward pass.
  std::vector<ToolSpec> tools = {tool_spec("read", "", json::Object{}), tool_spec("mcp__x", "", json::Object{})};
  auto result = [](std::string id, std::vector<std::string> added) {
    ToolResultMessage r;
    r.tool_use_id = std::move(id);
    r.tool_name = "read";
    r.added_tool_names = std::move(added);
    return r;
  };
  auto call = [](std::string id, std::string name) {
    AssistantMessage a;
    a.content.push_back(ToolUseBlock{std::move(id), std::move(name), json::Raw("{}"), {}});
    return a;
  };
  std::vector<Message> history{user_text("go"), call("1", "read"), result("1", {}), call("2", "read"), result("2", {}),
                               call("3", "read"), result("3", {"mcp__x"})};
  auto split = providers::split_deferred_tools(tools, history);
  CHECK(split.immediate == std::vector<std::size_t>{0});
  CHECK(split.deferred == std::vector<std::size_t>{1});
  CHECK(split.declared_after == std::vector<std::size_t>{6});
  // Called before the marker: it was in the prefix all along.
  std::vector<Message> used_before{user_text("go"), call("1", "mcp__x"), result("1", {}), call("3", "read"), result("3", {"mcp__x"})};
  CHECK(providers::split_deferred_tools(tools, used_before).deferred.empty());
  // Called after the marker: still deferred.
  history.push_back(call("4", "mcp__x"));
  history.push_back(result("4", {}));
  CHECK(providers::split_deferred_tools(tools, history).deferred == std::vector<std::size_t>{1});
  // Every tool marked: all promoted (the safety valve).
  std::vector<Message> all_marked{user_text("go"), call("1", "read"), result("1", {"read", "mcp__x"})};
  std::vector<ToolSpec> late_only = {tools[1]};
  auto promoted = providers::split_deferred_tools(late_only, all_marked);
  CHECK(promoted.promoted_all);
  CHECK(promoted.immediate == std::vector<std::size_t>{0});
}

TEST_CASE("session statistics count provider cache tokens and the savings their usage implies") {
  // REQ-CACHE-08: two turns with 800 cached tokens each.
  providers::CacheMeter meter;
  Usage u;
  u.input_tokens = 200;
  u.cache_read_tokens = 800;
  u.output_tokens = 50;
  const ModelPricing pricing = sonnet().pricing;
  meter.record_response("s", u, pricing);
  meter.record_response("s", u, pricing);
  CacheStats s = meter.stats("s");
  CHECK(s.provider_cache_read_tokens == 1600);
  providers::Rates r = providers::rates_for(pricing, 1000);
  CHECK(s.estimated_savings_usd == Approx(1600 * (r.input - r.cache_read) / 1e6));
  CHECK(meter.stats("other") == CacheStats{});
  meter.forget("s");
  CHECK(meter.stats("s") == CacheStats{});
}

TEST_CASE("promotions and prefix invalidations are counted where the prompt cache was lost") {
  // REQ-CACHE-11: the safety valve once and a schema change once.
  Conversation c([](const providers::WireOptions& o) { return providers::make_anthropic_messages_client(o); }, sonnet(),
                 {Conversation::whole(kReply)});
  c.tools = {tool_spec("mcp__x", "", json::parse(R"({"type":"object"})").value())};
  c.user("go");
  c.assistant_calls({ToolUseBlock{"toolu_9", "read", json::Raw("{}"), {}}});
  c.result("toolu_9", "read", "ok", false, {"mcp__x"});
  c.send();  // every offered tool would be deferred: promoted
  c.tools = {tool_spec("mcp__x", "", json::parse(R"({"type":"object","properties":{}})").value())};
  c.send();  // its schema changed
  CacheStats s = c.meter->stats("s-1");
  CHECK(s.deferred_promotions == 2);  // the valve fires on every request while it applies
  CHECK(s.prefix_invalidations == 1);
}
