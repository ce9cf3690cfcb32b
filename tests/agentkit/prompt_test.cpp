// The system prompt that reaches the provider is the assembler's, with the skills and context
// files discovered on disk, and the agent_start event lists the skills (the audit record).
// Test IDs: REQ-SKILL-06, REQ-SKILL-11 / REQ-OBS-04, REQ-CTX-04.
#include <filesystem>
#include <string>

#include "agentkit/agent.hpp"
#include "agentkit/prompt.hpp"
#include "agentkit/providers/faux.hpp"
#include "agentkit/skills/discovery.hpp"
#include "harness.hpp"
#include "support/catch.hpp"
#include "support/fixtures.hpp"

using namespace agentkit;
namespace fs = std::filesystem;
namespace faux = agentkit::providers;

namespace {

AgentDefinition fixture_definition(bool trusted) {
  const fs::path project = fs::path(AGENTKIT_SOURCE_DIR) / "tests/skills/fixtures/project";
  skills::DiscoveryOptions d;
  d.project_root = project;
  d.trust_project = trusted;
  d.user_tier = false;
  skills::ContextFileOptions c;
  c.working_dir = project;
  c.project_root = project;
  c.trust_project = trusted;
  c.user_tier = false;
  AgentDefinition def;
  def.instructions = "You are the fixture agent.";
  def.skills = skills::discover_skills(d).definitions();
  def.context_files = skills::load_context_files(c).files;
  def.tools.direct = {agentkit::testing::counting_tool("lookup").definition};
  def.tools.direct[0].prompt_guidelines = "Look things up before guessing.";
  return def;
}

// The read_skill answer of the first tool result in a run.
json::Value read_skill_answer(const RunResult& r) {
  for (const auto& m : r.messages) {
    if (const auto* t = std::get_if<ToolResultMessage>(&m)) {
      return json::parse(text_of(t->content)).value().find("results")->as_array().at(0);
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the system prompt the provider receives is the assembled prompt of the definition") {
  AgentDefinition def = fixture_definition(true);
  const skills::AssembledPrompt record = system_prompt_record(def);
  auto log = std::make_shared<agentkit::testing::EventLog>();
  auto provider = std::make_shared<providers::FauxProvider>(
      std::vector<providers::FauxResponse>{faux::text_response("ok")});
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  rt.observability.observers.push_back(log->observer());
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  REQUIRE(agent->run("hi"));
  REQUIRE(provider->requests().size() == 1);
  const std::string sent = provider->requests()[0].system;
  CHECK(sent == record.text);
  CHECK(sent.find("<context_file path=") != std::string::npos);
  CHECK(sent.find("- name: pdf") != std::string::npos);
  CHECK(sent.find("&lt;/available_skills&gt;") != std::string::npos);  // the review skill, escaped
  CHECK(sent.find("## lookup\nLook things up before guessing.") != std::string::npos);
  CHECK(record.skill_names == std::vector<std::string>{"pdf", "review"});
  bool saw_start = false;
  for (const auto& e : log->events()) {
    if (const auto* start = std::get_if<AgentStartEvent>(&e)) {
      saw_start = true;
      CHECK(start->skills == std::vector<std::string>{"pdf", "review"});
    }
  }
  CHECK(saw_start);
}

TEST_CASE("an untrusted project's skills and context files never reach the provider") {
  AgentDefinition def = fixture_definition(false);
  CHECK(def.skills.empty());
  CHECK(def.context_files.empty());
  auto provider = std::make_shared<providers::FauxProvider>(
      std::vector<providers::FauxResponse>{faux::text_response("ok")});
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  REQUIRE(agent->run("hi"));
  const std::string sent = provider->requests()[0].system;
  CHECK(sent.find("available_skills") == std::string::npos);
  CHECK(sent.find("Fixture project") == std::string::npos);
}

TEST_CASE("read_skill lists and reads a discovered skill's bundled files from disk on demand") {
  agentkit::testing::TempDir dir;
  dir.write("skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\n");
  dir.write("skills/pdf/scripts/fill.py", "print('as loaded')\n");
  skills::DiscoveryOptions d;
  d.user_tier = false;
  d.folders = {dir.path() / "skills"};
  AgentDefinition def;
  def.skills = skills::discover_skills(d).definitions();
  REQUIRE(def.skills.size() == 1);
  const std::string location = (dir.path() / "skills/pdf/SKILL.md").string();
  CHECK(def.skills[0].location == location);
  CHECK(def.skills[0].files.empty());
  auto provider = std::make_shared<providers::FauxProvider>(std::vector<providers::FauxResponse>{
      faux::tool_call_response(
          {faux::tool_call("c1", "read_skill", R"({"skills":[{"name":"pdf"}]})")}),
      faux::text_response("ok"),
      faux::tool_call_response({faux::tool_call(
          "c2", "read_skill", R"({"skills":[{"name":"pdf","path":"scripts/fill.py"}]})")}),
      faux::text_response("ok"),
      faux::tool_call_response({faux::tool_call(
          "c3", "read_skill", R"({"skills":[{"name":"pdf","path":"../../escape.txt"}]})")}),
      faux::text_response("ok")});
  RuntimeConfig rt;
  rt.model.spec = "faux/test";
  rt.providers.add("faux", provider);
  auto agent = make_agent(std::move(def), std::move(rt));
  REQUIRE(agent);
  dir.write("skills/pdf/scripts/fill.py", "print('changed since')\n");  // after make_agent
  dir.write("skills/pdf/references/new.md", "added since");
  dir.write("escape.txt", "outside");
  auto s = agent->start();
  REQUIRE(s);
  const json::Value top = read_skill_answer(*s->run("read the skill"));
  CHECK(top.find("content")->as_string() == "# PDF\n");
  CHECK(top.find("source")->as_string() == "disk");
  CHECK(top.find("location")->as_string() == location);
  CHECK(json::dump(*top.find("available_files")) ==
        R"(["SKILL.md","references/new.md","scripts/fill.py"])");
  const json::Value file = read_skill_answer(*s->run("read the script"));
  REQUIRE(file.find("content") != nullptr);
  CHECK(file.find("content")->as_string() == "print('changed since')\n");
  const json::Value escape = read_skill_answer(*s->run("escape"));
  CHECK(escape.find("content") == nullptr);
  CHECK(escape.find("error") != nullptr);
  CHECK(provider->requests()[0].system.find("  location: " + location + "\n") != std::string::npos);
}

TEST_CASE("an attached skill's catalog location says to read it with read_skill") {
  auto fx = agentkit::testing::faux_agent({faux::text_response("ok")}, {}, RuntimeConfig{},
                                          {Skill{"style", "House style", "Be terse.", {}}});
  REQUIRE(fx.agent.run("hi"));
  const std::string sent = fx.faux->requests()[0].system;
  CHECK(sent.find("- name: style\n  description: House style\n  location: attached to the agent "
                  "(no file); read it with read_skill\n") != std::string::npos);
}
