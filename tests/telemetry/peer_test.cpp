// The differential against the official OpenTelemetry JS SDK (tests/telemetry/peers, pinned by
// its package-lock.json): our OTLP/HTTP JSON request for a scripted agent run, and the request the
// SDK's own OTLPTraceExporter sends for the same trace, agree on every field after the
// canonicalisation and the ledger of accepted differences in peers/replay_trace.mjs; and the
// protobuf JSON mapping generated from opentelemetry-proto decodes our body without loss
// (peers/decode_protobuf_json.mjs).
#include <filesystem>

#include "agentkit/agent.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/telemetry/otlp.hpp"
#include "support.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
using namespace agentkit::testing;
using namespace std::chrono_literals;
namespace faux = agentkit::providers;
namespace otel = agentkit::telemetry;

namespace {

bool peers_required() {
  const char* v = std::getenv("AGENTKIT_REQUIRE_INTEROP");
  return v != nullptr && std::string_view(v) == "1";
}

}  // namespace

TEST_CASE(
    "our OTLP request for a scripted run agrees with the official JS SDK's for the same trace") {
  const std::filesystem::path peers = AGENTKIT_TELEMETRY_PEERS;
  auto node = find_program("node");
  bool installed =
      std::filesystem::exists(
          peers / "node_modules/@opentelemetry/exporter-trace-otlp-http/package.json") &&
      std::filesystem::exists(peers / "node_modules/otlp-transformer-protobuf/package.json");
  if (!node || !installed) {
    if (peers_required())
      FAIL("the OpenTelemetry JS SDK is missing (run `npm ci` in tests/telemetry/peers)");
    WARN("SKIPPED: the OpenTelemetry JS SDK is missing (run `npm ci` in tests/telemetry/peers)");
    return;
  }
  otel::testing::Collector collector;
  otel::OtlpOptions o;
  o.endpoint = collector.url();
  o.export_metrics = false;
  auto otlp = std::make_shared<otel::OtlpHttpExporter>(o);

  auto first = faux::tool_call_response({faux::tool_call("call_1", "lookup", R"({"q":"a"})"),
                                         faux::tool_call("call_2", "broken", R"({})")});
  first.message.usage.input_tokens = 100;
  first.message.usage.output_tokens = 7;
  first.message.usage.cost.total = 0.25;
  first.message.response_id = "resp_1";
  auto provider = std::make_shared<faux::FauxProvider>(
      std::vector<faux::FauxResponse>{first, faux::text_response("done")});
  RuntimeConfig rt;
  rt.model.spec = "faux/test-model";
  rt.model.temperature = 0.5;
  rt.providers.add("faux", provider);
  rt.observability.tracing.tracer = otel::make_tracer({.service_name = "peer-test"}, otlp);
  rt.observability.tracing.agent_name = "coder";
  rt.observability.tracing.capture_content = true;  // every attribute type, strings with escapes
  AgentDefinition def;
  def.instructions = "line one\nline \"two\" \\ é ☃";
  for (auto [name, fail] : {std::pair{"lookup", false}, std::pair{"broken", true}}) {
    ToolDefinition t;
    t.name = name;
    t.input_schema = Schema();
    t.handler = [fail = fail](const json::Value&, const ToolContext&) {
      return fail ? ToolResult::failure("not_found", "nothing") : ToolResult::text_result("ok");
    };
    def.tools.direct.push_back(std::move(t));
  }
  auto agent = make_agent(def, rt).value();
  REQUIRE(agent.run(Input("find a")));
  REQUIRE(otlp->flush(10s));
  auto posts = collector.requests_to("/v1/traces");
  REQUIRE(posts.size() == 1);

  TempDir dir;
  auto ours = dir.write("ours.json", posts[0].body);
  auto report = dir.path() / "report.json";
  auto out =
      run_program({*node, (peers / "replay_trace.mjs").string(), ours.string(), report.string()});
  INFO(out.err);
  REQUIRE(out.exit_code == 0);
  json::Value r = json::parse(read_file(report)).value();
  CHECK(r.find("differences")->size() == 0);
  CHECK(r.find("content_type")->as_string() == "application/json");
  CHECK(r.find("sdk")->find("spans")->size() == 5);

  // The loopback receiver's decoder: the protobuf JSON mapping generated from opentelemetry-proto
  // reads our body, and nothing is lost through the binary wire format and back.
  auto decoded = dir.path() / "protobuf.json";
  auto proto = run_program(
      {*node, (peers / "decode_protobuf_json.mjs").string(), ours.string(), decoded.string()});
  INFO(proto.err);
  REQUIRE(proto.exit_code == 0);
  json::Value d = json::parse(read_file(decoded)).value();
  INFO(json::dump(d));
  CHECK(d.find("differences")->size() == 0);
  CHECK(d.find("spans")->to_int64() == std::optional<std::int64_t>(5));
}
