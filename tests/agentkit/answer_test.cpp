// Typed answers (issue 17) through the public entry points: make_agent + Session::run over the
// faux provider, registered under the wire APIs whose catalog facts decide the mode.
#include <algorithm>

#include "agentkit/core/answer.hpp"
#include "harness.hpp"
#include "support/catch.hpp"

using namespace agentkit;
using namespace agentkit::testing;
namespace faux = agentkit::providers;

namespace {

Schema verdict_schema() {
  return schema::object({
      schema::required("verdict", schema::enumeration({"approve", "reject"})),
      schema::optional("score", schema::integer().minimum(1).maximum(5)),
  });
}

Turn typed_turn(std::string text, Schema s = verdict_schema(), int max_repairs = 2) {
  Turn t(std::move(text));
  t.answer =
      AnswerSchema{.schema = std::move(s), .name = "answer", .description = {}, .max_repairs = 2};
  t.answer->max_repairs = max_repairs;
  return t;
}

// A model row on `api` with `compat`, served by a faux provider registered under that api.
struct WireAgent {
  std::shared_ptr<faux::FauxProvider> faux;
  Agent agent;
};
// (faux_agent registers the provider under "faux", so `api` is "faux" with a compat object.)
WireAgent wire_agent(std::string api, json::Value compat, std::vector<faux::FauxResponse> script,
                     std::vector<ToolDefinition> tools = {}, RuntimeConfig rt = {}) {
  Model m;
  m.id = "test-model";
  m.vendor = "test";
  m.api = api;
  m.compat = std::move(compat);
  rt.model.descriptor = m;
  auto fx = faux_agent(std::move(script), std::move(tools), std::move(rt));
  return {fx.faux, std::move(fx.agent)};
}

Result<RunResult> run_on(Agent& agent, Turn turn) {
  auto session = agent.start();
  if (!session) return session.error();
  return session->run(std::move(turn));
}

std::string last_user_text(const faux::RecordedRequest& r) {
  return text_of_message(last_message(r));
}

const ToolResultMessage* result_for(const std::vector<Message>& messages, std::string_view id) {
  for (const auto& m : messages) {
    if (const auto* r = std::get_if<ToolResultMessage>(&m); r && r->tool_use_id == id) return r;
  }
  return nullptr;
}

json::Value parsed(std::string_view text) { return json::parse(text).value(); }

}  // namespace

// ---- The contract: native mode -----------------------------------------------------------------

