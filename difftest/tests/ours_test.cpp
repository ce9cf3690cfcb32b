#include <memory>
#include <string>
#include <utility>

#include "agentkit/http/client.hpp"
#include "call_wire.hpp"
#include "catch.hpp"
#include "driver.hpp"
#include "loopback_recorder.hpp"
#include "our_view.hpp"
#include "our_wires.hpp"
#include "scenario.hpp"
#include "scenario_request.hpp"

using namespace agentkit;
using namespace agentkit::difftest;

namespace {

// A stand-in wire for testing the driver plumbing: POSTs the system prompt to <base_url>/echo and
// answers the reply body as text. Synchronous, so the stream is finished when stream() returns.
class EchoWire final : public ProviderClient {
 public:
  EventStream stream(const Request& request, const StreamOptions&, agentkit::stop_token) override {
    auto [sink, stream] = make_event_stream();
    AssistantMessage m;
    http::HttpClient client;
    auto response = client.send({.method = "POST", .url = request.model->base_url + "/echo",
                                 .headers = {{"Content-Type", "application/json"}, {"X-Probe", "1"}},
                                 .body = request.system});
    if (response) {
      m.content.push_back(TextBlock{response->read_all().value_or("")});
    } else {
      m.stop_reason = StopReason::error;
      m.error_message = response.error().to_string();
    }
    sink.finish(std::move(m));
    return std::move(stream);
  }
};

const ScenarioSet& real_scenarios() {
  static const ScenarioSet set = load_scenarios(std::filesystem::path(DIFFTEST_SOURCE_DIR) / "scenarios").value();
  return set;
}

}  // namespace

TEST_CASE("a wire that is not registered is reported as not available") {
  ProviderRegistry registry;
  auto client = our_client(registry, "anthropic-messages");
  REQUIRE_FALSE(client);
  CHECK(client.error().message.find("our wire 'anthropic-messages' is not available") == 0);
}

TEST_CASE("the shipped scenarios load and name only known wires") {
  const ScenarioSet& set = real_scenarios();
  CHECK(set.wires.size() == 5);
  std::size_t requests = 0;
  for (const Scenario& s : set.scenarios) {
    if (s.direction == Direction::request) ++requests;
    CHECK_FALSE(s.wires.empty());
  }
  CHECK(requests >= 7);
}

TEST_CASE("every request scenario builds a canonical request on every wire") {
  const ScenarioSet& set = real_scenarios();
  for (const Scenario& s : set.scenarios) {
    if (s.direction != Direction::request) continue;
    for (const std::string& wire : s.wires) {
      INFO(s.id << " on " << wire);
      const json::Value* overrides = s.document.find("model_overrides");
      auto built = build_request(*s.document.find("request"), *set.find_wire(wire), "http://127.0.0.1:9",
                                 overrides ? *overrides : json::Value());
      REQUIRE(built);
      CHECK((*built)->request.model->api == wire);
      CHECK((*built)->request.model->base_url.rfind("http://127.0.0.1:9", 0) == 0);
      CHECK_FALSE((*built)->request.messages.empty());
    }
  }
}

TEST_CASE("a base URL keeps its path when moved to the recorder") {
  CHECK(rebase_origin("https://api.openai.com/v1", "http://127.0.0.1:5") == "http://127.0.0.1:5/v1");
  CHECK(rebase_origin("https://api.anthropic.com", "http://127.0.0.1:5") == "http://127.0.0.1:5");
}

TEST_CASE("the loopback recorder keeps the request and serves the reply in split pieces") {
  auto recorder = LoopbackRecorder::start();
  REQUIRE(recorder);
  const std::string reply = "caf\xC3\xA9 \xE2\x82\xAC";
  (*recorder)->answer_with(CannedAnswer{200, "text/plain", reply, "inside_utf8"});
  EchoWire wire;
  const Scenario& s = *real_scenarios().find("request/system_and_stop");
  auto call = call_wire(wire, **recorder, s, *real_scenarios().find_wire("ollama-chat"));
  REQUIRE(call);
  REQUIRE(call->sent.size() == 1);
  CHECK(call->sent[0].method == "POST");
  CHECK(call->sent[0].target == "/echo");
  CHECK(call->sent[0].body == "You are terse. Answer in one sentence.");
  bool saw_probe = false;
  for (const auto& [name, value] : call->sent[0].headers) saw_probe = saw_probe || (name == "X-Probe" && value == "1");
  CHECK(saw_probe);
  CHECK(text_of(call->message) == reply);
}

TEST_CASE("our view keeps argument bytes, the raw stop reason and canonical usage") {
  AssistantMessage m;
  m.content.push_back(TextBlock{"Let me "});
  m.content.push_back(ThinkingBlock{"hmm", "sig", false, ""});
  m.content.push_back(TextBlock{"check."});
  m.content.push_back(ToolUseBlock{"call_1", "get_weather", json::Raw(R"({"city": "Paris", "n": 1.0})"), ""});
  m.stop_reason = StopReason::tool_use;
  m.raw_stop_reason = "tool_calls";
  m.usage.input_tokens = 200;
  m.usage.cache_read_tokens = 800;
  m.usage.output_tokens = 12;
  const std::string view = json::dump(view_of(m));
  CHECK(view == R"({"text":"Let me check.","thinking":"hmm","tool_calls":[{"id":"call_1","name":"get_weather",)"
                R"("arguments":{"city":"Paris","n":1.0},"arguments_bytes":"{\"city\": \"Paris\", \"n\": 1.0}"}],)"
                R"("stop_reason":"tool_calls","usage":{"input_tokens":200,"output_tokens":12,"cache_read_tokens":800,)"
                R"("cache_write_tokens":0,"reasoning_tokens":0},"error":false})");
  m.stop_reason = StopReason::error;
  CHECK(json::dump(*view_of(m).find("error")) == "true");
}
