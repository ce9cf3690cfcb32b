// Subagent spans (issue 12, left open by issue 16): a child's invoke_agent span is a child of
// the parent's execute_tool span for the delegating call, in the same trace.
#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/subagent.hpp"
#include "agentkit/telemetry/tracer.hpp"
#include "support/catch.hpp"

using namespace agentkit;
namespace faux = agentkit::providers;
namespace otel = agentkit::telemetry;

TEST_CASE("a subagent's invoke_agent span is a child of the parent's execute_tool span") {
  auto provider = std::make_shared<faux::FauxProvider>([](const Request& r) {
    if (r.system.find("PARENT") == std::string::npos) return faux::text_response("child done");
    bool answered = false;
    for (const auto& m : r.messages)
      answered = answered || std::holds_alternative<ToolResultMessage>(m);
    if (answered) return faux::text_response("parent done");
    return faux::tool_call_response({faux::tool_call("call_1", "helper", R"({"prompt":"x"})")});
  });
  auto exporter = std::make_shared<otel::MemoryExporter>();
  RuntimeConfig rt;
  rt.model.spec = "faux/test-model";
  rt.providers.add("faux", provider);
  rt.observability.tracing.tracer =
      otel::make_tracer({.service_name = "tests", .seed = 7}, exporter);
  rt.observability.tracing.agent_name = "lead";
  SubagentDefinition helper;
  helper.name = "helper";
  helper.description = "helps";
  helper.instructions = "CHILD";
  AgentDefinition def;
  def.instructions = "PARENT";
  def.tools.direct = {subagent_tool(helper)};
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  REQUIRE(agent->run("go"));

  auto spans = exporter->spans();
  const otel::SpanData* parent_run = nullptr;
  const otel::SpanData* tool = nullptr;
  const otel::SpanData* child_run = nullptr;
  for (const auto& s : spans) {
    if (s.name == "invoke_agent lead") parent_run = &s;
    if (s.name == "execute_tool helper") tool = &s;
    if (s.name == "invoke_agent helper") child_run = &s;
  }
  REQUIRE(parent_run);
  REQUIRE(tool);
  REQUIRE(child_run);
  CHECK(child_run->context.trace_id == parent_run->context.trace_id);
  REQUIRE(child_run->parent_span_id);
  CHECK(*child_run->parent_span_id == tool->context.span_id);
  // The child's chat span hangs under the child's run.
  int child_chats = 0;
  for (const auto& s : spans) {
    if (s.name.rfind("chat ", 0) == 0 && s.parent_span_id &&
        *s.parent_span_id == child_run->context.span_id)
      ++child_chats;
  }
  CHECK(child_chats == 1);
}