TEST_CASE("a valid answer is validated and returned as JSON beside the text") {
  auto fx = faux_agent({faux::text_response(R"({"verdict":"approve","score":4})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  REQUIRE(r->answer);
  CHECK(*r->answer == parsed(R"({"verdict":"approve","score":4})"));
  CHECK(r->final_text == R"({"verdict":"approve","score":4})");
  CHECK(r->answer_violations.empty());
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 1);
  REQUIRE(requests[0].answer);
  CHECK(requests[0].answer->schema == verdict_schema().json());
  CHECK(requests[0].answer->name == "answer");
}

TEST_CASE("a turn without an answer schema sends no answer format and returns no answer") {
  auto fx = faux_agent({faux::text_response(R"({"verdict":"approve"})")});
  auto r = run_on(fx.agent, Turn("review"));
  REQUIRE(r);
  CHECK_FALSE(r->answer);
  CHECK_FALSE(fx.faux->requests()[0].answer);
}

TEST_CASE("optional members a strict mode sends as null are dropped from the answer") {
  auto fx = faux_agent({faux::text_response(R"({"verdict":"reject","score":null})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(r->answer);
  CHECK(*r->answer == parsed(R"({"verdict":"reject"})"));
}

TEST_CASE("an invalid answer goes back to the model with its exact violations and is repaired") {
  auto fx = faux_agent({faux::text_response(R"({"verdict":"maybe","score":4})"),
                        faux::text_response(R"({"verdict":"reject","score":2})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  REQUIRE(r->answer);
  CHECK((*r->answer)["verdict"] == json::Value("reject"));
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  const std::string note = last_user_text(requests[1]);
  CHECK(note.find("$.verdict") != std::string::npos);
  CHECK(note.find("maybe") != std::string::npos);
  CHECK(r->turn_count == 2);
}

TEST_CASE("an answer that is not JSON is a violation at the root, then repaired") {
  auto fx = faux_agent(
      {faux::text_response("Sure! I approve."), faux::text_response(R"({"verdict":"approve"})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(r->answer);
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  CHECK(last_user_text(requests[1]).find("- $: the answer is not JSON") != std::string::npos);
}

TEST_CASE(
    "a model that keeps answering invalidly stops with invalid_answer, the answer and its "
    "violations") {
  auto fx = faux_agent({faux::text_response(R"({"verdict":"approve","score":9})"),
                        faux::text_response(R"({"verdict":"approve","score":8})"),
                        faux::text_response(R"({"verdict":"approve","score":7})"),
                        faux::text_response("never reached")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::invalid_answer);
  CHECK(to_string(r->stop_reason) == "invalid_answer");
  CHECK_FALSE(r->answer);
  CHECK(fx.faux->request_count() == 3);  // the answer and the two default repairs
  CHECK(r->final_text == R"({"verdict":"approve","score":7})");
  REQUIRE(r->answer_violations.size() == 1);
  CHECK(r->answer_violations[0].path == "$.score");
}

TEST_CASE("the number of repair turns is configurable, zero included") {
  auto fx = faux_agent({faux::text_response(R"({"verdict":"no"})"),
                        faux::text_response(R"({"verdict":"approve"})")});
  auto r = run_on(fx.agent, typed_turn("review", verdict_schema(), 0));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::invalid_answer);
  CHECK(fx.faux->request_count() == 1);
}

TEST_CASE("tool turns are not constrained and every offered tool stays callable") {
  auto tool = counting_tool("lookup", "found it");
  auto fx = faux_agent({faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")},
                                                 StopReason::tool_use, "not JSON, and no matter"),
                        faux::text_response(R"({"verdict":"approve"})")},
                       {tool.definition});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(tool.calls->load() == 1);
  REQUIRE(r->answer);
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  for (const auto& req : requests) {
    CHECK(std::find(req.tool_names.begin(), req.tool_names.end(), "lookup") !=
          req.tool_names.end());
  }
}

TEST_CASE("a refusal ends the run as a refusal, without an answer and without repair turns") {
  auto fx = faux_agent({faux::text_response("I can't help with that.", StopReason::refusal),
                        faux::text_response(R"({"verdict":"approve"})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::refusal);
  CHECK_FALSE(r->answer);
  CHECK(fx.faux->request_count() == 1);
}

TEST_CASE("an answer violating a bound the wire's dialect lowers away is still enforced locally") {
  // Anthropic's dialect removes minimum/maximum from what is sent; the loop still enforces them.
  auto lowered = lower_schema(verdict_schema().json(), SchemaDialect::anthropic);
  REQUIRE(lowered);
  CHECK(json::dump(lowered->schema).find("\"minimum\"") == std::string::npos);
  auto fx = wire_agent("faux", json::Object{},
                       {faux::text_response(R"({"verdict":"approve","score":0})"),
                        faux::text_response(R"({"verdict":"approve","score":1})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(fx.faux->request_count() == 2);
  CHECK(last_user_text(fx.faux->requests()[1]).find("$.score") != std::string::npos);
  REQUIRE(r->answer);
  CHECK((*r->answer)["score"] == json::Value::number("1").value());
}

// ---- Bad input at run start ------------------------------------------------------------------

TEST_CASE("a schema the wire cannot express fails the run at its start, before anything is sent") {
  // The faux provider answers for the row's api, so the row's catalog facts decide.
  RuntimeConfig rt2;
  Model m;
  m.id = "gpt-test";
  m.vendor = "openai";
  m.api = "openai-responses";
  rt2.model.descriptor = m;
  auto provider = std::make_shared<faux::FauxProvider>(
      std::vector<faux::FauxResponse>{faux::text_response("{}")});
  rt2.providers.add("openai-responses", provider);
  AgentDefinition def;
  auto agent = make_agent(def, rt2);
  REQUIRE(agent);
  auto session = agent->start();
  REQUIRE(session);

  SECTION("an open object") {
    Schema open = schema::object({schema::required("tags", schema::string())});
    open.allow_additional_properties();
    auto r = session->run(typed_turn("review", open));
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::invalid_argument);
    CHECK(r.error().message.find("openai_strict") != std::string::npos);
    CHECK(r.error().message.find("gpt-test") != std::string::npos);
  }
  SECTION("a root that is not an object") {
    auto r = session->run(typed_turn("review", schema::array(schema::string())));
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("root must be an object") != std::string::npos);
  }
  CHECK(provider->request_count() == 0);
  // Nothing was recorded: the session runs the next turn normally.
  auto next = session->run(Turn("hello"));
  REQUIRE(next);
  CHECK(next->messages.size() == 2);
}

TEST_CASE("an answer schema with a malformed name or a tool's name is refused at run start") {
  auto tool = counting_tool("answer");
  auto fx = wire_agent("faux", json::Object{{"structured_output", "tool"}},
                       {faux::text_response("{}")}, {tool.definition});
  Turn bad = typed_turn("review");
  bad.answer->name = "has space";
  auto r = run_on(fx.agent, bad);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("has space") != std::string::npos);
  auto clash = run_on(fx.agent, typed_turn("review"));
  REQUIRE_FALSE(clash);
  CHECK(clash.error().message.find("also a tool") != std::string::npos);
  CHECK(fx.faux->request_count() == 0);
}

// ---- The final-answer tool fallback ------------------------------------------------------------

TEST_CASE("without a native mode the answer comes through a final-answer tool") {
  auto fx = wire_agent("faux", json::Object{{"structured_output", "tool"}},
                       {faux::tool_call_response({faux::tool_call(
                           "a1", "answer", R"({"verdict":"approve","score":3})")})});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(r->stop_reason == RunStopReason::stop);
  REQUIRE(r->answer);
  CHECK(*r->answer == parsed(R"({"verdict":"approve","score":3})"));
  CHECK(r->final_text == R"({"verdict":"approve","score":3})");
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 1);
  CHECK_FALSE(requests[0].answer);
  CHECK(requests[0].tool_names == std::vector<std::string>{"answer"});
  CHECK_FALSE(requests[0].tool_choice);  // free on the first turn
  const ToolResultMessage* result = result_for(r->messages, "a1");
  REQUIRE(result);  // the transcript stays valid: every call has its result
  CHECK_FALSE(result->is_error);
}

TEST_CASE(
    "an invalid final-answer call is answered with its violations and the tool is forced next") {
  auto fx = wire_agent(
      "faux", json::Object{{"structured_output", "tool"}},
      {faux::tool_call_response({faux::tool_call("a1", "answer", R"({"verdict":"perhaps"})")}),
       faux::tool_call_response({faux::tool_call("a2", "answer", R"({"verdict":"reject"})")})});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(r->answer);
  const ToolResultMessage* first = result_for(r->messages, "a1");
  REQUIRE(first);
  CHECK(first->is_error);
  CHECK(text_of(first->content).find("$.verdict") != std::string::npos);
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  REQUIRE(requests[1].tool_choice);
  CHECK(requests[1].tool_choice->mode == ToolChoice::Mode::tool);
  CHECK(requests[1].tool_choice->tool_name == "answer");
}

TEST_CASE("a final-answer call beside other calls runs them too, and the answer ends the run") {
  auto tool = counting_tool("lookup");
  auto fx = wire_agent(
      "faux", json::Object{{"structured_output", "tool"}},
      {faux::tool_call_response({faux::tool_call("c1", "lookup", "{}"),
                                 faux::tool_call("a1", "answer", R"({"verdict":"approve"})")}),
       faux::text_response("never reached")},
      {tool.definition});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  CHECK(tool.calls->load() == 1);
  REQUIRE(r->answer);
  CHECK(result_for(r->messages, "c1"));
  CHECK(result_for(r->messages, "a1"));
  CHECK(fx.faux->request_count() == 1);
}

TEST_CASE(
    "a plain-text answer in tool mode is accepted when valid, else repaired toward the tool") {
  auto fx = wire_agent("faux", json::Object{{"structured_output", "tool"}},
                       {faux::text_response("I would approve."),
                        faux::text_response("```json\n{\"verdict\":\"approve\"}\n```")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(r->answer);
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  CHECK(last_user_text(requests[1]).find("no call of the 'answer' tool") != std::string::npos);
  REQUIRE(requests[1].tool_choice);
  CHECK(requests[1].tool_choice->tool_name == "answer");
}

TEST_CASE("the final-answer tool is forced on the last turn max_turns allows") {
  auto tool = counting_tool("lookup");
  RuntimeConfig rt;
  rt.loop.max_turns = 2;
  auto fx = wire_agent(
      "faux", json::Object{{"structured_output", "tool"}},
      {faux::tool_call_response({faux::tool_call("c1", "lookup", "{}")}),
       faux::tool_call_response({faux::tool_call("a1", "answer", R"({"verdict":"approve"})")})},
      {tool.definition}, rt);
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(r->answer);
  auto requests = fx.faux->requests();
  REQUIRE(requests.size() == 2);
  CHECK_FALSE(requests[0].tool_choice);
  REQUIRE(requests[1].tool_choice);
  CHECK(requests[1].tool_choice->tool_name == "answer");
}

TEST_CASE(
    "a wire whose native mode excludes tools uses the final-answer tool when tools are offered") {
  auto tool = counting_tool("lookup");
  auto with_tools =
      wire_agent("faux", json::Object{{"structured_output_with_tools", false}},
                 {faux::text_response(R"({"verdict":"approve"})")}, {tool.definition});
  REQUIRE(run_on(with_tools.agent, typed_turn("review")));
  auto req = with_tools.faux->requests().at(0);
  CHECK_FALSE(req.answer);
  CHECK(std::find(req.tool_names.begin(), req.tool_names.end(), "answer") != req.tool_names.end());

  auto without_tools = wire_agent("faux", json::Object{{"structured_output_with_tools", false}},
                                  {faux::text_response(R"({"verdict":"approve"})")});
  REQUIRE(run_on(without_tools.agent, typed_turn("review")));
  CHECK(without_tools.faux->requests().at(0).answer);
}

TEST_CASE("JSON mode puts the schema into the instructions and still validates locally") {
  auto fx = wire_agent("faux", json::Object{{"structured_output", "json_object"}},
                       {faux::text_response(R"({"verdict":"approve"})")});
  auto r = run_on(fx.agent, typed_turn("review"));
  REQUIRE(r);
  REQUIRE(r->answer);
  auto req = fx.faux->requests().at(0);
  CHECK(req.answer);
  CHECK(req.system.find(R"("verdict")") != std::string::npos);
}
