// The root's use of this machinery: make_agent resolves non-faux specs through the catalog, and the
// retry middleware's default classifier is the REQ-PROV-14 one.
#include <memory>
#include <optional>

#include "agentkit/agent.hpp"
#include "agentkit/catalog/catalog.hpp"
#include "agentkit/http/client.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/providers/pipeline.hpp"
#include "provider_test_support.hpp"
#include "support/catch.hpp"

using namespace agentkit;

namespace {

struct SeenModel {
  std::shared_ptr<std::optional<Model>> model = std::make_shared<std::optional<Model>>();
};

// A faux provider standing in for the anthropic-messages wire, recording the model it was given.
std::shared_ptr<providers::FauxProvider> recording_wire(SeenModel seen) {
  return std::make_shared<providers::FauxProvider>([seen](const Request& req) {
    *seen.model = *req.model;
    return providers::text_response("hi");
  });
}

}  // namespace

TEST_CASE("make_agent resolves a vendor/model spec through the catalog and dispatches on its wire") {
  SeenModel seen;
  RuntimeConfig rt;
  rt.model.spec = "anthropic/claude-sonnet-5-5";
  rt.providers.add("anthropic-messages", recording_wire(seen));
  auto agent = make_agent({}, rt);
  REQUIRE(agent);
  REQUIRE(agent->run("hello"));
  REQUIRE(seen.model->has_value());
  CHECK((*seen.model)->api == "anthropic-messages");
  CHECK((*seen.model)->context_window == 1000000);
  CHECK((*seen.model)->cloned_from.empty());
}

TEST_CASE("make_agent accepts an unknown id under a known vendor as a clone of its closest sibling") {
  SeenModel seen;
  RuntimeConfig rt;
  rt.model.spec = "anthropic/claude-sonnet-7";
  rt.providers.add("anthropic-messages", recording_wire(seen));
  auto agent = make_agent({}, rt);
  REQUIRE(agent);
  REQUIRE(agent->run("hello"));
  CHECK((*seen.model)->id == "claude-sonnet-7");
  CHECK((*seen.model)->cloned_from == "claude-sonnet-5-5");
}

TEST_CASE("make_agent names the known vendors, faux included, for an unknown one") {
  RuntimeConfig rt;
  rt.model.spec = "antrhopic/claude";
  auto agent = make_agent({}, rt);
  REQUIRE_FALSE(agent);
  CHECK(agent.error().message.find("unknown vendor 'antrhopic' in model spec 'antrhopic/claude'; known vendors: anthropic, "
                                   "deepseek, faux, google") != std::string::npos);
}

TEST_CASE("the retry middleware's default classifier is the provider machinery's") {
  AssistantMessage m;
  m.stop_reason = StopReason::error;
  m.error_message = "stream ended before message_stop";
  CHECK(is_retryable_error(m));
  m.error_message = "429 insufficient_quota";
  CHECK_FALSE(is_retryable_error(m));
  m.error_message = "HTTP 429 from api.anthropic.com: the server asked to wait 3600000 ms before retrying, which exceeds the ceiling";
  CHECK_FALSE(is_retryable_error(m));
  m.error_message = "prompt is 15002 tokens";
  CHECK_FALSE(is_retryable_error(m));
}

TEST_CASE("a run reports the session's cache statistics from the wire that served it") {
  // REQ-CACHE-08: two turns that each read 800 cached tokens -> 1,600 over the session, and the
  // saving is what those tokens did not cost at the served model's rates.
  const std::string reply =
      R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"OK."}],)"
      R"("stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":800}})";
  testing::ScriptedResponse whole;
  whole.headers = http::Headers({{"Content-Type", "application/json"}});
  whole.body = reply;
  testing::ScriptedServer server({whole});

  auto model = catalog::Catalog::builtin().resolve("anthropic/claude-sonnet-5-5");
  REQUIRE(model);
  model->base_url = server.base_url();
  RuntimeConfig rt;
  rt.model.descriptor = *model;
  providers::ProviderOptions wires;
  wires.http = std::make_shared<http::HttpClient>();
  wires.credentials.environment = providers::fixed_environment({{"ANTHROPIC_API_KEY", "test-key"}});
  providers::register_defaults(rt.providers, wires);
  auto agent = make_agent({}, rt);
  REQUIRE(agent);
  auto session = agent->start();
  REQUIRE(session);
  auto first = session->run(Turn{"one"});
  REQUIRE(first);
  CHECK(first->cache.provider_cache_read_tokens == 800);
  auto second = session->run(Turn{"two"});
  REQUIRE(second);
  CHECK(second->cache.provider_cache_read_tokens == 1600);
  const double per_token = (model->pricing.input - model->pricing.cache_read) / 1e6;
  CHECK(second->cache.estimated_savings_usd == Approx(1600 * per_token));
  CHECK(second->cache.estimated_savings_usd > 0);
  CHECK(second->cache.hits == 0);  // L2 dedup is off by default
}

TEST_CASE("a provider that keeps no cache statistics reports zeros") {
  RuntimeConfig rt;
  rt.model.spec = "faux/demo";
  rt.providers.add("faux", std::make_shared<providers::FauxProvider>(
                               std::vector<providers::FauxResponse>{providers::text_response("hi")}));
  auto agent = make_agent({}, rt);
  REQUIRE(agent);
  auto result = agent->run("hello");
  REQUIRE(result);
  CHECK(result->cache == CacheStats{});
}
