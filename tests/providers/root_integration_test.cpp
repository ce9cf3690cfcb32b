// The root's use of this machinery: make_agent resolves non-faux specs through the catalog, and the
// retry middleware's default classifier is the REQ-PROV-14 one.
#include <memory>
#include <optional>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
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
